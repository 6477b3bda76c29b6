package mockserver

import (
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

func TestUnits(t *testing.T) {
	h := newHarness(t)
	clientID, _ := h.srv.Credentials()
	me := ClientUUID(clientID)

	t.Run("generated units and the schools that refer to them", func(t *testing.T) {
		var list struct {
			Data       []directory.DirectoryUnit
			Pagination directory.Pagination
		}
		h.send(http.MethodGet, PrefixA+"/unit", "").decode(&list)
		require.Equal(t, 2, list.Pagination.Total, "the default scenario has two units")
		var schools struct{ Data []directory.DirectorySchool }
		h.send(http.MethodGet, PrefixA+"/school", "").decode(&schools)
		require.NotEmpty(t, schools.Data)
		for _, s := range schools.Data {
			require.NotNil(t, s.UnitID, s.Title)
			assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/unit/"+*s.UnitID, "").status, "school %s refers to a unit", s.Title)
		}
	})

	var id string
	t.Run("create, read, update", func(t *testing.T) {
		res := h.send(http.MethodPost, PrefixA+"/unit", `{"title":"Utbildningsförvaltningen","description":"Skolor i norr","external":{"sourceID":"U-9"}}`)
		require.Equal(t, http.StatusCreated, res.status, res)
		var u directory.DirectoryUnit
		res.decode(&u)
		id = u.ID
		assert.Equal(t, PrefixA+"/unit/"+id, res.header.Get("Location"))
		assert.Equal(t, "Utbildningsförvaltningen", u.Title)
		assert.Equal(t, "Skolor i norr", *u.Description)
		assert.Equal(t, &model.External{Source: &me, SourceID: ptr("U-9")}, u.External)
		assert.Equal(t, me, *u.Meta.CreatedBy)

		h.clock.Advance(time.Minute)
		res = h.sendRaw(http.MethodPatch, PrefixA+"/unit/"+id, `{"title":"Förvaltning Norr","description":null}`)
		require.Equal(t, http.StatusOK, res.status, res)
		var patched directory.DirectoryUnit
		res.decode(&patched)
		assert.Equal(t, "Förvaltning Norr", patched.Title)
		assert.Nil(t, patched.Description, "null clears the description")
		assert.Equal(t, u.External, patched.External, "an absent member stays")
		assert.True(t, patched.Meta.UpdatedAt.After(u.Meta.CreatedAt))

		res = h.sendRaw(http.MethodPatch, PrefixA+"/unit/"+id, `{"description":"x"}`)
		require.Equal(t, http.StatusUnprocessableEntity, res.status, "title is required in UnitUpdate: %s", res)
		assert.Equal(t, []string{"/title"}, fieldsOf(res.problem(t)))
	})

	t.Run("a unit is an organisation element of interface B", func(t *testing.T) {
		o, ok := h.srv.store.Read().Organisation(id)
		require.True(t, ok)
		assert.Equal(t, model.OrganisationTypeUnit, o.OrganisationType)
		assert.Equal(t, "Förvaltning Norr", o.DisplayName)
	})

	t.Run("units cannot be deleted", func(t *testing.T) {
		res := h.sendRaw(http.MethodDelete, PrefixA+"/unit/"+id, "")
		assert.Equal(t, http.StatusMethodNotAllowed, res.status, res)
	})

	t.Run("search", func(t *testing.T) {
		var page struct{ Data []directory.DirectoryUnit }
		res := h.send(http.MethodPost, PrefixA+"/unit/_search", fmt.Sprintf(`{"filter":{"contains":{"meta":{"createdBy":[%q]}},"like":{"title":"förvaltning%%"},"orCondition":false}}`, me))
		require.Equal(t, http.StatusOK, res.status, res)
		res.decode(&page)
		require.Len(t, page.Data, 1)
		assert.Equal(t, id, page.Data[0].ID)
	})

	t.Run("School.unitID must name a unit", func(t *testing.T) {
		res := h.send(http.MethodPost, PrefixA+"/school", fmt.Sprintf(`{"title":"Norrskolan","schoolType":"GR","unitID":%q}`, unknownID))
		require.Equal(t, http.StatusUnprocessableEntity, res.status, res)
		assert.Equal(t, []string{"/unitID"}, fieldsOf(res.problem(t)))
		school := h.firstSchool()
		res = h.send(http.MethodPatch, PrefixA+"/school/"+school, fmt.Sprintf(`{"unitID":%q}`, h.firstSchool()))
		require.Equal(t, http.StatusUnprocessableEntity, res.status, "a school is no unit: %s", res)
		res = h.send(http.MethodPost, PrefixA+"/school", fmt.Sprintf(`{"title":"Norrskolan","schoolType":"GR","unitID":%q}`, id))
		require.Equal(t, http.StatusCreated, res.status, res)
		var s directory.DirectorySchool
		res.decode(&s)
		assert.Equal(t, id, *s.UnitID)
	})
}

func TestAuditEvents(t *testing.T) {
	h := newHarness(t)
	clientID, _ := h.srv.Credentials()
	me := ClientUUID(clientID)
	school := h.firstSchool()
	student, employee := h.newStudent(t), h.newEmployee(t)
	guardian := h.mustCreate(t, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"G","lastName":"H"}`, newIdentity()))
	group := h.mustCreate(t, "/group", fmt.Sprintf(`{"schoolID":%q,"title":"Audit 1"}`, school))
	sp := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17"}`, student, school))
	ep := h.mustCreate(t, "/employee-placement", fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"startDate":"2026-08-17"}`, employee, school))
	grade := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"MA","academicYear":"2025/2026","term":"HT","schoolYear":"7","finalGrade":false,"isEnded":false}`, student, school))
	// A person who is a student and a guardian: deleting the guardian keeps the student.
	both := h.newStudent(t)
	p := *h.storedPerson(t, both)
	x := *p.Directory
	x.Roles = append(x.Roles, model.RoleGuardian)
	p.Directory = &x
	_, _, err := h.srv.store.PutPerson(p)
	require.NoError(t, err)

	var before struct{ Pagination directory.Pagination }
	h.send(http.MethodGet, PrefixA+"/audit-event", "").decode(&before)
	start := h.clock.Now()

	deletes := []struct{ path, id, kind string }{
		{"/student-placement/", sp, "StudentPlacement"}, {"/employee-placement/", ep, "EmployeePlacement"},
		{"/grade-elementary/", grade, ""}, {"/group/", group, "Group"}, {"/student/", student, "Student"},
		{"/employee/", employee, "Employee"}, {"/guardian/", guardian, "Guardian"}, {"/guardian/", both, "Guardian"},
	}
	for _, d := range deletes {
		h.clock.Advance(time.Second)
		res := h.send(http.MethodDelete, PrefixA+d.path+d.id, "")
		require.Equal(t, http.StatusNoContent, res.status, res)
	}

	var list struct {
		Data       []directory.DirectoryAuditEvent
		Pagination directory.Pagination
	}
	res := h.send(http.MethodGet, PrefixA+"/audit-event?limit=500", "")
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&list)
	require.Equal(t, before.Pagination.Total+7, list.Pagination.Total, "one event per audited delete; the grade has none")
	got := list.Data[len(list.Data)-7:]
	i := 0
	for _, d := range deletes {
		if d.kind == "" {
			continue
		}
		e := got[i]
		i++
		assert.Equal(t, d.kind, e.Resource)
		assert.Equal(t, d.id, e.ResourceID)
		assert.Equal(t, "Delete", e.Type)
		assert.True(t, e.Timestamp.After(start), "the server clock's time of the delete")
		assert.Equal(t, me, *e.Meta.CreatedBy, "meta.createdBy is the client that deleted")
		one := h.send(http.MethodGet, PrefixA+"/audit-event/"+e.ID, "")
		require.Equal(t, http.StatusOK, one.status, one)
		var single directory.DirectoryAuditEvent
		one.decode(&single)
		assert.Equal(t, e, single)
	}
	assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/student/"+both, "").status, "the student who was a guardian stays a student")

	t.Run("search by resource, id and time", func(t *testing.T) {
		var page struct {
			Data []directory.DirectoryAuditEvent
		}
		res := h.send(http.MethodPost, PrefixA+"/audit-event/_search", fmt.Sprintf(
			`{"filter":{"contains":{"resource":["Guardian","Group"]},"greaterThan":{"timestamp":%q},"orCondition":false}}`, start.Format(time.RFC3339)))
		require.Equal(t, http.StatusOK, res.status, res)
		res.decode(&page)
		require.Len(t, page.Data, 3)
		assert.Equal(t, []string{group, guardian, both}, []string{page.Data[0].ResourceID, page.Data[1].ResourceID, page.Data[2].ResourceID})
		res = h.send(http.MethodPost, PrefixA+"/audit-event/_search", fmt.Sprintf(`{"filter":{"equals":{"resourceID":%q},"orCondition":false}}`, student))
		res.decode(&page)
		require.Len(t, page.Data, 1)
		assert.Equal(t, "Student", page.Data[0].Resource)
	})

	t.Run("read-only", func(t *testing.T) {
		assert.Equal(t, http.StatusMethodNotAllowed, h.sendRaw(http.MethodPost, PrefixA+"/audit-event", `{}`).status)
		assert.Equal(t, http.StatusMethodNotAllowed, h.sendRaw(http.MethodDelete, PrefixA+"/audit-event/"+got[0].ID, "").status)
		assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, PrefixA+"/audit-event/"+unknownID, "").status)
	})
}

func TestAuditEventsOfControlPlaneDeletes(t *testing.T) {
	h := newHarness(t)
	group := h.mustCreate(t, "/group", fmt.Sprintf(`{"schoolID":%q,"title":"Admin 1"}`, h.firstSchool()))
	student := h.newStudent(t)
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/records/groups/" + group, http.StatusNoContent},
		{"/records/groups/" + group, http.StatusNotFound},
		{"/records/persons/" + student, http.StatusNoContent},
		{"/records/tombstones/" + unknownID, http.StatusNotFound},
		{"/records/nope/" + unknownID, http.StatusNotFound},
		{"/records/organisations/" + h.firstSchool(), http.StatusNotFound},
	} {
		h.clock.Advance(time.Second)
		res := h.admin(http.MethodDelete, tc.path, "")
		require.Equal(t, tc.status, res.status, "%s: %s", tc.path, res)
	}
	var page struct {
		Data []directory.DirectoryAuditEvent
	}
	res := h.send(http.MethodPost, PrefixA+"/audit-event/_search", fmt.Sprintf(`{"filter":{"contains":{"resourceID":[%q,%q]},"orCondition":false}}`, group, student))
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&page)
	require.Len(t, page.Data, 2, "one event per control-plane delete of an audited kind")
	assert.Equal(t, []string{"Group", "Student"}, []string{page.Data[0].Resource, page.Data[1].Resource})
	assert.Nil(t, page.Data[0].Meta.CreatedBy, "no API client deleted it")
}

// TestVendorWireDetails checks the wire details a client of the vendor's SDK
// meets first: the update schemas' required members, the identityNumber form
// in bodies and filters, alpha-3 country codes.
func TestVendorWireDetails(t *testing.T) {
	h := newHarness(t)
	school := h.firstSchool()
	student := h.newStudent(t)
	group := h.mustCreate(t, "/group", fmt.Sprintf(`{"schoolID":%q,"title":"Wire 1"}`, school))
	sp := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17"}`, student, school))

	t.Run("PATCH needs the update schema's required members", func(t *testing.T) {
		for _, tc := range []struct {
			path, body string
			fields     []string
		}{
			{"/student/" + student, `{}`, []string{"/identityNumber", "/firstName", "/lastName"}},
			{"/group/" + group, `{"types":["Class"]}`, []string{"/title"}},
			{"/student-placement/" + sp, `{"endDate":null}`, []string{"/schoolType", "/startDate"}},
			{"/school/" + school, `{"unitCode":null}`, []string{"/title"}},
		} {
			res := h.sendRaw(http.MethodPatch, PrefixA+tc.path, tc.body)
			require.Equal(t, http.StatusUnprocessableEntity, res.status, res)
			assert.ElementsMatch(t, tc.fields, fieldsOf(res.problem(t)), tc.path)
		}
	})

	t.Run("identityNumber", func(t *testing.T) {
		var s map[string]any
		h.send(http.MethodGet, PrefixA+"/student/"+student, "").decode(&s)
		no := s["identityNumber"].(string)
		require.Regexp(t, `^[0-9]{8}-[0-9A-Z]{2}[0-9]{2}$`, no, "shown as YYYYMMDD-NNNN")
		stored := h.storedPerson(t, student).CivicNo.Value
		assert.Equal(t, strings.ReplaceAll(no, "-", ""), stored, "stored as SS 12000's 12 characters")

		res := h.send(http.MethodPost, PrefixA+"/student", fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B"}`, stored))
		require.Equal(t, http.StatusUnprocessableEntity, res.status, "input without the hyphen: %s", res)
		assert.Equal(t, []string{"/identityNumber"}, fieldsOf(res.problem(t)))

		var page struct{ Pagination directory.Pagination }
		h.send(http.MethodPost, PrefixA+"/student/_search", fmt.Sprintf(`{"filter":{"equals":{"identityNumber":%q},"orCondition":false}}`, no)).decode(&page)
		assert.Equal(t, 1, page.Pagination.Total, "the shown form finds the student")
		h.send(http.MethodPost, PrefixA+"/student/_search", fmt.Sprintf(`{"filter":{"equals":{"identityNumber":%q},"orCondition":false}}`, stored)).decode(&page)
		assert.Equal(t, 0, page.Pagination.Total, "filters compare with the shown form, not normalised")
		h.send(http.MethodPost, PrefixA+"/student/_search", fmt.Sprintf(`{"filter":{"contains":{"identityNumber":[%q,"19000101-0000"]},"orCondition":false}}`, no)).decode(&page)
		assert.Equal(t, 1, page.Pagination.Total)
	})

	t.Run("countryCode is alpha-3", func(t *testing.T) {
		res := h.send(http.MethodPost, PrefixA+"/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B","address":{"countryCode":"SE"}}`, newIdentity()))
		require.Equal(t, http.StatusUnprocessableEntity, res.status, res)
		assert.Equal(t, []string{"/address/countryCode"}, fieldsOf(res.problem(t)))
		id := h.mustCreate(t, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B","address":{"countryCode":"SWE"}}`, newIdentity()))
		assert.Equal(t, "Sverige", h.storedPerson(t, id).Addresses[0].Country, "SWE is interface B's Sverige")

		for _, tc := range []struct {
			code, country string // written through A, stored for B
		}{
			{"NOR", "Norge"}, {"DNK", "Danmark"}, {"FIN", "Finland"}, {"XKX", "XKX"},
		} {
			id := h.mustCreate(t, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B","address":{"countryCode":%q}}`, newIdentity(), tc.code))
			assert.Equal(t, tc.country, h.storedPerson(t, id).Addresses[0].Country, tc.code)
			var got map[string]any
			h.send(http.MethodGet, PrefixA+"/guardian/"+id, "").decode(&got)
			assert.Equal(t, tc.code, got["address"].(map[string]any)["countryCode"], "%s shown back", tc.code)
		}
	})

	t.Run("a country interface A cannot name is a null countryCode", func(t *testing.T) {
		for country, want := range map[string]any{"Norge": "NOR", "Atlantis": nil, "": nil, "nor": nil, "SWE": "SWE"} {
			p := model.Person{ID: uuid.NewString(), GivenName: "A", FamilyName: "B",
				Addresses: []model.PersonAddress{{Type: "Folkbokföring", StreetAddress: "Storgata 1", Country: country}},
				Directory: &model.PersonExtra{Roles: []model.PersonRole{model.RoleGuardian}}}
			_, _, err := h.srv.store.PutPerson(p)
			require.NoError(t, err)
			var got map[string]any
			res := h.send(http.MethodGet, PrefixA+"/guardian/"+p.ID, "")
			require.Equal(t, http.StatusOK, res.status, res)
			res.decode(&got)
			assert.Equal(t, want, got["address"].(map[string]any)["countryCode"], "country %q", country)
		}
	})
}

func TestScenarioDeclaresUnits(t *testing.T) {
	sc, err := scenarios.Parse("units.yaml", []byte(`name: units
clients:
  - {id: skolkit-client, secret: skolkit-secret, scopes: [all]}
generate:
  profile: none
records:
  units:
    - {alias: norr, displayName: Förvaltning Norr, description: Skolorna i norr}
    - {alias: syd, displayName: Förvaltning Syd}
  schools:
    - {alias: ek, displayName: Ekskolan, schoolTypes: [GR], unit: syd}
    - {alias: bok, displayName: Bokskolan, schoolTypes: [FS]}
`))
	require.NoError(t, err)
	h := newHarness(t, func(o *Options) { o.Scenario = sc })
	var units struct{ Data []directory.DirectoryUnit }
	h.send(http.MethodGet, PrefixA+"/unit", "").decode(&units)
	require.Len(t, units.Data, 2)
	byTitle := map[string]directory.DirectoryUnit{}
	for _, u := range units.Data {
		byTitle[u.Title] = u
	}
	require.Contains(t, byTitle, "Förvaltning Norr")
	assert.Equal(t, "Skolorna i norr", *byTitle["Förvaltning Norr"].Description)
	assert.Nil(t, byTitle["Förvaltning Syd"].Description)

	var schools struct{ Data []directory.DirectorySchool }
	h.send(http.MethodGet, PrefixA+"/school", "").decode(&schools)
	require.Len(t, schools.Data, 2)
	for _, s := range schools.Data {
		require.NotNil(t, s.UnitID, s.Title)
		if s.Title == "Ekskolan" {
			assert.Equal(t, byTitle["Förvaltning Syd"].ID, *s.UnitID, "the unit the scenario names")
			assert.Equal(t, "GR", s.SchoolType, "the school form is derived as for generated schools")
		}
	}
}
