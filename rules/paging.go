package rules

import (
	"fmt"
	"slices"
	"strings"
)

// The paging family: every page within the limit sent with that request,
// walks without repeats or gaps, totals equal to what a walk yields, and
// the order a sortkey asks for, on every operation that pages.

var (
	specLimitParam = SpecRef{Section: "Endpoints (interface B): placement list query parameters", Quote: "`limit` | integer, at least 1 | number of records; when omitted the server returns as many as it chooses, continued through `pageToken`", Decision: "interface-b-paging"}
	specLimitStd   = &SpecRef{Section: "SS 12000 2.1.0: list operations, parameter limit", Quote: "Antal poster som ska visas i resultatet. Utelämnas det så returnas så många poster som möjligt av servern, se `pageToken`."}
	specPageToken  = SpecRef{Section: "Endpoints (interface B)", Quote: "When the response `pageToken` is null, nothing more can be fetched.", Decision: "interface-b-paging"}
	specTokenStd   = &SpecRef{Section: "SS 12000 2.1.0: list operations, pageToken", Quote: "Ett opakt värde som servern givit som svar på en tidigare ställd fråga. … Om värdet är null finns inget mer att hämta."}
	specAPaging    = SpecRef{Section: "Endpoints (interface A)", Quote: "Pagination on list and search: query `limit` (integer, default 50) and `offset` (integer, default 0); both optional."}
	specATotal     = SpecRef{Section: "Endpoints (interface A)", Quote: "A list response has the shape `data` plus `pagination`, where `pagination` holds integers `offset`, `limit`, `total`. `total` is the number of items that exist."}
	specSortKey    = SpecRef{Section: "Endpoints (interface B)", Quote: "Name of the sort parameter: not shown. Its allowed values are `StartDateAsc`, `StartDateDesc`, `EndDateAsc`, `EndDateDesc`, `ModifiedDesc`.", Decision: "placement-parameter-names"}
	specSortStd    = &SpecRef{Section: "SS 12000 2.1.0: list operations, parameter sortkey", Quote: "Anger hur resultatet ska sorteras."}
)

func pages(op *Operation) bool { return op != nil && op.Paging != PagingNone && op.Records == "data" }

func tokenWalks(op *Operation) bool { return op != nil && op.Paging == PagingPageToken }

func offsetWalks(op *Operation) bool { return op != nil && op.Paging == PagingOffset }

// pagingRules returns the paging family.
func pagingRules() []*Rule {
	return []*Rule{
		{ID: "paging.page-within-limit", Family: FamilyPaging, Side: SideServer,
			Title: "every page holds at most the limit sent with that request (first pages, later pages, and a limit that changes during a walk)",
			Spec:  specLimitParam, StandardSpec: specLimitStd,
			Severity: MUST, Standard: MUST, Applies: pages, Concurrent: true, Check: checkPageWithinLimit},
		{ID: "paging.walk-without-repeats", Family: FamilyPaging, Side: SideServer,
			Title: "a walk returns each record once and ends: no record on two pages, no pageToken twice",
			Spec:  specPageToken, StandardSpec: specTokenStd,
			Severity: MUST, Standard: MUST, Applies: pages, Check: checkWalkWithoutRepeats},
		{ID: "paging.walks-agree", Family: FamilyPaging, Side: SideServer,
			Title: "two complete walks of the same query (with different limits, or none) yield the same records: no gaps",
			Spec:  specPageToken, StandardSpec: specTokenStd,
			Severity: MUST, Standard: MUST, Applies: pages, Check: checkWalksAgree},
		{ID: "paging.total-matches-walk", Family: FamilyPaging, Side: SideServer,
			Title:    "pagination.total is what a complete offset walk yields, the same on every page",
			Spec:     specATotal,
			Severity: MUST, Standard: Off, Applies: offsetWalks, Check: checkTotalMatchesWalk},
		{ID: "paging.offset-page-full", Family: FamilyPaging, Side: SideServer,
			Title:    "an offset page starts at the offset asked for and holds min(limit, total − offset) items, so that the next offset leaves no gap",
			Spec:     specAPaging,
			Severity: MUST, Standard: Off, Applies: offsetWalks, Concurrent: true, Check: checkOffsetPageFull},
		{ID: "paging.sort-order", Family: FamilyPaging, Side: SideServer,
			Title: "a walk with a sortkey is in that order across all its pages (a name or code: wherever every plausible collation agrees), records without the key together at one end",
			Spec:  specSortKey, StandardSpec: specSortStd,
			Severity: MUST, Standard: MUST, Applies: func(op *Operation) bool { return tokenWalks(op) && len(op.SortKeys) > 0 },
			NewState: func() any { return map[*Walk]*sortState{} }, Check: checkSortOrder},
	}
}

func checkPageWithinLimit(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	limit, ok := o.IntParam("limit")
	if !ok || limit < 1 {
		return
	}
	if !o.IsPage() {
		c.Undecided(o, "the answer is not a page of the contract's shape (the contract rules judge its shape)")
		return
	}
	n := len(o.Records())
	c.Judged(o)
	if n > limit {
		c.Fail(o, fmt.Sprintf("at most %d records", limit), "%s holds %d records with limit=%d", o.Label(), n, limit)
	}
}

func checkWalkWithoutRepeats(c *Context, o *Observation) {
	w := c.History.WalkOf(o)
	if w == nil || !w.Last(o) {
		return
	}
	if c.History.WriteDuring(w, o.Exchange) {
		c.Undecided(o, "a write was seen during the walk")
		return
	}
	c.Judged(o)
	if len(w.PageRepeats) > 0 {
		c.FailRelated(o, w.Pages[:len(w.Pages)-1], "each record of the walk once", "page %d of the walk %s repeats %d records of earlier pages, e.g. %s", len(w.Pages), w.First().Path, len(w.PageRepeats), strings.Join(first(w.PageRepeats, 3), ", "))
	}
	if w.TokenAgain {
		c.Fail(o, "a pageToken never given twice in a walk", "%s answered a pageToken the walk had already followed: the walk loops", o.Label())
	}
	if w.Complete && w.First().Query.Get("limit") == "" && len(w.Pages) > 1 {
		c.Note(o, "%s without limit: page sizes %v (the server's choice)", w.Op.ID(), w.Sizes)
	}
}

func checkWalksAgree(c *Context, o *Observation) {
	w := c.History.WalkOf(o)
	if w == nil || !w.Complete || !w.Last(o) {
		return
	}
	list, _ := c.History.Finished.Peek(w.Key)
	var other *Walk
	for _, x := range list {
		if x != w {
			other = x
		}
	}
	if other == nil {
		return
	}
	if c.History.WriteBetween(other.First(), o.Exchange) {
		c.Undecided(o, "a write was seen between the two walks")
		return
	}
	c.Judged(o)
	var missing, extra []string
	for _, id := range other.Order {
		if _, ok := w.IDs[id]; !ok {
			missing = append(missing, id)
		}
	}
	for _, id := range w.Order {
		if _, ok := other.IDs[id]; !ok {
			extra = append(extra, id)
		}
	}
	if len(missing)+len(extra) > 0 {
		c.FailRelated(o, []*Exchange{other.First()}, fmt.Sprintf("the %d records of the earlier walk of the same query", len(other.Order)),
			"the walk of %s (limits %v) yields %d records, the earlier walk of the same query (limits %v) %d: %d missing (e.g. %s), %d not in the other (e.g. %s)",
			w.First().Path, compactInts(w.Limits), len(w.Order), compactInts(other.Limits), len(other.Order), len(missing), strings.Join(first(missing, 3), ", "), len(extra), strings.Join(first(extra, 3), ", "))
	}
}

// compactInts lists the distinct values in order of first appearance.
func compactInts(v []int) []int {
	var out []int
	for _, x := range v {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func checkTotalMatchesWalk(c *Context, o *Observation) {
	w := c.History.WalkOf(o)
	if w == nil || !w.Complete || !w.Last(o) {
		return
	}
	if c.History.WriteDuring(w, o.Exchange) {
		c.Undecided(o, "a write was seen during the walk")
		return
	}
	for _, id := range w.Positions {
		if id == "" {
			c.Undecided(o, "the items have no id to count distinct ones by")
			return
		}
	}
	c.Judged(o)
	total := w.Total()
	for i, t := range w.Totals {
		if t != total {
			c.FailRelated(o, []*Exchange{w.Pages[i]}, fmt.Sprintf("pagination.total %d on every page", total), "page %d of the walk of %s says total %d, the last %d", i+1, w.First().Path, t, total)
			return
		}
	}
	if len(w.Order) != total {
		c.FailRelated(o, []*Exchange{w.First()}, fmt.Sprintf("%d distinct records (pagination.total)", total), "the walk of %s covers every position below pagination.total %d but yields %d distinct records", w.First().Path, total, len(w.Order))
	}
}

func checkOffsetPageFull(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	pg, _ := o.Object()["pagination"].(map[string]any)
	offset, ok1 := IntOf(pg["offset"])
	limit, ok2 := IntOf(pg["limit"])
	total, ok3 := IntOf(pg["total"])
	if !ok1 || !ok2 || !ok3 {
		return // the contract family says so
	}
	c.Judged(o)
	asked, _ := o.IntParam("offset")
	if offset != asked {
		c.Fail(o, fmt.Sprintf("pagination.offset %d", asked), "%s answered pagination.offset %d", o.Label(), offset)
	}
	if l, ok := o.IntParam("limit"); ok && limit > l {
		c.Fail(o, fmt.Sprintf("pagination.limit at most %d", l), "%s answered pagination.limit %d", o.Label(), limit)
	}
	if want := max(0, min(limit, total-offset)); len(o.Records()) != want {
		c.Fail(o, fmt.Sprintf("%d items (pagination.limit %d, total %d, offset %d)", want, limit, total, offset), "%s holds %d items: the next offset would skip or repeat records", o.Label(), len(o.Records()))
	}
}

// sortState follows one walk's order.
type sortState struct {
	last    string // the key of the last record with one
	lastAt  *Exchange
	classes string // K (with the key) and M (without), each run once
}

// SortOrder is the order a sortkey value asks for.
type SortOrder struct {
	// Field is the member ordered by: "startDate", "meta.modified",
	// "familyName", "civicNo.value".
	Field string
	Desc  bool
	// Text says the member is a name or code: a pair of records is judged
	// only where every plausible collation agrees (CompareText).
	Text bool
}

// SortKey reads a sortkey value: its member ("StartDateAsc" → startDate,
// "ModifiedDesc" → meta.modified, "CivicNoAsc" → civicNo.value) and
// direction, when the member is a date, a date-time or a string of the
// record. ok is false when the item schema has no such member (persons'
// DisplayNameAsc: a person has no displayName).
func SortKey(op *Operation, value string) (order SortOrder, ok bool) {
	base, desc := strings.CutSuffix(value, "Desc")
	if !desc {
		var asc bool
		if base, asc = strings.CutSuffix(value, "Asc"); !asc {
			return SortOrder{}, false
		}
	}
	if base == "" || op.ItemSchema == nil {
		return SortOrder{}, false
	}
	field := strings.ToLower(base[:1]) + base[1:]
	s := schemaAt(op.ItemSchema, field)
	if s == nil {
		field = "meta." + field
		s = schemaAt(op.ItemSchema, field)
	}
	if s != nil && s.Type.Is("object") {
		// An object with a value (civicNo: value and nationality).
		field += ".value"
		s = schemaAt(s, "value")
	}
	switch {
	case s == nil:
		return SortOrder{}, false
	case s.Format == "date" || s.Format == "date-time":
		return SortOrder{Field: field, Desc: desc}, true
	case s.Type.Is("string") && s.Format == "" && len(s.Enum) == 0:
		return SortOrder{Field: field, Desc: desc, Text: true}, true
	}
	return SortOrder{}, false
}

func checkSortOrder(c *Context, o *Observation) {
	w := c.History.WalkOf(o)
	if w == nil || !w.Last(o) {
		return
	}
	key := w.First().Query.Get("sortkey")
	if key == "" {
		return
	}
	order, ok := SortKey(o.Op, key)
	if !ok {
		c.Undecided(o, "the sortkey "+key+" orders by no member of the record")
		return
	}
	field := order.Field
	if c.History.WriteDuring(w, o.Exchange) {
		c.Undecided(o, "a write was seen during the walk")
		return
	}
	states := c.State().(map[*Walk]*sortState)
	st := states[w]
	if st == nil {
		st = &sortState{}
		if len(states) > 256 {
			clear(states)
		}
		states[w] = st
	}
	decided, undecided := 0, 0
	for _, rec := range o.Records() {
		vals := LookupPath(rec, field)
		v := ""
		if len(vals) > 0 {
			v, _ = vals[0].(string)
		}
		class := "M"
		if v != "" {
			class = "K"
		}
		if !strings.HasSuffix(st.classes, class) {
			st.classes += class
		}
		if len(st.classes) > 2 {
			c.Fail(o, "records without "+field+" together at one end", "in the walk of %s with sortkey=%s, records without %s come both before and after records with it (record %v)", w.First().Path, key, field, rec["id"])
			delete(states, w)
			return
		}
		if class == "M" {
			continue
		}
		if st.lastAt != nil {
			var cmp int
			if order.Text {
				cmp, ok = CompareText(v, st.last)
			} else {
				cmp, ok = CompareValues(v, st.last, "")
			}
			switch {
			case !ok:
				undecided++
			case (!order.Desc && cmp < 0) || (order.Desc && cmp > 0):
				how := ""
				if order.Text {
					how = " in every collation (bytes, case folded, Swedish, accent-blind)"
				}
				c.FailRelated(o, []*Exchange{st.lastAt}, "records ordered by "+key, "in the walk of %s with sortkey=%s, record %v (%s %q) comes after one with %s %q, which is out of order%s", w.First().Path, key, rec["id"], field, v, field, st.last, how)
				delete(states, w)
				return
			default:
				decided++
			}
		}
		st.last, st.lastAt = v, o.Exchange
	}
	if decided == 0 && undecided > 0 {
		c.Undecided(o, "the collations disagree on the order of every pair of "+field+" on the page")
	} else {
		c.Judged(o)
	}
	if w.Complete {
		delete(states, w)
	}
}

func first[S ~[]E, E any](s S, n int) S {
	if len(s) > n {
		return s[:n]
	}
	return s
}
