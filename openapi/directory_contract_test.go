package openapi

// Invariants of directory.yaml (interface A) and export.yaml (the data export).
// The documents are read straight from disk and loaded with kin-openapi, so
// this test depends on nothing else in the package.

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directoryContractDocs names the documents under test, with the error
// statuses every authenticated operation of that document must list (422
// comes on top for create, update and search operations).
var directoryContractDocs = []struct {
	file       string
	operations int
	errors     []string
}{
	{"directory.yaml", 66, []string{"400", "401", "403", "404", "409", "429", "500"}},
	{"export.yaml", 2, []string{"400", "401", "403", "429", "500"}},
}

// directoryContractErrorCodes is the one error code each status carries.
var directoryContractErrorCodes = map[string]string{
	"400": "BadRequest", "401": "Unauthorized", "403": "Forbidden", "404": "NotFound",
	"409": "Conflict", "413": "BadRequest", "415": "BadRequest", "422": "UnprocessableEntity", "429": "RateLimited", "500": "Internal",
}

var directoryContractRateHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}

// loadDirectoryContract returns the document of the file, as loaded and
// validated once for the process (the tests only read it).
func loadDirectoryContract(t *testing.T, file string) *openapi3.T {
	t.Helper()
	names := map[string]Name{"directory.yaml": NameDirectory, "export.yaml": NameExport}
	name, ok := names[file]
	require.True(t, ok, "no contract document for %s", file)
	return mustShared(t).Doc(name)
}

type directoryContractOp struct {
	name   string // "GET /school/{id}"
	method string
	path   string
	op     *openapi3.Operation
}

func directoryContractOps(doc *openapi3.T) []directoryContractOp {
	var ops []directoryContractOp
	for _, path := range slices.Sorted(maps.Keys(doc.Paths.Map())) {
		item := doc.Paths.Value(path)
		for _, method := range slices.Sorted(maps.Keys(item.Operations())) {
			ops = append(ops, directoryContractOp{method + " " + path, method, path, item.GetOperation(method)})
		}
	}
	return ops
}

func TestDirectoryContractDocuments(t *testing.T) {
	for _, d := range directoryContractDocs {
		t.Run(d.file, func(t *testing.T) {
			doc := loadDirectoryContract(t, d.file)
			assert.Equal(t, "3.0.3", doc.OpenAPI)
			assert.Len(t, directoryContractOps(doc), d.operations, "operation count")

			// Bearer token OR the legacy header pair, both headers together.
			require.Len(t, doc.Security, 2)
			assert.Equal(t, []string{"bearerAuth"}, slices.Sorted(maps.Keys(doc.Security[0])))
			assert.Equal(t, []string{"clientId", "clientSecret"}, slices.Sorted(maps.Keys(doc.Security[1])))
			schemes := doc.Components.SecuritySchemes
			assert.Equal(t, "bearer", schemes["bearerAuth"].Value.Scheme)
			assert.Equal(t, "Client-ID", schemes["clientId"].Value.Name)
			assert.Equal(t, "Client-Secret", schemes["clientSecret"].Value.Name)

			for _, o := range directoryContractOps(doc) {
				if o.path == "/openapi.json" {
					require.NotNil(t, o.op.Security, o.name)
					assert.Empty(t, *o.op.Security, "%s needs no credentials", o.name)
					continue
				}
				assert.Nil(t, o.op.Security, "%s must use the document's security", o.name)
				for _, status := range d.errors {
					assert.NotNil(t, o.op.Responses.Value(status), "%s lists %s", o.name, status)
				}
			}
		})
	}
}

func TestDirectoryContractRateLimitHeaders(t *testing.T) {
	for _, d := range directoryContractDocs {
		doc := loadDirectoryContract(t, d.file)
		for _, o := range directoryContractOps(doc) {
			for status, resp := range o.op.Responses.Map() {
				for _, h := range directoryContractRateHeaders {
					ref := resp.Value.Headers[h]
					if !assert.NotNil(t, ref, "%s: %s %s response lacks %s", d.file, o.name, status, h) {
						continue
					}
					assert.Equal(t, "#/components/headers/"+h, ref.Ref, "%s: %s %s", d.file, o.name, status)
					assert.True(t, ref.Value.Required, "%s: %s %s: %s must be required", d.file, o.name, status, h)
				}
			}
		}
	}
}

func TestDirectoryContractErrorBodies(t *testing.T) {
	for _, d := range directoryContractDocs {
		doc := loadDirectoryContract(t, d.file)
		for _, o := range directoryContractOps(doc) {
			for status, resp := range o.op.Responses.Map() {
				if code, _ := strconv.Atoi(status); code < 400 {
					continue
				}
				where := d.file + ": " + o.name + " " + status
				mt := resp.Value.Content.Get("application/json")
				if !assert.NotNil(t, mt, where) {
					continue
				}
				s := mt.Schema
				// Either the error body itself, or the body narrowed to this status's code.
				body := "#/components/schemas/Error"
				if d.file == "directory.yaml" {
					body = "#/components/schemas/ErrorResponse" // {error: Error}, the vendor's shape
				}
				if s.Ref == body {
					continue
				}
				if !assert.Len(t, s.Value.AllOf, 2, where) {
					continue
				}
				assert.Equal(t, body, s.Value.AllOf[0].Ref, where)
				codeSchema := s.Value.AllOf[1].Value.Properties["error"].Value.Properties["code"].Value
				assert.Equal(t, []any{directoryContractErrorCodes[status]}, codeSchema.Enum, where)
				if status == "429" {
					assert.NotNil(t, resp.Value.Headers["Retry-After"], where)
				}
			}
		}
	}
}

// Spec: 422 is listed "only on create, search and update operations".
func TestDirectoryContractUnprocessableOnlyOnWrites(t *testing.T) {
	for _, d := range directoryContractDocs {
		doc := loadDirectoryContract(t, d.file)
		for _, o := range directoryContractOps(doc) {
			has := o.op.Responses.Value("422") != nil
			switch {
			case o.op.RequestBody == nil: // archive and restore take no body
				assert.False(t, has, "%s: %s must not list 422", d.file, o.name)
			case o.method == http.MethodPost, o.method == http.MethodPatch:
				assert.True(t, has, "%s: %s must list 422", d.file, o.name)
			default:
				assert.False(t, has, "%s: %s must not list 422", d.file, o.name)
			}
		}
	}
}

func TestDirectoryContractResources(t *testing.T) {
	doc := loadDirectoryContract(t, "directory.yaml")
	schemas := doc.Components.Schemas
	props := func(name string) []string {
		require.Contains(t, schemas, name)
		return slices.Sorted(maps.Keys(schemas[name].Value.Properties))
	}

	t.Run("create and update schemas are closed and leave out server-set fields", func(t *testing.T) {
		for name, s := range schemas {
			if !strings.HasSuffix(name, "Create") && !strings.HasSuffix(name, "Update") {
				continue
			}
			ap := s.Value.AdditionalProperties.Has
			assert.True(t, ap != nil && !*ap, "%s must set additionalProperties: false", name)
			for _, f := range []string{"id", "meta", "archivedAt"} {
				assert.NotContains(t, s.Value.Properties, f, name)
			}
		}
		notUpdatable := map[string]string{
			"SchoolUpdate": "schoolType", "GroupUpdate": "schoolID",
			"StudentPlacementUpdate": "studentID", "EmployeePlacementUpdate": "employeeID",
		}
		for name, field := range notUpdatable {
			assert.NotContains(t, props(name), field, name)
		}
	})

	t.Run("every resource has a read schema with id and meta", func(t *testing.T) {
		for _, name := range []string{"School", "Group", "Student", "Employee", "Guardian", "StudentPlacement",
			"EmployeePlacement", "GradeElementary", "GradeUpperSecondary", "Unit"} {
			assert.Contains(t, schemas[name].Value.Required, "id", name)
			assert.Equal(t, "#/components/schemas/Meta", schemas[name].Value.Properties["meta"].Ref, name)
			assert.True(t, schemas[name].Value.Properties["id"].Value.ReadOnly, name)
			for _, suffix := range []string{"Create", "Update", "List"} {
				assert.Contains(t, schemas, name+suffix)
			}
		}
	})

	t.Run("eduPersonPrincipalName on Student and Employee only", func(t *testing.T) {
		for _, name := range []string{"Student", "StudentCreate", "StudentUpdate", "Employee", "EmployeeCreate", "EmployeeUpdate"} {
			eppn := schemas[name].Value.Properties["eduPersonPrincipalName"]
			require.NotNil(t, eppn, name)
			assert.True(t, eppn.Value.Nullable, name)
			assert.NotContains(t, schemas[name].Value.Required, "eduPersonPrincipalName", name)
			assert.NoError(t, eppn.Value.VisitJSON("alva.lindqvist@ekskolan.se"), name)
			assert.NoError(t, eppn.Value.VisitJSON(nil), name)
			assert.Error(t, eppn.Value.VisitJSON("alva.lindqvist"), name)
			assert.Error(t, eppn.Value.VisitJSON("a@b@c"), name)
		}
		for _, name := range []string{"Guardian", "GuardianCreate", "GuardianUpdate"} {
			assert.NotContains(t, props(name), "eduPersonPrincipalName", name)
		}
	})

	t.Run("placements", func(t *testing.T) {
		assert.Contains(t, schemas["EmployeePlacementRole"].Value.Enum, "MealPlanner")
		for _, name := range []string{"StudentPlacement", "EmployeePlacement"} {
			at := schemas[name].Value.Properties["archivedAt"].Value
			assert.True(t, at.ReadOnly && at.Nullable, name)
		}
		for _, p := range []string{"/student-placement/{id}/archive", "/student-placement/{id}/restore",
			"/employee-placement/{id}/archive", "/employee-placement/{id}/restore"} {
			require.NotNil(t, doc.Paths.Value(p), p)
			assert.NotNil(t, doc.Paths.Value(p).Patch, p)
		}
		alias := doc.Paths.Value("/student-placements/{id}")
		require.NotNil(t, alias, "the spec's path /student-placements/{id}")
		assert.NotNil(t, alias.Get)
		for _, p := range []string{"/student-placements/{id}", "/student-placement/{id}", "/employee-placement/{id}"} {
			patch := doc.Paths.Value(p).Patch
			require.NotNil(t, patch, p)
			assert.Contains(t, patch.Description, "Restore transition", "%s documents the restore transition", p)
			assert.Contains(t, patch.Description, "not in the past", p)
		}
	})

	t.Run("creates answer 201 with Location, deletes 204", func(t *testing.T) {
		for _, o := range directoryContractOps(doc) {
			switch {
			case o.method == http.MethodPost && !strings.HasSuffix(o.path, "/_search"):
				created := o.op.Responses.Value("201")
				if assert.NotNil(t, created, o.name) {
					assert.NotNil(t, created.Value.Headers["Location"], o.name)
				}
			case o.method == http.MethodDelete:
				noContent := o.op.Responses.Value("204")
				if assert.NotNil(t, noContent, o.name) {
					assert.Empty(t, noContent.Value.Content, o.name)
				}
			}
		}
		assert.Nil(t, doc.Paths.Value("/school/{id}").Delete, "schools cannot be deleted")
		assert.Nil(t, doc.Paths.Value("/grade-elementary/_search"), "grades have no search")
	})
}

func TestDirectoryContractSearchBody(t *testing.T) {
	doc := loadDirectoryContract(t, "directory.yaml")
	search := doc.Components.Schemas["SchoolSearch"].Value
	for _, tc := range []struct {
		name string
		body map[string]any
		ok   bool
	}{
		{"the vendor's example", map[string]any{"filter": map[string]any{
			"equals": map[string]any{"title": "Ekskolan"}, "orCondition": false}}, true},
		{"nested filters and null flags", map[string]any{"filter": map[string]any{
			"null": map[string]any{"unitCode": true}, "orCondition": true,
			"nestedFilters": []any{map[string]any{"like": map[string]any{"title": "Ek%"}, "orCondition": false}}}}, true},
		{"orCondition is required", map[string]any{"filter": map[string]any{
			"equals": map[string]any{"title": "Ekskolan"}}}, false},
		{"orCondition is required in nested filters too", map[string]any{"filter": map[string]any{
			"orCondition": false, "nestedFilters": []any{map[string]any{}}}}, false},
		{"filter is required", map[string]any{}, false},
		{"unknown field", map[string]any{"filter": map[string]any{
			"equals": map[string]any{"colour": "red"}, "orCondition": false}}, false},
		{"unknown operator", map[string]any{"filter": map[string]any{
			"startsWith": map[string]any{"title": "Ek"}, "orCondition": false}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := search.VisitJSON(tc.body)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
