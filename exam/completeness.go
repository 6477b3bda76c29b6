package exam

import (
	"context"
	"fmt"
	"slices"
)

// roundState is what the exam knows of one round: the mock's records at
// its start (after the changes before it) and at its end, the changes the
// exam made, and which records the client's reads selected.
type roundState struct {
	number     int
	start, end snapshot
	// touched are the records that changed while the round ran, by list:
	// a client may or may not see those in the round.
	touched map[resourceKey]map[string]bool
	// scopes are the records each of the client's selections (canonical
	// scopeQuery) held at the round's end.
	scopes map[string]map[string]bool
	// whole are the lists the client read without a selection by the end
	// of the round; selected the ones it read with one.
	whole, selected map[resourceKey][]*scopeQuery
}

// diffIDs returns the ids whose version differs between two snapshots of a
// list, or that are in one only.
func diffIDs(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for id, v := range a {
		if w, ok := b[id]; !ok || w != v {
			out[id] = true
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			out[id] = true
		}
	}
	return out
}

// completeness judges the rounds of one scene from the evidence and the
// oracle's snapshots.
type completeness struct {
	scene  string
	task   Task
	ev     *evidence
	o      *oracle
	rounds []*roundState
	// firstRead is the round in which the client first read each list.
	firstRead map[resourceKey]int
}

func newCompleteness(scene string, task Task, ev *evidence, o *oracle) *completeness {
	return &completeness{scene: scene, task: task, ev: ev, o: o, firstRead: map[resourceKey]int{}}
}

// inScope reports whether the client's reads of a list by the end of a
// round selected a record.
func (r *roundState) inScope(key resourceKey, id string) bool {
	if len(r.whole[key]) > 0 {
		return true
	}
	for _, q := range r.selected[key] {
		if r.scopes[q.canonical()][id] {
			return true
		}
	}
	return false
}

// read reports whether the client read a list (walked it) by the end of a
// round.
func (r *roundState) read(key resourceKey) bool {
	return len(r.whole[key]) > 0 || len(r.selected[key]) > 0
}

// finishRound records what the client read and what its selections held,
// once the round's end snapshot is taken.
func (c *completeness) finishRound(ctx context.Context, r *roundState) error {
	r.touched = map[resourceKey]map[string]bool{}
	for key, m := range r.end {
		r.touched[key] = diffIDs(r.start[key], m)
	}
	r.whole, r.selected, r.scopes = map[resourceKey][]*scopeQuery{}, map[resourceKey][]*scopeQuery{}, map[string]map[string]bool{}
	for _, w := range c.ev.walks {
		if w.Orphan || w.Round > r.number {
			continue
		}
		if _, ok := r.end[w.Key]; !ok {
			continue // not a list the oracle reads
		}
		if _, ok := c.firstRead[w.Key]; !ok {
			c.firstRead[w.Key] = w.Round
		}
		if w.Scope == nil {
			r.whole[w.Key] = append(r.whole[w.Key], nil)
			continue
		}
		canon := w.Scope.canonical()
		if _, done := r.scopes[canon]; done {
			continue
		}
		r.selected[w.Key] = append(r.selected[w.Key], w.Scope)
		op := c.listOp(w.Key)
		recs, err := c.o.walk(ctx, op, w.Scope.Query, w.Scope.Search)
		if err != nil {
			// The selection cannot be read again: nothing is required of it.
			r.scopes[canon] = map[string]bool{}
			continue
		}
		set := map[string]bool{}
		for _, rec := range recs {
			set[rec.ID] = true
		}
		r.scopes[canon] = set
	}
	c.rounds = append(c.rounds, r)
	return nil
}

func (c *completeness) listOp(key resourceKey) listOp {
	for _, l := range c.o.lists {
		if l.Key == key {
			return l
		}
	}
	return listOp{Key: key}
}

// judge returns the completeness findings of the last finished round, and
// records in the scene's result which kinds it could judge.
func (c *completeness) judge(sr *SceneResult) []Finding {
	r := c.rounds[len(c.rounds)-1]
	var out []Finding
	keys := make([]resourceKey, 0, len(r.end))
	for k := range r.end {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	full, incremental := false, false
	for _, key := range keys {
		if !r.read(key) {
			continue
		}
		if r.number == 1 || c.firstRead[key] == r.number {
			full = true
			out = append(out, c.full(r, key)...)
			continue
		}
		incremental = true
		out = append(out, c.incremental(r, key)...)
	}
	noList := "the client walked no list of the mock"
	for _, k := range []Kind{KindMissing, KindStale} {
		sr.judge(k, map[bool]string{true: "", false: noList}[full])
	}
	reason := noList + " in a round after its first"
	if c.task == TaskFullSync {
		reason = "full-sync has one round: nothing changes between rounds"
	}
	for _, k := range []Kind{KindChangeMissed, KindDeletionMissed, KindRereads} {
		sr.judge(k, map[bool]string{true: "", false: reason}[incremental])
	}
	return out
}

// lastWalk returns the client's last walk of a list in a round.
func (c *completeness) lastWalk(key resourceKey, round int) *walk {
	var last *walk
	for _, w := range c.ev.walks {
		if w.Key == key && w.Round == round {
			last = w
		}
	}
	return last
}

// full requires every record the client's reads select, unchanged during
// the round, delivered in the round at its version.
func (c *completeness) full(r *roundState, key resourceKey) []Finding {
	truth := r.end[key]
	var missing, stale []string
	total := 0
	for id, v := range truth {
		if r.touched[key][id] || !r.inScope(key, id) {
			continue
		}
		total++
		got := false
		seen := false
		for _, d := range c.ev.got[key][id] {
			if d.Round != r.number {
				continue
			}
			seen = true
			if d.Version == v {
				got = true
				break
			}
		}
		switch {
		case got:
		case seen:
			stale = append(stale, id)
		default:
			missing = append(missing, id)
		}
	}
	var out []Finding
	var ex *Exchange
	if w := c.lastWalk(key, r.number); w != nil {
		ex = w.Last
	}
	describe := func(id string) string { return id + " (" + truth[id] + ")" }
	if len(missing) > 0 {
		out = append(out, KindMissing.finding(c.scene, r.number,
			fmt.Sprintf("%d of the %d records of %s that the client reads were not delivered to it in round %d: %s", len(missing), total, key, r.number, examples(missing, describe)),
			"every record of the list, as the walk to its end (pageToken null, or offset up to pagination.total) delivers them", ex))
	}
	if len(stale) > 0 {
		out = append(out, KindStale.finding(c.scene, r.number,
			fmt.Sprintf("%d records of %s were delivered in round %d only at a version older than the one the mock held all round: %s", len(stale), key, r.number, examples(stale, describe)),
			"each record at its latest version (meta.modified / meta.updatedAt as shown)", ex))
	}
	return out
}

// incremental requires every change to a list since the previous round
// (not changed again during this one) delivered by this round's end: a
// record at its new version, a deletion told.
func (c *completeness) incremental(r *roundState, key resourceKey) []Finding {
	prev := c.rounds[len(c.rounds)-2]
	before, now := prev.start[key], r.start[key]
	var changed, deleted []string
	unchanged, reread := 0, 0
	for id, v := range now {
		if r.touched[key][id] || !r.inScope(key, id) {
			continue
		}
		old, existed := before[id]
		if existed && old == v {
			unchanged++
			if c.deliveredIn(key, id, r.number) {
				reread++
			}
			continue
		}
		if !c.deliveredAt(key, id, v, prev.number) {
			changed = append(changed, id)
		}
	}
	for id := range before {
		if _, ok := now[id]; ok || !prev.inScope(key, id) {
			continue
		}
		if !c.toldDeleted(key, id, prev, r) {
			deleted = append(deleted, id)
		}
	}
	var out []Finding
	var ex *Exchange
	if w := c.lastWalk(key, r.number); w != nil {
		ex = w.First
	}
	if len(changed) > 0 {
		out = append(out, KindChangeMissed.finding(c.scene, r.number,
			fmt.Sprintf("%d records of %s created or changed since round %d were not delivered at their new version by the end of round %d: %s", len(changed), key, prev.number, r.number,
				examples(changed, func(id string) string { return id + " (" + now[id] + ")" })),
			"every record modified after the previous round's start, e.g. through meta.modified.after (interface B) or a _search on meta.updatedAt (interface A)", ex))
	}
	if len(deleted) > 0 {
		out = append(out, KindDeletionMissed.finding(c.scene, r.number,
			fmt.Sprintf("%d records of %s deleted since round %d were neither told as deleted nor absent from a whole read by the end of round %d: %s", len(deleted), key, prev.number, r.number,
				examples(deleted, func(id string) string { return id })),
			"each deletion learnt from GET /deletedEntities (interface B), the audit events (interface A), a 404 by id, or a whole read of the list", ex))
	}
	if unchanged >= minRereadBase && 2*reread > unchanged {
		out = append(out, KindRereads.finding(c.scene, r.number,
			fmt.Sprintf("round %d read %d of the %d records of %s that had not changed since round %d", r.number, reread, unchanged, key, prev.number),
			"read only what changed since the previous round", ex))
	}
	return out
}

// minRereadBase is how many unchanged records a list must hold before the
// exam notes that a round read most of them again.
const minRereadBase = 10

func (c *completeness) deliveredIn(key resourceKey, id string, round int) bool {
	for _, d := range c.ev.got[key][id] {
		if d.Round == round {
			return true
		}
	}
	return false
}

// deliveredAt reports whether a record was delivered at a version in a
// round from `from` on.
func (c *completeness) deliveredAt(key resourceKey, id, version string, from int) bool {
	for _, d := range c.ev.got[key][id] {
		if d.Round >= from && d.Version == version {
			return true
		}
	}
	return false
}

// toldDeleted reports whether the client learnt of a deletion since the
// previous round's start: a deletion list, an audit event or a 404 naming
// it, or a whole walk of the list in this round (with a selection that
// held the record at the previous round's end) that no longer had it.
func (c *completeness) toldDeleted(key resourceKey, id string, prev, r *roundState) bool {
	for _, d := range c.ev.gone[key][id] {
		if d.Round >= prev.number {
			return true
		}
	}
	for _, w := range c.ev.walks {
		if w.Key != key || w.Round != r.number || w.Orphan || w.Changes || !w.Complete || w.IDs[id] {
			continue
		}
		if w.Scope == nil || prev.scopes[w.Scope.canonical()][id] {
			return true
		}
	}
	return false
}
