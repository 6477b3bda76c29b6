package openapi

// Invariants of register.yaml (interface B) that the service's spec and our
// decisions (docs/decisions.md#interface-b-contract) require.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// registerOperations are the operations of interface B with their query
// parameters, in the order of the spec.
var registerOperations = []struct {
	method, path string
	query        []string
	byID         bool
}{
	{http.MethodGet, "/placements", []string{
		"organisation", "group", "child", "owner",
		"startDate.onOrBefore", "startDate.onOrAfter", "endDate.onOrBefore", "endDate.onOrAfter",
		"meta.created.before", "meta.created.after", "meta.modified.before", "meta.modified.after",
		"expand", "expandReferenceNames", "sortkey", "pageToken", "limit",
	}, false},
	{http.MethodGet, "/placements/{id}", []string{"expand", "expandReferenceNames"}, true},
	{http.MethodGet, "/syllabuses/{id}", []string{"expandReferenceNames"}, true},
	{http.MethodGet, "/attendances/{id}", []string{"expandReferenceNames"}, true},
	{http.MethodGet, "/absences/{id}", []string{"expandReferenceNames"}, true},
	{http.MethodGet, "/groups/{id}", []string{"expand", "expandReferenceNames"}, true},
	{http.MethodPost, "/groups/lookup", []string{"expand", "expandReferenceNames"}, false},
	{http.MethodPost, "/attendances", nil, false},
	{http.MethodDelete, "/attendances/{id}", nil, true},
	{http.MethodPost, "/absences", nil, false},
	{http.MethodGet, "/subscriptions", []string{"limit", "pageToken"}, false},
	{http.MethodPost, "/subscriptions", nil, false},
	{http.MethodGet, "/subscriptions/{id}", nil, true},
	{http.MethodPatch, "/subscriptions/{id}", nil, true},
	{http.MethodDelete, "/subscriptions/{id}", nil, true},
	{http.MethodPost, "/log/", nil, false},
	{http.MethodPost, "/log", nil, false},
	{http.MethodPost, "/statistics/", nil, false},
	{http.MethodPost, "/statistics", nil, false},
	{http.MethodGet, "/deletedEntities", []string{"after", "entities", "limit", "pageToken"}, false},
}

func registerDoc(t *testing.T) *openapi3.T {
	t.Helper()
	return mustShared(t).Doc(NameRegister)
}

// TestRegisterHasExactlyTheSpecOperations: the spec's operations, and every
// operation of SS 12000, and nothing else.
func TestRegisterHasExactlyTheSpecOperations(t *testing.T) {
	doc := registerDoc(t)
	want := map[string]bool{"GET /openapi.json": true}
	for _, o := range registerOperations {
		want[o.method+" "+o.path] = true
	}
	theirs := loadSS12000(t)
	for _, o := range ss12000Operations(theirs) {
		want[o.method+" "+o.path] = true
	}
	got := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			got[method+" "+path] = true
		}
	}
	assert.Equal(t, want, got)
	require.Len(t, doc.Servers, 1)
	assert.Equal(t, "/api/v1", doc.Servers[0].URL)
}

func TestRegisterRequiresBearerAuthExceptOnTheDocument(t *testing.T) {
	doc := registerDoc(t)
	scheme := doc.Components.SecuritySchemes["bearerAuth"]
	require.NotNil(t, scheme)
	assert.Equal(t, "http", scheme.Value.Type)
	assert.Equal(t, "bearer", scheme.Value.Scheme)

	for _, o := range registerOperations {
		op := doc.Paths.Value(o.path).GetOperation(o.method)
		sec := effectiveSecurity(doc, op)
		require.Len(t, sec, 1, "%s %s", o.method, o.path)
		assert.Contains(t, sec[0], "bearerAuth", "%s %s", o.method, o.path)
	}
	op := doc.Paths.Value("/openapi.json").Get
	require.NotNil(t, op.Security)
	assert.Empty(t, *op.Security, "GET /openapi.json is served without authentication")
}

func TestRegisterParameters(t *testing.T) {
	doc := registerDoc(t)
	for _, o := range registerOperations {
		op := doc.Paths.Value(o.path).GetOperation(o.method)
		var query []string
		for _, p := range op.Parameters {
			switch p.Value.In {
			case openapi3.ParameterInQuery:
				query = append(query, p.Value.Name)
			case openapi3.ParameterInPath:
				assert.Equal(t, "id", p.Value.Name)
				assert.True(t, p.Value.Required)
				assert.Equal(t, "uuid", p.Value.Schema.Value.Format)
			default:
				t.Errorf("%s %s: unexpected parameter %s in %s", o.method, o.path, p.Value.Name, p.Value.In)
			}
		}
		assert.ElementsMatch(t, o.query, query, "%s %s", o.method, o.path)
		if o.byID {
			assert.NotNil(t, op.Parameters.GetByInAndName(openapi3.ParameterInPath, "id"), "%s %s", o.method, o.path)
		}
	}

	list := doc.Paths.Value("/placements").Get.Parameters
	limit := list.GetByInAndName("query", "limit").Schema.Value
	require.NotNil(t, limit.Min)
	assert.Equal(t, 1.0, *limit.Min)
	assert.Nil(t, limit.Max, "limit has no maximum (SS 12000): a larger limit gets a full page and a pageToken")
	assert.Nil(t, limit.Default, "the default page size is documented, not declared (a declared default would be injected into requests)")

	assert.ElementsMatch(t, []any{"StartDateAsc", "StartDateDesc", "EndDateAsc", "EndDateDesc", "ModifiedDesc"},
		list.GetByInAndName("query", "sortkey").Schema.Value.Enum)

	for _, c := range []struct {
		path, format string
		names        []string
	}{
		{"/placements", "uuid", []string{"organisation", "group", "child", "owner"}},
		{"/placements", "date", []string{"startDate.onOrBefore", "startDate.onOrAfter", "endDate.onOrBefore", "endDate.onOrAfter"}},
		{"/placements", "date-time", []string{"meta.created.before", "meta.created.after", "meta.modified.before", "meta.modified.after"}},
	} {
		for _, n := range c.names {
			s := list.GetByInAndName("query", n).Schema.Value
			assert.True(t, s.Type.Is("string"), n)
			assert.Equal(t, c.format, s.Format, n)
		}
	}

	expands := map[string][]any{
		"/placements":      {"child", "owners"},
		"/placements/{id}": {"child", "owners"},
		"/groups/{id}":     {"assignmentRoles"},
		"/groups/lookup":   {"assignmentRoles"},
	}
	for path, values := range expands {
		for _, op := range doc.Paths.Value(path).Operations() {
			p := op.Parameters.GetByInAndName("query", "expand")
			require.NotNil(t, p, path)
			assert.Equal(t, "form", p.Style, path)
			require.NotNil(t, p.Explode, path)
			assert.True(t, *p.Explode, path)
			assert.True(t, p.Schema.Value.Type.Is("array"), path)
			assert.ElementsMatch(t, values, p.Schema.Value.Items.Value.Enum, path)
		}
	}
}

func TestRegisterErrorResponses(t *testing.T) {
	doc := registerDoc(t)
	for path, item := range doc.Paths.Map() {
		if path == "/openapi.json" {
			continue
		}
		for method, op := range item.Operations() {
			o := struct{ method, path string }{method, path}
			want := []string{"400", "401", "403", "405", "429", "500", "default"}
			if strings.HasSuffix(path, "/{id}") {
				want = append(want, "404")
			}
			if strings.HasSuffix(path, "/lookup") {
				want = append(want, "413", "503")
			} else if op.RequestBody != nil {
				want = append(want, "413") // the writes, subscriptions, log and statistics
			}
			for _, status := range want {
				r := op.Responses.Value(status)
				if !assert.NotNil(t, r, "%s %s: %s", o.method, o.path, status) {
					continue
				}
				assertErrorBody(t, r.Value, o.method+" "+o.path+" "+status)
			}
			for _, status := range op.Responses.Keys() {
				if strings.HasPrefix(status, "2") {
					continue
				}
				assert.Contains(t, want, status, "%s %s: undocumented decision for %s", o.method, o.path, status)
			}
			h := op.Responses.Value("401").Value.Headers["WWW-Authenticate"]
			require.NotNil(t, h, "%s %s: 401 without WWW-Authenticate", o.method, o.path)
			assert.True(t, h.Value.Required)
			h = op.Responses.Value("405").Value.Headers["Allow"]
			require.NotNil(t, h, "%s %s: 405 without Allow", o.method, o.path)
			assert.True(t, h.Value.Required)
		}
	}

	op := doc.Paths.Value("/openapi.json").Get
	for _, status := range []string{"405", "429", "500", "default"} {
		require.NotNil(t, op.Responses.Value(status), status)
		assertErrorBody(t, op.Responses.Value(status).Value, "GET /openapi.json "+status)
	}
}

func assertErrorBody(t *testing.T, r *openapi3.Response, where string) {
	t.Helper()
	mt := r.Content.Get("application/json")
	if !assert.NotNil(t, mt, "%s: no application/json body", where) {
		return
	}
	assert.Equal(t, "#/components/schemas/Error", mt.Schema.Ref, where)
	assert.Len(t, r.Content, 1, "%s: only application/json", where)
}

func TestRegisterErrorSchema(t *testing.T) {
	s := registerDoc(t).Components.Schemas["Error"].Value
	assert.ElementsMatch(t, []string{"code", "message"}, s.Required)
	assert.True(t, s.Properties["code"].Value.Type.Is("string"))
	assert.True(t, s.Properties["message"].Value.Type.Is("string"))
}

func TestRegisterResponseBodies(t *testing.T) {
	doc := registerDoc(t)
	body := func(method, path string) *openapi3.SchemaRef {
		return doc.Paths.Value(path).GetOperation(method).Responses.Value("200").Value.Content.Get("application/json").Schema
	}
	assert.Equal(t, "#/components/schemas/Placements", body("GET", "/placements").Ref)
	assert.Equal(t, "#/components/schemas/PlacementExpanded", body("GET", "/placements/{id}").Ref)
	assert.Equal(t, "#/components/schemas/Syllabus", body("GET", "/syllabuses/{id}").Ref)
	assert.Equal(t, "#/components/schemas/Attendance", body("GET", "/attendances/{id}").Ref)
	assert.Equal(t, "#/components/schemas/Absence", body("GET", "/absences/{id}").Ref)
	assert.Equal(t, "#/components/schemas/GroupExpanded", body("GET", "/groups/{id}").Ref)
	lookup := body("POST", "/groups/lookup").Value
	assert.True(t, lookup.Type.Is("array"))
	assert.Equal(t, "#/components/schemas/GroupExpanded", lookup.Items.Ref)

	rb := doc.Paths.Value("/groups/lookup").Post.RequestBody.Value
	assert.True(t, rb.Required)
	ids := rb.Content.Get("application/json").Schema.Value
	assert.Contains(t, ids.Required, "ids")
	require.NotNil(t, ids.Properties["ids"].Value.MaxItems)
	assert.EqualValues(t, 500, *ids.Properties["ids"].Value.MaxItems)
	assert.Equal(t, "uuid", ids.Properties["ids"].Value.Items.Value.Format)

	page := doc.Components.Schemas["Placements"].Value
	assert.ElementsMatch(t, []string{"data", "pageToken"}, page.Required, "pageToken is always sent")
	assert.True(t, page.Properties["pageToken"].Value.Nullable)
}

func TestRegisterSpecFieldsOfAbsence(t *testing.T) {
	s := registerDoc(t).Components.Schemas["Absence"].Value
	assert.ElementsMatch(t, []string{"id", "meta", "student", "organisation", "registrationDate", "startTime", "endTime", "type"}, s.Required)
	assert.Equal(t, []any{"Giltig", "Ogiltig"}, s.Properties["type"].Value.Enum)
	assert.Equal(t, "date", s.Properties["registrationDate"].Value.Format)
	for _, p := range []string{"absenceReason", "verified", "registeredBy"} {
		assert.Contains(t, s.Properties, p)
	}
}

func TestRegisterReferencesAndDates(t *testing.T) {
	doc := registerDoc(t)
	ref := doc.Components.Schemas["ObjectReference"].Value
	assert.Equal(t, []string{"id"}, ref.Required, "displayName is optional on references")

	pref := flattenSchema(doc.Components.Schemas["PersonReference"])
	assert.True(t, pref.required["id"])
	assert.True(t, pref.required["securityMarking"], "person references always carry securityMarking")
	assert.False(t, pref.required["displayName"])

	// Every property named like a date or a timestamp has the right format.
	for name, s := range doc.Components.Schemas {
		for prop, p := range flattenSchema(s).props {
			switch {
			case strings.HasSuffix(prop, "Date"):
				assert.Equal(t, "date", p.Value.Format, "%s.%s", name, prop)
			case name == "AttendanceScheduleEntry" && strings.HasSuffix(prop, "Time"):
				assert.NotEmpty(t, p.Value.Pattern, "%s.%s is a time of day", name, prop)
			case strings.HasSuffix(prop, "Time") || strings.HasSuffix(prop, "Timestamp") || prop == "created" || prop == "modified":
				assert.Equal(t, "date-time", p.Value.Format, "%s.%s", name, prop)
			}
		}
	}
	pl := doc.Components.Schemas["Placement"].Value
	assert.True(t, pl.Properties["maxWeeklyScheduleHours"].Value.Type.Is("integer"))
}
