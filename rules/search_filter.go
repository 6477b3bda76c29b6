package rules

import (
	"maps"
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
func likePattern(p string) *regexp.Regexp { return likePatternCase(p, false) }

// likePatternCase is likePattern, keeping case when asked.
func likePatternCase(p string, keepCase bool) *regexp.Regexp {
	var b strings.Builder
	if keepCase {
		b.WriteString("(?s)^")
	} else {
		b.WriteString("(?is)^")
	}
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

// SearchFields are the scalar members (other than id) a search's operator
// takes ("equals", "contains", …), from the contract's request schema: for
// contains and notContains, members that take an array of scalars.
func SearchFields(op *Operation, operator string) []string {
	s := requestSchema(op)
	if s == nil {
		return nil
	}
	sch := schemaAt(s, "filter."+operator)
	if sch == nil {
		return nil
	}
	var scalar func(v *openapi3.Schema) bool
	scalar = func(v *openapi3.Schema) bool {
		if v.Type.Is("string") || v.Type.Is("boolean") || v.Type.Is("integer") {
			return true
		}
		// A nullable reference to an enumeration: {allOf: [$ref]}.
		return len(v.AllOf) == 1 && v.AllOf[0].Value != nil && scalar(v.AllOf[0].Value)
	}
	props := map[string]bool{}
	var collect func(s *openapi3.Schema)
	collect = func(s *openapi3.Schema) {
		for k, v := range s.Properties {
			if v == nil || v.Value == nil || k == "id" {
				continue
			}
			if operator == "contains" || operator == "notContains" {
				if v.Value.Type.Is("array") && v.Value.Items != nil && v.Value.Items.Value != nil && scalar(v.Value.Items.Value) {
					props[k] = true
				}
			} else if scalar(v.Value) {
				props[k] = true
			}
		}
		for _, a := range s.AllOf {
			if a != nil && a.Value != nil {
				collect(a.Value)
			}
		}
	}
	collect(sch)
	return slices.Sorted(maps.Keys(props))
}

// SearchTri is a search filter evaluated on a record by every reading the
// vendor's language leaves open: Yes when the record satisfies the filter
// however the open operators are read, No when it satisfies it by none,
// Unknown between. The order operators, equals and notEquals are plain.
// The others are named by the vendor's document without a meaning
// (docs/decisions.md#search-semantics is skolkit's reading, which a rule
// must not impose): contains with several values is read as "one of them"
// (an exact value, or an element of a list field, is Yes; a value that
// only holds one as a substring, or differs in case, Unknown); like is Yes
// when its pattern matches with the case kept, Unknown when only without
// it; null is Yes on null, Unknown on an empty list.
func SearchTri(f map[string]any, item map[string]any) Tri {
	var conds []Tri
	for op, arg := range f {
		if op == "orCondition" || op == "nestedFilters" {
			continue
		}
		fields, _ := arg.(map[string]any)
		conds = append(conds, searchTriConds(op, fields, item)...)
	}
	for _, n := range Arr(f, "nestedFilters") {
		if nf, ok := n.(map[string]any); ok {
			conds = append(conds, SearchTri(nf, item))
		}
	}
	if len(conds) == 0 {
		return Yes
	}
	or, _ := f["orCondition"].(bool)
	return joinTri(conds, or)
}

// joinTri joins conditions with AND (or OR).
func joinTri(conds []Tri, or bool) Tri {
	// AND: any No is No, all Yes is Yes; OR: any Yes is Yes, all No is No.
	decisive, other := No, Yes
	if or {
		decisive, other = Yes, No
	}
	if slices.Contains(conds, decisive) {
		return decisive
	}
	if slices.Contains(conds, Unknown) {
		return Unknown
	}
	return other
}

func searchTriConds(op string, fields, item map[string]any) []Tri {
	var conds []Tri
	for field, want := range fields {
		got := item[field]
		if group, ok := want.(map[string]any); ok {
			sub, _ := got.(map[string]any)
			conds = append(conds, searchTriConds(op, group, sub)...)
			continue
		}
		if want == nil && op != "equals" && op != "notEquals" {
			continue
		}
		var t Tri
		switch op {
		case "equals", "notEquals", "greaterThan", "smallerThan", "greaterOrEqual", "smallerOrEqual":
			t = triOf(evalSearchOp(op, got, want))
		case "contains", "notContains":
			t = containsTri(got, want)
			if op == "notContains" {
				t = notTri(t)
			}
		case "like", "notLike":
			w, _ := want.(string)
			s, ok := got.(string)
			switch {
			case !ok:
				t = No
			case likePatternCase(w, true).MatchString(s):
				t = Yes
			case likePattern(w).MatchString(s):
				t = Unknown
			default:
				t = No
			}
			if op == "notLike" {
				t = notTri(t)
			}
		case "null", "notNull":
			b, _ := want.(bool)
			if !b {
				continue
			}
			switch l, isList := got.([]any); {
			case got == nil:
				t = Yes
			case isList && len(l) == 0:
				t = Unknown
			default:
				t = No
			}
			if op == "notNull" {
				t = notTri(t)
			}
		default:
			t = Unknown
		}
		conds = append(conds, t)
	}
	return conds
}

// containsTri: a value (or an element of a list value) that is one of the
// values is Yes; one that holds one of them as a substring, or equals one
// but for case, Unknown; else No.
func containsTri(got, want any) Tri {
	values, _ := want.([]any)
	elems := []any{got}
	if l, ok := got.([]any); ok {
		elems = l
	}
	t := No
	for _, e := range elems {
		for _, v := range values {
			if e != nil && SameValue(e, v) {
				return Yes
			}
			es, ok1 := e.(string)
			vs, ok2 := v.(string)
			if ok1 && ok2 && strings.Contains(strings.ToLower(es), strings.ToLower(vs)) {
				t = Unknown
			}
		}
	}
	return t
}

func notTri(t Tri) Tri {
	switch t {
	case Yes:
		return No
	case No:
		return Yes
	}
	return Unknown
}
