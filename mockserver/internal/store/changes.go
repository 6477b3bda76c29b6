package store

import (
	"maps"
	"slices"
	"time"
)

// Change is what one committed write changed: the ids of the records it
// created or changed and of those it deleted, by table. A Load replaces the
// whole content and is reported as All. Subscriptions (webhook deliveries)
// and the change log are derived from it, so that every surface that writes
// (interface A, interface B, the control plane, Go code holding the store)
// is covered by the one place where writes are committed.
type Change struct {
	// At is the instant the write stamped on what it changed.
	At time.Time
	// Put lists, by table, the records created or changed (an unchanged
	// record that was put again is not listed).
	Put map[string][]string
	// Deleted lists, by table, the records deleted, and those a write hid
	// from interface B although B showed them (model.KindLeftRegister: the
	// store keeps them, and they are in Put too).
	Deleted map[string][]string
	// All is set when the whole content was replaced (Load).
	All bool
	// RegisterHidden holds, by table, the records of Put and Deleted that
	// interface B shows neither before nor after the write
	// (Table.Hidden): a change B's clients never see.
	RegisterHidden map[string]map[string]bool
}

// RegisterSees reports whether interface B sees a change of one of the
// records listed: one that is not RegisterHidden.
func (c Change) RegisterSees(table string, ids []string) bool {
	for _, id := range ids {
		if !c.RegisterHidden[table][id] {
			return true
		}
	}
	return false
}

// Empty reports whether the change changed nothing.
func (c Change) Empty() bool { return !c.All && len(c.Put) == 0 && len(c.Deleted) == 0 }

// Tables lists the tables the change touched, in name order.
func (c Change) Tables() []string {
	set := map[string]bool{}
	for t := range c.Put {
		set[t] = true
	}
	for t := range c.Deleted {
		set[t] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// OnCommit registers fn to be called after every committed write, with what
// it changed, in commit order for the writes of one goroutine. fn runs
// synchronously in the writing goroutine after the data is visible, so it
// must be quick and must not write to the store; nil removes the observer.
func (s *Store) OnCommit(fn func(Change)) {
	if fn == nil {
		s.observer.Store(nil)
		return
	}
	s.observer.Store(&fn)
}

// publish hands a committed change to the observer.
func (s *Store) publish(c Change) {
	if c.Empty() {
		return
	}
	if fn := s.observer.Load(); fn != nil {
		(*fn)(c)
	}
}

// note records that the transaction put (deleted = false) or deleted a
// record, and whether interface B never shows it (Change.RegisterHidden).
func (w *Writer) note(table, id string, deleted, registerHidden bool) {
	m := &w.change.Put
	if deleted {
		m = &w.change.Deleted
	}
	if *m == nil {
		*m = map[string][]string{}
	}
	(*m)[table] = append((*m)[table], id)
	if registerHidden {
		if w.change.RegisterHidden == nil {
			w.change.RegisterHidden = map[string]map[string]bool{}
		}
		if w.change.RegisterHidden[table] == nil {
			w.change.RegisterHidden[table] = map[string]bool{}
		}
		w.change.RegisterHidden[table][id] = true
	}
}
