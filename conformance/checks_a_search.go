package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/skolkit/skolkit/rules"
)

var (
	specASearch = SpecRef{Section: "Endpoints (interface A)", Quote: "POST | /school/_search | filter body (required); query limit, offset | 200, filtered list of School", Decision: "search-body"}
	specA422    = SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 422: request data failed validation; only on create, search and update operations", Decision: "bad-request-or-unprocessable"}
)

// maxOwnFiltering is the largest list the runner filters itself to compare
// a search with ("for a small data set").
const maxOwnFiltering = 5000

func aSearchChecks() []*Check {
	a := []Surface{SurfaceA}
	var cs []*Check
	for _, r := range aResources {
		p := "A." + r.name + ".search"
		cs = append(cs,
			&Check{ID: p + ".operators", Title: "like, contains, null, notNull and order operators select what the runner selects", Area: "A.search", Severity: SHOULD, Needs: a,
				Spec: SpecRef{Section: specASearch.Section, Quote: specASearch.Quote, Decision: "search-semantics"}, Run: checkSearchOwnFiltering(r, operatorFilters)},
			&Check{ID: p + ".invalid-body", Title: "a search body without a filter object is 422", Area: "A.search", Severity: MUST, Needs: a, Spec: specA422, Run: checkSearchInvalid(r, `{}`, `{"filter": "everything"}`)},
			&Check{ID: p + ".unknown-field", Title: "a filter on an unknown field or with an unknown operator is 422", Area: "A.search", Severity: SHOULD, Needs: a,
				Spec: SpecRef{Section: specA422.Section, Quote: specA422.Quote, Decision: "search-body"}, Run: checkSearchInvalid(r, `{"filter": {"equals": {"skolkitNoSuchField": "x"}, "orCondition": false}}`, `{"filter": {"skolkitNoSuchOperator": {}, "orCondition": false}}`)},
			&Check{ID: p + ".invalid-params", Title: "a search with limit=abc is 400", Area: "A.search", Severity: MUST, Needs: a, Spec: specA400, Run: checkSearchBadParams(r)},
		)
	}
	return cs
}

// filterSet builds the filters a check sends, from the records that exist.
type filterSet func(r aResource, items []map[string]any) []map[string]any

// operatorFilters exercise the other operators
// (docs/decisions.md#search-semantics).
func operatorFilters(r aResource, items []map[string]any) []map[string]any {
	var out []map[string]any
	name := ""
	for _, it := range items {
		if n := str(it, r.nameField); len([]rune(n)) >= 3 {
			name = n
			break
		}
	}
	if name != "" {
		rs := []rune(name)
		out = append(out,
			map[string]any{"like": map[string]any{r.nameField: string(rs[:2]) + "%"}, "orCondition": false},
			map[string]any{"contains": map[string]any{r.nameField: []any{"skolkit-no-such-name", name}}, "orCondition": false},
			map[string]any{"notContains": map[string]any{r.nameField: []any{name}}, "orCondition": false},
		)
	}
	// The range operators on the nested meta (the incremental-sync query).
	if t := mostCommonTime(items); t != "" {
		out = append(out,
			map[string]any{"greaterOrEqual": map[string]any{"meta": map[string]any{"updatedAt": t}}, "orCondition": false},
			map[string]any{"smallerThan": map[string]any{"meta": map[string]any{"createdAt": t}}, "orCondition": false},
		)
	}
	if r.listField != "" {
		if v := mostCommonElement(items, r.listField); v != nil {
			out = append(out,
				map[string]any{"contains": map[string]any{r.listField: []any{v}}, "orCondition": false},
				map[string]any{"notContains": map[string]any{r.listField: []any{v}}, "orCondition": false},
				map[string]any{"equals": map[string]any{r.listField: v}, "orCondition": false},
				map[string]any{"null": map[string]any{r.listField: true}, "orCondition": false},
			)
		}
	}
	if r.nullable != "" {
		out = append(out,
			map[string]any{"null": map[string]any{r.nullable: true}, "orCondition": false},
			map[string]any{"notNull": map[string]any{r.nullable: true}, "orCondition": false},
		)
	}
	return out
}

// mostCommonElement is the most common element of a list field.
func mostCommonElement(items []map[string]any, field string) any {
	count := map[string]int{}
	var best string
	for _, it := range items {
		for _, e := range arr(it, field) {
			s, ok := e.(string)
			if !ok {
				continue
			}
			count[s]++
			if best == "" || count[s] > count[best] || (count[s] == count[best] && s < best) {
				best = s
			}
		}
	}
	if best == "" {
		return nil
	}
	return best
}

// mostCommonTime is the median meta.updatedAt of the items, in UTC (the
// runner's order operators compare text).
func mostCommonTime(items []map[string]any) string {
	var ts []string
	for _, it := range items {
		if tm := parseTime(str(obj(it, "meta"), "updatedAt")); !tm.IsZero() {
			ts = append(ts, tm.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
	}
	if len(ts) == 0 {
		return ""
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

// searchAll walks every page of a search.
func (t *T) searchAll(r aResource, filter map[string]any) *offsetWalk {
	w := t.env.walkOffsets(t.doer(), SurfaceA, http.MethodPost, r.path+"/_search", map[string]any{"filter": filter}, aListPageSize)
	if w.problem != "" {
		t.Fatalf(w.problemResp, "200 with a list", "search %s: %s", compact(filter), w.problem)
	}
	return w
}

func checkSearchOwnFiltering(r aResource, build filterSet) func(*T) {
	return func(t *T) {
		w := t.requireAList(r.path)
		if len(w.items) > maxOwnFiltering {
			t.Skipf("%d %s records: more than the %d the runner filters itself", len(w.items), r.name, maxOwnFiltering)
		}
		filters := build(r, w.items)
		if len(filters) == 0 {
			t.Skipf("no %s records to pick filter values from", r.name)
		}
		for _, f := range filters {
			want := map[string]bool{}
			for _, it := range w.items {
				if rules.MatchSearch(f, it) {
					want[str(it, "id")] = true
				}
			}
			res := t.searchAll(r, f)
			got := map[string]bool{}
			for _, it := range res.items {
				got[str(it, "id")] = true
			}
			var missing, extra []string
			for id := range want {
				if !got[id] {
					missing = append(missing, id)
				}
			}
			for id := range got {
				if !want[id] {
					extra = append(extra, id)
				}
			}
			slices.Sort(missing)
			slices.Sort(extra)
			if len(missing)+len(extra) > 0 {
				t.Failf(res.first, fmt.Sprintf("the %d records the runner's filtering selects", len(want)),
					"filter %s: %d missing (e.g. %v), %d that should not be there (e.g. %v)", compact(f), len(missing), first(missing, 3), len(extra), first(extra, 3))
			}
		}
		t.Notef("%d filters compared over %d records", len(filters), len(w.items))
	}
}

func checkSearchInvalid(r aResource, bodies ...string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		for _, b := range bodies {
			t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: r.path + "/_search", Body: []byte(b), ContentType: mimeJSON}), http.StatusUnprocessableEntity)
		}
	}
}

func checkSearchBadParams(r aResource) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		body := map[string]any{"filter": map[string]any{"orCondition": false}}
		t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: r.path + "/_search", Query: url.Values{"limit": {"abc"}}, JSON: body}), http.StatusBadRequest)
	}
}
