package register

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skolkit/skolkit/mockserver/store"
)

// writeTracker numbers the states of the store the server can vouch for, so
// that interface-B reads can reuse what they computed for the same state:
// whole response bodies (responseCache) and walks that need no snapshot of
// their own (lazy walks, below).
//
// The store itself has no version. Instead every operation of the server
// that may write to it runs between BeginWrite and EndWrite: every request
// except interface-B reads (GET and HEAD under /api/v1/, served by this
// package's engine, which never writes), every control-plane request, and the Go
// methods that replace data (Reset, LoadScenario, ImportState). EndWrite
// moves the generation on. A read that saw no write running and the same
// generation before and after taking its snapshot knows that the snapshot
// is the state of that generation: equal generations, equal data.
//
// mockserver.Server.Store hands the store to code the server cannot watch
// (and calls Escape). From then on no read is stable: caches are bypassed
// and walks keep snapshots of their own, as before this tracker existed.
//
// Lazy walks: a pageToken walk whose first page was read at a stable
// generation g carries g instead of a snapshot of its own. While the
// generation is still g its pages read the live store, which holds the
// same data. The first write to begin after such a walk was issued keeps a
// snapshot of generation g (one for all walks of g) before it writes, and
// later pages of those walks read that snapshot.
type writeTracker struct {
	gen     atomic.Uint64
	writers atomic.Int64
	escaped atomic.Bool
	// lazy is the newest generation at which a read may have issued a lazy
	// walk; it only grows.
	lazy atomic.Uint64

	mu    sync.Mutex        // serialises the snapshots of generations
	walks map[uint64]string // generation → walk id of its snapshot
	order []uint64          // generations in walks, oldest first
}

// maxGenerationWalks bounds how many generations keep a snapshot for lazy
// walks; the store bounds its walks too (and lets idle ones go).
const maxGenerationWalks = 256

// view is how a read took its snapshot: at a stable generation or not.
type view struct {
	gen    uint64
	stable bool
}

// IsRead reports whether a request is one of the interface-B reads that run
// outside the write brackets.
func IsRead(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.HasPrefix(r.URL.Path, PrefixB+"/")
}

// BeginWrite starts an operation that may write to the store. If a lazy walk
// may have been issued at the current generation, the first write keeps a
// snapshot of it before anything is written.
func (s *API) BeginWrite() {
	t := &s.writes
	t.writers.Add(1)
	if t.lazy.Load() == t.gen.Load() {
		t.mu.Lock()
		s.keepGenerationLocked()
		t.mu.Unlock()
	}
}

// EndWrite ends an operation begun with BeginWrite.
func (s *API) EndWrite() {
	t := &s.writes
	t.gen.Add(1)
	t.writers.Add(-1)
}

// Escape is called when the store is handed out: it keeps a snapshot for the
// lazy walks of the current generation, and no read is stable afterwards.
func (s *API) Escape() {
	t := &s.writes
	if t.escaped.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.escaped.Store(true)
	if t.lazy.Load() == t.gen.Load() {
		s.keepGenerationLocked()
	}
}

// keepGenerationLocked keeps a snapshot of the current generation for its
// lazy walks, unless one is kept already. The caller holds writes.mu, and no
// write has begun since the generation's lazy walks were issued.
func (s *API) keepGenerationLocked() {
	t := &s.writes
	g := t.gen.Load()
	if _, ok := t.walks[g]; ok {
		return
	}
	if t.walks == nil {
		t.walks = map[uint64]string{}
	}
	if len(t.order) == maxGenerationWalks {
		delete(t.walks, t.order[0])
		t.order = t.order[1:]
	}
	t.walks[g] = s.store.KeepWalk(s.store.Read())
	t.order = append(t.order, g)
}

// stableView reports whether the store holds the state of a stable
// generation now, without taking a snapshot: what a read answered from the
// response cache needs. lazy is as for readView.
func (s *API) stableView(lazy bool) view {
	t := &s.writes
	g := t.gen.Load()
	if t.writers.Load() != 0 || t.escaped.Load() {
		return view{}
	}
	if lazy {
		t.markLazy(g)
	}
	if t.writers.Load() != 0 || t.gen.Load() != g || t.escaped.Load() {
		return view{}
	}
	return view{gen: g, stable: true}
}

// markLazy notes that a lazy walk may be issued at generation g.
func (t *writeTracker) markLazy(g uint64) {
	for {
		old := t.lazy.Load()
		if old >= g || t.lazy.CompareAndSwap(old, g) {
			return
		}
	}
}

// readView takes a snapshot and reports whether it is the state of a stable
// generation. With lazy set, the caller may issue a lazy walk at that
// generation, and the next write keeps a snapshot of it.
func (s *API) readView(lazy bool) (*store.Snapshot, view) {
	t := &s.writes
	g := t.gen.Load()
	if t.writers.Load() != 0 || t.escaped.Load() {
		return s.store.Read(), view{}
	}
	sn := s.store.Read()
	if lazy {
		t.markLazy(g)
	}
	if t.writers.Load() != 0 || t.gen.Load() != g || t.escaped.Load() {
		return sn, view{}
	}
	return sn, view{gen: g, stable: true}
}

// lazyWalk returns the snapshot for a page of a lazy walk issued at
// generation g: the live store while it is still generation g, else the
// snapshot kept for g. When that is gone (more than maxGenerationWalks
// generations ago, or the store let it go), the walk continues on the live
// data, as a walk of its own does when its snapshot is gone.
func (s *API) lazyWalk(g uint64) (*store.Snapshot, view) {
	if sn, v := s.readView(true); v.stable && v.gen == g {
		return sn, v
	}
	t := &s.writes
	t.mu.Lock()
	id, ok := t.walks[g]
	if !ok {
		// No write has begun since g without keeping g (they keep it under
		// this lock before writing), so the live store still holds g unless
		// g's snapshot was dropped.
		sn := s.store.Read()
		t.mu.Unlock()
		return sn, view{}
	}
	t.mu.Unlock()
	sn, _ := s.store.Walk(id)
	return sn, view{}
}
