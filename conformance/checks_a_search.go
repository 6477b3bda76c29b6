package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

var (
	specASearch    = SpecRef{Section: "Endpoints (interface A)", Quote: "POST | /school/_search | filter body (required); query limit, offset | 200, filtered list of School", Decision: "search-body"}
	specVendorSync = SpecRef{Section: "Interface A (vendor document)", Quote: `the usual sync query is {"filter": {"greaterThan": {"meta": {"updatedAt": "2024-01-15T10:30:00Z"}}, "orCondition": false}}`, Decision: "search-body"}
	specA422       = SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 422: request data failed validation; only on create, search and update operations", Decision: "bad-request-or-unprocessable"}
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

// mostCommon returns the most common string value of a field.
func mostCommon(items []map[string]any, field string) string {
	count := map[string]int{}
	best := ""
	for _, it := range items {
		v := str(it, field)
		if v == "" {
			continue
		}
		count[v]++
		if best == "" || count[v] > count[best] || (count[v] == count[best] && v < best) {
			best = v
		}
	}
	return best
}

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
				if matchFilter(f, it) {
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

// matchFilter is the runner's own evaluation of a search filter on a record
// (the vendor's operators, docs/decisions.md#search-semantics): every field of every
// operator and every nested filter is one condition; orCondition joins them
// with OR, else AND; no condition matches everything.
func matchFilter(f map[string]any, item map[string]any) bool {
	var conds []bool
	for op, arg := range f {
		if op == "orCondition" || op == "nestedFilters" {
			continue
		}
		fields, _ := arg.(map[string]any)
		conds = append(conds, fieldConds(op, fields, item)...)
	}
	for _, n := range arr(f, "nestedFilters") {
		if nf, ok := n.(map[string]any); ok {
			conds = append(conds, matchFilter(nf, item))
		}
	}
	if len(conds) == 0 {
		return true
	}
	if or, _ := f["orCondition"].(bool); or {
		return slices.Contains(conds, true)
	}
	return !slices.Contains(conds, false)
}

// fieldConds evaluates one operator's fields on a record (or on a nested
// object of it: {"meta": {"updatedAt": ...}} reads item.meta.updatedAt).
func fieldConds(op string, fields, item map[string]any) []bool {
	var conds []bool
	for field, want := range fields {
		got, present := item[field]
		if !present {
			got = nil
		}
		if group, ok := want.(map[string]any); ok {
			sub, _ := got.(map[string]any)
			conds = append(conds, fieldConds(op, group, sub)...)
			continue
		}
		if want == nil && op != "equals" && op != "notEquals" {
			continue // a null value adds no condition
		}
		switch op {
		case "null", "notNull":
			if b, _ := want.(bool); b {
				conds = append(conds, isNull(got) == (op == "null"))
			}
		default:
			conds = append(conds, evalOp(op, got, want))
		}
	}
	return conds
}

// isNull: null, and an empty list (the vendor's null on a list field).
func isNull(v any) bool {
	if l, ok := v.([]any); ok {
		return len(l) == 0
	}
	return v == nil
}

// equalValue is the vendor's equality: on a list field, an element equals
// the value.
func equalValue(got, want any) bool {
	if l, ok := got.([]any); ok {
		for _, e := range l {
			if jsonEqual(e, want) || isStringFold(e, want) {
				return true
			}
		}
		return false
	}
	return got != nil && (jsonEqual(got, want) || isUUIDFold(got, want))
}

func isStringFold(a, b any) bool { return isUUIDFold(a, b) }

// isUUIDFold compares two UUIDs ignoring case.
func isUUIDFold(a, b any) bool {
	x, ok1 := a.(string)
	y, ok2 := b.(string)
	return ok1 && ok2 && isUUID(x) && strings.EqualFold(x, y)
}

func evalOp(op string, got, want any) bool {
	switch op {
	case "equals":
		if want == nil {
			return isNull(got)
		}
		return equalValue(got, want)
	case "notEquals":
		if want == nil {
			return !isNull(got)
		}
		return !equalValue(got, want)
	case "greaterThan", "smallerThan", "greaterOrEqual", "smallerOrEqual":
		c, ok := compareValues(got, want)
		if !ok {
			return false
		}
		switch op {
		case "greaterThan":
			return c > 0
		case "smallerThan":
			return c < 0
		case "greaterOrEqual":
			return c >= 0
		default:
			return c <= 0
		}
	case "contains", "notContains":
		// The vendor's contains: the value (on a list field an element) is
		// one of the array's values.
		values, _ := want.([]any)
		has := false
		for _, v := range values {
			if equalValue(got, v) {
				has = true
				break
			}
		}
		if op == "contains" {
			return has
		}
		return !has
	case "like", "notLike":
		s, ok := got.(string)
		w, _ := want.(string)
		m := ok && likePattern(w).MatchString(s)
		if op == "like" {
			return m
		}
		return !m
	}
	return false
}

// compareValues orders numbers numerically and strings lexically; null and
// mixed types do not compare.
func compareValues(a, b any) (int, bool) {
	if as, ok := a.(string); ok {
		bs, ok := b.(string)
		// Date-times compare as instants (fractions of a second may be
		// written with any number of digits).
		if ta, tb := parseTime(as), parseTime(bs); ok && !ta.IsZero() && !tb.IsZero() {
			return ta.Compare(tb), true
		}
		return strings.Compare(as, bs), ok
	}
	af, ok1 := toFloat(a)
	bf, ok2 := toFloat(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case af < bf:
		return -1, true
	case af > bf:
		return 1, true
	}
	return 0, true
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}

// likePattern turns a LIKE pattern (% any run, _ one character) into a
// case-insensitive regular expression.
func likePattern(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?is)^")
	for _, r := range p {
		switch r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
