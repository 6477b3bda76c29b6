package register

import (
	"github.com/skolkit/skolkit/mockserver/internal/store"
)

// Interface-B reads reuse what they computed for the same state of the
// store: whole response bodies (responseCache) and walks that need no
// snapshot of their own (lazy walks). The store numbers its committed
// states (store.Store.Generation): every commit moves the generation on,
// whoever writes, so a read at a stable generation knows that equal
// generations hold equal data.
//
// A pageToken walk whose first page was read at a stable generation g
// carries g instead of a snapshot of its own. While the store is still at g
// its pages read the live store; the first commit after g keeps a snapshot
// of g, and later pages read that (store.Store.GenerationView).

// view is how a read took its snapshot: at a stable generation or not.
type view struct {
	gen    uint64
	stable bool
}

// stableView reports whether the store holds the state of a stable
// generation now, without taking a snapshot: what a read answered from the
// response cache needs. lazy is as for readView.
func (s *API) stableView(lazy bool) view {
	gen, stable := s.store.Generation(lazy)
	return view{gen: gen, stable: stable}
}

// readView takes a snapshot and reports whether it is the state of a stable
// generation. With lazy set, the caller may issue a lazy walk at that
// generation.
func (s *API) readView(lazy bool) (*store.Snapshot, view) {
	sn, gen, stable := s.store.ReadView(lazy)
	return sn, view{gen: gen, stable: stable}
}

// lazyWalk returns the snapshot for a page of a lazy walk issued at
// generation g.
func (s *API) lazyWalk(g uint64) (*store.Snapshot, view) {
	sn, stable := s.store.GenerationView(g)
	if !stable {
		return sn, view{}
	}
	return sn, view{gen: g, stable: true}
}
