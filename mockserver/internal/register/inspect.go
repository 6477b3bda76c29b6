package register

// Views into the caches, for the mock's own tests (package mockserver's,
// which reach an API through their Server and check the caches through
// HTTP requests of both interfaces).

// Cached reports whether the response cache holds an answer to the escaped
// path and raw query at the current generation.
func (s *API) Cached(path, rawQuery string) bool {
	_, ok := s.responses.get(s.stableView(false), responseKey{path: path, query: rawQuery})
	return ok
}

// Stable reports whether a read now would be at a stable generation (and so
// cached).
func (s *API) Stable() bool { return s.stableView(false).stable }

// DropPlacementMemo empties the placement memo (a benchmark's cold reads).
func (s *API) DropPlacementMemo() {
	s.memo.entries.Clear()
	s.memo.size.Store(0)
}
