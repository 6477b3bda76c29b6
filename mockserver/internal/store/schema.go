package store

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/skolkit/skolkit/model"
)

// The store's schema is a list of table declarations (Table), validated
// once when the schema is built (NewSchema). Everything the store does with
// a table it derives from its declaration: loading and exporting a Dataset,
// the pages of the table and of its indexes, the references a put or a load
// checks, what a deletion refuses or takes along, what interface B never
// shows. The built-in tables are declared in tables.go; a schema may add
// tables of its own (NewSchema's extra tables).

// Table declares one table of the store: how to find a record's id and
// meta, where a Dataset keeps the table's records, the questions its
// indexes answer, the references its records hold, and the rules of its
// writes. A Table holds no state: every store built with it shares it.
type Table[T any] struct {
	// Name is the table's name: a Dataset's key for it, a member of the
	// state document, and how every call of the store names it.
	Name string
	ID   func(*T) string
	Meta func(*T) *model.Meta
	// Records is where a Dataset keeps the table's records; nil keeps them
	// in Dataset.Other under Name.
	Records func(*Dataset) *[]T
	// Indexes are the table's secondary indexes (By, ByEach, ByTime,
	// Ordered), each named after the question it answers.
	Indexes []Index[T]
	// Refs are the references the records hold (Ref).
	Refs []Ref[T]
	// Deletable offers the deletion of single records to the control plane
	// (Schema.Deletable); Delete itself works on every table.
	Deletable bool
	// Hidden reports whether interface B does not show a stored record (nil:
	// it shows every record). A write that hides a record B showed is a
	// deletion for B's clients (Change, deletedEntities).
	Hidden func(*T) bool
	// Strip clears what is not an attribute of the record itself (rendered
	// _embedded data) before it is compared and stored.
	Strip func(*T)
	// Conflict checks the table's uniqueness rules against the state of the
	// writing transaction (ConflictError, RuleError).
	Conflict func(sn *Snapshot, rec *T) error
	// Derive sets what the store keeps with a record from the records it
	// refers to, after its references are checked.
	Derive func(sn *Snapshot, rec *T)
	// Cascade brings the records derived from a stored record up to date
	// after it replaced old (nil: the record was created).
	Cascade func(w *Writer, old, stored *T) error

	// holds, when set, lists the relationships a record holds, and affects
	// the persons whose relationships a write of the record changes, from
	// the record before (nil: created) to after (nil: deleted): the
	// relation lists of relations.go, kept by the built-in tables.
	holds   func(d dependencies, rec *T, set relatedSet) relatedSet
	affects func(old, now *T) []string
}

// Ref declares a reference field of a table's records: the ids it holds
// and the table they name. A load and every put check that each id names a
// record (RefError). A deletion of a referred record is refused while
// records still hold the reference (ConflictError), or takes them along
// (Cascade).
type Ref[T any] struct {
	// Field is the reference's JSON path ("child.id"); %d stands for the
	// position of an id in a list field ("owners[%d].id").
	Field string
	// To is the table the ids name.
	To string
	// IDs appends the ids the field holds to dst, in order: none when the
	// reference is absent, "" for a required one left empty.
	IDs func(rec *T, dst []string) []string
	// Label counts the holders in the message of a refused deletion
	// ("placement(s) as child"; the table's name when empty). References of
	// one table with the same Label are counted together.
	Label string
	// Index, when set, is an index of the table whose values for a record
	// are the ids its references of this Label hold: the holders of an id
	// are found through it instead of by scanning the table.
	Index string
	// Count, when set, counts the holders of an id instead (the calendar
	// events of a group, found through their activities).
	Count func(sn *Snapshot, id string) int
	// Cascade, when set, tells the holders deleted with the record they
	// refer to from those that refuse its deletion.
	Cascade func(rec *T) bool
}

// One is the IDs of a reference field that holds one id.
func One[T any](id func(*T) string) func(*T, []string) []string {
	return func(rec *T, dst []string) []string { return append(dst, id(rec)) }
}

// TableDecl is a *Table[T] of any record type: what NewSchema takes.
type TableDecl interface {
	build() (*tableDef, error)
}

// Index declares a secondary index of a table: the values a record has
// under it. Build one with By, ByEach, ByTime or Ordered.
type Index[T any] struct{ def indexDef }

// By indexes a record by one value ("" = not indexed).
func By[T any](name string, fn func(*T) string) Index[T] {
	return Index[T]{indexDef{name: name, values: func(o any, dst []string) []string {
		if v := fn(o.(*T)); v != "" {
			dst = append(dst, v)
		}
		return dst
	}}}
}

// ByTime indexes a record by a timestamp key (TimeKey). Few records share
// one, except calendar events, which start at a few hundred instants.
func ByTime[T any](name string, fn func(*T) time.Time) Index[T] {
	ix := By(name, func(r *T) string { return timeKey(fn(r)) })
	ix.def.time = func(o any) time.Time { return fn(o.(*T)) }
	return ix
}

// ByEach indexes a record by each of several values (duplicates are
// dropped).
func ByEach[T any](name string, fn func(*T) []string) Index[T] {
	return Index[T]{indexDef{name: name, values: func(o any, dst []string) []string {
		start := len(dst)
		for _, v := range fn(o.(*T)) {
			if v != "" && !slices.Contains(dst[start:], v) {
				dst = append(dst, v)
			}
		}
		return dst
	}}}
}

// Ordered is an order index: every record has exactly one value, "" too,
// so that walking the index lists every record in the order of a sortkey.
func Ordered[T any](name string, fn func(*T) string) Index[T] {
	return Index[T]{indexDef{name: name, values: func(o any, dst []string) []string { return append(dst, fn(o.(*T))) }}}
}

// ModifiedOrder is the order index of meta.modified (IndexModified).
func ModifiedOrder[T any](meta func(*T) *model.Meta) Index[T] {
	return ByTime(IndexModified, func(r *T) time.Time { return meta(r).Modified })
}

// EndDateOrder is a record's value under an order index of end dates: an
// open end sorts after every date.
func EndDateOrder(d model.Date) string {
	if d == "" {
		return openEndKey
	}
	return string(d)
}

// tableDef is a table as the store's machinery sees it: its id, its
// secondary indexes, and its declaration behind the interface table.
type tableDef struct {
	name    string
	id      func(obj any) string
	indexes []indexDef
	decl    table
}

// indexDef is a secondary index: the values a record has under it.
type indexDef struct {
	name string
	// values appends the record's values to dst, each once; none when the
	// record is not in the index.
	values func(obj any, dst []string) []string
	// time, when set, is the instant whose timeKey is the record's one
	// value: a load orders the entries by it without formatting a key per
	// comparison, and formats each distinct instant once.
	time func(obj any) time.Time
}

func (td *tableDef) index(name string) *indexDef {
	for i := range td.indexes {
		if td.indexes[i].name == name {
			return &td.indexes[i]
		}
	}
	return nil
}

// Schema is the store's tables, validated: build one with NewSchema. It
// holds no state, so stores share it.
type Schema struct {
	tables []*tableDef // in declaration order: a Dataset's, the state document's
	byName map[string]*tableDef
	byType map[reflect.Type]*tableDef
	// referenced are the tables records refer to: a load collects their ids
	// for the reference checks.
	referenced map[string]bool
	// referrers are, by the table referred to, the references that point
	// into it: what a deletion checks and cascades (Writer.Delete).
	referrers map[string][]*referrer
}

// builtinSchema is the schema of the built-in tables, built once.
var builtinSchema = sync.OnceValue(func() *Schema {
	s, err := newSchema(builtinTables())
	if err != nil {
		// The built-in declarations are constant; every test catches a
		// mistake in them.
		panic("store: " + err.Error())
	}
	return s
})

// NewSchema returns the schema of the built-in tables (tables.go) and the
// extra tables after them, or what is wrong with the declarations: a name
// or an index declared twice, a reference into a table the schema lacks, a
// reference's Index the table lacks.
func NewSchema(extra ...TableDecl) (*Schema, error) {
	if len(extra) == 0 {
		return builtinSchema(), nil
	}
	return newSchema(append(builtinTables(), extra...))
}

func newSchema(decls []TableDecl) (*Schema, error) {
	s := &Schema{byName: map[string]*tableDef{}, byType: map[reflect.Type]*tableDef{}, referenced: map[string]bool{}, referrers: map[string][]*referrer{}}
	for _, d := range decls {
		td, err := d.build()
		if err != nil {
			return nil, err
		}
		if _, dup := s.byName[td.name]; dup || td.name == tableRelations {
			return nil, fmt.Errorf("table %q is declared twice", td.name)
		}
		if _, dup := s.byType[td.decl.recordType()]; dup {
			return nil, fmt.Errorf("table %q: another table holds records of type %s", td.name, td.decl.recordType())
		}
		s.tables = append(s.tables, td)
		s.byName[td.name] = td
		s.byType[td.decl.recordType()] = td
	}
	for _, td := range s.tables {
		for _, r := range td.decl.referrers() {
			if _, ok := s.byName[r.to]; !ok {
				return nil, fmt.Errorf("table %q: %s refers to table %q, which the schema lacks", td.name, r.label, r.to)
			}
			if r.index != "" && td.index(r.index) == nil {
				return nil, fmt.Errorf("table %q: %s: no index %q", td.name, r.label, r.index)
			}
			s.referenced[r.to] = true
			s.referrers[r.to] = append(s.referrers[r.to], r)
		}
	}
	return s, nil
}

// table returns the named table, or nil.
func (s *Schema) table(name string) *tableDef { return s.byName[name] }

// Tables lists the names of the tables, in the schema's order.
func (s *Schema) Tables() []string {
	out := make([]string, len(s.tables))
	for i, td := range s.tables {
		out[i] = td.name
	}
	return out
}

// Has reports whether the schema has the named table.
func (s *Schema) Has(table string) bool { return s.byName[table] != nil }

// Deletable lists the tables whose records the control plane may delete
// one by one (Table.Deletable), in the schema's order.
func (s *Schema) Deletable() []string {
	var out []string
	for _, td := range s.tables {
		if td.decl.deletable() {
			out = append(out, td.name)
		}
	}
	return out
}

// HasIndex reports whether the named table has the named index (IndexID
// included).
func (s *Schema) HasIndex(table, index string) bool {
	td := s.byName[table]
	return td != nil && (index == IndexID || td.index(index) != nil)
}

// OrderKey returns a record's value under an index of a table: the key by
// which the index orders it (the first value of a multi-valued index), or
// nil when the table has no such index.
func (s *Schema) OrderKey(table, index string) func(obj any) string {
	td := s.byName[table]
	if td == nil || td.index(index) == nil {
		return nil
	}
	ix := td.index(index)
	return func(obj any) string {
		var buf [1]string
		if vals := ix.values(obj, buf[:0]); len(vals) > 0 {
			return vals[0]
		}
		return ""
	}
}

// ID returns the id of a record of the named table.
func (s *Schema) ID(table string, rec any) string { return s.byName[table].id(rec) }

// Hidden reports whether interface B does not show the record of the
// named table (Table.Hidden).
func (s *Schema) Hidden(table string, rec any) bool {
	td := s.byName[table]
	return td != nil && td.decl.hidden(rec)
}

// HiddenFunc is the named table's Hidden over stored records, or nil when
// interface B shows every record of the table.
func (s *Schema) HiddenFunc(table string) func(rec any) bool {
	if td := s.byName[table]; td != nil && td.decl.hides() {
		return td.decl.hidden
	}
	return nil
}

// Meta returns the meta of a record of the named table.
func (s *Schema) Meta(table string, rec any) *model.Meta { return s.byName[table].decl.meta(rec) }

// RecordType is the Go type of the named table's records (T of its
// Table[T]), or nil.
func (s *Schema) RecordType(table string) reflect.Type {
	if td := s.byName[table]; td != nil {
		return td.decl.recordType()
	}
	return nil
}

// Records returns the named table's records in a Dataset: a []T of its
// record type (nil when the dataset has none).
func (s *Schema) Records(ds *Dataset, table string) any { return s.byName[table].decl.recordsAny(ds) }

// SetRecords makes recs, a []T of the named table's record type, the
// table's records in a Dataset.
func (s *Schema) SetRecords(ds *Dataset, table string, recs any) {
	s.byName[table].decl.setRecordsAny(ds, recs)
}

// Count is the number of the named table's records in a Dataset.
func (s *Schema) Count(ds *Dataset, table string) int { return s.byName[table].decl.count(ds) }

// dbSchema is the go-memdb schema of the tables: each table's pages, and
// each secondary index's pages (pages.go), keyed by their fences.
func (s *Schema) dbSchema() *memdb.DBSchema {
	db := &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{}}
	for _, td := range s.tables {
		db.Tables[td.name] = &memdb.TableSchema{Name: td.name, Indexes: map[string]*memdb.IndexSchema{
			IndexID: {Name: IndexID, Unique: true, Indexer: fenceIndex{}},
		}}
		for _, ix := range td.indexes {
			pt := pageTable(td.name, ix.name)
			db.Tables[pt] = &memdb.TableSchema{Name: pt, Indexes: map[string]*memdb.IndexSchema{
				IndexID: {Name: IndexID, Unique: true, Indexer: fenceIndex{}},
			}}
		}
	}
	db.Tables[tableRelations] = &memdb.TableSchema{Name: tableRelations, Indexes: map[string]*memdb.IndexSchema{
		IndexID: {Name: IndexID, Unique: true, Indexer: relationIndex{}},
	}}
	return db
}

// table is a declaration as the machinery uses it, whatever its record
// type: a *Table[T].
type table interface {
	recordType() reflect.Type
	deletable() bool
	hidden(rec any) bool
	hides() bool
	meta(rec any) *model.Meta
	referrers() []*referrer
	prepare(td *tableDef, sc *Schema, ds *Dataset, now time.Time, owned bool) *tableLoad
	export(t *tx, ds *Dataset)
	count(ds *Dataset) int
	recordsAny(ds *Dataset) any
	setRecordsAny(ds *Dataset, recs any)
	holderRelations(d dependencies, rec any, set relatedSet) relatedSet
	followHolders(t *tx, id string, now any) func()
}

// referrer is the references of one table and Label into another table:
// how a deletion of a referred record counts, finds and treats the records
// that hold it.
type referrer struct {
	table, to, label, index string
	// holds reports whether a record of table holds the id.
	holds   func(rec any, id string) bool
	count   func(sn *Snapshot, id string) int
	cascade func(rec any) bool
}

func (k *Table[T]) build() (*tableDef, error) {
	if k.Name == "" || k.ID == nil || k.Meta == nil {
		return nil, fmt.Errorf("table %q: a table declares its Name, ID and Meta", k.Name)
	}
	td := &tableDef{name: k.Name, id: func(o any) string { return k.ID(o.(*T)) }, decl: k}
	for _, ix := range k.Indexes {
		if ix.def.name == IndexID || td.index(ix.def.name) != nil {
			return nil, fmt.Errorf("table %q: index %q is declared twice", k.Name, ix.def.name)
		}
		td.indexes = append(td.indexes, ix.def)
	}
	return td, nil
}

func (k *Table[T]) recordType() reflect.Type { return reflect.TypeFor[T]() }

func (k *Table[T]) deletable() bool { return k.Deletable }

func (k *Table[T]) hides() bool { return k.Hidden != nil }

func (k *Table[T]) meta(rec any) *model.Meta { return k.Meta(rec.(*T)) }

func (k *Table[T]) hidden(rec any) bool {
	r, ok := rec.(*T)
	return ok && k.Hidden != nil && k.Hidden(r)
}

// referrers groups the table's references by Label and target table.
func (k *Table[T]) referrers() []*referrer {
	var out []*referrer
	for i := range k.Refs {
		ref := &k.Refs[i]
		label := cmpOr(ref.Label, k.Name)
		var r *referrer
		for _, o := range out {
			if o.to == ref.To && o.label == label {
				r = o
			}
		}
		if r == nil {
			r = &referrer{table: k.Name, to: ref.To, label: label}
			out = append(out, r)
		}
		r.index = cmpOr(r.index, ref.Index)
		if ref.Count != nil {
			r.count = ref.Count
		}
		if ref.Cascade != nil {
			c := ref.Cascade
			r.cascade = func(rec any) bool { return c(rec.(*T)) }
		}
		prev, ids := r.holds, ref.IDs
		r.holds = func(rec any, id string) bool {
			if prev != nil && prev(rec, id) {
				return true
			}
			var buf [4]string
			return slices.Contains(ids(rec.(*T), buf[:0]), id)
		}
	}
	return out
}

// refs appends the references of a record to dst, as (JSON path, table,
// id, position).
func (k *Table[T]) refs(rec *T, dst []ref, ids []string) ([]ref, []string) {
	for i := range k.Refs {
		r := &k.Refs[i]
		ids = r.IDs(rec, ids[:0])
		list := strings.Contains(r.Field, "%d")
		for j, id := range ids {
			at := -1
			if list {
				at = j
			}
			dst = append(dst, ref{field: r.Field, table: r.To, id: id, at: at})
		}
	}
	return dst, ids
}

// records returns the table's records in a Dataset.
func (k *Table[T]) records(ds *Dataset) []T {
	if k.Records != nil {
		return *k.Records(ds)
	}
	recs, _ := ds.Other[k.Name].([]T)
	return recs
}

// setRecords makes recs the table's records in a Dataset.
func (k *Table[T]) setRecords(ds *Dataset, recs []T) {
	if k.Records != nil {
		*k.Records(ds) = recs
		return
	}
	if ds.Other == nil {
		ds.Other = map[string]any{}
	}
	ds.Other[k.Name] = recs
}

func (k *Table[T]) count(ds *Dataset) int { return len(k.records(ds)) }

func (k *Table[T]) recordsAny(ds *Dataset) any { return k.records(ds) }

func (k *Table[T]) setRecordsAny(ds *Dataset, recs any) { k.setRecords(ds, recs.([]T)) }

func (k *Table[T]) holderRelations(d dependencies, rec any, set relatedSet) relatedSet {
	if k.holds == nil {
		return set
	}
	r, ok := rec.(*T)
	if !ok {
		return set
	}
	return k.holds(d, r, set)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
