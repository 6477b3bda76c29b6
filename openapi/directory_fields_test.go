package openapi

// The agreement of directory.yaml (interface A) with the vendor's field
// table: every operation with its request body and statuses, every schema
// with its fields, their types, nullability and required flags, every enum.
// The table is found by package reference: without it the test skips, and
// in CI it fails, so that a CI run cannot pass by skipping.
//
// The differences we keep on purpose are listed in directoryFieldsAllowed,
// each with its reason (docs/decisions.md#vendor-field-table).

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/internal/reference"
)

// directoryFieldsAllowed are the deliberate differences, by the key the test
// reports them under. Each is a decision of docs/decisions.md.
var directoryFieldsAllowed = map[string]string{
	// Operations the service spec adds to the vendor's.
	"operation GET /openapi.json":                      "the contract is served beside the API (docs/decisions.md#interface-a-document)",
	"operation GET /student-placements/{id}":           "the service spec names this path for StudentPlacement's update; served as an alias",
	"operation PATCH /student-placements/{id}":         "the service spec's path of the restoring update; an alias of /student-placement/{id}",
	"operation PATCH /employee-placement/{id}/archive": "the spec: the archiving behaviour 'holds for EmployeePlacement' too",
	"operation PATCH /employee-placement/{id}/restore": "the spec: the archiving behaviour 'holds for EmployeePlacement' too",
	// Statuses of the transport limits, on top of the vendor's.
	"status 413": "a body over 1 MiB is refused on every operation (docs/decisions.md#interface-a-413-415)",
	"status 415": "a body that is not application/json is refused (docs/decisions.md#interface-a-413-415)",
	// The error body's extra member.
	"schema Error.details": "422 lists every violation of the body (docs/decisions.md#error-details); an optional member the vendor's clients ignore",
}

// fieldsDoc is the parsed field table.
type fieldsDoc struct {
	ops     []fieldsOp
	bodies  map[string]string // request body schema → its fields ("{...}" content)
	schemas map[string]string // schema → its fields, or "object"
	enums   map[string][]string
	lists   map[string]string // list response body → record schema ("SchoolList" → "School")
}

type fieldsOp struct {
	method, path, body string
	statuses           []string
	params             []string
}

var (
	fieldsOpRow  = regexp.MustCompile(`^\| (GET|POST|PATCH|DELETE|PUT) \| (\S+) \| (\S*) ?\| ([0-9 ]+) \|(?: params: (\S+))?`)
	fieldsEnum   = regexp.MustCompile(`^enum (\w+): \[(.*)\]$`)
	fieldsList   = regexp.MustCompile(`^(\w+)(List|Search): \{data:\[(\w+)\], pagination:Pagination\}`)
	fieldsSingle = regexp.MustCompile(`^(\w+?)(Create|Update|Get|Archive|Restore): (\w+) headers:`)
)

func readFieldsDoc(t *testing.T) *fieldsDoc {
	t.Helper()
	path := reference.Path(t, reference.VendorFields)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d := &fieldsDoc{bodies: map[string]string{}, schemas: map[string]string{}, enums: map[string][]string{}, lists: map[string]string{}}
	section := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
			continue
		}
		if m := fieldsOpRow.FindStringSubmatch(line); m != nil && section == "Operations" {
			op := fieldsOp{method: m[1], path: m[2], body: m[3], statuses: strings.Fields(m[4])}
			if m[5] != "" {
				op.params = strings.Split(m[5], ",")
			}
			d.ops = append(d.ops, op)
			continue
		}
		item, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		switch section {
		case "Request bodies":
			name, rest, _ := strings.Cut(item, ": ")
			d.bodies[name] = strings.TrimSuffix(strings.TrimPrefix(rest, "{"), "}")
		case "Responses":
			if m := fieldsList.FindStringSubmatch(item); m != nil {
				d.lists[m[1]+m[2]] = m[3]
			}
		case "Schemas":
			if m := fieldsEnum.FindStringSubmatch(item); m != nil {
				for _, v := range strings.Split(m[2], ", ") {
					d.enums[m[1]] = append(d.enums[m[1]], strings.Trim(v, "'"))
				}
				continue
			}
			name, rest, _ := strings.Cut(item, ": ")
			d.schemas[name] = rest
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, d.ops, "no operations parsed from %s", path)
	require.NotEmpty(t, d.schemas, "no schemas parsed from %s", path)
	return d
}

// fieldsMember is one field of a schema as the table writes it.
type fieldsMember struct {
	typ      string // "string(uuid)", "[GroupType]", "Meta", ...
	required bool
	nullable bool
}

func parseFieldsMembers(s string) map[string]fieldsMember {
	out := map[string]fieldsMember{}
	if s == "object" || s == "" {
		return out
	}
	for _, part := range strings.Split(s, ", ") {
		name, typ, _ := strings.Cut(part, ":")
		m := fieldsMember{typ: typ}
		name, m.required = strings.CutSuffix(name, "*")
		m.typ, m.nullable = strings.CutSuffix(m.typ, "?")
		out[name] = m
	}
	return out
}

// ourType writes one of our property schemas in the table's notation, and
// whether it is nullable.
func ourType(ref *openapi3.SchemaRef) (string, bool) {
	if ref.Ref != "" {
		return strings.TrimPrefix(ref.Ref, "#/components/schemas/"), false
	}
	s := ref.Value
	if len(s.AllOf) == 1 && s.AllOf[0].Ref != "" {
		return strings.TrimPrefix(s.AllOf[0].Ref, "#/components/schemas/"), s.Nullable
	}
	switch {
	case s.Type.Is(openapi3.TypeArray):
		inner, _ := ourType(s.Items)
		return "[" + inner + "]", s.Nullable
	case s.Type.Is(openapi3.TypeObject):
		return "object", s.Nullable
	case s.Format != "":
		return s.Type.Slice()[0] + "(" + s.Format + ")", s.Nullable
	case s.Type != nil && len(s.Type.Slice()) == 1:
		return s.Type.Slice()[0], s.Nullable
	}
	return "?", s.Nullable
}

// fieldsT is what compareSchema reports to (a *testing.T, or a recorder in
// the test of the comparison itself).
type fieldsT interface {
	assert.TestingT
	Helper()
}

// compareSchema reports every difference between the table's fields of a
// schema and ours.
func compareSchema(t fieldsT, name, fields string, ours *openapi3.SchemaRef) {
	t.Helper()
	if !assert.NotNil(t, ours, "schema %s is missing", name) {
		return
	}
	want := parseFieldsMembers(fields)
	s := ours.Value
	if fields == "object" {
		assert.True(t, s.Type.Is(openapi3.TypeObject), "schema %s is an object", name)
	}
	for _, field := range slices.Sorted(maps.Keys(want)) {
		w := want[field]
		p := s.Properties[field]
		if !assert.NotNil(t, p, "schema %s lacks field %s", name, field) {
			continue
		}
		typ, nullable := ourType(p)
		assert.Equal(t, w.typ, typ, "type of %s.%s", name, field)
		assert.Equal(t, w.nullable, nullable, "nullability of %s.%s", name, field)
		assert.Equal(t, w.required, slices.Contains(s.Required, field), "required flag of %s.%s", name, field)
	}
	for _, field := range slices.Sorted(maps.Keys(s.Properties)) {
		if _, ok := want[field]; !ok && directoryFieldsAllowed["schema "+name+"."+field] == "" {
			assert.Fail(t, "extra field", "schema %s has field %s that the vendor's lacks", name, field)
		}
	}
}

func TestDirectoryAgreesWithTheVendorFieldTable(t *testing.T) {
	d := readFieldsDoc(t)
	doc := loadDirectoryContract(t, "directory.yaml")
	schemas := doc.Components.Schemas

	t.Run("operations", func(t *testing.T) {
		theirs := map[string]fieldsOp{}
		for _, op := range d.ops {
			key := op.method + " " + op.path
			theirs[key] = op
			item := doc.Paths.Value(op.path)
			if !assert.NotNil(t, item, "path %s", op.path) {
				continue
			}
			ours := item.GetOperation(op.method)
			if !assert.NotNil(t, ours, "operation %s", key) {
				continue
			}
			var statuses []string
			for st := range ours.Responses.Map() {
				if directoryFieldsAllowed["status "+st] == "" {
					statuses = append(statuses, st)
				}
			}
			assert.ElementsMatch(t, op.statuses, statuses, "statuses of %s", key)
			body := ""
			if ours.RequestBody != nil {
				body = strings.TrimPrefix(ours.RequestBody.Value.Content.Get("application/json").Schema.Ref, "#/components/schemas/")
				assert.True(t, ours.RequestBody.Value.Required, "%s: the body is required", key)
			}
			assert.Equal(t, op.body, body, "request body of %s", key)
			var params []string
			for _, p := range append(slices.Clone(item.Parameters), ours.Parameters...) {
				params = append(params, p.Value.Name)
			}
			assert.ElementsMatch(t, op.params, params, "parameters of %s", key)
		}
		for path, item := range doc.Paths.Map() {
			for method := range item.Operations() {
				key := method + " " + path
				if _, ok := theirs[key]; !ok && directoryFieldsAllowed["operation "+key] == "" {
					assert.Fail(t, "extra operation", "%s is not in the vendor's document", key)
				}
			}
		}
	})

	t.Run("request bodies", func(t *testing.T) {
		for _, name := range slices.Sorted(maps.Keys(d.bodies)) {
			compareSchema(t, name, d.bodies[name], schemas[name])
		}
	})

	t.Run("schemas", func(t *testing.T) {
		for _, name := range slices.Sorted(maps.Keys(d.schemas)) {
			compareSchema(t, name, d.schemas[name], schemas[name])
		}
	})

	t.Run("enums", func(t *testing.T) {
		for _, name := range slices.Sorted(maps.Keys(d.enums)) {
			s := schemas[name]
			if !assert.NotNil(t, s, "enum %s", name) {
				continue
			}
			var ours []string
			for _, v := range s.Value.Enum {
				ours = append(ours, v.(string))
			}
			assert.Equal(t, d.enums[name], ours, "values of %s", name)
		}
	})

	t.Run("list and search bodies", func(t *testing.T) {
		for _, name := range slices.Sorted(maps.Keys(d.lists)) {
			record := d.lists[name]
			compareSchema(t, record+"List", "data:["+record+"], pagination:Pagination", schemas[record+"List"])
			op := strings.ToLower(name[:1]) + name[1:] // SchoolSearch → schoolSearch
			found := false
			for _, item := range doc.Paths.Map() {
				for _, o := range item.Operations() {
					if o.OperationID != op {
						continue
					}
					found = true
					mt := o.Responses.Value("200").Value.Content.Get("application/json")
					assert.Equal(t, "#/components/schemas/"+record+"List", mt.Schema.Ref, "%s answers a %sList", op, record)
				}
			}
			assert.True(t, found, "operation %s", op)
		}
	})
}

// TestFieldsTableParser checks the parser on lines of each kind, so that a
// change of the table's layout fails here rather than silently comparing
// nothing.
func TestFieldsTableParser(t *testing.T) {
	m := fieldsOpRow.FindStringSubmatch("| POST | /school/_search | SchoolSearch | 200 400 401 | params: limit,offset")
	require.NotNil(t, m)
	assert.Equal(t, []string{"POST", "/school/_search", "SchoolSearch", "200 400 401", "limit,offset"}, m[1:])
	m = fieldsOpRow.FindStringSubmatch("| DELETE | /group/{id} |  | 204 400 | params: id")
	require.NotNil(t, m)
	assert.Equal(t, "", m[3])
	assert.Equal(t, map[string]fieldsMember{
		"id":    {typ: "string(uuid)", required: true},
		"types": {typ: "[GroupType]"},
		"meta":  {typ: "MetaFilterEquals", nullable: true},
	}, parseFieldsMembers("id*:string(uuid), types:[GroupType], meta:MetaFilterEquals?"))
	assert.Empty(t, parseFieldsMembers("object"))
	assert.NotNil(t, fieldsList.FindStringSubmatch("SchoolList: {data:[School], pagination:Pagination} headers: RateLimit-Limit"))
	assert.Nil(t, fieldsSingle.FindStringSubmatch("Error400ResponseBody: {error*:Error} headers: x"))
}

// recorder collects the differences compareSchema reports.
type recorder struct{ errs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// TestCompareSchemaFindsEveryKindOfDifference proves that the agreement test
// can fail: a schema that differs in each way is reported once per way.
func TestCompareSchemaFindsEveryKindOfDifference(t *testing.T) {
	ours := &openapi3.SchemaRef{Value: &openapi3.Schema{
		Type:     &openapi3.Types{openapi3.TypeObject},
		Required: []string{"title"},
		Properties: openapi3.Schemas{
			"id":    {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}},                                                           // format missing
			"title": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}},                                                           // required, theirs not
			"note":  {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}},                                                           // not nullable, theirs is
			"extra": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}},                                                           // theirs lacks it
			"meta":  {Ref: "#/components/schemas/Meta"},                                                                                              // theirs nullable
			"types": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeArray}, Items: &openapi3.SchemaRef{Ref: "#/components/schemas/X"}}}, // wrong item type
		},
	}}
	var r recorder
	compareSchema(&r, "Thing", "id*:string(uuid), title:string, note:string?, meta:Meta?, types:[GroupType], gone:boolean", ours)
	joined := strings.Join(r.errs, "\n")
	for _, want := range []string{"type of Thing.id", "required flag of Thing.id", "required flag of Thing.title", "nullability of Thing.note",
		"nullability of Thing.meta", "type of Thing.types", "lacks field gone", "has field extra"} {
		assert.Contains(t, joined, want)
	}
	r = recorder{}
	compareSchema(&r, "Thing", "id*:string(uuid)", &openapi3.SchemaRef{Value: &openapi3.Schema{Required: []string{"id"},
		Properties: openapi3.Schemas{"id": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Format: "uuid"}}}}})
	assert.Empty(t, r.errs, "an agreeing schema is not reported")
}
