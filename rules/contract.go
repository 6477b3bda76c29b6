package rules

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/skolkit/skolkit/openapi"
)

// Kind says what an operation does, derived from its method, path and
// answer.
type Kind string

// The kinds of operation.
const (
	KindList   Kind = "list"   // GET of a collection: a page of records
	KindGet    Kind = "get"    // GET of one record by id
	KindLookup Kind = "lookup" // POST …/lookup: many records by id
	KindSearch Kind = "search" // POST …/_search: records matching a filter body
	KindCreate Kind = "create" // POST that makes a record (201)
	KindUpdate Kind = "update" // PATCH or PUT of a record (transitions such as …/archive included)
	KindDelete Kind = "delete" // DELETE of a record
	KindToken  Kind = "token"  // POST /oauth/token
	KindOther  Kind = "other"  // everything else (the contract's own document, logs, statistics)
)

// Paging is how an operation pages.
type Paging string

// The paging styles.
const (
	PagingNone      Paging = "none"
	PagingPageToken Paging = "pageToken" // interface B: limit and an opaque pageToken
	PagingOffset    Paging = "offset"    // interface A and the export: limit, offset and pagination.total
)

// Comparison is what a filter parameter compares a record's field with.
type Comparison string

// The comparisons, as the contract's parameter names and descriptions
// word them.
const (
	CompareEquals     Comparison = "equals"     // the field equals the value (one of the values of an array parameter)
	CompareOnOrBefore Comparison = "onOrBefore" // field ≤ value (inclusive)
	CompareOnOrAfter  Comparison = "onOrAfter"  // field ≥ value (inclusive)
	CompareBefore     Comparison = "before"     // field ≤ value: SS 12000's meta.*.before is inclusive
	CompareAfter      Comparison = "after"      // field > value: SS 12000's meta.*.after is exclusive
	CompareContains   Comparison = "contains"   // the field (an array) holds the value
	// CompareMatches: the field (or an element of it) matches the value;
	// the standard's "matchar" leaves case open, so a match with case
	// folded alone is not judged.
	CompareMatches Comparison = "matches"
	// CompareNamesContain: Field is a comma-separated list of members, and
	// every value appears, case folded, somewhere in at least one of them
	// (SS 12000's nameContains).
	CompareNamesContain Comparison = "namesContain"
	CompareBody         Comparison = "body" // interface A's _search filter language, in the request body
	CompareNone         Comparison = "none" // selects by something a record does not show (Filter.Why says what)
)

// Filter is what one filter parameter of an operation selects.
type Filter struct {
	// Param is the query parameter ("startDate.onOrBefore").
	Param string
	// Field is the dotted path of the record member it compares
	// ("startDate", "placedAt.id", "owners[].id": every element of an
	// array).
	Field string
	// Compare is the comparison.
	Compare Comparison
	// AbsentMatches: a record without the field is always kept (the
	// endDate filters keep open-ended placements).
	AbsentMatches bool
	// Many: the parameter is an array; a record matches one of its values.
	Many bool
	// Format is the parameter's format ("date", "date-time", "uuid"), for
	// comparing by value (instants as instants, UUIDs case-insensitively).
	Format string
	// EitherWithout names a member whose absence leaves the filter's
	// answer open: a record without it may be included or not (the
	// standard says of some startDate filters that records without endDate
	// are always included).
	EitherWithout string
	// Derived says how the meaning was found: "name" (the parameter's name
	// and the item schema), or "x-skolkit-filter" (the contract says it).
	Derived string
	// Why says, for CompareNone, what the parameter selects by.
	Why string
	// Through are the references the filter follows before comparing: the
	// first hop's member holds ids of records of its resource, the next
	// hop's member is read in those, and Field is a member of the last
	// records reached (a calendar event's activity.id → /activities, then
	// groups[].id → /groups, then groupMemberships[].person.id). A record
	// is judged only when every record reached has been seen.
	Through []Hop
	// Also is a member of the record itself that names values the filter
	// selects by too (a calendar event's studentExceptions[].student.id);
	// a record whose Also names the value is not judged.
	Also string
	// Under makes the filter select an element and every element under it
	// (activities?organisation=: "utpekat organisationselement och dess
	// underliggande element"): Field holds an element's id, Under.Resource
	// lists the elements and Under.Member is the id of an element's parent.
	// A record matches when its element or an ancestor is the value; it is
	// judged only when every element on the way up has been seen.
	Under *Hop
}

// Hop is one reference a filter follows: a member holding ids, and the
// list of the records they are ids of.
type Hop struct {
	Member   string
	Resource string
}

// Param is one parameter of an operation.
type Param struct {
	Name     string
	In       string // query, path, header
	Required bool
	Array    bool
	Type     string   // of the value (of the items, for an array)
	Format   string   // of the value
	Enum     []string // allowed values (of the items, for an array)
	Minimum  *float64
	Maximum  *float64
	schema   *openapi3.SchemaRef
}

// Operation is one operation of the contract, derived from the embedded
// OpenAPI documents of package openapi.
type Operation struct {
	Surface     Surface
	Method      string
	Path        string // the path template relative to the surface ("/placements/{id}")
	OperationID string
	Kind        Kind
	// Resource is the collection the operation concerns ("/placements"):
	// records of one resource are compared with each other.
	Resource string
	Params   []Param
	// Expand are the values of the expand parameter; ReferenceNames says
	// whether the operation takes expandReferenceNames.
	Expand         []string
	ReferenceNames bool
	Paging         Paging
	Filters        []Filter
	// References are the reference members of a record (RefPath), derived
	// from the item schema.
	References []RefPath
	// SortKeys are the values of sortkey.
	SortKeys []string
	// Body: the operation takes a request body, of these media types.
	Body      bool
	BodyTypes []string
	// Statuses are the documented response statuses ("200", "default").
	Statuses []string
	// Secured: the operation requires credentials.
	Secured bool
	// RateLimited: the operation's answers carry the RateLimit headers.
	RateLimited bool
	// Records says where the records of a 2xx answer are: "data" (a page),
	// "array" (the body is an array), "object" (the body is the record),
	// "" (no records).
	Records string
	// ItemSchema is the schema of one record of the answer (nil: none).
	ItemSchema *openapi3.Schema

	route     *routers.Route
	segments  []string
	nParams   int
	unmatched []string // filter-like parameters whose meaning could not be derived
}

// ID is how reports name the operation: "B GET /placements/{id}".
func (o *Operation) ID() string { return string(o.Surface) + " " + o.Method + " " + o.Path }

// Param returns the parameter by name.
func (o *Operation) Param(name string) (Param, bool) {
	for _, p := range o.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// HasParam reports whether the operation declares the parameter.
func (o *Operation) HasParam(name string) bool { _, ok := o.Param(name); return ok }

// Underived lists the query parameters that look like filters but whose
// meaning neither their name nor an x-skolkit-filter extension gives.
func (o *Operation) Underived() []string { return slices.Clone(o.unmatched) }

// ReadsRecords reports whether the operation's answer holds records of its
// resource.
func (o *Operation) ReadsRecords() bool { return o.Records != "" }

// Contract is the operation index of every document of the contract (the
// token endpoint, interface A, interface B and the data export), built once
// per profile. It is read-only and safe for concurrent use.
type Contract struct {
	Profile Profile
	ops     []*Operation
	by      map[Surface][]*Operation
	// validated remembers the validation of answers met again.
	validated *validationMemo
}

var contracts sync.Map // Profile → func() (*Contract, error)

// LoadContract returns the operation index under a profile: interface B
// and the token endpoint from the documents relaxed to the standard
// (ss12000) or to what the service's spec says (service), as
// openapi.Standard and openapi.Service give them.
func LoadContract(p Profile) (*Contract, error) {
	if p == "" {
		p = ProfileService
	}
	if p != ProfileService && p != ProfileSS12000 {
		return nil, fmt.Errorf("rules: profile %q: want service or ss12000", p)
	}
	f, _ := contracts.LoadOrStore(p, sync.OnceValues(func() (*Contract, error) { return buildContract(p) }))
	return f.(func() (*Contract, error))()
}

func buildContract(p Profile) (*Contract, error) {
	shared, err := openapi.Shared()
	if err != nil {
		return nil, err
	}
	mode := openapi.Service
	if p == ProfileSS12000 {
		mode = openapi.Standard
	}
	c := &Contract{Profile: p, by: map[Surface][]*Operation{}, validated: newValidationMemo()}
	for _, d := range []struct {
		s    Surface
		name openapi.Name
	}{{SurfaceAuth, openapi.NameAuth}, {SurfaceA, openapi.NameDirectory}, {SurfaceB, openapi.NameRegister}, {SurfaceExport, openapi.NameExport}} {
		doc := shared.Doc(d.name)
		if d.s == SurfaceAuth || d.s == SurfaceB {
			if doc, err = mode(d.name); err != nil {
				return nil, err
			}
		}
		ops, err := operationsOf(d.s, doc)
		if err != nil {
			return nil, err
		}
		c.ops = append(c.ops, ops...)
		c.by[d.s] = ops
	}
	return c, nil
}

// Operations returns every operation, by surface, then path and method.
func (c *Contract) Operations() []*Operation { return slices.Clone(c.ops) }

// Operation returns the operation of a surface with the method and path
// template, or nil.
func (c *Contract) Operation(s Surface, method, template string) *Operation {
	for _, o := range c.by[s] {
		if o.Method == method && o.Path == template {
			return o
		}
	}
	return nil
}

// Match finds the operation of a request: its surface, method and path
// relative to the surface. Literal path segments win over templated ones
// (/groups/lookup before /groups/{id}). It returns nil when the contract
// has no such operation.
func (c *Contract) Match(s Surface, method, relPath string) (*Operation, map[string]string) {
	segs := splitPath(relPath)
	for _, o := range c.by[s] {
		if o.Method != method || len(o.segments) != len(segs) {
			continue
		}
		var params map[string]string
		ok := true
		for i, t := range o.segments {
			if strings.HasPrefix(t, "{") {
				v, err := url.PathUnescape(segs[i])
				if err != nil || v == "" {
					ok = false
					break
				}
				if params == nil {
					params = map[string]string{}
				}
				params[strings.Trim(t, "{}")] = v
				continue
			}
			if t != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return o, params
		}
	}
	return nil, nil
}

// PathExists reports whether the contract has any operation on the path,
// whatever its method (a request with another method is a 405, not an
// unknown path).
func (c *Contract) PathExists(s Surface, relPath string) bool {
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		if o, _ := c.Match(s, m, relPath); o != nil {
			return true
		}
	}
	return false
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return []string{""}
	}
	return strings.Split(p, "/")
}

// operationsOf derives the operations of one document.
func operationsOf(s Surface, doc *openapi3.T) ([]*Operation, error) {
	var out []*Operation
	for _, tmpl := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(tmpl)
		for method, op := range item.Operations() {
			o := &Operation{Surface: s, Method: method, Path: tmpl, OperationID: op.OperationID,
				route:    &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: op},
				segments: splitPath(tmpl)}
			for _, seg := range o.segments {
				if strings.HasPrefix(seg, "{") {
					o.nParams++
				}
			}
			o.Secured = secured(doc, op)
			for _, r := range op.Responses.Map() {
				if r.Value != nil && r.Value.Headers["RateLimit-Remaining"] != nil {
					o.RateLimited = true
				}
			}
			o.Statuses = append(o.Statuses, sortedKeys(op.Responses.Map())...)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				o.Body = true
				o.BodyTypes = sortedKeys(op.RequestBody.Value.Content)
			}
			params := slices.Concat(item.Parameters, op.Parameters)
			for _, pr := range params {
				if pr == nil || pr.Value == nil {
					continue
				}
				o.Params = append(o.Params, paramOf(pr.Value))
			}
			o.Kind, o.Resource = kindOf(s, method, tmpl, op)
			o.Records, o.ItemSchema = recordsOf(o.Kind, op)
			derive(o, params)
			out = append(out, o)
		}
	}
	// Literal paths before templated ones, then a stable order.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].nParams != out[j].nParams {
			return out[i].nParams < out[j].nParams
		}
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// secured says whether an operation requires credentials: its own security
// requirement, else the document's; an empty list or an empty requirement
// means none.
func secured(doc *openapi3.T, op *openapi3.Operation) bool {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 {
		return false
	}
	for _, r := range reqs {
		if len(r) == 0 {
			return false
		}
	}
	return true
}

func paramOf(p *openapi3.Parameter) Param {
	out := Param{Name: p.Name, In: p.In, Required: p.Required}
	if p.Schema == nil || p.Schema.Value == nil {
		return out
	}
	out.schema = p.Schema
	s := p.Schema.Value
	if s.Type.Is("array") && s.Items != nil && s.Items.Value != nil {
		out.Array = true
		s = s.Items.Value
	}
	if s.Type != nil && len(*s.Type) > 0 {
		out.Type = (*s.Type)[0]
	}
	out.Format = s.Format
	out.Minimum, out.Maximum = s.Min, s.Max
	for _, e := range s.Enum {
		out.Enum = append(out.Enum, fmt.Sprint(e))
	}
	return out
}

// kindOf derives what an operation does and the resource it concerns.
func kindOf(s Surface, method, tmpl string, op *openapi3.Operation) (Kind, string) {
	if s == SurfaceAuth {
		return KindToken, ""
	}
	segs := splitPath(tmpl)
	// The resource is the path up to the first templated segment, without
	// a trailing action (_search, lookup).
	var res []string
	for _, seg := range segs {
		if strings.HasPrefix(seg, "{") {
			break
		}
		res = append(res, seg)
	}
	last := segs[len(segs)-1]
	resource := "/" + strings.Join(res, "/")
	if last == "_search" || last == "lookup" {
		resource = "/" + strings.Join(res[:len(res)-1], "/")
	}
	byID := len(res) < len(segs)
	switch {
	case strings.HasSuffix(tmpl, "openapi.json"):
		return KindOther, ""
	case method == "POST" && last == "_search":
		return KindSearch, resource
	case method == "POST" && last == "lookup":
		return KindLookup, resource
	case method == "GET" && byID && strings.HasPrefix(last, "{"):
		return KindGet, resource
	case method == "GET" && !byID && hasData(op):
		return KindList, resource
	case method == "POST" && !byID:
		return KindCreate, resource
	case (method == "PATCH" || method == "PUT") && byID:
		return KindUpdate, resource
	case method == "DELETE" && byID:
		return KindDelete, resource
	}
	return KindOther, resource
}

// okSchema is the schema of an operation's 200 (or 201) JSON answer.
func okSchema(op *openapi3.Operation) *openapi3.Schema {
	for _, code := range []string{"200", "201"} {
		r := op.Responses.Value(code)
		if r == nil || r.Value == nil {
			continue
		}
		for mt, c := range r.Value.Content {
			if strings.Contains(mt, "json") && c.Schema != nil && c.Schema.Value != nil {
				return c.Schema.Value
			}
		}
	}
	return nil
}

// hasData: the answer is a page, an object with a data array.
func hasData(op *openapi3.Operation) bool {
	s := okSchema(op)
	if s == nil {
		return false
	}
	d := s.Properties["data"]
	return d != nil && d.Value != nil && d.Value.Type.Is("array")
}

// recordsOf says where the records of an answer are, and their schema.
func recordsOf(k Kind, op *openapi3.Operation) (string, *openapi3.Schema) {
	s := okSchema(op)
	if s == nil {
		return "", nil
	}
	switch k {
	case KindList, KindSearch:
		if d := s.Properties["data"]; d != nil && d.Value != nil && d.Value.Items != nil {
			return "data", d.Value.Items.Value
		}
	case KindLookup:
		if s.Type.Is("array") && s.Items != nil {
			return "array", s.Items.Value
		}
		if d := s.Properties["data"]; d != nil && d.Value != nil && d.Value.Items != nil {
			return "data", d.Value.Items.Value
		}
	case KindGet, KindCreate, KindUpdate:
		if propertyOf(s, "id") != nil {
			return "object", s
		}
	}
	return "", nil
}

// presentation are the parameters that shape or page an answer rather
// than select records.
var presentation = map[string]bool{
	"limit": true, "offset": true, "pageToken": true, "expand": true, "expandReferenceNames": true, "sortkey": true,
}

// derive fills in paging, expand, sort keys and filters from the
// parameters.
func derive(o *Operation, params openapi3.Parameters) {
	o.Paging = PagingNone
	switch {
	case o.HasParam("pageToken"):
		o.Paging = PagingPageToken
	case o.HasParam("offset"):
		o.Paging = PagingOffset
	}
	if p, ok := o.Param("expand"); ok {
		o.Expand = p.Enum
	}
	o.ReferenceNames = o.HasParam("expandReferenceNames")
	if p, ok := o.Param("sortkey"); ok {
		o.SortKeys = p.Enum
	}
	if o.Kind == KindSearch {
		o.Filters = append(o.Filters, Filter{Param: "filter", Compare: CompareBody, Derived: "name"})
	}
	for _, pr := range params {
		if pr == nil || pr.Value == nil || pr.Value.In != "query" || presentation[pr.Value.Name] {
			continue
		}
		if o.Kind != KindList {
			continue
		}
		p := paramOf(pr.Value)
		f, derived := filterFromName(p, o.ItemSchema)
		if ext, ok := pr.Value.Extensions["x-skolkit-filter"].(map[string]any); ok {
			f = withExtension(f, p, ext)
			derived = f.Field != "" || f.Compare == CompareNone
		}
		if !derived {
			o.unmatched = append(o.unmatched, p.Name)
			continue
		}
		o.Filters = append(o.Filters, f)
	}
	o.References = referencesOf(o.ItemSchema)
}

// withExtension applies a parameter's x-skolkit-filter: {field, compare,
// absent: keep, eitherWithout, why, through: [{member, resource}], also}. What it leaves out stays as the name
// derives it.
func withExtension(f Filter, p Param, ext map[string]any) Filter {
	f.Param, f.Many, f.Format, f.Derived = p.Name, p.Array, p.Format, "x-skolkit-filter"
	if v, ok := ext["field"].(string); ok {
		f.Field = v
	}
	if v, ok := ext["compare"].(string); ok {
		f.Compare = Comparison(v)
	}
	if v, _ := ext["absent"].(string); v == "keep" {
		f.AbsentMatches = true
	}
	f.EitherWithout, _ = ext["eitherWithout"].(string)
	f.Why, _ = ext["why"].(string)
	f.Also, _ = ext["also"].(string)
	if u, ok := ext["under"].(map[string]any); ok {
		member, _ := u["member"].(string)
		resource, _ := u["resource"].(string)
		f.Under = &Hop{Member: member, Resource: resource}
	}
	hops, _ := ext["through"].([]any)
	for _, h := range hops {
		m, _ := h.(map[string]any)
		member, _ := m["member"].(string)
		resource, _ := m["resource"].(string)
		f.Through = append(f.Through, Hop{Member: member, Resource: resource})
	}
	return f
}

// suffixes are the bound suffixes of filter parameter names, and what they
// compare.
var suffixes = []struct {
	suffix string
	c      Comparison
}{
	{".onOrBefore", CompareOnOrBefore}, {".onOrAfter", CompareOnOrAfter},
	{".before", CompareBefore}, {".after", CompareAfter},
}

// filterFromName derives a filter's meaning from its name: a bound suffix
// on a member the record has ("startDate.onOrBefore", "meta.modified.after"),
// or the name of a member itself (a reference member compares its id).
func filterFromName(p Param, item *openapi3.Schema) (Filter, bool) {
	f := Filter{Param: p.Name, Many: p.Array, Format: p.Format, Derived: "name"}
	for _, s := range suffixes {
		if field, ok := strings.CutSuffix(p.Name, s.suffix); ok {
			if item != nil && schemaAt(item, field) == nil {
				return Filter{}, false
			}
			f.Field, f.Compare = field, s.c
			return f, true
		}
	}
	if item == nil {
		return Filter{}, false
	}
	m := schemaAt(item, p.Name)
	if m == nil {
		return Filter{}, false
	}
	f.Field, f.Compare = p.Name, CompareEquals
	switch {
	case m.Type.Is("array") && m.Items != nil && m.Items.Value != nil:
		f.Compare = CompareContains
		if propertyOf(m.Items.Value, "id") != nil {
			f.Field = p.Name + "[].id"
		}
	case propertyOf(m, "id") != nil:
		f.Field = p.Name + ".id"
	}
	return f, true
}

// schemaAt follows a dotted path of properties (through allOf) in a schema.
func schemaAt(s *openapi3.Schema, path string) *openapi3.Schema {
	for _, part := range strings.Split(path, ".") {
		next := propertyOf(s, part)
		if next == nil {
			return nil
		}
		s = next
	}
	return s
}

func propertyOf(s *openapi3.Schema, name string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	if p := s.Properties[name]; p != nil && p.Value != nil {
		return p.Value
	}
	for _, sub := range s.AllOf {
		if sub != nil {
			if p := propertyOf(sub.Value, name); p != nil {
				return p
			}
		}
	}
	return nil
}

// RefPath is a reference member of a record: where it is ("child",
// "owners[]", "groupMemberships[].person") and the list of the records it
// points to ("/persons"; "" when the contract does not say).
type RefPath struct {
	Path   string
	Target string
	// Person: the reference is a person reference (it carries
	// securityMarking).
	Person bool
}

// referenceTargets maps reference schema names that do not name their list
// by themselves (x-skolkit-reference says it otherwise).
func referenceTarget(name string, s *openapi3.Schema) string {
	if s != nil {
		if t, ok := s.Extensions["x-skolkit-reference"].(string); ok {
			return t
		}
	}
	base, ok := strings.CutSuffix(name, "Reference")
	if !ok || base == "" || base == "Object" {
		return ""
	}
	base = strings.ToLower(base[:1]) + base[1:]
	switch {
	case strings.HasSuffix(base, "y"):
		return "/" + strings.TrimSuffix(base, "y") + "ies"
	case strings.HasSuffix(base, "s"):
		return "/" + base + "es"
	}
	return "/" + base + "s"
}

// referenceName is the name of the reference schema a property refers to,
// directly or as its only allOf member ("" when none).
func referenceName(sr *openapi3.SchemaRef) (string, *openapi3.Schema) {
	if sr == nil {
		return "", nil
	}
	name := func(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }
	if strings.HasSuffix(sr.Ref, "Reference") {
		return name(sr.Ref), sr.Value
	}
	if sr.Value != nil {
		for _, a := range sr.Value.AllOf {
			if a != nil && strings.HasSuffix(a.Ref, "Reference") {
				return name(a.Ref), a.Value
			}
		}
	}
	return "", nil
}

// referencesOf finds the reference members of a record schema (outside
// _embedded), to a depth of three members.
func referencesOf(item *openapi3.Schema) []RefPath {
	var out []RefPath
	var walk func(s *openapi3.Schema, prefix string, depth int)
	walk = func(s *openapi3.Schema, prefix string, depth int) {
		if s == nil || depth > 3 {
			return
		}
		props := map[string]*openapi3.SchemaRef{}
		for _, a := range s.AllOf {
			if a != nil && a.Value != nil {
				for k, v := range a.Value.Properties {
					props[k] = v
				}
			}
		}
		for k, v := range s.Properties {
			props[k] = v
		}
		for _, k := range sortedKeys(props) {
			v := props[k]
			if k == "_embedded" || v == nil || v.Value == nil {
				continue
			}
			path := prefix + k
			sr := v
			if v.Value.Type.Is("array") && v.Value.Items != nil {
				sr = v.Value.Items
				path += "[]"
			}
			if name, rs := referenceName(sr); name != "" {
				out = append(out, RefPath{Path: path, Target: referenceTarget(name, rs), Person: name == "PersonReference"})
				continue
			}
			if sr.Value != nil && (sr.Value.Type.Is("object") || len(sr.Value.AllOf) > 0) {
				walk(sr.Value, path+".", depth+1)
			}
		}
	}
	walk(item, "", 0)
	return out
}
