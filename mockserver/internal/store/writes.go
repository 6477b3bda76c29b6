package store

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/skolkit/skolkit/model"
)

// Writer is one write transaction: what it puts and deletes becomes visible
// together when the function given to Write returns nil, and not at all
// otherwise.
type Writer struct {
	t   *tx
	now time.Time
	sn  *Snapshot
	by  *string // who writes: meta.createdBy / updatedBy of what it puts
	// kinds names what a record that Delete removes was (SetDeletionKinds).
	kinds func(table string, rec any) []string
	// change is what the transaction changed (changes.go).
	change Change
}

// Write runs fn in one write transaction and commits it when fn returns nil.
func (s *Store) Write(fn func(w *Writer) error) error {
	return s.WriteBy("", fn)
}

// WriteBy is Write on behalf of an actor (an API client's id): the records
// the transaction creates get it as meta.CreatedBy, and the records it
// changes as meta.UpdatedBy. An empty actor is nobody (nil).
func (s *Store) WriteBy(by string, fn func(w *Writer) error) error {
	t := s.newTx(true)
	defer t.txn.Abort()
	w := &Writer{t: t, now: s.clock(), kinds: s.kinds}
	if by != "" {
		w.by = &by
	}
	if err := fn(w); err != nil {
		return err
	}
	s.commit(t.txn.Commit)
	w.change.At = w.now
	s.publish(w.change)
	return nil
}

// Read returns a view of the transaction's state, writes included.
func (w *Writer) Read() *Snapshot {
	if w.sn == nil {
		w.sn = &Snapshot{t: w.t}
	}
	return w.sn
}

// Now is the instant the transaction stamps on what it changes.
func (w *Writer) Now() time.Time { return w.now }

// Put creates the record or replaces the one with the same id in the table
// that holds records of type T; see putIn.
func Put[T any](w *Writer, rec T) (T, bool, error) {
	td := w.t.schema.byType[reflect.TypeFor[T]()]
	if td == nil {
		var zero T
		return zero, false, fmt.Errorf("store: no table holds records of type %T", rec)
	}
	return putIn(w, td.decl.(*Table[T]), rec)
}

// put runs putIn in a transaction of its own.
func put[T any](s *Store, rec T) (T, bool, error) {
	var out T
	var created bool
	err := s.Write(func(w *Writer) error {
		var err error
		out, created, err = Put(w, rec)
		return err
	})
	return out, created, err
}

// ref is a reference a record holds: the JSON path of the reference (with
// %d for the position at, when at >= 0), the table it points into and the id.
type ref struct {
	field, table, id string
	at               int
}

// err is the RefError of the reference dangling.
func (r ref) err() *RefError {
	field := r.field
	if r.at >= 0 {
		field = fmt.Sprintf(field, r.at)
	}
	return &RefError{Field: field, ID: r.id}
}

// putIn creates the record or replaces the one with the same id. The store
// maintains meta: a new record gets created = modified = now; a replaced
// record keeps its created, and its modified moves (to now, and always
// strictly forward) only when an attribute changed. Every reference must name
// an existing record (RefError otherwise) and the table's rules must hold
// (ConflictError, RuleError otherwise). It returns the stored record and
// whether it was created.
func putIn[T any](w *Writer, k *Table[T], rec T) (T, bool, error) {
	var zero T
	t := w.t
	if k.Strip != nil {
		k.Strip(&rec)
	}
	if err := k.check(t, &rec); err != nil {
		return zero, false, err
	}
	if k.Conflict != nil {
		if err := k.Conflict(w.Read(), &rec); err != nil {
			return zero, false, err
		}
	}
	if k.Derive != nil {
		k.Derive(w.Read(), &rec)
	}
	now := w.now
	m := k.Meta(&rec)
	old, exists := getAs[T](t, k.Name, k.ID(&rec))
	if exists {
		om := k.Meta(old)
		m.Created, m.Modified, m.CreatedBy, m.UpdatedBy = om.Created, om.Modified, om.CreatedBy, om.UpdatedBy
		if !sameAttributes(k, old, &rec) {
			m.Modified = now
			if !m.Modified.After(om.Modified) {
				m.Modified = om.Modified.Add(time.Millisecond)
			}
			m.UpdatedBy = w.by
		}
	} else {
		m.Created, m.Modified = now, now
		m.CreatedBy, m.UpdatedBy = w.by, w.by
	}
	stored := rec
	if err := t.insert(t.schema.table(k.Name), &stored); err != nil {
		return zero, false, err
	}
	if k.Cascade != nil {
		var prev *T
		if exists {
			prev = old
		}
		if err := k.Cascade(w, prev, &stored); err != nil {
			return zero, false, err
		}
	}
	if !exists || !m.Modified.Equal(k.Meta(old).Modified) {
		// Interface B saw nothing when it shows the record neither before
		// nor after the write (a grade without a value, ...).
		hiddenNow := k.hidden(&stored)
		hiddenBefore := !exists || k.hidden(old)
		w.note(k.Name, k.ID(&stored), false, hiddenBefore && hiddenNow)
		if exists && !k.hidden(old) && hiddenNow {
			// B showed it and no longer does: for B's clients it went away
			// (a deletion in the commit report, and in deletedEntities).
			if err := w.tombstone(k.Name, k.ID(&stored), model.KindLeftRegister, false); err != nil {
				return zero, false, err
			}
			w.note(k.Name, k.ID(&stored), true, false)
		}
	}
	return stored, !exists, nil
}

func sameAttributes[T any](k *Table[T], a, b *T) bool {
	x, y := *a, *b
	*k.Meta(&x), *k.Meta(&y) = model.Meta{}, model.Meta{}
	return reflect.DeepEqual(x, y)
}

// check reports the first reference of rec that names no record.
func (k *Table[T]) check(t *tx, rec *T) error {
	if len(k.Refs) == 0 {
		return nil
	}
	refs, _ := k.refs(rec, nil, nil)
	for _, r := range refs {
		if t.get(r.table, r.id) == nil {
			return r.err()
		}
	}
	return nil
}

// Delete removes the record with the id from a table; ErrNotFound if none,
// ConflictError if other records still refer to it. The records that go
// with it (Ref.Cascade) are deleted first, in the same transaction.
func (w *Writer) Delete(table, id string) error {
	td := w.t.schema.table(table)
	if td == nil {
		return fmt.Errorf("store: no table %q", table)
	}
	if w.t.get(table, id) == nil {
		return ErrNotFound
	}
	refused := func(refs []string) error {
		return &ConflictError{Message: fmt.Sprintf("%s %s is still referred to by %s", strings.TrimSuffix(table, "s"), id, strings.Join(refs, ", "))}
	}
	blocking, cascade := referrers(w.t, table, id)
	if len(blocking) > 0 {
		return refused(blocking)
	}
	for _, c := range cascade {
		if err := w.Delete(c.table, c.id); err != nil {
			return err
		}
	}
	if blocking, _ := referrers(w.t, table, id); len(blocking) > 0 {
		return refused(blocking)
	}
	kinds := []string{table}
	rec := w.t.get(table, id)
	if w.kinds != nil {
		if ks := w.kinds(table, rec); len(ks) > 0 {
			kinds = ks
		}
	}
	isHidden := td.decl.hidden(rec)
	if err := w.t.delete(td, id); err != nil {
		return err
	}
	w.note(table, id, true, isHidden)
	for _, k := range kinds {
		if err := w.tombstone(table, id, k, isHidden); err != nil {
			return err
		}
	}
	return nil
}

// held is a record that holds a reference.
type held struct{ table, id string }

// referrers names the records that refer to the record and refuse its
// deletion ("2 placement(s) as child"), and lists those that go with it
// (Ref.Cascade), from every table's references into the table.
func referrers(t *tx, table, id string) (blocking []string, cascade []held) {
	sn := &Snapshot{t: t}
	for _, r := range t.schema.referrers[table] {
		n := 0
		td := t.schema.table(r.table)
		visit := func(rec any) bool {
			if r.cascade != nil && r.cascade(rec) {
				cascade = append(cascade, held{r.table, td.id(rec)})
			} else {
				n++
			}
			return true
		}
		switch {
		case r.count != nil:
			n = r.count(sn, id)
		case r.index != "":
			_ = t.scan(td, r.index, id, visit)
		default:
			_ = t.scan(td, IndexID, "", func(rec any) bool {
				if r.holds(rec, id) {
					visit(rec)
				}
				return true
			})
		}
		if n > 0 {
			blocking = append(blocking, fmt.Sprintf("%d %s", n, r.label))
		}
	}
	return blocking, cascade
}
