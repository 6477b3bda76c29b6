package store

import (
	"sync"
	"sync/atomic"
)

// The store's write generations. Every commit (a Write that returns nil, a
// Load, a CopyFrom) moves the generation on, whoever commits: a request of
// any surface, the control plane, or Go code holding the store. A reader
// that took its snapshot while no commit was under way and saw the same
// generation before and after knows that the snapshot is that generation's
// state: equal generations, equal data. Interface B keys its response
// cache by generation and lets a pageToken walk that began at a stable
// generation carry the generation instead of a snapshot of its own (a lazy
// walk).
//
// The counter is a sequence lock: odd while a commit is under way, and two
// more per commit. A generation is the even value a reader saw.
//
// Lazy walks: a reader that may issue a lazy walk marks its generation
// (ReadView with lazy set). The next commit keeps a snapshot of that
// generation before it commits (one for every walk of the generation), and
// later pages of those walks read it (GenerationView).
type generations struct {
	// mu serialises commits: the sequence lock needs one writer at a time,
	// and a Load swaps the whole database beside the write transactions.
	mu  sync.Mutex
	seq atomic.Uint64
	// lazy is the newest generation at which a reader may have issued a
	// lazy walk; it only grows.
	lazy atomic.Uint64

	keptMu sync.Mutex
	kept   map[uint64]string // generation → walk id of its snapshot
	order  []uint64          // generations in kept, oldest first
}

// firstGeneration is the generation of a new store: never 0, which a
// pageToken reads as "no generation".
const firstGeneration = 2

// maxKeptGenerations bounds how many generations keep a snapshot for lazy
// walks; the walk registry bounds and expires its snapshots too.
const maxKeptGenerations = 256

// commit makes a change visible as the next generation: publish swaps in
// the new state (a transaction's commit, a new database). A lazy walk of
// the current generation gets a snapshot of it first.
func (s *Store) commit(publish func()) {
	g := &s.gens
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := g.seq.Add(1) - 1 // odd from here on: no reader is stable
	if g.lazy.Load() == cur {
		s.keepGeneration(cur)
	}
	publish()
	g.seq.Add(1)
}

// keepGeneration keeps a snapshot of generation gen, which the store holds
// now, unless one is kept already.
func (s *Store) keepGeneration(gen uint64) {
	g := &s.gens
	g.keptMu.Lock()
	defer g.keptMu.Unlock()
	if _, ok := g.kept[gen]; ok {
		return
	}
	if g.kept == nil {
		g.kept = map[uint64]string{}
	}
	if len(g.order) == maxKeptGenerations {
		delete(g.kept, g.order[0])
		g.order = g.order[1:]
	}
	g.kept[gen] = s.KeepWalk(s.Read())
	g.order = append(g.order, gen)
}

// Generation reports the store's generation now, without a snapshot, and
// whether it is stable (no commit under way): what a read answered from a
// cache keyed by generation needs. With lazy set, the caller may issue a
// lazy walk at that generation.
func (s *Store) Generation(lazy bool) (gen uint64, stable bool) {
	_, gen, stable = s.view(lazy, false, 0)
	return gen, stable
}

// ReadView takes a snapshot and reports its generation, and whether the
// snapshot is that generation's state (stable). With lazy set, the caller
// may issue a lazy walk at that generation: the next commit keeps a
// snapshot of it.
func (s *Store) ReadView(lazy bool) (sn *Snapshot, gen uint64, stable bool) {
	return s.view(lazy, true, 0)
}

// view is Generation (read false) and ReadView (read true); with only set,
// it marks a lazy walk only at that generation.
func (s *Store) view(lazy, read bool, only uint64) (*Snapshot, uint64, bool) {
	g := &s.gens
	gen := g.seq.Load()
	var sn *Snapshot
	if read {
		sn = s.Read()
	}
	if gen%2 == 1 {
		return sn, 0, false
	}
	if lazy && (only == 0 || only == gen) {
		for {
			old := g.lazy.Load()
			if old >= gen || g.lazy.CompareAndSwap(old, gen) {
				break
			}
		}
	}
	if g.seq.Load() != gen {
		return sn, 0, false
	}
	return sn, gen, true
}

// GenerationView returns the snapshot for a page of a lazy walk issued at
// generation gen: the live store while it is still at gen (stable is then
// true), else the snapshot the first commit after gen kept. When that is
// gone (more than maxKeptGenerations generations ago, or the walk registry
// let it go), the walk continues on the live data, as a walk whose own
// snapshot is gone does.
func (s *Store) GenerationView(gen uint64) (sn *Snapshot, stable bool) {
	if sn, g, ok := s.view(true, true, gen); ok && g == gen {
		return sn, true
	}
	g := &s.gens
	g.mu.Lock() // no commit under way, nor keeping gen's snapshot
	if g.seq.Load() == gen {
		sn = s.Read()
		g.mu.Unlock()
		return sn, true
	}
	g.keptMu.Lock()
	id, ok := g.kept[gen]
	g.keptMu.Unlock()
	g.mu.Unlock()
	if !ok {
		// The commit after gen kept gen's snapshot before it committed
		// (the reader that issued the walk marked gen), so the snapshot
		// was dropped since.
		return s.Read(), false
	}
	sn, _ = s.Walk(id)
	return sn, false
}

// KeptGeneration reports whether a snapshot of generation gen is kept for
// the lazy walks begun at it.
func (s *Store) KeptGeneration(gen uint64) bool {
	g := &s.gens
	g.keptMu.Lock()
	defer g.keptMu.Unlock()
	_, ok := g.kept[gen]
	return ok
}
