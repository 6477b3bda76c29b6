package search

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of a filter.
const (
	// MaxDepth is how many levels filters nest: the body's filter is level 1,
	// its nestedFilters level 2, and so on.
	MaxDepth = 8
	// MaxConditions bounds the conditions of a whole body: every field of
	// every operator (null and notNull flags that are true) and every nested
	// filter counts one.
	MaxConditions = 200
	// MaxTextLength bounds the values of contains, notContains, like and
	// notLike, in characters (code points): a search costs records × text ×
	// pattern/64.
	MaxTextLength = 1000
	// MaxViolations bounds the violations Parse lists; when there are more,
	// one more violation (pointer "") says that the list is cut short.
	MaxViolations = 100
)

// Violation is one way in which a request body breaks the filter language:
// an RFC 6901 JSON Pointer into the body ("" for the whole body) and a message
// for a person. A missing member is pointed at by the pointer it would have.
// It marshals as an entry of the 422 body's error.details
// (docs/decisions.md#error-details):
// {"field": pointer, "message": message}.
type Violation struct {
	Pointer string `json:"field"`
	Message string `json:"message"`
}

// String formats the violation as "pointer: message".
func (v Violation) String() string { return v.Pointer + ": " + v.Message }

// Parse reads a search body, {"filter": {...}}, against the searchable fields
// of one resource. It returns exactly one of: an error, when the body is not
// JSON (empty, malformed, or followed by more data; the caller answers 400);
// the violations, when the body is JSON that breaks the language (every one
// of them, in document order, up to MaxViolations; the caller answers 422
// with them as details); or the filter.
//
// Violations are: a body that is not an object; an unknown or repeated
// member; a missing filter; a filter or nested filter that is not an object;
// orCondition missing or not a boolean; nestedFilters not an array; an unknown
// operator; an operator that is not an object; an unknown field (the message
// lists the searchable ones); an operator that does not apply to the field's
// kind; a value of the wrong JSON type, not in the enum, or not a UUID, date,
// date-time or integer where the kind needs one; a contains or like value
// longer than MaxTextLength; a filter nested deeper than MaxDepth; more than
// MaxConditions conditions.
//
// Parse never panics, whatever body it is given; its cost is linear in the
// size of the body.
func Parse(body []byte, fields Fields) (*Filter, []Violation, error) {
	root, err := decodeJSON(body)
	if err != nil {
		return nil, nil, err
	}
	p := &parser{fields: fields, names: fields.names()}
	if root.typ != jObject {
		p.add("", "the body must be a JSON object with a member %q, not %s", KeyFilter, root.typ)
		return nil, p.violations, nil
	}
	var f *Filter
	seen := map[string]bool{}
	for _, m := range root.members {
		ptr := pointer("").key(m.key)
		switch {
		case seen[m.key]:
			p.add(ptr, "member %s appears more than once", quote(m.key))
		case m.key != KeyFilter:
			p.add(ptr, "unknown member %s; a search body has one member, %q", quote(m.key), KeyFilter)
		default:
			f = p.filter(m.val, ptr, 1)
		}
		seen[m.key] = true
	}
	if !seen[KeyFilter] {
		p.add(pointer("").key(KeyFilter), `required: the filter to search by, for example {"equals": {"title": "Ekskolan"}, "orCondition": false}`)
	}
	if len(p.violations) > 0 {
		return nil, p.violations, nil
	}
	if f == nil { // cannot happen: every nil comes with a violation
		return nil, nil, errors.New("search: internal error: no filter and no violation")
	}
	return f, nil, nil
}

// parser collects the violations of one body.
type parser struct {
	fields     Fields
	names      []string // the searchable fields, sorted
	violations []Violation
	conditions int
	cut        bool // MaxViolations reached
}

func (p *parser) add(ptr pointer, format string, args ...any) {
	if len(p.violations) >= MaxViolations {
		if !p.cut {
			p.cut = true
			p.violations = append(p.violations, Violation{"", fmt.Sprintf("more violations not listed: at most %d are", MaxViolations)})
		}
		return
	}
	p.violations = append(p.violations, Violation{string(ptr), fmt.Sprintf(format, args...)})
}

// count counts one condition at ptr and reports the one that passes
// MaxConditions.
func (p *parser) count(ptr pointer) {
	p.conditions++
	if p.conditions == MaxConditions+1 {
		p.add(ptr, "too many conditions: a body may have at most %d in all, counting every field of every operator and every nested filter; this is condition %d",
			MaxConditions, p.conditions)
	}
}

// filter checks one filter object at level depth and builds it; it returns
// nil when the filter has violations of its own or is not a filter at all.
func (p *parser) filter(n *node, ptr pointer, depth int) *Filter {
	if n.typ != jObject {
		p.add(ptr, "must be an object (a filter), not %s", n.typ)
		return nil
	}
	if depth > MaxDepth {
		p.add(ptr, "filters nest at most %d levels deep; this one is level %d", MaxDepth, depth)
		return nil
	}
	before := len(p.violations)
	f := &Filter{}
	seen := map[string]bool{}
	for _, m := range n.members {
		mp := ptr.key(m.key)
		if seen[m.key] {
			p.add(mp, "member %s appears more than once", quote(m.key))
			continue
		}
		seen[m.key] = true
		switch m.key {
		case KeyOrCondition:
			if m.val.typ != jBool {
				p.add(mp, "must be a boolean (false: all conditions must hold; true: at least one), not %s", m.val.typ)
				continue
			}
			f.or = m.val.b
		case KeyNestedFilters:
			if m.val.typ != jArray {
				p.add(mp, "must be an array of filters, not %s", m.val.typ)
				continue
			}
			for i, item := range m.val.items {
				ip := mp.index(i)
				p.count(ip)
				if sub := p.filter(item, ip, depth+1); sub != nil {
					f.nested = append(f.nested, sub)
				}
			}
		default:
			op, ok := opByName(m.key)
			if !ok {
				msg := fmt.Sprintf("unknown operator %s; a filter has the members %s", quote(m.key), strings.Join(filterKeys(), ", "))
				if s := suggest(m.key, filterKeys()); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				p.add(mp, "%s", msg)
				continue
			}
			p.operator(f, op, m.val, mp, "")
		}
	}
	if !seen[KeyOrCondition] {
		p.add(ptr.key(KeyOrCondition), "required: false joins this filter's conditions with AND, true with OR")
	}
	if len(p.violations) > before {
		return nil
	}
	slices.SortStableFunc(f.conds, func(a, b cond) int {
		if a.op != b.op {
			return int(a.op) - int(b.op)
		}
		return strings.Compare(a.field, b.field)
	})
	return f
}

// operator checks one operator member, {field: value, ...}, and adds its
// conditions to f. prefix is "" at the top, or a group's name and a dot
// ("meta.") inside a group's object (`{"meta": {"updatedAt": T}}`).
func (p *parser) operator(f *Filter, op Op, n *node, ptr pointer, prefix string) {
	if n.typ == jNull {
		return // a null operator (or group) adds no condition
	}
	if n.typ != jObject {
		what := "values"
		if op.isFlag() {
			what = "booleans"
		}
		p.add(ptr, "must be an object mapping field names to %s, not %s", what, n.typ)
		return
	}
	seen := map[string]bool{}
	for _, m := range n.members {
		fp := ptr.key(m.key)
		if seen[m.key] {
			p.add(fp, "field %s appears more than once", quote(m.key))
			continue
		}
		seen[m.key] = true
		name := prefix + m.key
		field, ok := p.fields[name]
		if strings.Contains(m.key, ".") {
			ok = false // nested fields are written as objects: {"meta": {"updatedAt": ...}}
		}
		if !ok {
			if p.fields.Group(name) {
				p.operator(f, op, m.val, fp, name+".")
				continue
			}
			p.unknownField(fp, name)
			continue
		}
		if !field.allows(op) {
			if ops := field.ops(); len(ops) > 0 {
				p.add(fp, "%s does not apply to %s, a %s field; the field takes %s", op, quote(name), field.Kind, strings.Join(ops, ", "))
			} else {
				p.add(fp, "%s does not apply to %s", op, quote(name))
			}
			continue
		}
		c, ok := p.value(op, name, field, m.val, fp)
		if !ok || c == nil {
			continue
		}
		p.count(fp)
		f.conds = append(f.conds, *c)
	}
}

func (p *parser) unknownField(ptr pointer, name string) {
	if len(p.names) == 0 {
		p.add(ptr, "unknown field %s; this resource has no searchable fields", quote(name))
		return
	}
	msg := fmt.Sprintf("unknown field %s; the searchable fields are %s", quote(name), strings.Join(p.names, ", "))
	if s := suggest(name, p.names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	p.add(ptr, "%s", msg)
}

// value checks the value of one condition and compiles it. It returns
// ok=false after a violation, and a nil cond for a condition that adds
// nothing (a flag set to false, a null value other than in equals).
func (p *parser) value(op Op, name string, field Field, n *node, ptr pointer) (*cond, bool) {
	c := &cond{op: op, field: name, kind: field.Kind}
	if n.typ == jNull && !op.isFlag() {
		switch op {
		case OpEquals: // equals null is null: true
			c.op = OpNull
			return c, true
		case OpNotEquals:
			c.op = OpNotNull
			return c, true
		}
		return nil, true // a null value adds no condition
	}
	if op.isFlag() {
		if n.typ != jBool {
			p.add(ptr, "must be a boolean (true adds the condition, false adds none), not %s", n.typ)
			return nil, false
		}
		if !n.b {
			return nil, true
		}
		return c, true
	}
	if op == OpContains || op == OpNotContains {
		if n.typ != jArray {
			p.add(ptr, "must be an array of values (the field's value is one of them), not %s", n.typ)
			return nil, false
		}
		ok := true
		for i, item := range n.items {
			one, good := p.scalar(OpEquals, name, field, item, ptr.index(i))
			if !good {
				ok = false
				continue
			}
			c.set = append(c.set, *one)
		}
		return c, ok
	}
	if op.isText() { // like, notLike
		if n.typ != jString {
			p.add(ptr, "must be a string (a pattern: %% any run of characters, _ one character), not %s", n.typ)
			return nil, false
		}
		if l := utf8.RuneCountInString(n.str); l > MaxTextLength {
			p.add(ptr, "must be at most %d characters long; it has %d", MaxTextLength, l)
			return nil, false
		}
		c.text = n.str
		c.pat = compileLike(n.str)
		return c, true
	}
	one, ok := p.scalar(op, name, field, n, ptr)
	if !ok {
		return nil, false
	}
	return one, true
}

// scalar compiles one comparison value of equals, notEquals, the order
// operators, or one element of a contains array. On a list field the value is
// one element.
func (p *parser) scalar(op Op, name string, field Field, n *node, ptr pointer) (*cond, bool) {
	c := &cond{op: op, field: name, kind: field.Kind}
	wrong := func(want string) (*cond, bool) {
		msg := fmt.Sprintf("must be %s, not %s", want, n.typ)
		if n.typ == jNull {
			msg += fmt.Sprintf(`; to find records where it is null use "null": {%q: true}`, name)
		}
		p.add(ptr, "%s", msg)
		return nil, false
	}
	bad := func(want string) (*cond, bool) {
		p.add(ptr, "must be %s; got %s", want, quote(n.str))
		return nil, false
	}
	enumOK := func() bool { return len(field.Enum) == 0 || slices.Contains(field.Enum, n.str) }
	oneOf := func() string { return "one of " + strings.Join(field.Enum, ", ") }

	switch field.Kind {
	case StringList:
		if n.typ != jString {
			return wrong("a string (one element of the list)")
		}
		if !enumOK() {
			return bad(oneOf())
		}
		c.text = n.str
	case String:
		if n.typ != jString {
			return wrong("a string")
		}
		c.text = n.str
	case Enum:
		if n.typ != jString {
			return wrong(oneOf())
		}
		if !enumOK() {
			return bad(oneOf())
		}
		c.text = n.str
	case UUID, UUIDList:
		if n.typ != jString {
			return wrong(uuidForm)
		}
		id, ok := canonicalUUID(n.str)
		if !ok {
			return bad(uuidForm)
		}
		c.text = id
	case Bool:
		if n.typ != jBool {
			return wrong("a boolean")
		}
		c.b = n.b
	case Int:
		if n.typ != jNumber {
			return wrong("an integer")
		}
		v, msg := parseInt(string(n.num))
		if msg != "" {
			p.add(ptr, "must be %s; got %s", msg, truncate(string(n.num)))
			return nil, false
		}
		c.num = v
	case Date:
		if n.typ != jString {
			return wrong(dateForm)
		}
		k, ok := dateKey(n.str)
		if !ok {
			return bad(dateForm)
		}
		c.text, c.num = n.str, k
	case DateTime:
		if n.typ != jString {
			return wrong(dateTimeForm)
		}
		t, ok := parseDateTime(n.str)
		if !ok {
			return bad(dateTimeForm)
		}
		c.t = t
		c.text = n.str
		if u := t.UTC(); u.Year() >= 0 && u.Year() <= 9999 { // else the UTC text would not parse
			c.text = u.Format(time.RFC3339Nano)
		}
	default:
		return nil, false // unreachable: Applies rejects invalid kinds
	}
	return c, true
}

// The value forms that messages name.
const (
	uuidForm     = "a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"
	dateForm     = "a date (YYYY-MM-DD)"
	dateTimeForm = "an RFC 3339 date-time (2024-05-01T08:00:00Z)"
)

// parseInt reads a JSON number as an int64: integer literals, and others
// whose value is integral (1.0, 1e2). msg says what is wrong, or is empty.
func parseInt(s string) (int64, string) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, ""
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, rangeMsg
	}
	if f != math.Trunc(f) {
		return 0, "an integer (a whole number)"
	}
	v, ok := floatInt(f)
	if !ok {
		return 0, rangeMsg
	}
	return v, ""
}

const rangeMsg = "an integer from -9223372036854775808 to 9223372036854775807"

// quote quotes a string from the body for a message, shortened to 64
// characters.
func quote(s string) string { return strconv.Quote(truncate(s)) }

func truncate(s string) string {
	const limit = 64
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "…"
}
