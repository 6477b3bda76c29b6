package store

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// RecordError is a record a load cannot take: one without an id, or one
// whose id an earlier record of its table has. At is the record's position
// in its table's list.
type RecordError struct {
	Table   string
	At      int
	Message string
}

func (e *RecordError) Error() string { return fmt.Sprintf("%s[%d]: %s", e.Table, e.At, e.Message) }

// Store is the in-memory state of one mock server. It is safe for concurrent
// use: reads see consistent snapshots and writes are serialised by go-memdb.
type Store struct {
	dbp   atomic.Pointer[memdb.MemDB]
	now   func() time.Time
	walks *walkRegistry
	kinds func(table string, rec any) []string
	// observer is told what each committed write changed (changes.go).
	observer atomic.Pointer[func(Change)]
	// gens numbers the committed states (generations.go).
	gens generations
}

// newDB returns an empty database. It is a snapshot database: go-memdb tracks
// mutations (one channel per radix node, closed on commit) only on a primary
// database, for watches, and the store uses no watches.
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
	s.gens.seq.Store(firstGeneration)
	return s
}

// Load replaces the whole content of the store with ds, keeping the meta
// timestamps the records carry (a record with zero meta is stamped now). It
// checks every reference, and if one dangles it returns the error and the
// store keeps its old content. Writes made while Load runs are lost with the
// old content.
//
// Load builds each table in one pass: records sorted by id, references
// checked against sets of the loaded ids, and the pages of the table and of
// each index built whole rather than entry by entry (see pages.go).
func (s *Store) Load(ds *Dataset) error { return s.load(ds, false, nil) }

// LoadOwned is Load for a dataset the caller hands over: the store keeps
// the dataset's record slices instead of copying them, and may change their
// records (it strips and stamps them as Load does). The caller must not use
// ds or its slices afterwards, even when LoadOwned fails. A scenario built
// only to be loaded saves a copy of every record this way.
func (s *Store) LoadOwned(ds *Dataset) error { return s.load(ds, true, nil) }

// Preload is LoadOwned's work on some tables of a dataset, started before
// the caller has finished the others (Store.Preload).
type Preload struct {
	now    time.Time
	tables []string
	done   chan struct{}
	loads  map[string]*tableLoad // by table, once done is closed
}

// Preload starts, in the background, what LoadOwned does with the named
// tables of ds on its own: their records sorted by id and checked, their
// pages and index pages built. The caller goes on with the rest of ds (a
// surface's view of other tables, say) and then hands ds and the Preload
// to LoadPreloaded. From the call on, the named tables of ds are the
// store's, as with LoadOwned: the caller must not change their records, nor
// replace their slices.
func (s *Store) Preload(ds *Dataset, tables ...string) *Preload {
	p := &Preload{now: s.clock(), tables: tables, done: make(chan struct{}), loads: map[string]*tableLoad{}}
	var todo []tablePrepare
	for _, tp := range tablePrepares(ds, p.now, true) {
		if slices.Contains(tables, tp.table) {
			todo = append(todo, tp)
		}
	}
	go func() {
		defer close(p.done)
		loads := make([]*tableLoad, len(todo))
		parallel(len(todo), func(i int) { loads[i] = todo[i].run() })
		var jobs []func()
		for _, tl := range loads {
			p.loads[tl.td.name] = tl
		}
		// A table derived from one not preloaded waits for the load to
		// build its pages.
		deferred := map[string]bool{}
		for _, d := range loadDerivations {
			dst, src := p.loads[d.table], p.loads[d.from]
			switch {
			case dst == nil || dst.err != nil:
			case src == nil:
				deferred[d.table] = true
			case src.err == nil:
				d.derive(dst, src)
			}
		}
		for _, tl := range loads {
			if tl.err == nil && !deferred[tl.td.name] {
				jobs = append(jobs, tl.pageJobs()...)
			}
		}
		parallel(len(jobs), func(i int) { jobs[i]() })
	}()
	return p
}

// LoadPreloaded is LoadOwned of ds, whose tables named to Preload were
// started then: it waits for them, and does the rest. Its result is the
// result LoadOwned would have had.
func (s *Store) LoadPreloaded(ds *Dataset, p *Preload) error { return s.load(ds, true, p) }

// tablePrepare prepares one table of a load.
type tablePrepare struct {
	table string
	run   func() *tableLoad
}

func prepareOf[T any](k kind[T], recs []T, now time.Time, owned bool) tablePrepare {
	return tablePrepare{k.table, func() *tableLoad { return prepareTable(k, recs, now, owned) }}
}

// tablePrepares lists the tables of a load, parents before children: errors
// are reported in this order.
func tablePrepares(ds *Dataset, now time.Time, owned bool) []tablePrepare {
	return append([]tablePrepare{
		prepareOf(organisations, ds.Organisations, now, owned),
		prepareOf(persons, ds.Persons, now, owned),
		prepareOf(syllabuses, ds.Syllabuses, now, owned),
		prepareOf(groups, ds.Groups, now, owned),
		prepareOf(placements, ds.Placements, now, owned),
		prepareOf(calendarEvents, ds.CalendarEvents, now, owned),
		prepareOf(attendances, ds.Attendances, now, owned),
		prepareOf(absences, ds.Absences, now, owned),
		prepareOf(employeePlacements, ds.EmployeePlacements, now, owned),
		prepareOf(tombstones, ds.Tombstones, now, owned),
	}, registerLoads(ds, now, owned)...)
}

func (s *Store) load(ds *Dataset, owned bool, pre *Preload) error {
	now := s.clock()
	if pre != nil {
		now = pre.now
	}
	prepares := tablePrepares(ds, now, owned)
	loads := make([]*tableLoad, len(prepares))
	parallel(len(prepares), func(i int) {
		if pre == nil || !slices.Contains(pre.tables, prepares[i].table) {
			loads[i] = prepares[i].run()
		}
	})
	if pre != nil {
		<-pre.done
		for i := range loads {
			if loads[i] == nil {
				loads[i] = pre.loads[prepares[i].table]
			}
		}
	}
	ids := map[string]*idSet{}
	for _, tl := range loads {
		if tl.err != nil {
			return tl.err
		}
		ids[tl.td.name] = tl.ids
	}
	// The references of each table, whether the calendar events agree with
	// their activities (events.go) and, unless a Preload did, what the
	// records of a table derive from another's (loadDerivations), side by
	// side.
	refErrs := make([]error, len(loads)+1+len(loadDerivations))
	parallel(len(refErrs), func(i int) {
		switch {
		case i < len(loads):
			refErrs[i] = loads[i].checkRefs(ids)
		case i == len(loads):
			refErrs[i] = checkEventActivities(loadOf(loads, TableCalendarEvents), loadOf(loads, TableActivities))
		default:
			d := loadDerivations[i-len(loads)-1]
			if dst := loadOf(loads, d.table); dst.indexPages == nil {
				d.derive(dst, loadOf(loads, d.from))
			}
		}
	})
	if err := firstError(refErrs); err != nil {
		return err
	}

	// The pages of every table and index, the largest tables' first: the
	// cores then finish together rather than one waiting for a large
	// table's index picked up last.
	// The relation lists (relations.go) are built beside them, first: they
	// read the persons, their placements and groups.
	var rels []*relationList
	jobs := []func(){func() {
		deps := &loadDependencies{placements: loadOf(loads, TablePlacements), groups: loadOf(loads, TableGroups)}
		rels = buildRelations(loadOf(loads, TablePersons), loadOf(loads, TableEmployeePlacements), deps)
	}}
	bySize := slices.Clone(loads)
	slices.SortStableFunc(bySize, func(a, b *tableLoad) int { return len(b.sorted) - len(a.sorted) })
	for _, tl := range bySize {
		if tl.indexPages == nil { // not built by a Preload
			jobs = append(jobs, tl.pageJobs()...)
		}
	}
	parallel(len(jobs), func(i int) { jobs[i]() })
	db := newDB()
	txn := db.Txn(true)
	for _, l := range rels {
		if err := txn.Insert(tableRelations, l); err != nil {
			txn.Abort()
			return err
		}
	}
	for _, tl := range loads {
		for i := -1; i < len(tl.td.indexes); i++ {
			l, ps := tl.td.layout(IndexID), tl.pages
			if i >= 0 {
				l, ps = tl.td.layout(tl.td.indexes[i].name), tl.indexPages[i]
			}
			for _, p := range ps {
				if err := txn.Insert(l.table, p); err != nil {
					txn.Abort()
					return err
				}
			}
		}
	}
	txn.Commit()
	s.commit(func() { s.dbp.Store(db) })
	s.publish(Change{At: now, All: true})
	return nil
}

// loadDerivation is what a load sets on the records of a table from those
// of another before the table's pages are built: the store's counterpart of
// a kind's derive on put.
type loadDerivation struct {
	table, from string
	derive      func(dst, src *tableLoad)
}

// loadDerivations are the load's derivations: the attendance records' event
// days (eventdays.go).
var loadDerivations = []loadDerivation{
	{table: TableAttendances, from: TableCalendarEvents, derive: deriveEventDays},
}

// loadOf is the load of a table.
func loadOf(loads []*tableLoad, table string) *tableLoad {
	for _, tl := range loads {
		if tl.td.name == table {
			return tl
		}
	}
	panic("store: no load of table " + table)
}

// parallel calls fn(0) ... fn(n-1), on as many goroutines as there are
// processors, and returns when all have returned.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// referenced lists the tables that records refer to (see the kinds' refs):
// only their ids are collected for the reference checks of a load.
var referenced = map[string]bool{
	TableOrganisations: true, TablePersons: true, TableGroups: true, TableSyllabuses: true, TableCalendarEvents: true,
	TablePlacements: true, TableProgrammes: true, TableActivities: true, TableRooms: true, TableResources: true,
}

// tableLoad is one table's part of a Load: its records, checked and
// sorted by id, and then its pages.
type tableLoad struct {
	td         *tableDef
	sorted     []any           // the records, by id
	at         func(i int) any // the record at position i of the dataset
	ids        *idSet
	checkRefs  func(ids map[string]*idSet) error
	pages      []*page   // the table's own pages
	indexPages [][]*page // each index's pages
	err        error
}

// prepareTable copies the records of one table (one allocation holds all
// that the store keeps), strips and stamps them, and sorts them by id. An
// empty or duplicate id is an error. With owned, the records stay where
// they are (LoadOwned).
func prepareTable[T any](k kind[T], recs []T, now time.Time, owned bool) *tableLoad {
	tl := &tableLoad{td: tableDefs[k.table]}
	own := recs
	if !owned {
		own = make([]T, len(recs))
		// Copied in chunks: one copy of a million records with pointers is
		// a single step the collector cannot interrupt, and it spins waiting.
		for i := 0; i < len(recs); i += copyChunk {
			copy(own[i:min(i+copyChunk, len(recs))], recs[i:])
		}
	}
	order := make([]idAt, len(own))
	for i := range own {
		rec := &own[i]
		if k.strip != nil {
			k.strip(rec)
		}
		if k.id(rec) == "" {
			tl.err = &RecordError{Table: k.table, At: i, Message: "record without id"}
			return tl
		}
		m := k.meta(rec)
		if m.Created.IsZero() {
			m.Created = now
		}
		if m.Modified.IsZero() {
			m.Modified = m.Created
		}
		order[i] = idAt{k.id(rec), i}
	}
	tl.sorted = make([]any, len(own))
	tl.at = func(i int) any { return &own[i] }
	var ids []string
	if referenced[k.table] {
		ids = make([]string, len(own))
	}
	i, prev := 0, ""
	for _, run := range inIDOrder(order) {
		for _, o := range order[run[0]:run[1]] {
			if i > 0 && prev == o.id {
				// the later of the two, as the dataset lists them
				tl.err = &RecordError{Table: k.table, At: o.at, Message: "duplicate id " + o.id}
				return tl
			}
			tl.sorted[i] = &own[o.at]
			if ids != nil {
				ids[i] = o.id
			}
			i, prev = i+1, o.id
		}
	}
	if ids != nil {
		tl.ids = newIDSet(ids)
	}
	tl.checkRefs = func(ids map[string]*idSet) error {
		if k.refs == nil {
			return nil
		}
		// Records of one activity, group or school refer to the same
		// records: a reference equal to the previous record's one at the
		// same position was checked already.
		var refs, prev []ref
		for i := range own {
			refs = k.refs(&own[i], refs[:0])
			for j, r := range refs {
				if j < len(prev) && prev[j].id == r.id && prev[j].table == r.table {
					continue
				}
				if !ids[r.table].has(r.id) {
					return fmt.Errorf("%s %s: %w", k.table, k.id(&own[i]), r.err())
				}
			}
			refs, prev = prev, refs
		}
		return nil
	}
	return tl
}

// idAt is a record's id and its position in the dataset.
type idAt struct {
	id string
	at int
}

// inIDOrder orders records by id, then position (a duplicate id's records
// end up side by side): it returns runs of order, each as [from, to), that
// list the records in that order one after another. Generated data comes in
// runs of ids that share a long prefix and are already in order (the
// calendar events of a group, decision M3), and whose ranges do not
// interleave: those runs are put in order whole, which costs a comparison
// per record instead of a sort of a million strings (and no copy). Anything
// else is sorted in place.
func inIDOrder(order []idAt) [][2]int {
	whole := [][2]int{{0, len(order)}}
	if slices.IsSortedFunc(order, func(a, b idAt) int { return strings.Compare(a.id, b.id) }) {
		return whole
	}
	if runs := idRuns(order); runs != nil {
		return runs
	}
	slices.SortFunc(order, func(a, b idAt) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return a.at - b.at
	})
	return whole
}

// idRuns cuts order into runs of ascending ids that share a prefix
// (samePrefix), each as [from, to), and returns them in id order when their
// ranges lie apart; nil when they interleave or are too many to be worth it.
func idRuns(order []idAt) [][2]int {
	var runs [][2]int
	for i := range order {
		if i == 0 || order[i-1].id > order[i].id || !samePrefix(order[i-1].id, order[i].id) {
			if len(runs) > 0 {
				runs[len(runs)-1][1] = i
			}
			if runs = append(runs, [2]int{i, len(order)}); len(runs) > len(order)/16+1 {
				return nil
			}
		}
	}
	slices.SortFunc(runs, func(a, b [2]int) int { return strings.Compare(order[a[0]].id, order[b[0]].id) })
	for r := 1; r < len(runs); r++ {
		if order[runs[r-1][1]-1].id >= order[runs[r][0]].id {
			return nil
		}
	}
	return runs
}

// samePrefix reports whether two ids share their first runPrefix bytes:
// the ids a generator derives in a run do, random ones do not.
func samePrefix(a, b string) bool {
	return len(a) >= runPrefix && len(b) >= runPrefix && a[:runPrefix] == b[:runPrefix]
}

// runPrefix is the prefix the ids of a run share (sortByID).
const runPrefix = 16

// copyChunk is how many records prepareTable copies at a time.
const copyChunk = 4096

// idSet is the set of the ids of a table, for the reference checks of a
// load: a map for small tables, the sorted ids for large ones (a map of a
// million ids costs more to build than the few lookups into it save).
type idSet struct {
	m      map[string]struct{}
	sorted []string
}

func newIDSet(sorted []string) *idSet {
	if len(sorted) > 1<<16 {
		return &idSet{sorted: sorted}
	}
	m := make(map[string]struct{}, len(sorted))
	for _, id := range sorted {
		m[id] = struct{}{}
	}
	return &idSet{m: m}
}

func (s *idSet) has(id string) bool {
	if s == nil {
		return false
	}
	if s.m != nil {
		_, ok := s.m[id]
		return ok
	}
	_, ok := slices.BinarySearch(s.sorted, id)
	return ok
}

// timeEntries lists the entries of a timestamp index in key order. The
// records are in id order, so ordering by instant and then by position is
// ordering by value and id; each distinct instant is formatted once, into
// one buffer that every key of the index is cut from. When records share few
// instants (a million lessons start at a few hundred), the entries are
// grouped by instant with a counting sort; otherwise they are sorted.
func (tl *tableLoad) timeEntries(ix *indexDef) []entry {
	type instant struct {
		sec  int64
		nsec int32
	}
	at := make([]instant, len(tl.sorted))
	group := map[instant]int32{}
	var firsts []instant
	var counts []int32
	owner := make([]int32, len(tl.sorted))
	last, lastJ := instant{}, int32(-1) // runs of one instant skip the map
	for k, rec := range tl.sorted {
		t := ix.time(rec)
		at[k] = instant{t.Unix(), int32(t.Nanosecond())}
		if firsts == nil && k > 0 {
			continue
		}
		j := lastJ
		if j < 0 || at[k] != last {
			var ok bool
			if j, ok = group[at[k]]; !ok {
				j = int32(len(firsts))
				group[at[k]] = j
				firsts = append(firsts, at[k])
				counts = append(counts, 0)
			}
			last, lastJ = at[k], j
		}
		counts[j]++
		owner[k] = j
		if len(firsts) > len(tl.sorted)/8+64 {
			firsts = nil // too many: sort instead
		}
	}
	ents := make([]entry, len(tl.sorted))
	if firsts == nil {
		order := make([]int32, len(tl.sorted))
		for k := range order {
			order[k] = int32(k)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if at[a].sec != at[b].sec {
				return cmp.Compare(at[a].sec, at[b].sec)
			}
			if at[a].nsec != at[b].nsec {
				return cmp.Compare(at[a].nsec, at[b].nsec)
			}
			return cmp.Compare(a, b)
		})
		keys := newKeyCutter(len(order))
		for k, o := range order {
			if k == 0 || at[o] != at[order[k-1]] {
				keys.add(ix.time(tl.sorted[o]))
			}
		}
		d := -1
		for k, o := range order {
			if k == 0 || at[o] != at[order[k-1]] {
				d++
			}
			ents[k] = entry{val: keys.key(d), rec: tl.sorted[o]}
		}
		return ents
	}
	order := make([]int32, len(firsts))
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if firsts[a].sec != firsts[b].sec {
			return cmp.Compare(firsts[a].sec, firsts[b].sec)
		}
		return cmp.Compare(firsts[a].nsec, firsts[b].nsec)
	})
	next := make([]int32, len(firsts))
	keys := newKeyCutter(len(firsts))
	for _, j := range order {
		keys.add(time.Unix(firsts[j].sec, int64(firsts[j].nsec)))
	}
	var off int32
	for d, j := range order {
		next[j] = off
		off += counts[j]
		counts[j] = int32(d) // from here on: the instant's rank
	}
	for k, rec := range tl.sorted {
		j := owner[k]
		ents[next[j]] = entry{val: keys.key(int(counts[j])), rec: rec}
		next[j]++
	}
	return ents
}

// keyCutter formats timestamp keys into one buffer and cuts the keys from
// it: one allocation for an index's keys instead of one per key.
type keyCutter struct {
	sb   strings.Builder
	ends []int
	all  string
}

func newKeyCutter(n int) *keyCutter {
	c := &keyCutter{ends: make([]int, 0, n)}
	c.sb.Grow(n * timeKeyLen)
	return c
}

// add appends the key of t.
func (c *keyCutter) add(t time.Time) {
	var b [timeKeyLen]byte
	c.sb.Write(appendTimeKey(b[:0], t))
	c.ends = append(c.ends, c.sb.Len())
}

// key returns the d-th key added; after the first call nothing may be added.
func (c *keyCutter) key(d int) string {
	if c.all == "" {
		c.all = c.sb.String()
	}
	from := 0
	if d > 0 {
		from = c.ends[d-1]
	}
	return c.all[from:c.ends[d]]
}

// pageJobs returns the jobs that build the table's pages and each index's
// (buildPages), to be run in any order.
func (tl *tableLoad) pageJobs() []func() {
	tl.indexPages = make([][]*page, len(tl.td.indexes))
	jobs := make([]func(), 0, len(tl.td.indexes)+1)
	for i := -1; i < len(tl.td.indexes); i++ {
		jobs = append(jobs, func() { tl.buildPages(i) })
	}
	return jobs
}

// buildPages builds the pages of index i (-1: the table's own pages) from
// the records sorted by id. Entries of an index are grouped by value (each
// group stays in id order) and the groups are put in value order.
func (tl *tableLoad) buildPages(i int) {
	td := tl.td
	if i < 0 {
		entries := make([]entry, len(tl.sorted))
		for k, rec := range tl.sorted {
			entries[k].rec = rec
		}
		tl.pages = cut(td.layout(IndexID), entries)
		return
	}
	ix := &td.indexes[i]
	if ix.time != nil {
		tl.indexPages[i] = cut(td.layout(ix.name), tl.timeEntries(ix))
		return
	}
	if tl.mostlyDistinct(ix) {
		tl.indexPages[i] = cut(td.layout(ix.name), tl.distinctEntries(ix))
		return
	}
	group := map[string]int32{} // group number by value
	var firsts []string         // each group's value
	var counts []int32
	// Each entry's group and record (by position in tl.sorted): 8 bytes an
	// entry rather than a whole entry, which is written once, in place.
	owner := make([]int32, 0, len(tl.sorted))
	recOf := make([]int32, 0, len(tl.sorted))
	var vals []string
	// Runs of records with one value (the events of an activity, whose ids
	// are consecutive) find their group without a map lookup.
	lastV, lastJ := "", int32(-1)
	for k, rec := range tl.sorted {
		vals = ix.values(rec, vals[:0])
		for _, v := range vals {
			j := lastJ
			if j < 0 || v != lastV {
				var ok bool
				j, ok = group[v]
				if !ok {
					j = int32(len(firsts))
					group[v] = j
					firsts = append(firsts, v)
					counts = append(counts, 0)
				}
				lastV, lastJ = v, j
			}
			counts[j]++
			owner = append(owner, j)
			recOf = append(recOf, int32(k))
		}
	}
	// The groups in key order. The keys of two groups' entries begin with
	// value keySep, and value+keySep orders as value does: where one value
	// is a prefix of the other, keySep is the smallest byte.
	order := make([]int32, len(firsts))
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(firsts[a], firsts[b]) })
	next := make([]int32, len(firsts))
	var off int32
	for _, j := range order {
		next[j] = off
		off += counts[j]
	}
	all := make([]entry, len(owner))
	for k, j := range owner {
		all[next[j]] = entry{val: firsts[j], rec: tl.sorted[recOf[k]]}
		next[j]++
	}
	tl.indexPages[i] = cut(td.layout(ix.name), all)
}

// mostlyDistinct tells whether most of an index's values are distinct (a
// civic number, a placement's schedule, a date and pupil), from a sample of
// its first values in id order: buildPages then sorts its entries as they
// are, rather than group them by value in a map first, which costs a map
// entry per value to save nothing. Ids are random, so the sample is a random
// one, and the number of distinct values follows from how often the sample
// repeats a value (the birthday problem: s values drawn from d distinct
// repeat about s²/2d times). Generated runs of ids (the events of an
// activity) make a sample repeat more, never less: those are grouped.
func (tl *tableLoad) mostlyDistinct(ix *indexDef) bool {
	seen := map[string]struct{}{}
	var vals []string
	sampled, recs := 0, 0
	for _, rec := range tl.sorted {
		vals = ix.values(rec, vals[:0])
		recs++
		for _, v := range vals {
			seen[v] = struct{}{}
		}
		if sampled += len(vals); sampled >= distinctSample {
			break
		}
	}
	if sampled == 0 {
		return false
	}
	if recs == len(tl.sorted) { // the whole index was looked at
		return 4*len(seen) >= 3*sampled
	}
	repeats := sampled - len(seen)
	if repeats == 0 {
		return true
	}
	entries := float64(sampled) / float64(recs) * float64(len(tl.sorted))
	distinct := float64(sampled) * float64(sampled) / (2 * float64(repeats))
	return distinct >= 0.75*entries
}

// distinctSample is how many of an index's first values mostlyDistinct
// looks at.
const distinctSample = 4096

// distinctEntries returns the entries of an index in key order, sorted as
// they are (for an index whose values are mostly distinct).
func (tl *tableLoad) distinctEntries(ix *indexDef) []entry {
	type keyed struct {
		val string
		at  int32 // the record's position in id order
	}
	all := make([]keyed, 0, len(tl.sorted))
	var vals []string
	for k, rec := range tl.sorted {
		vals = ix.values(rec, vals[:0])
		for _, v := range vals {
			all = append(all, keyed{v, int32(k)})
		}
	}
	// Equal values keep id order: keys are value, then id.
	slices.SortFunc(all, func(a, b keyed) int {
		if c := strings.Compare(a.val, b.val); c != 0 {
			return c
		}
		return int(a.at - b.at)
	})
	entries := make([]entry, len(all))
	for i, e := range all {
		entries[i] = entry{val: e.val, rec: tl.sorted[e.at]}
	}
	return entries
}

// Export returns every record of the store, each table in id order.
func (s *Store) Export() *Dataset {
	sn := s.Read()
	ds := &Dataset{
		Organisations:  all(sn.t, organisations),
		Persons:        all(sn.t, persons),
		Groups:         all(sn.t, groups),
		Placements:     all(sn.t, placements),
		Syllabuses:     all(sn.t, syllabuses),
		CalendarEvents: all(sn.t, calendarEvents),
		Attendances:    all(sn.t, attendances),
		Absences:       all(sn.t, absences),

		EmployeePlacements: all(sn.t, employeePlacements),
		Tombstones:         all(sn.t, tombstones),
	}
	exportRegister(sn, ds)
	return ds
}

func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Snapshot is a consistent, read-only view of the store at one instant.
// Records it returns are shared with the store and must not be modified.
type Snapshot struct {
	t *tx
}

// Read returns a snapshot of the current state.
func (s *Store) Read() *Snapshot { return &Snapshot{t: newTx(s.db(), false)} }

// Organisation returns the organisation with the id, if any.
func (sn *Snapshot) Organisation(id string) (*model.Organisation, bool) {
	return first(sn.t, organisations, id)
}

// Person returns the person with the id, if any.
func (sn *Snapshot) Person(id string) (*model.Person, bool) { return first(sn.t, persons, id) }

// Group returns the group with the id, if any.
func (sn *Snapshot) Group(id string) (*model.Group, bool) { return first(sn.t, groups, id) }

// Placement returns the placement with the id, if any.
func (sn *Snapshot) Placement(id string) (*model.Placement, bool) {
	return first(sn.t, placements, id)
}

// Syllabus returns the syllabus with the id, if any.
func (sn *Snapshot) Syllabus(id string) (*model.Syllabus, bool) {
	return first(sn.t, syllabuses, id)
}

// CalendarEvent returns the calendar event with the id, if any.
func (sn *Snapshot) CalendarEvent(id string) (*model.CalendarEvent, bool) {
	return first(sn.t, calendarEvents, id)
}

// Attendance returns the attendance record with the id, if any.
func (sn *Snapshot) Attendance(id string) (*model.Attendance, bool) {
	return first(sn.t, attendances, id)
}

// Absence returns the absence record with the id, if any.
func (sn *Snapshot) Absence(id string) (*model.Absence, bool) {
	return first(sn.t, absences, id)
}

// EmployeePlacement returns the employee placement with the id, if any.
func (sn *Snapshot) EmployeePlacement(id string) (*model.EmployeePlacement, bool) {
	return first(sn.t, employeePlacements, id)
}

// Grade returns the grade with the id, if any (interface A's two kinds and
// interface B's grades are one table).
func (sn *Snapshot) Grade(id string) (*model.Grade, bool) {
	return first(sn.t, grades, id)
}

// Count returns the number of records in a table.
func (sn *Snapshot) Count(table string) int { return sn.t.count(table) }

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

// PutCalendarEvent creates or replaces a calendar event; see put. The store
// keeps a copy of the event's references, not the caller's EventRefs.
func (s *Store) PutCalendarEvent(r model.CalendarEvent) (model.CalendarEvent, bool, error) {
	r.EventRefs = r.RefsCopy()
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
	// refs appends the references of a record to dst as (JSON path,
	// table, id).
	refs func(rec *T, dst []ref) []ref
	// conflict checks the kind's uniqueness rules against the stored state.
	conflict func(t *tx, rec *T) error
	// derive sets what the store keeps with a record from the records it
	// refers to (an attendance's event day), after the references are
	// checked.
	derive func(t *tx, rec *T)
	// cascade brings the records derived from a stored record up to date
	// after it replaced old (nil: created).
	cascade func(t *tx, old, stored *T) error
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
	t := w.t
	if k.strip != nil {
		k.strip(&rec)
	}
	if err := k.check(t, &rec); err != nil {
		return zero, false, err
	}
	if k.conflict != nil {
		if err := k.conflict(t, &rec); err != nil {
			return zero, false, err
		}
	}
	if k.derive != nil {
		k.derive(t, &rec)
	}
	now := w.now
	m := k.meta(&rec)
	old, exists := first(t, k, k.id(&rec))
	if exists {
		om := k.meta(old)
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
	if err := t.insert(tableDefs[k.table], &stored); err != nil {
		return zero, false, err
	}
	if k.cascade != nil {
		var prev *T
		if exists {
			prev = old
		}
		if err := k.cascade(t, prev, &stored); err != nil {
			return zero, false, err
		}
	}
	if !exists || !m.Modified.Equal(k.meta(old).Modified) {
		// Interface B saw nothing when it shows the record neither before
		// nor after the write (a grade without a value, ...).
		hidden := (!exists || model.HiddenFromRegister(old)) && model.HiddenFromRegister(&stored)
		w.note(k.table, k.id(&stored), false, hidden)
		if exists && !model.HiddenFromRegister(old) && model.HiddenFromRegister(&stored) {
			// B showed it and no longer does: for B's clients it went away
			// (a deletion in the commit report, and in deletedEntities).
			if err := w.tombstone(k.table, k.id(&stored), model.KindLeftRegister, false); err != nil {
				return zero, false, err
			}
			w.note(k.table, k.id(&stored), true, false)
		}
	}
	return stored, !exists, nil
}

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
	t := newTx(s.db(), true)
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

// PutGrade creates or replaces a grade; see putIn.
func (w *Writer) PutGrade(r model.Grade) (model.Grade, bool, error) { return putIn(w, grades, r) }

// PutSyllabus creates or replaces a syllabus; see putIn.
func (w *Writer) PutSyllabus(r model.Syllabus) (model.Syllabus, bool, error) {
	return putIn(w, syllabuses, r)
}

// Delete removes the record with the id from a table; ErrNotFound if none,
// ConflictError if other records still refer to it.
func (w *Writer) Delete(table, id string) error {
	td, ok := tableDefs[table]
	if !ok {
		return fmt.Errorf("store: no table %q", table)
	}
	if w.t.get(table, id) == nil {
		return ErrNotFound
	}
	if refs := referrers(w.t, table, id); len(refs) > 0 {
		return &ConflictError{Message: fmt.Sprintf("%s %s is still referred to by %s", strings.TrimSuffix(table, "s"), id, strings.Join(refs, ", "))}
	}
	if err := w.cascadeRegister(table, id); err != nil {
		return err
	}
	if refs := referrers(w.t, table, id); len(refs) > 0 {
		return &ConflictError{Message: fmt.Sprintf("%s %s is still referred to by %s", strings.TrimSuffix(table, "s"), id, strings.Join(refs, ", "))}
	}
	kinds := []string{table}
	rec := w.t.get(table, id)
	if w.kinds != nil {
		if ks := w.kinds(table, rec); len(ks) > 0 {
			kinds = ks
		}
	}
	hidden := model.HiddenFromRegister(rec)
	if err := w.t.delete(td, id); err != nil {
		return err
	}
	w.note(table, id, true, hidden)
	for _, k := range kinds {
		if err := w.tombstone(table, id, k, hidden); err != nil {
			return err
		}
	}
	return nil
}

// ConflictError reports a write that conflicts with the stored state: a
// duplicate where a value must be unique, or a delete of a record that others
// still refer to.
type ConflictError struct{ Message string }

func (e *ConflictError) Error() string { return e.Message }

// referrers names the records that refer to the record (at most a few of each
// kind), for the tables whose records can be deleted.
func referrers(t *tx, table, id string) []string {
	var out []string
	scanCount := func(tbl, label string, refers func(obj any) bool) {
		n := 0
		_ = t.scan(tableDefs[tbl], IndexID, "", func(obj any) bool {
			if refers(obj) {
				n++
			}
			return true
		})
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, label))
		}
	}
	count := func(tbl, ix, label string) {
		n := 0
		_ = t.scan(tableDefs[tbl], ix, id, func(any) bool { n++; return true })
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, label))
		}
	}
	switch table {
	case TableGroups:
		count(TablePlacements, IndexGroup, "placement(s)")
		if n := t.eventsOfGroup(id); n > 0 {
			out = append(out, fmt.Sprintf("%d calendar event(s)", n))
		}
	case TablePersons:
		count(TablePlacements, IndexChild, "placement(s) as child")
		count(TablePlacements, IndexOwner, "placement(s) as owner")
		count(TableGroups, IndexMember, "group membership(s)")
		count(TablePersons, IndexResponsible, "person(s) as responsible")
		count(TableAttendances, IndexStudent, "attendance record(s)")
		count(TableAbsences, IndexStudent, "absence record(s)")
		if n := t.eventsTaughtBy(id); n > 0 {
			out = append(out, fmt.Sprintf("%d calendar event(s) as teacher", n))
		}
		count(TableEmployeePlacements, IndexEmployee, "employee placement(s)")
		// Reporters and registrars are not indexed (nothing lists by them):
		// deleting a person, which is rare, scans those two tables.
		scanCount(TableAttendances, "attendance record(s) as reporter", func(obj any) bool {
			a := obj.(*model.Attendance)
			return a.Reporter != nil && a.Reporter.ID == id
		})
		scanCount(TableAbsences, "absence record(s) as registrar", func(obj any) bool {
			a := obj.(*model.Absence)
			return a.RegisteredBy != nil && a.RegisteredBy.ID == id
		})
	}
	return append(out, registerReferrers(t, table, id)...)
}

func sameAttributes[T any](k kind[T], a, b *T) bool {
	x, y := *a, *b
	*k.meta(&x), *k.meta(&y) = model.Meta{}, model.Meta{}
	return reflect.DeepEqual(x, y)
}

func (k kind[T]) check(t *tx, rec *T) error {
	if k.refs == nil {
		return nil
	}
	for _, r := range k.refs(rec, nil) {
		if t.get(r.table, r.id) == nil {
			return r.err()
		}
	}
	return nil
}

func first[T any](t *tx, k kind[T], id string) (*T, bool) {
	obj, ok := t.get(k.table, id).(*T)
	return obj, ok
}

func all[T any](t *tx, k kind[T]) []T {
	out := []T{}
	_ = t.walk(tableDefs[k.table], IndexID, nil, false, func(_ []byte, obj any) bool {
		out = append(out, *obj.(*T))
		return true
	})
	return out
}

// Scan calls fn with the records of a table in the order of an index until
// fn returns false. With a prefix it visits only the records whose first
// index value is prefix (for a composite value such as a role and a time,
// the part before the separator); "" visits every record the index holds.
func (sn *Snapshot) Scan(table, index, prefix string, fn func(obj any) bool) error {
	td, ok := tableDefs[table]
	if !ok {
		return fmt.Errorf("store: no table %q", table)
	}
	return sn.t.scan(td, index, prefix, fn)
}

// Referrers names what still refers to the record (empty when nothing does).
func (sn *Snapshot) Referrers(table, id string) []string { return referrers(sn.t, table, id) }

// CopyFrom makes the store's content a copy of other's current content, in
// constant time: go-memdb snapshots share structure and copy on write, so
// writes to either store never reach the other.
func (s *Store) CopyFrom(other *Store) {
	db := other.db().Snapshot()
	s.commit(func() { s.dbp.Store(db) })
}
