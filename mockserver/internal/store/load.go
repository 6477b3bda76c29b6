package store

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

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
	for _, tp := range s.prepares(ds, p.now, true) {
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

// prepares lists the tables of a load in the schema's order: errors are
// reported in this order.
func (s *Store) prepares(ds *Dataset, now time.Time, owned bool) []tablePrepare {
	out := make([]tablePrepare, len(s.schema.tables))
	for i, td := range s.schema.tables {
		out[i] = tablePrepare{td.name, func() *tableLoad {
			tl := td.decl.prepare(td, s.schema, ds, now, owned)
			tl.loadPage = s.loadPage
			return tl
		}}
	}
	return out
}

func (s *Store) load(ds *Dataset, owned bool, pre *Preload) error {
	now := s.clock()
	if pre != nil {
		now = pre.now
	}
	prepares := s.prepares(ds, now, owned)
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
	db := s.newDB()
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
	loadPage   int       // entries a page
	err        error
}

// prepare copies the table's records of a dataset (one allocation holds all
// that the store keeps), strips and stamps them, and sorts them by id. An
// empty or duplicate id is an error. With owned, the records stay where
// they are (LoadOwned).
func (k *Table[T]) prepare(td *tableDef, sc *Schema, ds *Dataset, now time.Time, owned bool) *tableLoad {
	return prepareRecords(k, td, sc, k.records(ds), now, owned)
}

func prepareRecords[T any](k *Table[T], td *tableDef, sc *Schema, recs []T, now time.Time, owned bool) *tableLoad {
	tl := &tableLoad{td: td, loadPage: 256}
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
		if k.Strip != nil {
			k.Strip(rec)
		}
		if k.ID(rec) == "" {
			tl.err = &RecordError{Table: k.Name, At: i, Message: "record without id"}
			return tl
		}
		m := k.Meta(rec)
		if m.Created.IsZero() {
			m.Created = now
		}
		if m.Modified.IsZero() {
			m.Modified = m.Created
		}
		order[i] = idAt{k.ID(rec), i}
	}
	tl.sorted = make([]any, len(own))
	tl.at = func(i int) any { return &own[i] }
	var ids []string
	if sc.referenced[k.Name] {
		ids = make([]string, len(own))
	}
	i, prev := 0, ""
	for _, run := range inIDOrder(order) {
		for _, o := range order[run[0]:run[1]] {
			if i > 0 && prev == o.id {
				// the later of the two, as the dataset lists them
				tl.err = &RecordError{Table: k.Name, At: o.at, Message: "duplicate id " + o.id}
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
		if len(k.Refs) == 0 {
			return nil
		}
		// Records of one activity, group or school refer to the same
		// records: a reference equal to the previous record's one at the
		// same position was checked already.
		var refs, prev []ref
		var buf []string
		for i := range own {
			refs, buf = k.refs(&own[i], refs[:0], buf)
			for j, r := range refs {
				if j < len(prev) && prev[j].id == r.id && prev[j].table == r.table {
					continue
				}
				if !ids[r.table].has(r.id) {
					return fmt.Errorf("%s %s: %w", k.Name, k.ID(&own[i]), r.err())
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
// calendar events of a group), and whose ranges do not
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
		tl.pages = cut(td.layout(IndexID), entries, tl.loadPage)
		return
	}
	ix := &td.indexes[i]
	if ix.time != nil {
		tl.indexPages[i] = cut(td.layout(ix.name), tl.timeEntries(ix), tl.loadPage)
		return
	}
	if tl.mostlyDistinct(ix) {
		tl.indexPages[i] = cut(td.layout(ix.name), tl.distinctEntries(ix), tl.loadPage)
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
	tl.indexPages[i] = cut(td.layout(ix.name), all, tl.loadPage)
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

// export puts the table's records, in id order, into ds.
func (k *Table[T]) export(t *tx, ds *Dataset) { k.setRecords(ds, all[T](t, k.Name)) }
