package search

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Filter is a parsed, validated filter. It is immutable, and safe for
// concurrent use by any number of goroutines. The nil *Filter matches every
// record.
type Filter struct {
	or     bool
	conds  []cond    // sorted by operator, then field
	nested []*Filter // in document order
}

// cond is one condition: field op value, with the value compiled for the
// field's kind.
type cond struct {
	op    Op
	field string
	kind  Kind
	text  string    // the value as String prints it: UUIDs in lower case, date-times in UTC (as given when UTC would leave years 0-9999)
	num   int64     // Int: the value; Date: its dateKey
	b     bool      // Bool: the value
	t     time.Time // DateTime: the instant
	pat   *pattern  // like, notLike
	set   []cond    // contains, notContains: one equals condition per value
}

// Match reports whether the record satisfies the filter. Record.Value is
// called once per condition on the record's field, lazily: AND stops at the
// first failing condition, OR at the first holding one. A nil Record has every
// field null.
func (f *Filter) Match(r Record) bool {
	if f == nil || len(f.conds)+len(f.nested) == 0 {
		return true
	}
	if r == nil {
		r = MapRecord(nil)
	}
	for i := range f.conds {
		if f.conds[i].eval(r) == f.or {
			return f.or
		}
	}
	for _, n := range f.nested {
		if n.Match(r) == f.or {
			return f.or
		}
	}
	return !f.or
}

// eval evaluates one condition on the record.
func (c *cond) eval(r Record) bool {
	v, ok := r.Value(c.field)
	if !ok {
		v = nil
	} else {
		v = deref(v)
	}
	switch c.op {
	case OpNull:
		return !present(v, c.kind)
	case OpNotNull:
		return present(v, c.kind)
	}
	if pos, neg := c.op.negated(); neg {
		return !c.test(pos, v)
	}
	return c.test(c.op, v)
}

// present reports whether v is a non-null value of kind k.
func present(v any, k Kind) bool {
	var ok bool
	switch k {
	case String, Enum, UUID:
		_, ok = recordString(v, k)
	case Date:
		_, ok = recordDate(v)
	case DateTime:
		_, ok = recordDateTime(v)
	case Bool:
		_, ok = v.(bool)
	case Int:
		_, ok = recordInt(v)
	case StringList, UUIDList:
		var l []string
		l, ok = v.([]string)
		ok = ok && len(l) > 0 // an empty list is null to null and notNull
	}
	return ok
}

// test evaluates a positive operator (not null, notNull or a negation); a
// null value never matches.
func (c *cond) test(op Op, v any) bool {
	if op == OpContains {
		for i := range c.set {
			if c.set[i].test(OpEquals, v) {
				return true
			}
		}
		return false
	}
	if c.kind == StringList || c.kind == UUIDList { // equals: an element is the value
		list, ok := v.([]string)
		if !ok || op != OpEquals {
			return false
		}
		for _, e := range list {
			if e == c.text || c.kind == UUIDList && strings.EqualFold(e, c.text) {
				return true
			}
		}
		return false
	}
	if op.isText() {
		s, ok := recordString(v, c.kind)
		if !ok || !present(v, c.kind) {
			return false
		}
		return c.pat.match(s)
	}
	var cmp int
	switch c.kind {
	case String, Enum:
		s, ok := recordString(v, c.kind)
		if !ok {
			return false
		}
		cmp = strings.Compare(s, c.text)
	case UUID:
		s, ok := recordString(v, c.kind)
		if !ok || !strings.EqualFold(s, c.text) {
			return false
		}
	case Bool:
		b, ok := v.(bool)
		if !ok || b != c.b {
			return false
		}
	case Int:
		n, ok := recordInt(v)
		if !ok {
			return false
		}
		cmp = compareInt(n, c.num)
	case Date:
		d, ok := recordDate(v)
		if !ok {
			return false
		}
		cmp = compareInt(d, c.num)
	case DateTime:
		t, ok := recordDateTime(v)
		if !ok {
			return false
		}
		cmp = t.Compare(c.t)
	default:
		return false
	}
	switch op {
	case OpEquals:
		return cmp == 0
	case OpGreaterThan:
		return cmp > 0
	case OpSmallerThan:
		return cmp < 0
	case OpGreaterOrEqual:
		return cmp >= 0
	case OpSmallerOrEqual:
		return cmp <= 0
	}
	return false
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Equalities returns the top-level equals conditions of an AND filter, field
// → value, for a caller that wants to look candidates up in an index before
// calling Match on each. Only kinds whose equality is equality of text are
// included: String and Enum (as given), UUID (in lower case: index ids in
// lower case), Bool ("true", "false"), Int (decimal) and Date (YYYY-MM-DD);
// DateTime equality is by instant and is left out. The map is empty for an OR
// filter, and never nil. Every record that matches the filter has these
// values; the converse does not hold.
func (f *Filter) Equalities() map[string]string {
	eq := map[string]string{}
	if f == nil || f.or {
		return eq
	}
	for _, c := range f.conds {
		if c.op != OpEquals {
			continue
		}
		switch c.kind {
		case String, Enum, UUID, Date:
			eq[c.field] = c.text
		case Bool:
			eq[c.field] = strconv.FormatBool(c.b)
		case Int:
			eq[c.field] = strconv.FormatInt(c.num, 10)
		}
	}
	return eq
}

// String returns the filter's canonical form: a search body in compact JSON,
// with the operators in the order of [Op], the fields of each in byte order,
// nested filters in their order, null and notNull with their true flags only,
// empty operators left out, UUIDs in lower case and date-times in UTC. Parse
// accepts it and gives an equal Filter; two bodies that differ only in the
// order of members, in flags set to false or in these spellings print alike.
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(`{"filter":`)
	f.write(&b)
	b.WriteString("}")
	return b.String()
}

func (f *Filter) write(b *strings.Builder) {
	b.WriteString("{")
	for i, c := range f.conds {
		if i == 0 || f.conds[i-1].op != c.op {
			b.WriteString(quoteJSON(c.op.String()))
			b.WriteString(":{")
		} else {
			b.WriteString(",")
		}
		b.WriteString(quoteJSON(c.field))
		b.WriteString(":")
		b.WriteString(c.valueJSON())
		if i == len(f.conds)-1 || f.conds[i+1].op != c.op {
			b.WriteString("},")
		}
	}
	b.WriteString(quoteJSON(KeyOrCondition))
	b.WriteString(":")
	b.WriteString(strconv.FormatBool(f.or))
	if len(f.nested) > 0 {
		b.WriteString(",")
		b.WriteString(quoteJSON(KeyNestedFilters))
		b.WriteString(":[")
		for i, n := range f.nested {
			if i > 0 {
				b.WriteString(",")
			}
			n.write(b)
		}
		b.WriteString("]")
	}
	b.WriteString("}")
}

// valueJSON is the condition's value as JSON.
func (c *cond) valueJSON() string {
	switch {
	case c.op.isFlag():
		return "true"
	case c.op == OpContains || c.op == OpNotContains:
		parts := make([]string, len(c.set))
		for i := range c.set {
			parts[i] = c.set[i].valueJSON()
		}
		return "[" + strings.Join(parts, ",") + "]"
	case c.op.isText():
		return quoteJSON(c.text)
	case c.kind == Bool:
		return strconv.FormatBool(c.b)
	case c.kind == Int:
		return strconv.FormatInt(c.num, 10)
	}
	return quoteJSON(c.text)
}

// quoteJSON encodes s as a JSON string without HTML escaping.
func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// LowerBounds returns the top-level greaterThan and greaterOrEqual conditions
// of an AND filter on DateTime fields: field → bound (the latest, when a
// field has several). Every record that matches the filter has the field at
// or after its bound, so a caller may look its candidates up in a time index
// from the bound on (every candidate must still pass Match). The map is empty
// for an OR filter, and never nil.
func (f *Filter) LowerBounds() map[string]time.Time {
	out := map[string]time.Time{}
	if f == nil || f.or {
		return out
	}
	for _, c := range f.conds {
		if c.kind != DateTime || (c.op != OpGreaterThan && c.op != OpGreaterOrEqual) {
			continue
		}
		if cur, ok := out[c.field]; !ok || c.t.After(cur) {
			out[c.field] = c.t
		}
	}
	return out
}
