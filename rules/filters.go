package rules

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// The filters family: every record of a filtered answer satisfies every
// filter of its request (on later pages: of the walk's first request), and
// a complete filtered walk holds every record of an unfiltered walk that
// satisfies them; on every list whose parameters the contract says filter
// something, and on interface A's searches.

var (
	specFilters    = SpecRef{Section: "Endpoints (interface B)", Quote: "The date filters can be combined to select active placements.", Decision: "filter-bounds"}
	specFiltersStd = &SpecRef{Section: "SS 12000 2.1.0: list operations, filter parameters", Quote: "Begränsa urvalet till … (each filter parameter limits the selection to the records it names; startDate/endDate bounds are inclusive, meta.*.before inclusive, meta.*.after exclusive; records without endDate are always included by the endDate filters)"}
)

func filters(op *Operation) bool {
	return op != nil && (op.Kind == KindList || op.Kind == KindSearch) && len(op.Filters) > 0
}

// filterRules returns the filters family.
func filterRules() []*Rule {
	return []*Rule{
		{ID: "filters.records-match", Family: FamilyFilters, Side: SideServer,
			Title: "every record of a filtered answer satisfies every filter its request sent (on a later page: the walk's first request): every value of a multi-valued filter, every bound as worded (inclusive, exclusive, open ends), date-times as instants, every condition of a search",
			Spec:  specFilters, StandardSpec: specFiltersStd,
			Severity: MUST, Standard: MUST, Applies: filters, Check: checkRecordsMatch},
		{ID: "filters.keeps-every-match", Family: FamilyFilters, Side: SideServer,
			Title: "a complete filtered walk holds every record of a complete walk with fewer filters (or none) that satisfies the filters it adds",
			Spec:  specFilters, StandardSpec: specFiltersStd,
			Severity: MUST, Standard: MUST, Applies: filters, Check: checkKeepsEveryMatch},
	}
}

// FilterValues are the values a request sends for a filter: every
// repeated value (and, for an array parameter, every comma-separated one).
func FilterValues(q url.Values, f Filter) []string {
	var out []string
	for _, v := range q[f.Param] {
		if f.Many {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
			continue
		}
		out = append(out, v)
	}
	return out
}

// MatchFilter says whether a record satisfies a filter parameter's values:
// Unknown when the filter selects by something the record does not show,
// or leaves the record's case open.
func MatchFilter(f Filter, values []string, rec map[string]any) Tri {
	if len(values) == 0 || f.Field == "" || f.Compare == CompareNone || f.Compare == CompareBody {
		return Unknown
	}
	if f.EitherWithout != "" && len(LookupPath(rec, f.EitherWithout)) == 0 {
		return Unknown
	}
	if f.Compare == CompareNamesContain {
		return namesContain(strings.Split(f.Field, ","), values, rec)
	}
	got := flatten(LookupPath(rec, f.Field))
	if len(got) == 0 {
		switch {
		case f.AbsentMatches:
			return Yes
		case f.Compare == CompareEquals || f.Compare == CompareContains:
			return No
		}
		return Unknown
	}
	switch f.Compare {
	case CompareEquals, CompareContains:
		for _, g := range got {
			for _, v := range values {
				if equalsParam(g, v) {
					return Yes
				}
			}
		}
		return No
	case CompareMatches:
		out := No
		for _, g := range got {
			s, _ := g.(string)
			for _, v := range values {
				switch {
				case s == v:
					return Yes
				case strings.EqualFold(s, v):
					out = Unknown
				}
			}
		}
		return out
	case CompareOnOrBefore, CompareOnOrAfter, CompareBefore, CompareAfter:
		all := Yes
		for _, g := range got {
			c, ok := CompareValues(g, values[0], f.Format)
			if !ok {
				return Unknown
			}
			var keep bool
			switch f.Compare {
			case CompareOnOrBefore, CompareBefore:
				keep = c <= 0
			case CompareOnOrAfter:
				keep = c >= 0
			case CompareAfter:
				keep = c > 0
			}
			if !keep {
				all = No
			}
		}
		return all
	}
	return Unknown
}

// MatchFilterSeen is MatchFilter for every filter, those that follow
// references (Filter.Through) included: the records they reach are read
// from the history, and a record is Unknown when one of them has not been
// seen, shows nothing to compare, or when the record's own Filter.Also
// names the value.
func MatchFilterSeen(h *History, s Surface, f Filter, values []string, rec map[string]any) Tri {
	if len(f.Through) == 0 && f.Under == nil {
		return MatchFilter(f, values, rec)
	}
	if len(values) == 0 || f.Field == "" {
		return Unknown
	}
	if f.Also != "" {
		for _, g := range flatten(LookupPath(rec, f.Also)) {
			for _, v := range values {
				if equalsParam(g, v) {
					return Unknown
				}
			}
		}
	}
	reached := []map[string]any{rec}
	for _, hop := range f.Through {
		var next []map[string]any
		for _, r := range reached {
			ids := flatten(LookupPath(r, hop.Member))
			if len(ids) == 0 {
				return Unknown
			}
			for _, id := range ids {
				sid, _ := id.(string)
				seen := seenRecord(h, RecordRef{Surface: s, Resource: hop.Resource, ID: strings.ToLower(sid)})
				if seen == nil {
					return Unknown
				}
				next = append(next, seen)
			}
		}
		reached = next
	}
	last := f
	last.Through, last.Also = nil, ""
	out := No
	for _, r := range reached {
		if len(flatten(LookupPath(r, last.Field))) == 0 {
			out = Unknown // shows nothing: the member may have been left out
			continue
		}
		match := MatchFilter(last, values, r)
		if f.Under != nil {
			match = matchUnder(h, s, *f.Under, flatten(LookupPath(r, last.Field)), values)
		}
		switch match {
		case Yes:
			return Yes
		case Unknown:
			out = Unknown
		}
	}
	return out
}

// matchUnder: Yes when one of the elements, or an element above one, is
// one of the values; No when every element's line of parents, as seen, ends
// without meeting one; Unknown when an element on the way up has not been
// seen (or the parents loop).
func matchUnder(h *History, s Surface, up Hop, elements []any, values []string) Tri {
	out := No
	for _, e := range elements {
		cur, _ := e.(string)
		visited := map[string]bool{}
		t := Unknown
		for cur != "" && !visited[strings.ToLower(cur)] {
			visited[strings.ToLower(cur)] = true
			if slices.ContainsFunc(values, func(v string) bool { return equalsParam(cur, v) }) {
				return Yes
			}
			el := seenRecord(h, RecordRef{Surface: s, Resource: up.Resource, ID: strings.ToLower(cur)})
			if el == nil {
				break
			}
			parents := flatten(LookupPath(el, up.Member))
			if len(parents) == 0 {
				t = No // the top of the tree, and no value met on the way
				break
			}
			cur, _ = parents[0].(string)
		}
		if t == Unknown {
			out = Unknown
		}
	}
	return out
}

// seenRecord is the newest reading of a record under any presentation
// (nil: not seen).
func seenRecord(h *History, ref RecordRef) map[string]any {
	var best *Sighting
	for _, s := range h.SightingsOf(ref) {
		if s.Record != nil && (best == nil || s.Ex.Start.After(best.Ex.Start)) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	return best.Record
}

// namesContain says whether every value appears, case folded, in one of
// a record's names: Unknown when the record shows none of them.
func namesContain(members, values []string, rec map[string]any) Tri {
	var names []string
	for _, m := range members {
		for _, v := range LookupPath(rec, m) {
			if s, ok := v.(string); ok && s != "" {
				names = append(names, s)
			}
		}
	}
	if len(names) == 0 {
		return Unknown
	}
	out := Yes
	for _, v := range values {
		lower := slices.ContainsFunc(names, func(n string) bool { return strings.Contains(strings.ToLower(n), strings.ToLower(v)) })
		upper := slices.ContainsFunc(names, func(n string) bool { return strings.Contains(strings.ToUpper(n), strings.ToUpper(v)) })
		switch {
		case !lower && !upper:
			return No
		case lower != upper: // a letter whose cases do not map one to one
			out = Unknown
		}
	}
	return out
}

// shownBy is what a record shows of a filter's members, for messages.
func shownBy(f Filter, rec map[string]any) string {
	if len(f.Through) > 0 {
		var hops []string
		for _, h := range f.Through[1:] {
			hops = append(hops, h.Member+" of "+h.Resource)
		}
		hops = append(hops, f.Field)
		return fmt.Sprintf("%s is %s, and the records it reaches, as seen, show %s without the value", f.Through[0].Member, Compact(flatten(LookupPath(rec, f.Through[0].Member))), strings.Join(hops, " → "))
	}
	if f.Compare != CompareNamesContain {
		return f.Field + " is " + Compact(flatten(LookupPath(rec, f.Field)))
	}
	var parts []string
	for _, m := range strings.Split(f.Field, ",") {
		parts = append(parts, m+" is "+Compact(flatten(LookupPath(rec, m))))
	}
	return strings.Join(parts, ", ")
}

// flatten opens arrays among values (a member that is a list).
func flatten(vs []any) []any {
	var out []any
	for _, v := range vs {
		if a, ok := v.([]any); ok {
			out = append(out, a...)
			continue
		}
		out = append(out, v)
	}
	return out
}

// walkQuery is the query that selected an answer's records: its own, or
// on a later page of a walk the first request's.
func walkQuery(c *Context, o *Observation) (url.Values, bool) {
	if o.Op.Paging == PagingPageToken && o.Query.Get("pageToken") != "" {
		w := c.History.WalkOf(o)
		if w == nil {
			return nil, false
		}
		return w.First().Query, true
	}
	return o.Query, true
}

// searchBody is a search's filter object.
func searchBody(o *Observation) (map[string]any, bool) {
	v, err := o.RequestJSON()
	if err != nil {
		return nil, false
	}
	body, _ := v.(map[string]any)
	f, ok := body["filter"].(map[string]any)
	return f, ok
}

// describe names a filter and its values for messages.
func describe(f Filter, values []string) string {
	return f.Param + "=" + strings.Join(values, "&"+f.Param+"=")
}

func checkRecordsMatch(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	records := o.Records()
	if o.Op.Kind == KindSearch {
		f, ok := searchBody(o)
		if !ok {
			return
		}
		judged := 0
		for _, rec := range records {
			switch SearchTri(f, rec) {
			case No:
				c.Fail(o, "only records that satisfy "+Compact(f), "%s: record %v does not satisfy the filter by any reading of its operators: %s", o.Label(), rec["id"], Compact(rec))
				return
			case Yes:
				judged++
			}
		}
		if judged == 0 && len(records) > 0 {
			c.Undecided(o, "every record's match depends on how the vendor's operators (contains, like, null) are read")
			return
		}
		c.JudgedN(o, judged)
		return
	}
	q, ok := walkQuery(c, o)
	if !ok {
		c.Undecided(o, "a later page of a walk whose first request was not seen")
		return
	}
	judged := 0
	for _, f := range o.Op.Filters {
		values := FilterValues(q, f)
		if len(values) == 0 {
			continue
		}
		for _, rec := range records {
			switch MatchFilterSeen(c.History, o.Op.Surface, f, values, rec) {
			case Yes:
				judged++
			case No:
				c.Fail(o, "only records with "+describe(f, values), "%s: record %v does not satisfy %s (%s)", o.Label(), rec["id"], describe(f, values), shownBy(f, rec))
				return
			}
		}
	}
	c.JudgedN(o, judged)
}

// baseFor finds the complete walk to compare a complete filtered walk
// with: the same client and list (for a search: the list of its
// resource), whose every parameter the filtered walk sends too with the
// same values, with the most such parameters.
func baseFor(c *Context, w *Walk) (*Walk, []Filter) {
	wq := w.First().Query
	var best *Walk
	var added []Filter
	for _, b := range c.History.FinishedWalks() {
		if b == w || b.Client != w.Client || !b.Complete {
			continue
		}
		sameList := b.Op == w.Op
		if w.Op.Kind == KindSearch {
			sameList = b.Op.Kind == KindList && b.Op.Surface == w.Op.Surface && b.Op.Resource == w.Op.Resource
		}
		if !sameList {
			continue
		}
		bq := b.First().Query
		var extra []Filter
		subset := true
		for _, f := range b.Op.Filters {
			if bv := bq[f.Param]; len(bv) > 0 && strings.Join(bv, ",") != strings.Join(wq[f.Param], ",") {
				subset = false
			}
		}
		if !subset {
			continue
		}
		if w.Op.Kind != KindSearch {
			for _, f := range w.Op.Filters {
				if len(wq[f.Param]) > 0 && len(bq[f.Param]) == 0 {
					extra = append(extra, f)
				}
			}
			if len(extra) == 0 {
				continue
			}
		}
		if best == nil || len(bq) > len(best.First().Query) {
			best, added = b, extra
		}
	}
	return best, added
}

func checkKeepsEveryMatch(c *Context, o *Observation) {
	w := c.History.WalkOf(o)
	if w == nil || !w.Complete || !w.Last(o) {
		return
	}
	base, added := baseFor(c, w)
	if base == nil {
		return
	}
	if c.History.WriteBetween(base.First(), o.Exchange) {
		c.Undecided(o, "a write was seen between the filtered walk and the walk it is compared with")
		return
	}
	var search map[string]any
	if w.Op.Kind == KindSearch {
		var ok bool
		if search, ok = searchBody(NewObservation(nil, w.First())); !ok {
			return
		}
	}
	wq := w.First().Query
	var missing []string
	judged := 0
	for _, id := range base.Order {
		s, ok := c.History.SightingOf(RecordKey{RecordRef: RecordRef{Surface: base.Op.Surface, Resource: base.Op.Resource, ID: id}, Presentation: base.Presentation})
		if !ok {
			continue
		}
		match := Yes
		if search != nil {
			match = SearchTri(search, s.Record)
		} else {
			for _, f := range added {
				switch MatchFilterSeen(c.History, w.Op.Surface, f, FilterValues(wq, f), s.Record) {
				case No:
					match = No
				case Unknown:
					if match == Yes {
						match = Unknown
					}
				}
			}
		}
		if match != Yes {
			continue
		}
		judged++
		if _, kept := w.IDs[id]; !kept {
			missing = append(missing, id)
		}
	}
	c.JudgedN(o, judged)
	if len(missing) > 0 {
		what := Compact(search)
		if search == nil {
			var parts []string
			for _, f := range added {
				parts = append(parts, describe(f, FilterValues(wq, f)))
			}
			what = strings.Join(parts, "&")
		}
		c.FailRelated(o, []*Exchange{base.First()}, fmt.Sprintf("the %d records of %s that satisfy %s", judged, base.First().Path, what),
			"the walk with %s leaves out %d records that satisfy it, e.g. %s", what, len(missing), strings.Join(first(missing, 3), ", "))
	}
}
