package rules

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The writes family: what a write sends is accepted and read back
// identically through every view (the write's own answer, by id, in a
// list, in a search, through a lookup), request bodies with media-type
// parameters are accepted, and every enumerated value the contract lists
// is accepted.

var (
	specReadBack   = SpecRef{Section: "Endpoints (interface A)", Quote: "POST | /group | Group body (required) | 201, the created Group … PATCH | /group/{id} | path id (uuid, required); update body (required) | 200, the updated Group", Decision: "patch-merges"}
	specReadStd    = &SpecRef{Section: "SS 12000 2.1.0: POST /{resource}", Quote: "200: Anropet lyckades. (the created record)"}
	specMediaParam = SpecRef{Section: "RFC 9110 §8.3.1, RFC 8259 §11", Quote: "The type/subtype MAY be followed by semicolon-delimited parameters (Section 5.6.6) in the form of name/value pairs."}
	specEnums      = SpecRef{Section: "Endpoints (interface A)", Quote: "Grade fields stated: grade values `A`, `B`, `C`, `D`, `E`, `F`, `MISSING`; … EmployeePlacement has a role value `MealPlanner`.", Decision: "vendor-field-table"}
)

func writes(op *Operation) bool {
	return op != nil && (op.Kind == KindCreate || op.Kind == KindUpdate) && op.Body
}

// writeRules returns the writes family.
func writeRules() []*Rule {
	return []*Rule{
		{ID: "writes.read-back", Family: FamilyWrites, Side: SideServer,
			Title: "every member a create or update sent reads back as sent (dates as dates, date-times as instants): in the write's answer and in every later reading of the record, by id, in a list, a search or a lookup",
			Spec:  specReadBack, StandardSpec: specReadStd,
			Severity: MUST, Standard: MUST, Applies: readsRecords, Check: checkReadBack},
		{ID: "writes.media-type-parameters", Family: FamilyWrites, Side: SideServer,
			Title:    "a request body whose Content-Type has parameters (application/json; charset=utf-8) is not refused for them (415)",
			Spec:     specMediaParam,
			Severity: MUST, Standard: MUST, Applies: func(op *Operation) bool { return op != nil && op.Body }, Concurrent: true, Check: checkMediaTypeParameters},
		{ID: "writes.enum-values-accepted", Family: FamilyWrites, Side: SideServer,
			Title:    "a write is not refused for a member whose value is one of the values the contract lists for it: not by a 422 pointing at it, nor by a 400 or 422 to a write that differs from an accepted one only in such values",
			Spec:     specEnums,
			Severity: MUST, Standard: MUST, Applies: writes, NewState: func() any { return map[*Operation]map[string]any{} }, Check: checkEnumValuesAccepted},
	}
}

// SentDifferences compares what a write sent with a reading of the
// record: members sent with a value that the reading shows otherwise
// (null sent: the reading shows null, nothing or an empty list). Members
// the reading leaves out are not judged; members the server adds are
// allowed.
func SentDifferences(sent, got map[string]any) []string {
	var out []string
	var walk func(path string, s, g any)
	walk = func(path string, s, g any) {
		switch x := s.(type) {
		case map[string]any:
			gm, ok := g.(map[string]any)
			if !ok {
				out = append(out, path)
				return
			}
			for _, k := range slices.Sorted(mapsKeys(x)) {
				gv, ok := gm[k]
				if !ok {
					continue
				}
				walk(join(path, k), x[k], gv)
			}
		case []any:
			ga, ok := g.([]any)
			if !ok || len(ga) != len(x) {
				out = append(out, path)
				return
			}
			if byID(x) && byID(ga) {
				index := map[string]any{}
				for _, e := range ga {
					index[strings.ToLower(fmt.Sprint(e.(map[string]any)["id"]))] = e
				}
				for _, e := range x {
					id := strings.ToLower(fmt.Sprint(e.(map[string]any)["id"]))
					walk(path+"["+id+"]", e, index[id])
				}
				return
			}
			for i := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), x[i], ga[i])
			}
		case nil:
			if g != nil && !isNull(g) {
				out = append(out, path)
			}
		default:
			if !SameValue(s, g) {
				out = append(out, path)
			}
		}
	}
	walk("", sent, got)
	return out
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func checkReadBack(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	judged := 0
	for _, rec := range o.Records() {
		id, _ := rec["id"].(string)
		ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}
		w, ok := c.History.Written.Peek(ref)
		if !ok {
			continue
		}
		if w.Ex != o.Exchange {
			reading := &Sighting{Ex: o.Exchange, From: o.Start}
			if w := c.History.WalkOf(o); w != nil {
				reading.From = w.First().Start
			}
			if c.History.Changed(w.sighting(), reading, ref) {
				continue
			}
		}
		judged++
		if diff := SentDifferences(w.Sent, rec); len(diff) > 0 {
			where := "the write's own answer"
			if w.Ex != o.Exchange {
				where = o.Op.ID()
			}
			var shown []string
			for _, p := range first(diff, 4) {
				shown = append(shown, fmt.Sprintf("%s sent %s, read %s", p, Compact(pathValue(w.Sent, p)), Compact(pathValue(rec, p))))
			}
			c.FailRelated(o, []*Exchange{w.Ex}, "every member as the write sent it", "%s %s reads back differently in %s: %s", o.Op.Resource, id, where, strings.Join(shown, "; "))
			return
		}
	}
	c.JudgedN(o, judged)
}

// pathValue reads a path of Differences ("a.b[2]", "a[<id>]") for messages.
func pathValue(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(part, "[")
		m, _ := v.(map[string]any)
		v = m[name]
		if idx == "" {
			continue
		}
		idx = strings.TrimSuffix(idx, "]")
		a, _ := v.([]any)
		if n, err := strconv.Atoi(idx); err == nil && n < len(a) {
			v = a[n]
			continue
		}
		for _, e := range Objects(a) {
			if strings.EqualFold(fmt.Sprint(e["id"]), idx) {
				v = e
			}
		}
	}
	return v
}

func checkMediaTypeParameters(c *Context, o *Observation) {
	ct := o.RequestHeader.Get("Content-Type")
	if o.Status == 0 || len(o.RequestBody) == 0 || !strings.Contains(ct, ";") {
		return
	}
	mt, _ := MediaType(ct)
	if !slices.Contains(o.Op.BodyTypes, mt) {
		return // a media type the operation does not take at all
	}
	c.Judged(o)
	if o.Status == http.StatusUnsupportedMediaType {
		c.Fail(o, "the body accepted as "+mt, "%s answered 415 to Content-Type %q", o.Label(), ct)
	}
}

// requestSchema is the schema of an operation's JSON request body.
func requestSchema(op *Operation) *openapi3.Schema {
	if op == nil || op.route == nil || op.route.Operation.RequestBody == nil || op.route.Operation.RequestBody.Value == nil {
		return nil
	}
	for mt, c := range op.route.Operation.RequestBody.Value.Content {
		if strings.Contains(mt, "json") && c.Schema != nil {
			return c.Schema.Value
		}
	}
	return nil
}

// schemaAtPointer follows a JSON pointer ("/roles/0") through a schema.
func schemaAtPointer(s *openapi3.Schema, ptr string) *openapi3.Schema {
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if s == nil {
			return nil
		}
		if _, err := strconv.Atoi(part); err == nil && s.Items != nil {
			s = s.Items.Value
			continue
		}
		s = propertyOf(s, part)
	}
	return s
}

// ValueAtPointer reads a JSON pointer in a decoded value.
func ValueAtPointer(v any, ptr string) any {
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			n, err := strconv.Atoi(part)
			if err != nil || n >= len(x) {
				return nil
			}
			v = x[n]
		default:
			return nil
		}
	}
	return v
}

func enumOf(s *openapi3.Schema) []string {
	var out []string
	for _, e := range s.Enum {
		out = append(out, fmt.Sprint(e))
	}
	for _, a := range s.AllOf {
		if a != nil && a.Value != nil {
			out = append(out, enumOf(a.Value)...)
		}
	}
	return out
}

func checkEnumValuesAccepted(c *Context, o *Observation) {
	v, err := o.RequestJSON()
	body, _ := v.(map[string]any)
	if err != nil || body == nil || o.Status == 0 {
		return
	}
	schema := requestSchema(o.Op)
	if schema == nil {
		return
	}
	accepted := c.State().(map[*Operation]map[string]any)
	if o.OK() {
		accepted[o.Op] = body
		c.Judged(o)
		return
	}
	if o.Status != http.StatusUnprocessableEntity && o.Status != http.StatusBadRequest {
		return
	}
	// A 422 that points at a member holding a listed value.
	inner, _ := o.Object()["error"].(map[string]any)
	for _, d := range Objects(Arr(inner, "details")) {
		ptr, _ := d["field"].(string)
		if ptr == "" {
			continue
		}
		s := schemaAtPointer(schema, ptr)
		if s == nil {
			continue
		}
		enum := enumOf(s)
		v, ok := ValueAtPointer(body, ptr).(string)
		if ok && len(enum) > 0 && slices.Contains(enum, v) {
			c.Judged(o)
			c.Fail(o, "a write holding "+v+", a value the contract lists for "+ptr, "%s refused %s = %q, one of the values %v the contract lists for it: %v", o.Label(), ptr, v, enum, d["message"])
			return
		}
	}
	// A refusal of a write that differs from an accepted one only in
	// members that hold listed values.
	ok := accepted[o.Op]
	if ok == nil {
		return
	}
	diffs := leafDifferences("", ok, body)
	if len(diffs) == 0 {
		return
	}
	var shown []string
	for _, ptr := range diffs {
		s := schemaAtPointer(schema, ptr)
		v, isString := ValueAtPointer(body, ptr).(string)
		if s == nil || !isString || !slices.Contains(enumOf(s), v) {
			return // something other than a listed value differs: the refusal may be for it
		}
		shown = append(shown, fmt.Sprintf("%s = %q", ptr, v))
	}
	c.Judged(o)
	c.Fail(o, "the write accepted with these values too", "%s was refused (%d) with %s, values the contract lists; the same write with %s was accepted", o.Label(), o.Status, strings.Join(shown, ", "), describeValues(ok, diffs))
}

// describeValues names the values an accepted write had at pointers.
func describeValues(body map[string]any, ptrs []string) string {
	var out []string
	for _, p := range ptrs {
		out = append(out, fmt.Sprintf("%s = %s", p, Compact(ValueAtPointer(body, p))))
	}
	return strings.Join(out, ", ")
}

// leafDifferences lists the JSON pointers of the scalar members in which
// two decoded bodies differ (a member only one holds counts).
func leafDifferences(ptr string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var out []string
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for _, k := range slices.Sorted(mapsKeysBool(keys)) {
			out = append(out, leafDifferences(ptr+"/"+k, am[k], bm[k])...)
		}
		return out
	}
	aa, aok := a.([]any)
	ba, bok := b.([]any)
	if aok && bok && len(aa) == len(ba) {
		var out []string
		for i := range aa {
			out = append(out, leafDifferences(ptr+"/"+strconv.Itoa(i), aa[i], ba[i])...)
		}
		return out
	}
	if SameValue(a, b) {
		return nil
	}
	return []string{ptr}
}

func mapsKeysBool(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// EnumMember is a member of a write's body whose schema lists its values.
type EnumMember struct {
	Pointer string   // "/eventType", "/resourceTypes/0/resource"
	Values  []string // what the contract lists
}

// EnumMembers lists the members of a write's body (at the top level, and
// in the first object of an array member) that hold one of the values the
// operation's request schema lists.
func EnumMembers(op *Operation, body map[string]any) []EnumMember {
	schema := requestSchema(op)
	if schema == nil {
		return nil
	}
	var out []EnumMember
	add := func(ptr string) {
		if s := schemaAtPointer(schema, ptr); s != nil {
			if enum := enumOf(s); len(enum) > 1 {
				if _, ok := ValueAtPointer(body, ptr).(string); ok {
					out = append(out, EnumMember{Pointer: ptr, Values: enum})
				}
			}
		}
	}
	for _, k := range slices.Sorted(mapsKeys(body)) {
		switch v := body[k].(type) {
		case string:
			add("/" + k)
		case []any:
			if m, ok := firstObject(v); ok {
				for _, kk := range slices.Sorted(mapsKeys(m)) {
					add("/" + k + "/0/" + kk)
				}
			}
		}
	}
	return out
}

func firstObject(a []any) (map[string]any, bool) {
	if len(a) == 0 {
		return nil, false
	}
	m, ok := a[0].(map[string]any)
	return m, ok
}

// SetPointer sets a member of a decoded body at a JSON pointer of
// EnumMembers (an object member, or one in an array's element).
func SetPointer(body any, ptr string, v any) {
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	cur := body
	for i, part := range parts {
		last := i == len(parts)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				x[part] = v
				return
			}
			cur = x[part]
		case []any:
			n, err := strconv.Atoi(part)
			if err != nil || n >= len(x) {
				return
			}
			if last {
				x[n] = v
				return
			}
			cur = x[n]
		default:
			return
		}
	}
}
