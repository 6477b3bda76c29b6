package conformance

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// The traffic the rules need: for every operation of the contract, derived
// from it, the requests that give each rule family something to judge
// there — walks with a limit that changes during the walk, walks with each
// filter the operation declares (values taken from the records of an
// unfiltered walk), walks in each order a sortkey names, pages, reads by
// id and lookups with every expand value and reference names, searches
// built from the records listed. The traffic has no results of its own:
// the rules judge it (judge.go). It runs before the checks, with the
// run's concurrency, and only when rules are selected.

// trafficTasks are the traffic of every operation the configured surfaces
// have that a selected rule concerns, one task per list (its reads by id,
// lookups and searches go with it).
func (e *env) trafficTasks() []*Check {
	if e.judge == nil {
		return nil
	}
	needing := e.judge.Rules()
	concerned := func(list *rules.Operation) bool {
		for _, r := range needing {
			for _, op := range []*rules.Operation{list, e.sibling(list, rules.KindGet), e.sibling(list, rules.KindLookup), e.sibling(list, rules.KindSearch)} {
				if op != nil && (r.Applies == nil || r.Applies(op)) {
					return true
				}
			}
		}
		return false
	}
	var tasks []*Check
	for _, op := range e.judge.Contract().Operations() {
		if !e.has(op.Surface) || op.Kind != rules.KindList || op.Method != http.MethodGet || !concerned(op) {
			continue
		}
		op := op
		var run func(*T)
		switch op.Paging {
		case rules.PagingPageToken:
			run = func(t *T) { t.exercisePageTokenList(op) }
		case rules.PagingOffset:
			run = func(t *T) { t.exerciseOffsetList(op) }
		default:
			continue
		}
		tasks = append(tasks, &Check{ID: "traffic: " + op.ID(), Title: "the traffic the rules need for " + op.ID(), Area: "traffic", Needs: []Surface{op.Surface}, Run: run})
	}
	return tasks
}

// runTraffic sends the traffic; what goes wrong is for the rules and the
// checks to report.
func (e *env) runTraffic(ctx context.Context) {
	tasks := e.trafficTasks()
	var idx []int
	for i, c := range tasks {
		if e.gate(c) == "" {
			idx = append(idx, i)
		}
	}
	e.runPhase(ctx, tasks, idx, func(int, report.Result) {})
}

// siblings are the operations of the same surface and resource as a list.
func (e *env) sibling(list *rules.Operation, kind rules.Kind) *rules.Operation {
	for _, op := range e.judge.Contract().Operations() {
		if op.Surface == list.Surface && op.Resource == list.Resource && op.Kind == kind {
			return op
		}
	}
	return nil
}

// requiredQuery are the values of a list's required query parameters:
// bounds wide enough to keep every record.
func requiredQuery(op *rules.Operation) url.Values {
	q := url.Values{}
	for _, p := range op.Params {
		if p.In != "query" || !p.Required {
			continue
		}
		var low bool
		switch {
		case strings.HasSuffix(p.Name, ".onOrAfter"), strings.HasSuffix(p.Name, ".after"):
			low = true
		case strings.HasSuffix(p.Name, ".onOrBefore"), strings.HasSuffix(p.Name, ".before"):
			low = false
		default: // a period's start or end (aggregatedAttendance's startDate, endDate)
			low = strings.HasPrefix(strings.ToLower(p.Name), "start")
		}
		switch {
		case p.Format == "date-time" && low:
			q.Set(p.Name, "1900-01-01T00:00:00Z")
		case p.Format == "date-time":
			q.Set(p.Name, "2999-12-31T23:59:59Z")
		case p.Format == "date" && low:
			q.Set(p.Name, "1900-01-01")
		case p.Format == "date":
			q.Set(p.Name, "2999-12-31")
		}
	}
	return q
}

func merged(a, b url.Values) url.Values {
	out := url.Values{}
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// presentationQuery asks for every expand value and reference names.
func presentationQuery(op *rules.Operation) url.Values {
	q := url.Values{}
	if len(op.Expand) > 0 {
		q["expand"] = slices.Clone(op.Expand)
	}
	if op.ReferenceNames {
		q.Set("expandReferenceNames", "true")
	}
	return q
}

// baseWalk is the unfiltered walk of a list, shared with the checks.
func (t *T) baseWalk(op *rules.Operation) *listWalk {
	if op.Resource == "/placements" {
		return t.env.allPlacements(t.ctx).listWalk
	}
	req := requiredQuery(op)
	return t.env.data.lists.get(op.Resource, func() *listWalk {
		return t.env.walkList(t.env.doer(t.ctx, "B"+op.Resource+" (shared walk)"), op.Resource, req, 0, req)
	})
}

func (t *T) exercisePageTokenList(op *rules.Operation) {
	t.requireAuth(op.Surface)
	base := t.baseWalk(op)
	if base.absent || base.problem != "" || len(base.items) == 0 {
		return
	}
	req := requiredQuery(op)
	records := base.items
	// A walk whose limit changes from page to page.
	k := max(1, len(records)/3)
	t.walkChangingLimit(op.Resource, req, k)
	// A walk per filter, and one with two filters at once.
	var combined url.Values
	for _, f := range op.Filters {
		q := filterValues(f, records)
		if len(f.Through) > 0 {
			q = t.throughValues(op, f, records)
		}
		if q == nil {
			continue
		}
		t.env.walkList(t.doer(), op.Resource, merged(req, q), 0, req)
		if len(combined) < 2 && f.Compare != rules.CompareEquals {
			combined = merged(combined, q)
		} else if len(combined) == 0 {
			combined = q
		}
	}
	if len(combined) > 1 {
		t.env.walkList(t.doer(), op.Resource, merged(req, combined), 0, req)
	}
	// A walk per order a sortkey names that a rule can judge.
	for _, key := range op.SortKeys {
		if _, ok := rules.SortKey(op, key); ok {
			t.env.walkList(t.doer(), op.Resource, merged(req, url.Values{"sortkey": {key}}), 0, req)
		}
	}
	// Pages, reads by id and lookups with every presentation: a first page
	// asking for it, and a later page asking for it after a first page
	// that did not (so that what the first page asked cannot carry over).
	pres := presentationQuery(op)
	if len(pres) > 0 {
		t.getStd(op.Resource, merged(req, merged(pres, url.Values{"limit": {"3"}})))
		first := t.getStd(op.Resource, merged(req, url.Values{"limit": {"2"}}))
		if first.Status == http.StatusOK {
			if tok := str(t.RequireObject(first), "pageToken"); tok != "" {
				t.getStd(op.Resource, merged(pres, url.Values{"pageToken": {tok}, "limit": {"3"}}))
			}
		}
	}
	var ids []string
	for _, r := range first3(records) {
		ids = append(ids, str(r, "id"))
	}
	if get := t.env.sibling(op, rules.KindGet); get != nil {
		for i, id := range ids {
			h := http.Header{}
			if i == 0 {
				h.Set("Accept", "application/json; charset=utf-8")
			}
			t.Do(Request{Surface: op.Surface, Method: http.MethodGet, Path: op.Resource + "/" + id, Header: h, Outside: true})
			if len(pres) > 0 {
				t.Do(Request{Surface: op.Surface, Method: http.MethodGet, Path: op.Resource + "/" + id, Query: pres, Header: http.Header{"Accept": {"application/json, */*;q=0.1"}}, Outside: true})
			}
		}
	}
	if lookup := t.env.sibling(op, rules.KindLookup); lookup != nil && len(ids) > 0 {
		body := []byte(`{"ids":["` + strings.Join(append(slices.Clone(ids), unknownID), `","`) + `"]}`)
		for _, q := range []url.Values{nil, pres} {
			if q != nil && len(q) == 0 {
				continue
			}
			t.Do(Request{Surface: op.Surface, Method: http.MethodPost, Path: op.Resource + "/lookup", Query: q, Body: body, ContentType: "application/json; charset=utf-8", Outside: true})
		}
	}
}

func first3(items []map[string]any) []map[string]any {
	if len(items) <= 3 {
		return items
	}
	return []map[string]any{items[0], items[len(items)/2], items[len(items)-1]}
}

// walkChangingLimit walks a list with limit k+1 on the first page and k,
// k+1, k, … on the pages after it: a later page that keeps the first
// request's limit is one record too large.
func (t *T) walkChangingLimit(path string, req url.Values, k int) {
	q := merged(req, url.Values{"limit": {strconv.Itoa(k + 1)}})
	for page := 0; page < t.env.cfg.MaxPages; page++ {
		resp := t.getStd(path, q)
		if resp.Status != http.StatusOK {
			return
		}
		tok := str(t.RequireObject(resp), "pageToken")
		if tok == "" {
			return
		}
		q = url.Values{"pageToken": {tok}, "limit": {strconv.Itoa(k + page%2)}}
	}
}

// filterValues picks a filter's value from the records of an unfiltered
// walk: the most common value (two, for an array parameter) for equality,
// the median for a bound. It returns nil when the records give none.
func filterValues(f rules.Filter, records []map[string]any) url.Values {
	if f.Field == "" || f.Compare == rules.CompareNone || f.Compare == rules.CompareBody {
		return nil
	}
	if f.Compare == rules.CompareNamesContain {
		return namePartValues(f, records)
	}
	count := map[string]int{}
	for _, r := range records {
		for _, v := range rules.LookupPath(r, f.Field) {
			for _, e := range flattenAny(v) {
				if s, ok := e.(string); ok && s != "" {
					count[s]++
				}
			}
		}
	}
	if len(count) == 0 {
		return nil
	}
	values := slices.Collect(maps.Keys(count))
	switch f.Compare {
	case rules.CompareEquals, rules.CompareContains, rules.CompareMatches:
		sort.Slice(values, func(i, j int) bool {
			if count[values[i]] != count[values[j]] {
				return count[values[i]] > count[values[j]]
			}
			return values[i] < values[j]
		})
		n := 1
		if f.Many && len(values) > 1 {
			n = 2
		}
		return url.Values{f.Param: values[:n]}
	}
	// A bound: the median value (compared as dates or instants). A
	// date-time is sent as the same instant in another offset (+01:00),
	// so that a server comparing text instead of instants is told apart.
	sort.Slice(values, func(i, j int) bool {
		c, ok := rules.CompareValues(values[i], values[j], f.Format)
		return ok && c < 0
	})
	v := values[len(values)/2]
	if at, ok := rules.Instant(v); ok && f.Format == "date-time" {
		v = at.In(plusOne).Format(time.RFC3339Nano)
	}
	return url.Values{f.Param: {v}}
}

// namePartValues are two parts of the names of one record, each in the
// other case than the record has it (the first two letters of one name in
// upper case, three letters from inside another in lower case): every
// value must be found, case folded, in one of the names.
func namePartValues(f rules.Filter, records []map[string]any) url.Values {
	for _, r := range records {
		var names [][]rune
		for _, m := range strings.Split(f.Field, ",") {
			for _, v := range rules.LookupPath(r, m) {
				if s, ok := v.(string); ok && utf8.RuneCountInString(s) >= 4 {
					names = append(names, []rune(s))
				}
			}
		}
		if len(names) >= 2 {
			return url.Values{f.Param: {strings.ToUpper(string(names[0][:2])), strings.ToLower(string(names[1][1:4]))}}
		}
	}
	return nil
}

// throughValues picks the value of a filter that follows references
// (calendarEvents?group= through the event's activity) from the records
// they reach, read in the unfiltered walks of their lists: the value most
// records reach. Those walks are made first, so that the rules have seen
// the records the filtered answer reaches.
func (t *T) throughValues(op *rules.Operation, f rules.Filter, records []map[string]any) url.Values {
	byID := map[string]map[string]map[string]any{}
	for _, hop := range f.Through {
		if _, ok := byID[hop.Resource]; ok {
			continue
		}
		list := t.env.listOf(op.Surface, hop.Resource)
		if list == nil {
			return nil
		}
		ids := map[string]map[string]any{}
		for _, r := range t.baseWalk(list).items {
			ids[strings.ToLower(str(r, "id"))] = r
		}
		byID[hop.Resource] = ids
	}
	count := map[string]int{}
	for _, r := range records {
		reached := []map[string]any{r}
		for _, hop := range f.Through {
			var next []map[string]any
			for _, x := range reached {
				for _, id := range rules.LookupPath(x, hop.Member) {
					for _, e := range flattenAny(id) {
						if s, ok := e.(string); ok && byID[hop.Resource][strings.ToLower(s)] != nil {
							next = append(next, byID[hop.Resource][strings.ToLower(s)])
						}
					}
				}
			}
			reached = next
		}
		seen := map[string]bool{}
		for _, x := range reached {
			for _, v := range rules.LookupPath(x, f.Field) {
				for _, e := range flattenAny(v) {
					if s, ok := e.(string); ok && s != "" && !seen[s] {
						seen[s] = true
						count[s]++
					}
				}
			}
		}
	}
	if len(count) == 0 {
		return nil
	}
	values := slices.Sorted(maps.Keys(count))
	sort.SliceStable(values, func(i, j int) bool { return count[values[i]] > count[values[j]] })
	return url.Values{f.Param: values[:1]}
}

// listOf is the list operation of a resource.
func (e *env) listOf(s rules.Surface, resource string) *rules.Operation {
	for _, op := range e.judge.Contract().Operations() {
		if op.Surface == s && op.Resource == resource && op.Kind == rules.KindList && op.Method == http.MethodGet {
			return op
		}
	}
	return nil
}

// plusOne is the offset date-time bounds are sent in.
var plusOne = time.FixedZone("+01:00", 3600)

func flattenAny(v any) []any {
	if a, ok := v.([]any); ok {
		return a
	}
	return []any{v}
}

// exerciseOffsetList walks an interface A or export list with a limit that
// changes from page to page and past its end, reads listed records by id,
// and searches the resource with filters built from them.
func (t *T) exerciseOffsetList(op *rules.Operation) {
	t.requireAuth(op.Surface)
	k := 2
	var records []map[string]any
	offset, total := 0, -1
	for page := 0; page < t.env.cfg.MaxPages; page++ {
		limit := k + page%2
		resp := t.Do(Request{Surface: op.Surface, Method: http.MethodGet, Path: op.Path, Query: url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}}})
		if resp.Status != http.StatusOK {
			return
		}
		items, _, tot, err := listPage(resp)
		if err != nil || len(items) == 0 {
			break
		}
		if total < 0 {
			total = tot
			// About five pages, whatever the size of the list.
			k = max(1, min(aMaxPageSize, tot/5))
		}
		records = append(records, items...)
		offset += len(items)
		if offset >= tot {
			break
		}
	}
	if total >= 0 {
		t.Do(Request{Surface: op.Surface, Method: http.MethodGet, Path: op.Path, Query: url.Values{"offset": {strconv.Itoa(total)}}})
	}
	var ids []string
	for _, r := range first3(records) {
		if id := str(r, "id"); id != "" {
			ids = append(ids, id)
		}
	}
	if get := t.env.sibling(op, rules.KindGet); get != nil {
		for _, id := range ids {
			t.Do(Request{Surface: op.Surface, Method: http.MethodGet, Path: op.Resource + "/" + id})
		}
	}
	if search := t.env.sibling(op, rules.KindSearch); search != nil && len(records) > 0 && len(records) <= maxOwnFiltering {
		for i, f := range searchFilters(search, records) {
			do := t.doer()
			if i == 0 {
				// The first search is sent as application/json; charset=utf-8.
				do = func(r Request) (*Response, error) {
					b, _ := json.Marshal(r.JSON)
					r.JSON, r.Body, r.ContentType = nil, b, "application/json; charset=utf-8"
					return t.Do(r), nil
				}
			}
			t.env.walkOffsets(do, op.Surface, http.MethodPost, search.Path, map[string]any{"filter": f}, aListPageSize)
		}
	}
}

// searchFilters are searches built from the records listed: equals on a
// field the filter language has, two conditions joined with AND, the same
// field's two values joined with OR, the two values at once with contains,
// and the incremental-sync bound on meta.updatedAt.
func searchFilters(search *rules.Operation, records []map[string]any) []map[string]any {
	fields := rules.SearchFields(search, "equals")
	type pick struct{ field, a, b string }
	var picks []pick
	for _, f := range fields {
		count := map[string]int{}
		for _, r := range records {
			if s, ok := r[f].(string); ok && s != "" {
				count[s]++
			}
		}
		if len(count) < 2 {
			continue
		}
		vs := slices.Sorted(maps.Keys(count))
		sort.SliceStable(vs, func(i, j int) bool { return count[vs[i]] > count[vs[j]] })
		picks = append(picks, pick{f, vs[0], vs[1]})
	}
	var out []map[string]any
	if len(picks) > 0 {
		p := picks[0]
		out = append(out,
			map[string]any{"equals": map[string]any{p.field: p.a}, "orCondition": false},
			map[string]any{"equals": map[string]any{p.field: p.a}, "nestedFilters": []any{map[string]any{"equals": map[string]any{p.field: p.b}, "orCondition": false}}, "orCondition": true},
		)
	}
	if len(picks) > 1 {
		out = append(out, map[string]any{"equals": map[string]any{picks[0].field: picks[0].a, picks[1].field: picks[1].a}, "orCondition": false})
	}
	contains := rules.SearchFields(search, "contains")
	for _, p := range picks {
		if slices.Contains(contains, p.field) {
			// Several values at once: every one of them is asked for.
			out = append(out, map[string]any{"contains": map[string]any{p.field: []any{p.a, p.b}}, "orCondition": false})
			break
		}
	}
	if t := mostCommonTime(records); t != "" {
		out = append(out, map[string]any{"greaterThan": map[string]any{"meta": map[string]any{"updatedAt": t}}, "orCondition": false})
	}
	return out
}
