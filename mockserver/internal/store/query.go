package store

import (
	"bytes"
	"slices"
	"time"

	"github.com/skolkit/skolkit/model"
)

// PlacementQuery holds the filters and the order of a placement list. Empty
// fields do not filter. Date bounds are inclusive; a placement with no endDate
// passes both endDate bounds. CreatedBefore and ModifiedBefore are inclusive,
// CreatedAfter and ModifiedAfter exclusive.
type PlacementQuery struct {
	Organisation    string        `json:"o,omitempty"`
	Group           string        `json:"g,omitempty"`
	Child           string        `json:"c,omitempty"`
	Owner           string        `json:"w,omitempty"`
	StartOnOrBefore model.Date    `json:"sb,omitempty"`
	StartOnOrAfter  model.Date    `json:"sa,omitempty"`
	EndOnOrBefore   model.Date    `json:"eb,omitempty"`
	EndOnOrAfter    model.Date    `json:"ea,omitempty"`
	CreatedBefore   *time.Time    `json:"cb,omitempty"`
	CreatedAfter    *time.Time    `json:"ca,omitempty"`
	ModifiedBefore  *time.Time    `json:"mb,omitempty"`
	ModifiedAfter   *time.Time    `json:"ma,omitempty"`
	Sort            model.SortKey `json:"s,omitempty"`
}

// Match reports whether p passes every filter of q. Only placements of
// interface B's school forms (FS, FTH, OPPFTH) ever match: the placements
// table also holds interface A's student placements of other school forms.
func (q *PlacementQuery) Match(p *model.Placement) bool {
	switch {
	case !model.IsRegisterPlacement(p),
		q.Organisation != "" && p.PlacedAt.ID != q.Organisation,
		q.Group != "" && (p.Group == nil || p.Group.ID != q.Group),
		q.Child != "" && p.Child.ID != q.Child,
		q.Owner != "" && !slices.ContainsFunc(p.Owners, func(o model.PersonReference) bool { return o.ID == q.Owner }),
		q.StartOnOrBefore != "" && p.StartDate > q.StartOnOrBefore,
		q.StartOnOrAfter != "" && p.StartDate < q.StartOnOrAfter,
		q.EndOnOrBefore != "" && p.EndDate != "" && p.EndDate > q.EndOnOrBefore,
		q.EndOnOrAfter != "" && p.EndDate != "" && p.EndDate < q.EndOnOrAfter,
		q.CreatedBefore != nil && p.Meta.Created.After(*q.CreatedBefore),
		q.CreatedAfter != nil && !p.Meta.Created.After(*q.CreatedAfter),
		q.ModifiedBefore != nil && p.Meta.Modified.After(*q.ModifiedBefore),
		q.ModifiedAfter != nil && !p.Meta.Modified.After(*q.ModifiedAfter):
		return false
	}
	return true
}

// Cursor marks where a page ended: the order key of the last record returned.
// It is opaque to callers; the HTTP layer carries it inside a signed token.
type Cursor []byte

// PlacementPage is one page of a placement list. Next is nil on the last page.
type PlacementPage struct {
	Items []*model.Placement
	Next  Cursor
}

// span is a key range of an index: from lo (inclusive) to hi (exclusive); a
// nil bound is open.
type span struct{ lo, hi []byte }

// plan says how a query walks the placements table: which index drives it,
// which key ranges of that index can hold matches, and in which order the
// results come. When sorted is set the matches are collected from the driving
// index and sorted by the order index in memory; otherwise the driving index
// is also the order and the walk stops after one page.
type plan struct {
	drive  string
	spans  []span
	order  string
	desc   bool
	sorted bool
}

func valueSpan(v string) span {
	return span{[]byte(v + keySep), []byte(v + "\x01")}
}

// rangeSpan covers the values from lo to hi inclusive ("" = open).
func rangeSpan(lo, hi string) span {
	var s span
	if lo != "" {
		s.lo = []byte(lo + keySep)
	}
	if hi != "" {
		s.hi = []byte(hi + "\x01")
	}
	return s
}

// planFor picks the cheapest walk for q. Equality filters are the most
// selective, so one of them drives when present (child, then owner, group,
// organisation). A sortkey without an equality filter walks its own index in
// order, which serves a page without touching the rest of the table. Without
// either, a date or timestamp range drives, and otherwise the id index.
func planFor(q *PlacementQuery) plan {
	eq := ""
	var eqIndex string
	for _, c := range []struct{ v, ix string }{
		{q.Child, IndexChild}, {q.Owner, IndexOwner}, {q.Group, IndexGroup}, {q.Organisation, IndexPlacedAt},
	} {
		if c.v != "" {
			eq, eqIndex = c.v, c.ix
			break
		}
	}
	sortIndex, desc := "", false
	switch q.Sort {
	case model.SortStartDateAsc:
		sortIndex = IndexStartDate
	case model.SortStartDateDesc:
		sortIndex, desc = IndexStartDate, true
	case model.SortEndDateAsc:
		sortIndex = IndexEndDate
	case model.SortEndDateDesc:
		sortIndex, desc = IndexEndDate, true
	case model.SortModifiedDesc:
		sortIndex, desc = IndexModified, true
	}
	switch {
	case eq != "" && sortIndex != "":
		return plan{drive: eqIndex, spans: []span{valueSpan(eq)}, order: sortIndex, desc: desc, sorted: true}
	case eq != "":
		return plan{drive: eqIndex, spans: []span{valueSpan(eq)}, order: eqIndex}
	case sortIndex != "":
		return plan{drive: sortIndex, spans: spansOf(q, sortIndex), order: sortIndex, desc: desc}
	}
	for _, ix := range []string{IndexStartDate, IndexCreated, IndexModified, IndexEndDate} {
		if s := spansOf(q, ix); s[0].lo != nil || s[0].hi != nil || len(s) > 1 {
			return plan{drive: ix, spans: s, order: ix}
		}
	}
	return plan{drive: IndexID, spans: []span{{}}, order: IndexID}
}

// spansOf returns the key ranges of index ix that the filters of q on the
// same field allow: the whole index when q has no such filter.
func spansOf(q *PlacementQuery, ix string) []span {
	switch ix {
	case IndexStartDate:
		return []span{rangeSpan(string(q.StartOnOrAfter), string(q.StartOnOrBefore))}
	case IndexEndDate:
		if q.EndOnOrBefore == "" {
			// onOrAfter alone: the range runs on into the open-ended key.
			return []span{rangeSpan(string(q.EndOnOrAfter), "")}
		}
		return []span{rangeSpan(string(q.EndOnOrAfter), string(q.EndOnOrBefore)), valueSpan(openEndKey)}
	case IndexCreated:
		return []span{timeSpan(q.CreatedAfter, q.CreatedBefore)}
	case IndexModified:
		return []span{timeSpan(q.ModifiedAfter, q.ModifiedBefore)}
	}
	return []span{{}}
}

// timeSpan covers timestamps after `after` (exclusive) up to `before`
// (inclusive).
func timeSpan(after, before *time.Time) span {
	var s span
	if after != nil {
		s.lo = []byte(timeKey(*after) + "\x01")
	}
	if before != nil {
		s.hi = []byte(timeKey(*before) + "\x01")
	}
	return s
}

// Placements returns the page of at most limit placements matching q that
// follows the cursor (nil: the first page).
func (sn *Snapshot) Placements(q PlacementQuery, after Cursor, limit int) (PlacementPage, error) {
	pl := planFor(&q)
	if pl.sorted {
		return sn.sortedPage(&q, pl, after, limit)
	}
	return sn.streamPage(&q, pl, after, limit)
}

// streamPage walks the driving index in order from the cursor and stops as
// soon as it has one match more than the page holds: the generic Page of
// engine.go with the query's predicate.
func (sn *Snapshot) streamPage(q *PlacementQuery, pl plan, after Cursor, limit int) (PlacementPage, error) {
	items, next, err := sn.Page(TablePlacements, pl.drive, pl.spans, pl.desc, after, limit,
		func(o any) bool { return q.Match(o.(*model.Placement)) })
	return placementPage(items, next), err
}

func placementPage(items []any, next Cursor) PlacementPage {
	page := PlacementPage{Next: next}
	if len(items) > 0 {
		page.Items = make([]*model.Placement, len(items))
		for i, o := range items {
			page.Items[i] = o.(*model.Placement)
		}
	}
	return page
}

// spanStart is where a walk of sp begins: the span's first key in the walk's
// direction, or the cursor when it lies inside the span. ok is false when the
// cursor is already past the whole span.
func spanStart(sp span, after Cursor, desc bool) (from []byte, ok bool) {
	if !desc {
		from = sp.lo
		if after != nil {
			if sp.hi != nil && bytes.Compare(after, sp.hi) >= 0 {
				return nil, false
			}
			if from == nil || bytes.Compare(after, from) > 0 {
				from = after
			}
		}
		return from, true
	}
	from = sp.hi
	if after != nil {
		if sp.lo != nil && bytes.Compare(after, sp.lo) < 0 {
			return nil, false
		}
		if from == nil || bytes.Compare(after, from) < 0 {
			from = after
		}
	}
	return from, true
}

func inSpan(key []byte, sp span) bool {
	return (sp.lo == nil || bytes.Compare(key, sp.lo) >= 0) && (sp.hi == nil || bytes.Compare(key, sp.hi) < 0)
}

// sortedPage collects every match from the driving (equality) index, orders
// them by the order index and cuts the page after the cursor: the generic
// SortedPage of engine.go, keyed by the placement's value under the order
// index.
func (sn *Snapshot) sortedPage(q *PlacementQuery, pl plan, after Cursor, limit int) (PlacementPage, error) {
	key := func(o any) string {
		if vals := appendPlacementIndexValues(nil, o.(*model.Placement), pl.order); len(vals) > 0 {
			return vals[0]
		}
		return ""
	}
	items, next, err := sn.SortedPage(TablePlacements, pl.drive, pl.spans[:1], func(o any) bool { return q.Match(o.(*model.Placement)) },
		key, pl.desc, after, limit)
	return placementPage(items, next), err
}

// Groups returns the groups with the given ids that exist, in the order asked,
// each once.
func (sn *Snapshot) Groups(ids []string) []*model.Group {
	seen := make(map[string]bool, len(ids))
	out := make([]*model.Group, 0, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if g, ok := sn.Group(id); ok {
			out = append(out, g)
		}
	}
	return out
}
