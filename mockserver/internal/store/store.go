package store

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/skolkit/skolkit/fixtures"
)

// Dataset is the whole state of a store, table by table: the record set
// the fixtures generate, and the records of tables the generator does not
// know (Dataset.Other).
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

// RecordError is a record a load cannot take: one without an id, or one
// whose id an earlier record of its table has. At is the record's position
// in its table's list.
type RecordError struct {
	Table   string
	At      int
	Message string
}

func (e *RecordError) Error() string { return fmt.Sprintf("%s[%d]: %s", e.Table, e.At, e.Message) }

// ConflictError reports a write that conflicts with the stored state: a
// duplicate where a value must be unique, or a delete of a record that others
// still refer to.
type ConflictError struct{ Message string }

func (e *ConflictError) Error() string { return e.Message }

// Store is the in-memory state of one mock server. It is safe for concurrent
// use: reads see consistent snapshots and writes are serialised by go-memdb.
type Store struct {
	dbp    atomic.Pointer[memdb.MemDB]
	now    func() time.Time
	schema *Schema
	// loadPage is how many entries Load puts in each page, maxPage the size
	// past which a page splits in two (pages.go).
	loadPage, maxPage int
	walks             *walkRegistry
	kinds             func(table string, rec any) []string
	// observer is told what each committed write changed (changes.go).
	observer atomic.Pointer[func(Change)]
	// gens numbers the committed states (generations.go).
	gens generations
}

// Option configures a store (New).
type Option func(*Store)

// WithSchema gives the store a schema other than the built-in tables'
// (NewSchema).
func WithSchema(s *Schema) Option { return func(st *Store) { st.schema = s } }

// WithPageSizes sets how many entries a load puts in each page and the size
// past which a page splits; the defaults are 256 and 512. Tests make pages
// tiny to exercise splits and page boundaries.
func WithPageSizes(load, max int) Option {
	return func(st *Store) { st.loadPage, st.maxPage = load, max }
}

// New returns an empty store whose meta timestamps come from now.
func New(now func() time.Time, opts ...Option) *Store {
	s := &Store{now: now, schema: builtinSchema(), loadPage: 256, maxPage: 512,
		walks: newWalkRegistry(defaultWalkCapacity, defaultWalkIdle)}
	for _, o := range opts {
		o(s)
	}
	s.dbp.Store(s.newDB())
	s.gens.seq.Store(firstGeneration)
	return s
}

// Schema returns the store's tables.
func (s *Store) Schema() *Schema { return s.schema }

// newDB returns an empty database. It is a snapshot database: go-memdb tracks
// mutations (one channel per radix node, closed on commit) only on a primary
// database, for watches, and the store uses no watches.
func (s *Store) newDB() *memdb.MemDB {
	db, err := memdb.NewMemDB(s.schema.dbSchema())
	if err != nil {
		// A schema is validated when it is built; what go-memdb refuses is a
		// programming error that every test catches.
		panic(fmt.Sprintf("store: invalid schema: %v", err))
	}
	return db.Snapshot()
}

func (s *Store) db() *memdb.MemDB { return s.dbp.Load() }

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Export returns every record of the store, each table in id order.
func (s *Store) Export() *Dataset {
	sn := s.Read()
	ds := &Dataset{}
	for _, td := range s.schema.tables {
		td.decl.export(sn.t, ds)
	}
	return ds
}

// Snapshot is a consistent, read-only view of the store at one instant.
// Records it returns are shared with the store and must not be modified.
type Snapshot struct {
	t *tx
}

// Read returns a snapshot of the current state.
func (s *Store) Read() *Snapshot { return &Snapshot{t: s.newTx(false)} }

// Schema returns the snapshot's tables.
func (sn *Snapshot) Schema() *Schema { return sn.t.schema }

// Count returns the number of records in a table.
func (sn *Snapshot) Count(table string) int { return sn.t.count(table) }

// Has reports whether the table holds a record with the id.
func (sn *Snapshot) Has(table, id string) bool { return sn.t.get(table, id) != nil }

// Scan calls fn with the records of a table in the order of an index until
// fn returns false. With a prefix it visits only the records whose first
// index value is prefix (for a composite value such as a role and a time,
// the part before the separator); "" visits every record the index holds.
func (sn *Snapshot) Scan(table, index, prefix string, fn func(obj any) bool) error {
	td := sn.t.schema.table(table)
	if td == nil {
		return fmt.Errorf("store: no table %q", table)
	}
	return sn.t.scan(td, index, prefix, fn)
}

// Referrers names what still refers to the record (empty when nothing does).
func (sn *Snapshot) Referrers(table, id string) []string {
	blocking, _ := referrers(sn.t, table, id)
	return blocking
}

// CopyFrom makes the store's content a copy of other's current content, in
// constant time: go-memdb snapshots share structure and copy on write, so
// writes to either store never reach the other. Both stores must have the
// same schema.
func (s *Store) CopyFrom(other *Store) {
	db := other.db().Snapshot()
	s.commit(func() { s.dbp.Store(db) })
}

// Delete removes the record with the id from a table in a transaction of its
// own; see Writer.Delete.
func (s *Store) Delete(table, id string) error {
	return s.Write(func(w *Writer) error { return w.Delete(table, id) })
}

// getAs returns the record of a table with the id, if it is one of type T.
func getAs[T any](t *tx, table, id string) (*T, bool) {
	obj, ok := t.get(table, id).(*T)
	return obj, ok
}

// all returns every record of a table, in id order.
func all[T any](t *tx, table string) []T {
	out := []T{}
	_ = t.walk(t.schema.table(table), IndexID, nil, false, func(_ []byte, obj any) bool {
		out = append(out, *obj.(*T))
		return true
	})
	return out
}
