package store

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// Dataset is the whole state of a store, table by table: the record set
// the fixtures generate.
type Dataset = fixtures.Dataset

// ErrNotFound is returned by writes to a record that does not exist.
var ErrNotFound = errors.New("record not found")

// RefError reports a reference to a record that does not exist.
type RefError struct {
	Field string // JSON path of the reference, e.g. "child.id"
	ID    string
}

func (e *RefError) Error() string {
	return fmt.Sprintf("%s: no record with id %q", e.Field, e.ID)
}

// Store is the in-memory state of one mock server. It is safe for concurrent
// use: reads see consistent snapshots and writes are serialised by go-memdb.
type Store struct {
	dbp   atomic.Pointer[memdb.MemDB]
	now   func() time.Time
	walks *walkRegistry
}

// loadBatch is how many records Load inserts per transaction: small enough
// that go-immutable-radix's cache of writable nodes (8192) does not thrash.
const loadBatch = 500

// newDB returns an empty database. It is a snapshot database: go-memdb tracks
// mutations (one channel per radix node, closed on commit) only on a primary
// database, for watches, and the store uses no watches. Skipping that makes
// writes several times faster and nodes smaller.
func newDB() *memdb.MemDB {
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		// The schema is a constant value; an invalid one is a programming
		// error that every test catches.
		panic(fmt.Sprintf("store: invalid schema: %v", err))
	}
	return db.Snapshot()
}

func (s *Store) db() *memdb.MemDB { return s.dbp.Load() }

// New returns an empty store whose meta timestamps come from now.
func New(now func() time.Time) *Store {
	s := &Store{now: now, walks: newWalkRegistry(defaultWalkCapacity, defaultWalkIdle)}
	s.dbp.Store(newDB())
	return s
}

// Load replaces the whole content of the store with ds, keeping the meta
// timestamps the records carry (a record with zero meta is stamped now). It
// checks every reference, and if one dangles it returns the error and the
// store keeps its old content. Writes made while Load runs are lost with the
// old content.
func (s *Store) Load(ds *Dataset) error {
	db := newDB()
	now := s.clock()
	stamp := func(m *model.Meta) {
		if m.Created.IsZero() {
			m.Created = now
		}
		if m.Modified.IsZero() {
			m.Modified = m.Created
		}
	}
	b := &batcher{db: db}
	// Insert parents before children so that reference checks see them.
	steps := []func() error{
		func() error { return loadAll(b, organisations, ds.Organisations, stamp) },
		func() error { return loadAll(b, persons, ds.Persons, stamp) },
		func() error { return loadAll(b, syllabuses, ds.Syllabuses, stamp) },
		func() error { return loadAll(b, groups, ds.Groups, stamp) },
		func() error { return loadAll(b, placements, ds.Placements, stamp) },
		func() error { return loadAll(b, calendarEvents, ds.CalendarEvents, stamp) },
		func() error { return loadAll(b, attendances, ds.Attendances, stamp) },
		func() error { return loadAll(b, absences, ds.Absences, stamp) },
		func() error { return loadAll(b, employeePlacements, ds.EmployeePlacements, stamp) },
		func() error { return loadAll(b, gradesElementary, ds.GradesElementary, stamp) },
		func() error { return loadAll(b, gradesUpperSecondary, ds.GradesUpperSecondary, stamp) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			b.abort()
			return err
		}
	}
	b.commit()
	// Records that refer to records of their own table (organisations'
	// parents, persons' responsibles) are checked once all are in.
	txn := db.Txn(false)
	for _, check := range []func(*memdb.Txn) error{organisations.checkAll, persons.checkAll} {
		if err := check(txn); err != nil {
			return err
		}
	}
	s.dbp.Store(db)
	return nil
}

// batcher spreads a bulk load over transactions of loadBatch records.
type batcher struct {
	db  *memdb.MemDB
	txn *memdb.Txn
	n   int
}

func (b *batcher) current() *memdb.Txn {
	if b.txn == nil {
		b.txn = b.db.Txn(true)
	}
	return b.txn
}

func (b *batcher) inserted() {
	if b.n++; b.n%loadBatch == 0 {
		b.commit()
	}
}

func (b *batcher) commit() {
	if b.txn != nil {
		b.txn.Commit()
		b.txn = nil
	}
}

func (b *batcher) abort() {
	if b.txn != nil {
		b.txn.Abort()
		b.txn = nil
	}
}

// Export returns every record of the store, each table in id order.
func (s *Store) Export() *Dataset {
	sn := s.Read()
	return &Dataset{
		Organisations:  all(sn.txn, organisations),
		Persons:        all(sn.txn, persons),
		Groups:         all(sn.txn, groups),
		Placements:     all(sn.txn, placements),
		Syllabuses:     all(sn.txn, syllabuses),
		CalendarEvents: all(sn.txn, calendarEvents),
		Attendances:    all(sn.txn, attendances),
		Absences:       all(sn.txn, absences),

		EmployeePlacements:   all(sn.txn, employeePlacements),
		GradesElementary:     all(sn.txn, gradesElementary),
		GradesUpperSecondary: all(sn.txn, gradesUpperSecondary),
	}
}

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Snapshot is a consistent, read-only view of the store at one instant.
// Records it returns are shared with the store and must not be modified.
type Snapshot struct {
	txn *memdb.Txn
}

// Read returns a snapshot of the current state.
func (s *Store) Read() *Snapshot { return &Snapshot{txn: s.db().Txn(false)} }

// Organisation returns the organisation with the id, if any.
func (sn *Snapshot) Organisation(id string) (*model.Organisation, bool) {
	return first(sn.txn, organisations, id)
}

// Person returns the person with the id, if any.
func (sn *Snapshot) Person(id string) (*model.Person, bool) { return first(sn.txn, persons, id) }

// Group returns the group with the id, if any.
func (sn *Snapshot) Group(id string) (*model.Group, bool) { return first(sn.txn, groups, id) }

// Placement returns the placement with the id, if any.
func (sn *Snapshot) Placement(id string) (*model.Placement, bool) {
	return first(sn.txn, placements, id)
}

// Syllabus returns the syllabus with the id, if any.
func (sn *Snapshot) Syllabus(id string) (*model.Syllabus, bool) {
	return first(sn.txn, syllabuses, id)
}

// CalendarEvent returns the calendar event with the id, if any.
func (sn *Snapshot) CalendarEvent(id string) (*model.CalendarEvent, bool) {
	return first(sn.txn, calendarEvents, id)
}

// Attendance returns the attendance record with the id, if any.
func (sn *Snapshot) Attendance(id string) (*model.Attendance, bool) {
	return first(sn.txn, attendances, id)
}

// Absence returns the absence record with the id, if any.
func (sn *Snapshot) Absence(id string) (*model.Absence, bool) {
	return first(sn.txn, absences, id)
}

// EmployeePlacement returns the employee placement with the id, if any.
func (sn *Snapshot) EmployeePlacement(id string) (*model.EmployeePlacement, bool) {
	return first(sn.txn, employeePlacements, id)
}

// GradeElementary returns the elementary grade with the id, if any.
func (sn *Snapshot) GradeElementary(id string) (*model.GradeElementary, bool) {
	return first(sn.txn, gradesElementary, id)
}

// GradeUpperSecondary returns the upper-secondary grade with the id, if any.
func (sn *Snapshot) GradeUpperSecondary(id string) (*model.GradeUpperSecondary, bool) {
	return first(sn.txn, gradesUpperSecondary, id)
}

// Count returns the number of records in a table.
func (sn *Snapshot) Count(table string) int {
	it, err := sn.txn.Get(table, IndexID)
	if err != nil {
		return 0
	}
	n := 0
	for it.Next() != nil {
		n++
	}
	return n
}

// PutOrganisation creates or replaces an organisation; see put.
func (s *Store) PutOrganisation(r model.Organisation) (model.Organisation, bool, error) {
	return put(s, organisations, r)
}

// PutPerson creates or replaces a person; see put.
func (s *Store) PutPerson(r model.Person) (model.Person, bool, error) { return put(s, persons, r) }

// PutGroup creates or replaces a group; see put.
func (s *Store) PutGroup(r model.Group) (model.Group, bool, error) { return put(s, groups, r) }

// PutPlacement creates or replaces a placement; see put.
func (s *Store) PutPlacement(r model.Placement) (model.Placement, bool, error) {
	return put(s, placements, r)
}

// PutSyllabus creates or replaces a syllabus; see put.
func (s *Store) PutSyllabus(r model.Syllabus) (model.Syllabus, bool, error) {
	return put(s, syllabuses, r)
}

// PutCalendarEvent creates or replaces a calendar event; see put.
func (s *Store) PutCalendarEvent(r model.CalendarEvent) (model.CalendarEvent, bool, error) {
	return put(s, calendarEvents, r)
}

// PutAttendance creates or replaces an attendance record; see put.
func (s *Store) PutAttendance(r model.Attendance) (model.Attendance, bool, error) {
	return put(s, attendances, r)
}

// PutAbsence creates or replaces an absence record; see put.
func (s *Store) PutAbsence(r model.Absence) (model.Absence, bool, error) {
	return put(s, absences, r)
}

// Delete removes the record with the id from a table in a transaction of its
// own; see Writer.Delete.
func (s *Store) Delete(table, id string) error {
	return s.Write(func(w *Writer) error { return w.Delete(table, id) })
}

// kind describes one table: how to find a record's id and meta, and which
// references it holds.
type kind[T any] struct {
	table string
	id    func(*T) string
	meta  func(*T) *model.Meta
	// strip clears what is not an attribute of the record itself (rendered
	// _embedded data), before comparing and storing.
	strip func(*T)
	// refs lists the references of a record as (JSON path, table, id).
	refs func(*T) []ref
	// conflict checks the kind's uniqueness rules against the stored state.
	conflict func(txn *memdb.Txn, rec *T) error
}

type ref struct{ field, table, id string }

// put runs putIn in a transaction of its own.
func put[T any](s *Store, k kind[T], rec T) (T, bool, error) {
	var out T
	var created bool
	err := s.Write(func(w *Writer) error {
		var err error
		out, created, err = putIn(w, k, rec)
		return err
	})
	return out, created, err
}

// putIn creates the record or replaces the one with the same id. The store
// maintains meta: a new record gets created = modified = now; a replaced
// record keeps its created, and its modified moves (to now, and always
// strictly forward) only when an attribute changed. Every reference must name
// an existing record (RefError otherwise) and the kind's uniqueness rules must
// hold (ConflictError otherwise). It returns the stored record and whether it
// was created.
func putIn[T any](w *Writer, k kind[T], rec T) (T, bool, error) {
	var zero T
	txn := w.txn
	if k.strip != nil {
		k.strip(&rec)
	}
	if err := k.check(txn, &rec); err != nil {
		return zero, false, err
	}
	if k.conflict != nil {
		if err := k.conflict(txn, &rec); err != nil {
			return zero, false, err
		}
	}
	now := w.now
	m := k.meta(&rec)
	old, exists := first(txn, k, k.id(&rec))
	if exists {
		m.Created = k.meta(old).Created
		m.Modified = k.meta(old).Modified
		if !sameAttributes(k, old, &rec) {
			m.Modified = now
			if !m.Modified.After(k.meta(old).Modified) {
				m.Modified = k.meta(old).Modified.Add(time.Millisecond)
			}
		}
	} else {
		m.Created, m.Modified = now, now
	}
	stored := rec
	if err := txn.Insert(k.table, &stored); err != nil {
		return zero, false, err
	}
	return stored, !exists, nil
}

// Writer is one write transaction: what it puts and deletes becomes visible
// together when the function given to Write returns nil, and not at all
// otherwise.
type Writer struct {
	txn *memdb.Txn
	now time.Time
	sn  *Snapshot
}

// Write runs fn in one write transaction and commits it when fn returns nil.
func (s *Store) Write(fn func(w *Writer) error) error {
	txn := s.db().Txn(true)
	defer txn.Abort()
	w := &Writer{txn: txn, now: s.clock()}
	if err := fn(w); err != nil {
		return err
	}
	txn.Commit()
	return nil
}

// Read returns a view of the transaction's state, writes included.
func (w *Writer) Read() *Snapshot {
	if w.sn == nil {
		w.sn = &Snapshot{txn: w.txn}
	}
	return w.sn
}

// Now is the instant the transaction stamps on what it changes.
func (w *Writer) Now() time.Time { return w.now }

// PutOrganisation creates or replaces an organisation; see putIn.
func (w *Writer) PutOrganisation(r model.Organisation) (model.Organisation, bool, error) {
	return putIn(w, organisations, r)
}

// PutPerson creates or replaces a person; see putIn.
func (w *Writer) PutPerson(r model.Person) (model.Person, bool, error) { return putIn(w, persons, r) }

// PutGroup creates or replaces a group; see putIn.
func (w *Writer) PutGroup(r model.Group) (model.Group, bool, error) { return putIn(w, groups, r) }

// PutPlacement creates or replaces a placement; see putIn.
func (w *Writer) PutPlacement(r model.Placement) (model.Placement, bool, error) {
	return putIn(w, placements, r)
}

// PutEmployeePlacement creates or replaces an employee placement; see putIn.
func (w *Writer) PutEmployeePlacement(r model.EmployeePlacement) (model.EmployeePlacement, bool, error) {
	return putIn(w, employeePlacements, r)
}

// PutGradeElementary creates or replaces an elementary grade; see putIn.
func (w *Writer) PutGradeElementary(r model.GradeElementary) (model.GradeElementary, bool, error) {
	return putIn(w, gradesElementary, r)
}

// PutGradeUpperSecondary creates or replaces an upper-secondary grade; see putIn.
func (w *Writer) PutGradeUpperSecondary(r model.GradeUpperSecondary) (model.GradeUpperSecondary, bool, error) {
	return putIn(w, gradesUpperSecondary, r)
}

// Delete removes the record with the id from a table; ErrNotFound if none,
// ConflictError if other records still refer to it.
func (w *Writer) Delete(table, id string) error {
	obj, err := w.txn.First(table, IndexID, id)
	if err != nil {
		return err
	}
	if obj == nil {
		return ErrNotFound
	}
	if refs := referrers(w.txn, table, id); len(refs) > 0 {
		return &ConflictError{Message: fmt.Sprintf("%s %s is still referred to by %s", strings.TrimSuffix(table, "s"), id, strings.Join(refs, ", "))}
	}
	return w.txn.Delete(table, obj)
}

// ConflictError reports a write that conflicts with the stored state: a
// duplicate where a value must be unique, or a delete of a record that others
// still refer to.
type ConflictError struct{ Message string }

func (e *ConflictError) Error() string { return e.Message }

// referrers names the records that refer to the record (at most a few of each
// kind), for the tables whose records can be deleted.
func referrers(txn *memdb.Txn, table, id string) []string {
	var out []string
	count := func(t, ix, label string) {
		it, err := txn.Get(t, ix+"_prefix", id)
		if err != nil {
			return
		}
		n := 0
		for it.Next() != nil {
			n++
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, label))
		}
	}
	switch table {
	case TableGroups:
		count(TablePlacements, IndexGroup, "placement(s)")
		count(TableCalendarEvents, IndexGroup, "calendar event(s)")
	case TablePersons:
		count(TablePlacements, IndexChild, "placement(s) as child")
		count(TablePlacements, IndexOwner, "placement(s) as owner")
		count(TableGroups, IndexMember, "group membership(s)")
		count(TablePersons, IndexResponsible, "person(s) as responsible")
		count(TableAttendances, IndexStudent, "attendance record(s)")
		count(TableAbsences, IndexStudent, "absence record(s)")
		count(TableCalendarEvents, IndexTeacher, "calendar event(s) as teacher")
		count(TableEmployeePlacements, IndexEmployee, "employee placement(s)")
		count(TableGradesElementary, IndexStudent, "elementary grade(s) as student")
		count(TableGradesUpperSecondary, IndexStudent, "upper-secondary grade(s) as student")
		count(TableGradesElementary, IndexTeacher, "elementary grade(s) as teacher")
		count(TableGradesUpperSecondary, IndexTeacher, "upper-secondary grade(s) as teacher")
	}
	return out
}

func sameAttributes[T any](k kind[T], a, b *T) bool {
	x, y := *a, *b
	*k.meta(&x), *k.meta(&y) = model.Meta{}, model.Meta{}
	return reflect.DeepEqual(x, y)
}

func (k kind[T]) check(txn *memdb.Txn, rec *T) error {
	if k.refs == nil {
		return nil
	}
	for _, r := range k.refs(rec) {
		obj, err := txn.First(r.table, IndexID, r.id)
		if err != nil {
			return err
		}
		if obj == nil {
			return &RefError{Field: r.field, ID: r.id}
		}
	}
	return nil
}

func (k kind[T]) checkAll(txn *memdb.Txn) error {
	it, err := txn.Get(k.table, IndexID)
	if err != nil {
		return err
	}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		if err := k.check(txn, obj.(*T)); err != nil {
			return fmt.Errorf("%s %s: %w", k.table, k.id(obj.(*T)), err)
		}
	}
	return nil
}

func loadAll[T any](b *batcher, k kind[T], recs []T, stamp func(*model.Meta)) error {
	selfRefs := k.table == TableOrganisations || k.table == TablePersons
	for i := range recs {
		txn := b.current()
		rec := recs[i]
		if k.strip != nil {
			k.strip(&rec)
		}
		if k.id(&rec) == "" {
			return fmt.Errorf("%s[%d]: record without id", k.table, i)
		}
		if _, dup := first(txn, k, k.id(&rec)); dup {
			return fmt.Errorf("%s[%d]: duplicate id %s", k.table, i, k.id(&rec))
		}
		stamp(k.meta(&rec))
		if !selfRefs {
			if err := k.check(txn, &rec); err != nil {
				return fmt.Errorf("%s %s: %w", k.table, k.id(&rec), err)
			}
		}
		if err := txn.Insert(k.table, &rec); err != nil {
			return err
		}
		b.inserted()
	}
	return nil
}

func first[T any](txn *memdb.Txn, k kind[T], id string) (*T, bool) {
	obj, err := txn.First(k.table, IndexID, id)
	if err != nil || obj == nil {
		return nil, false
	}
	return obj.(*T), true
}

func all[T any](txn *memdb.Txn, k kind[T]) []T {
	it, err := txn.Get(k.table, IndexID)
	if err != nil {
		return nil
	}
	out := []T{}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		out = append(out, *obj.(*T))
	}
	return out
}

// Scan calls fn with the records of a table in the order of an index until
// fn returns false. With a prefix it visits only the records whose first
// index value is prefix (for a composite value such as a role and a time,
// the part before the separator); "" visits every record the index holds.
func (sn *Snapshot) Scan(table, index, prefix string, fn func(obj any) bool) error {
	var it memdb.ResultIterator
	var err error
	if prefix == "" {
		it, err = sn.txn.Get(table, index)
	} else {
		it, err = sn.txn.Get(table, index+"_prefix", prefix)
	}
	if err != nil {
		return err
	}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		if !fn(obj) {
			return nil
		}
	}
	return nil
}

// Referrers names what still refers to the record (empty when nothing does).
func (sn *Snapshot) Referrers(table, id string) []string { return referrers(sn.txn, table, id) }

// CopyFrom makes the store's content a copy of other's current content, in
// constant time: go-memdb snapshots share structure and copy on write, so
// writes to either store never reach the other.
func (s *Store) CopyFrom(other *Store) { s.dbp.Store(other.db().Snapshot()) }
