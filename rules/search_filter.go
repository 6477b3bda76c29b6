package rules

import (
	"regexp"

	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// MatchSearch is interface A's _search filter language evaluated on a
// record (the vendor's operators, with the semantics of docs/decisions.md#search-semantics):
// every field of every operator and every nested filter is one condition;
// orCondition joins them with OR, else AND; no condition matches
// everything. Nested objects are walked ({"meta": {"updatedAt": T}} reads
// the record's meta.updatedAt); date-times compare as instants.
func MatchSearch(f map[string]any, item map[string]any) bool {
	var conds []bool
	for op, arg := range f {
		if op == "orCondition" || op == "nestedFilters" {
			continue
		}
		fields, _ := arg.(map[string]any)
		conds = append(conds, searchConds(op, fields, item)...)
	}
	for _, n := range Arr(f, "nestedFilters") {
		if nf, ok := n.(map[string]any); ok {
			conds = append(conds, MatchSearch(nf, item))
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

// searchConds evaluates one operator's fields on a record (or on a nested
// object of it).
func searchConds(op string, fields, item map[string]any) []bool {
	var conds []bool
	for field, want := range fields {
		got, present := item[field]
		if !present {
			got = nil
		}
		if group, ok := want.(map[string]any); ok {
			sub, _ := got.(map[string]any)
			conds = append(conds, searchConds(op, group, sub)...)
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
			conds = append(conds, evalSearchOp(op, got, want))
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
// the value; UUIDs compare without regard to case.
func equalValue(got, want any) bool {
	if l, ok := got.([]any); ok {
		for _, e := range l {
			if SameValue(e, want) {
				return true
			}
		}
		return false
	}
	return got != nil && SameValue(got, want)
}

func evalSearchOp(op string, got, want any) bool {
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
		c, ok := orderSearch(got, want)
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
		has := slices.ContainsFunc(values, func(v any) bool { return equalValue(got, v) })
		return has == (op == "contains")
	case "like", "notLike":
		s, ok := got.(string)
		w, _ := want.(string)
		m := ok && likePattern(w).MatchString(s)
		return m == (op == "like")
	}
	return false
}

// orderSearch orders numbers numerically, date-times as instants, other
// strings lexically; null and mixed types do not compare.
func orderSearch(a, b any) (int, bool) {
	if as, ok := a.(string); ok {
		bs, ok := b.(string)
		if !ok {
			return 0, false
		}
		ta, ok1 := Instant(as)
		tb, ok2 := Instant(bs)
		if ok1 && ok2 {
			return ta.Compare(tb), true
		}
		return strings.Compare(as, bs), true
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

// SearchEqualsFields are the members a search's equals operator takes (the
// filter language's scalar fields), from the contract's request schema.
func SearchEqualsFields(op *Operation) []string {
	s := requestSchema(op)
	if s == nil {
		return nil
	}
	eq := schemaAt(s, "filter.equals")
	if eq == nil {
		return nil
	}
	props := map[string]bool{}
	var collect func(s *openapi3.Schema)
	collect = func(s *openapi3.Schema) {
		for k, v := range s.Properties {
			if v != nil && v.Value != nil && (v.Value.Type.Is("string") || v.Value.Type.Is("boolean") || v.Value.Type.Is("integer")) && k != "id" {
				props[k] = true
			}
		}
		for _, a := range s.AllOf {
			if a != nil && a.Value != nil {
				collect(a.Value)
			}
		}
	}
	collect(eq)
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// plainSearchOperators are the operators whose meaning the vendor's
// language states plainly; the others (like, contains, null) follow
// skolkit's reading (docs/decisions.md#search-semantics), which a rule must not impose.
var plainSearchOperators = []string{"equals", "notEquals", "greaterThan", "smallerThan", "greaterOrEqual", "smallerOrEqual", "orCondition", "nestedFilters"}

// PlainSearch reports whether a search filter uses only plain operators.
func PlainSearch(f map[string]any) bool {
	for k, v := range f {
		if !slices.Contains(plainSearchOperators, k) {
			return false
		}
		if k == "nestedFilters" {
			for _, n := range Objects(asArray(v)) {
				if !PlainSearch(n) {
					return false
				}
			}
		}
	}
	return true
}
