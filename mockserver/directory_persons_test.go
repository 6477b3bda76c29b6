package mockserver

import (
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// send sends an authenticated interface-A request, with a JSON body when
// body is not empty; the harness checks the response against the contract.
func (h *harness) send(method, path, body string) *result {
	h.t.Helper()
	if method == http.MethodPatch {
		body = h.withRequired(path, body)
	}
	return h.sendRaw(method, path, body)
}

// sendRaw is send without completing a PATCH body (withRequired).
func (h *harness) sendRaw(method, path, body string) *result {
	h.t.Helper()
	var req *http.Request
	if body != "" {
		req, _ = http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", surface.ContentTypeJSON)
	} else {
		req, _ = http.NewRequest(method, h.ts.URL+path, nil)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	return h.do(req)
}

// problem decodes an interface-A error body.
func (r *result) problem(t testing.TB) surface.DirectoryErrorBody {
	t.Helper()
	var e surface.DirectoryError
	require.NoError(t, json.Unmarshal(r.body, &e), r)
	require.NotEmpty(t, e.Error.Message, r)
	return e.Error
}

// fieldsOf lists the JSON Pointers of a 422's details.
func fieldsOf(e surface.DirectoryErrorBody) []string {
	out := make([]string, len(e.Details))
	for i, d := range e.Details {
		out[i] = d.Field
	}
	return out
}

// identityNumber is a civic number of 12 characters in the vendor's form
// YYYYMMDD-NNNN.
func identityNumber(civicNo string) string {
	if len(civicNo) != 12 {
		return civicNo
	}
	return civicNo[:8] + "-" + civicNo[8:]
}

// object decodes a JSON object response.
func (r *result) object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), r)
	return m
}

// mustCreate POSTs the body and returns the created record's id, checking
// 201 and Location.
func (h *harness) mustCreate(t testing.TB, path, body string) string {
	t.Helper()
	res := h.send(http.MethodPost, PrefixA+path, body)
	require.Equal(t, http.StatusCreated, res.status, res)
	id, _ := res.object(t)["id"].(string)
	require.NotEmpty(t, id, res)
	require.Equal(t, PrefixA+path+"/"+id, res.header.Get("Location"))
	return id
}

// parseTime parses a date-time member of a decoded response.
func parseTime(t testing.TB, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	tm, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, "date-time %v", v)
	return tm
}

var identitySeq atomic.Int64

// newIdentity returns a temporary civic number that no generated person has.
func newIdentity() string {
	n := identitySeq.Add(1)
	return fmt.Sprintf("2015%02d%02d-ZQ%02d", 1+n/28%12, 1+n%28, n%100)
}

func (h *harness) newStudent(t testing.TB) string {
	return h.mustCreate(t, "/student", fmt.Sprintf(`{"identityNumber":%q,"firstName":"Test","lastName":"Elev"}`, newIdentity()))
}

func (h *harness) newEmployee(t testing.TB) string {
	return h.mustCreate(t, "/employee", fmt.Sprintf(`{"identityNumber":%q,"firstName":"Test","lastName":"Lärare"}`, newIdentity()))
}

func (h *harness) newSchool(t testing.TB, schoolType string) string {
	return h.mustCreate(t, "/school", fmt.Sprintf(`{"title":"Testskolan %s","schoolType":%q}`, newIdentity(), schoolType))
}

// storedPerson reads a person straight from the store.
func (h *harness) storedPerson(t testing.TB, id string) *model.Person {
	t.Helper()
	p, ok := h.srv.store.Read().Person(id)
	require.True(t, ok, "person %s is stored", id)
	return p
}

func TestPersonCreateStoresTheSharedPerson(t *testing.T) {
	h := newHarness(t)
	full := `"firstName":"Alva","lastName":"Lindqvist","identityTemporary":true,
		"external":{"sourceID":"42"},
		"address":{"postalAddress":"Storgatan 1","postalCode":"111 22","postalCity":"Stockholm","countryCode":"SWE","municipalityCode":"0180"},
		"emailAddress1":"a@example.se","emailAddress2":"b@example.se","phoneNumber1":"070-1","phoneNumber2":"070-2"`
	for _, tc := range []struct {
		resource string
		extra    string
	}{
		{"student", `,"gender":"Female","dateOfBirth":"2010-01-01","eduPersonPrincipalName":"alva@skolan.se"`},
		{"employee", `,"gender":"Male","dateOfBirth":"1980-05-06","eduPersonPrincipalName":"erik@skolan.se"`},
		{"guardian", `,"studentIDs":[]`},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			identity := newIdentity()
			body := fmt.Sprintf(`{"identityNumber":%q,%s%s}`, identity, full, tc.extra)
			res := h.send(http.MethodPost, PrefixA+"/"+tc.resource, body)
			require.Equal(t, http.StatusCreated, res.status, res)
			created := res.object(t)
			id := created["id"].(string)
			assert.Equal(t, PrefixA+"/"+tc.resource+"/"+id, res.header.Get("Location"))

			got := h.send(http.MethodGet, PrefixA+"/"+tc.resource+"/"+id, "")
			require.Equal(t, http.StatusOK, got.status, got)
			assert.Equal(t, created, got.object(t), "GET returns what the create returned")
			var sent map[string]any
			require.NoError(t, json.Unmarshal([]byte(body), &sent))
			for k, v := range sent {
				if k == "external" {
					continue
				}
				assert.Equal(t, v, created[k], k)
			}
			clientID, _ := h.srv.Credentials()
			assert.Equal(t, map[string]any{"source": ClientUUID(clientID), "sourceID": "42"}, created["external"],
				"external.source names the API client that wrote the record")
			meta := created["meta"].(map[string]any)
			assert.Equal(t, ClientUUID(clientID), meta["createdBy"])
			assert.Equal(t, ClientUUID(clientID), meta["updatedBy"])
			assert.Equal(t, meta["createdAt"], meta["updatedAt"])

			p := h.storedPerson(t, id)
			assert.Equal(t, []model.PersonRole{model.PersonRole(tc.resource)}, p.Directory.Roles)
			assert.True(t, p.Directory.IdentityTemporary)
			assert.Equal(t, strings.ReplaceAll(identity, "-", ""), p.CivicNo.Value, "SS 12000's civicNo has no hyphen")
			assert.Equal(t, "Alva", p.GivenName)
			assert.Equal(t, "Lindqvist", p.FamilyName)
			require.Len(t, p.Addresses, 1)
			a := p.Addresses[0]
			assert.Equal(t, []string{"Storgatan 1", "111 22", "Stockholm", "Sverige"}, []string{a.StreetAddress, a.PostalCode, a.Locality, a.Country})
			require.NotNil(t, a.MunicipalityCode)
			assert.Equal(t, 180, *a.MunicipalityCode)
			assert.Equal(t, []model.Email{{Value: "a@example.se", Type: "Privat"}, {Value: "b@example.se", Type: "Privat"}}, p.Emails)
			assert.Equal(t, []model.PhoneNumber{{Value: "070-1", Type: "Hem"}, {Value: "070-2", Type: "Hem"}}, p.PhoneNumbers)
			assert.Equal(t, model.SecurityMarkingNone, p.SecurityMarking)
			switch tc.resource {
			case "student":
				assert.Equal(t, model.Sex("Kvinna"), p.Sex)
				assert.Equal(t, model.Date("2010-01-01"), p.BirthDate)
				assert.Equal(t, []string{"alva@skolan.se"}, p.EduPersonPrincipalNames)
			case "employee":
				assert.Equal(t, model.Sex("Man"), p.Sex)
			case "guardian":
				assert.Empty(t, p.Sex)
				assert.Empty(t, p.EduPersonPrincipalNames)
			}

			list := h.send(http.MethodGet, PrefixA+"/"+tc.resource+"?limit=500", "")
			require.Equal(t, http.StatusOK, list.status, list)
			assert.Contains(t, string(list.body), id, "the list shows the new record")
			other := map[string]string{"student": "employee", "employee": "guardian", "guardian": "student"}[tc.resource]
			assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, PrefixA+"/"+other+"/"+id, "").status, "a person is not found through a role it lacks")
		})
	}
}

func TestPersonMinimalCreateHasNullsAndDefaults(t *testing.T) {
	h := newHarness(t)
	id := h.newStudent(t)
	got := h.send(http.MethodGet, PrefixA+"/student/"+id, "").object(t)
	for _, k := range []string{"external", "gender", "dateOfBirth", "emailAddress1", "emailAddress2", "phoneNumber1", "phoneNumber2", "eduPersonPrincipalName"} {
		assert.Contains(t, got, k)
		assert.Nil(t, got[k], k)
	}
	assert.Equal(t, false, got["identityTemporary"])
	assert.Equal(t, map[string]any{"postalAddress": nil, "postalCode": nil, "postalCity": nil, "countryCode": nil, "municipalityCode": nil}, got["address"])
	g := h.mustCreate(t, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"G","lastName":"H"}`, newIdentity()))
	assert.Equal(t, []any{}, h.send(http.MethodGet, PrefixA+"/guardian/"+g, "").object(t)["studentIDs"])
}

func TestPersonPatch(t *testing.T) {
	h := newHarness(t)
	body := fmt.Sprintf(`{"identityNumber":%q,"firstName":"Alva","lastName":"Lindqvist","gender":"Female","dateOfBirth":"2010-01-01",
		"emailAddress1":"a@example.se","emailAddress2":"b@example.se","phoneNumber1":"070-1","eduPersonPrincipalName":"alva@skolan.se",
		"address":{"postalAddress":"Storgatan 1","postalCity":"Stockholm"},"external":{"sourceID":"1"}}`, newIdentity())
	id := h.mustCreate(t, "/student", body)
	path := PrefixA + "/student/" + id
	before := h.send(http.MethodGet, path, "").object(t)

	for _, tc := range []struct {
		name  string
		patch string
		want  map[string]any // members that change; every other member keeps its value
	}{
		{"the required members alone change nothing", `{}`, map[string]any{}},
		{"absent members stay", `{"firstName":"Alma"}`, map[string]any{"firstName": "Alma"}},
		{"null clears nullable fields", `{"gender":null,"dateOfBirth":null,"eduPersonPrincipalName":null}`,
			map[string]any{"gender": nil, "dateOfBirth": nil, "eduPersonPrincipalName": nil}},
		{"an object member is replaced as a whole", `{"address":{"postalCode":"111 22"}}`,
			map[string]any{"address": map[string]any{"postalAddress": nil, "postalCode": "111 22", "postalCity": nil, "countryCode": nil, "municipalityCode": nil}}},
		{"clearing the first e-mail moves the second up", `{"emailAddress1":null}`, map[string]any{"emailAddress1": "b@example.se", "emailAddress2": nil}},
		{"a second phone is added", `{"phoneNumber2":"070-2"}`, map[string]any{"phoneNumber2": "070-2"}},
		{"external replaced", `{"external":{"sourceID":"2"}}`, map[string]any{"external": map[string]any{"source": before["meta"].(map[string]any)["createdBy"], "sourceID": "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.send(http.MethodPatch, path, tc.patch)
			require.Equal(t, http.StatusOK, res.status, res)
			got := res.object(t)
			want := map[string]any{}
			for k, v := range before {
				want[k] = v
			}
			for k, v := range tc.want {
				want[k] = v
			}
			if len(tc.want) == 0 {
				assert.Equal(t, before, got, "meta.modified included")
			} else {
				delete(want, "meta")
				gotMeta := got["meta"].(map[string]any)
				delete(got, "meta")
				assert.Greater(t, parseTime(t, gotMeta["updatedAt"]), parseTime(t, before["meta"].(map[string]any)["updatedAt"]), "meta.updatedAt moves")
				assert.Equal(t, before["meta"].(map[string]any)["createdAt"], gotMeta["createdAt"])
				got["meta"] = gotMeta
			}
			for k := range want {
				if k != "meta" {
					assert.Equal(t, want[k], got[k], k)
				}
			}
			assert.Equal(t, got, h.send(http.MethodGet, path, "").object(t), "GET shows what PATCH returned")
			before = got
		})
	}
	t.Run("the phone keeps its SS 12000 type", func(t *testing.T) {
		p := h.storedPerson(t, id)
		require.Len(t, p.Emails, 1)
		assert.Equal(t, model.Email{Value: "b@example.se", Type: "Privat"}, p.Emails[0])
		assert.Equal(t, []model.PhoneNumber{{Value: "070-1", Type: "Hem"}, {Value: "070-2", Type: "Hem"}}, p.PhoneNumbers)
	})
	t.Run("a generated person keeps the parts interface A does not show", func(t *testing.T) {
		var pupil *model.Person
		_ = h.srv.store.Read().Scan(store.TablePersons, store.IndexPersonsByRole, "student", func(obj any) bool {
			p := obj.(*model.Person)
			if len(p.Emails) > 0 && len(p.Addresses) > 0 && len(p.EduPersonPrincipalNames) > 0 {
				pupil = p
				return false
			}
			return true
		})
		require.NotNil(t, pupil)
		res := h.send(http.MethodPatch, PrefixA+"/student/"+pupil.ID, `{"emailAddress1":"ny@example.se","address":{"postalAddress":"Ny väg 2","postalCode":"123 45","postalCity":"Ort","countryCode":"SWE","municipalityCode":"0180"}}`)
		require.Equal(t, http.StatusOK, res.status, res)
		after := h.storedPerson(t, pupil.ID)
		assert.Equal(t, pupil.Emails[0].Type, after.Emails[0].Type, "the e-mail keeps its type")
		assert.Equal(t, "ny@example.se", after.Emails[0].Value)
		assert.Equal(t, pupil.Addresses[0].Type, after.Addresses[0].Type, "the address keeps its type")
		assert.Equal(t, pupil.Addresses[0].CountyCode, after.Addresses[0].CountyCode)
		assert.Equal(t, pupil.Enrolments, after.Enrolments)
		assert.Equal(t, pupil.Responsibles, after.Responsibles)
		assert.Equal(t, pupil.CivicNo, after.CivicNo)
	})
}

func TestPersonRequestErrors(t *testing.T) {
	h := newHarness(t)
	student := h.newStudent(t)
	taken := identityNumber(h.storedPerson(t, student).CivicNo.Value)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		fields                   []string // the 422 details, in any order (an unsupported member is pointed at by name)
	}{
		{"unknown id", http.MethodGet, "/student/" + unknownID, "", 404, nil},
		{"unknown id on PATCH", http.MethodPatch, "/employee/" + unknownID, `{"identityNumber":"19800101-1234","firstName":"A","lastName":"B"}`, 404, nil},
		{"unknown id on DELETE", http.MethodDelete, "/guardian/" + unknownID, "", 404, nil},
		{"malformed id", http.MethodGet, "/student/not-a-uuid", "", 400, nil},
		{"limit 0", http.MethodGet, "/student?limit=0", "", 400, nil},
		{"limit above 500", http.MethodGet, "/guardian?limit=501", "", 400, nil},
		{"negative offset", http.MethodGet, "/employee?offset=-1", "", 400, nil},
		{"body not JSON", http.MethodPost, "/student", `{"firstName":`, 400, nil},
		{"every violation", http.MethodPost, "/student", `{"gender":"Unknown","dateOfBirth":"2010-13-01","eduPersonPrincipalName":"no-at-sign","colour":"blue"}`, 422,
			[]string{"/identityNumber", "/firstName", "/lastName", "/gender", "/dateOfBirth", "/eduPersonPrincipalName", "/colour"}},
		{"guardian has no eduPersonPrincipalName", http.MethodPost, "/guardian", `{"identityNumber":"20100101-2384","firstName":"A","lastName":"B","eduPersonPrincipalName":"a@b"}`, 422, []string{"/eduPersonPrincipalName"}},
		{"id is read-only", http.MethodPatch, "/student/" + student, `{"id":"` + unknownID + `"}`, 422, []string{"/id"}},
		{"meta is read-only", http.MethodPatch, "/student/" + student, `{"meta":{}}`, 422, []string{"/meta"}},
		{"identityNumber without the hyphen, municipality code not a code", http.MethodPost, "/employee",
			`{"identityNumber":"198001011234","firstName":"A","lastName":"B","address":{"municipalityCode":"Stockholm"}}`, 422,
			[]string{"/identityNumber", "/address/municipalityCode"}},
		{"unknown and non-student studentIDs", http.MethodPost, "/guardian",
			fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B","studentIDs":[%q,%q]}`, newIdentity(), student, unknownID), 422, []string{"/studentIDs/1"}},
		{"duplicate identityNumber", http.MethodPost, "/student", fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B"}`, taken), 409, nil},
		{"duplicate identityNumber in another role", http.MethodPost, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B"}`, taken), 409, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.send(tc.method, PrefixA+tc.path, tc.body)
			require.Equal(t, tc.status, res.status, res)
			e := res.problem(t)
			assert.Equal(t, map[int]string{400: surface.CodeBadRequest, 404: surface.CodeNotFound, 409: surface.CodeConflict, 422: surface.CodeUnprocessable}[tc.status], e.Code)
			if tc.fields != nil {
				assert.ElementsMatch(t, tc.fields, fieldsOf(e), res)
			}
		})
	}
	t.Run("duplicate identityNumber by PATCH", func(t *testing.T) {
		other := h.newEmployee(t)
		res := h.send(http.MethodPatch, PrefixA+"/employee/"+other, fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B"}`, taken))
		require.Equal(t, http.StatusConflict, res.status, res)
		assert.Contains(t, res.problem(t).Message, student)
		res = h.send(http.MethodPatch, PrefixA+"/student/"+student, fmt.Sprintf(`{"identityNumber":%q,"firstName":"A","lastName":"B"}`, taken))
		require.Equal(t, http.StatusOK, res.status, "a person's own number is no conflict: %s", res)
	})
}

func TestGuardianStudentIDs(t *testing.T) {
	h := newHarness(t)
	s1, s2 := h.newStudent(t), h.newStudent(t)
	g := h.mustCreate(t, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"Erik","lastName":"Lindqvist","studentIDs":[%q]}`, newIdentity(), s1))
	path := PrefixA + "/guardian/" + g
	guardianOf := func(student string) []model.Responsible {
		var out []model.Responsible
		for _, r := range h.storedPerson(t, student).Responsibles {
			if r.Person.ID == g {
				out = append(out, r)
			}
		}
		return out
	}
	assert.Equal(t, []any{s1}, h.send(http.MethodGet, path, "").object(t)["studentIDs"])
	assert.Equal(t, []model.Responsible{{Person: model.PersonReference{ID: g}, RelationType: model.RelationGuardian}}, guardianOf(s1),
		"the student names the guardian as Vårdnadshavare")

	res := h.send(http.MethodPatch, path, fmt.Sprintf(`{"studentIDs":[%q]}`, s2))
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Equal(t, []any{s2}, res.object(t)["studentIDs"])
	assert.Empty(t, guardianOf(s1), "the student left out no longer names the guardian")
	assert.Len(t, guardianOf(s2), 1)

	res = h.send(http.MethodPatch, path, `{"firstName":"Erika"}`)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Equal(t, []any{s2}, res.object(t)["studentIDs"], "a PATCH without studentIDs keeps them")

	t.Run("search by a student's guardian", func(t *testing.T) {
		res := h.send(http.MethodPost, PrefixA+"/guardian/_search", `{"filter":{"equals":{"firstName":"Erika","lastName":"Lindqvist"},"orCondition":false}}`)
		require.Equal(t, http.StatusOK, res.status, res)
		assert.Contains(t, string(res.body), g)
	})
	t.Run("deleting the guardian unlinks the students", func(t *testing.T) {
		res := h.send(http.MethodDelete, path, "")
		require.Equal(t, http.StatusNoContent, res.status, res)
		assert.Empty(t, res.body)
		assert.Empty(t, guardianOf(s2))
		assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, path, "").status)
	})
	t.Run("a generated guardian lists its students", func(t *testing.T) {
		sn := h.srv.store.Read()
		var guardian string
		var want []string
		_ = sn.Scan(store.TablePersons, store.IndexPersonsByRole, "student", func(obj any) bool {
			p := obj.(*model.Person)
			if len(p.Responsibles) > 0 {
				guardian = p.Responsibles[0].Person.ID
				return false
			}
			return true
		})
		require.NotEmpty(t, guardian)
		_ = sn.Scan(store.TablePersons, store.IndexResponsible, guardian, func(obj any) bool {
			want = append(want, obj.(*model.Person).ID)
			return true
		})
		var got directory.DirectoryGuardian
		res := h.send(http.MethodGet, PrefixA+"/guardian/"+guardian, "")
		require.Equal(t, http.StatusOK, res.status, res)
		res.decode(&got)
		assert.ElementsMatch(t, want, got.StudentIDs)
	})
}

func TestPersonDelete(t *testing.T) {
	h := newHarness(t)
	t.Run("a person with one role is deleted", func(t *testing.T) {
		id := h.newEmployee(t)
		res := h.send(http.MethodDelete, PrefixA+"/employee/"+id, "")
		require.Equal(t, http.StatusNoContent, res.status, res)
		assert.Empty(t, res.body)
		assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, PrefixA+"/employee/"+id, "").status)
		_, ok := h.srv.store.Read().Person(id)
		assert.False(t, ok)
	})
	t.Run("a student that a placement refers to is a 409", func(t *testing.T) {
		student := h.newStudent(t)
		school := h.newSchool(t, "GR")
		h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17"}`, student, school))
		res := h.send(http.MethodDelete, PrefixA+"/student/"+student, "")
		require.Equal(t, http.StatusConflict, res.status, res)
		e := res.problem(t)
		assert.Equal(t, surface.CodeConflict, e.Code)
		assert.Contains(t, e.Message, "placement")
		assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/student/"+student, "").status)
	})
	t.Run("a generated pupil is still referred to", func(t *testing.T) {
		var pupil string
		_ = h.srv.store.Read().Scan(store.TableAttendances, store.IndexID, "", func(obj any) bool {
			pupil = obj.(*model.Attendance).Student.ID
			return false
		})
		require.NotEmpty(t, pupil)
		res := h.send(http.MethodDelete, PrefixA+"/student/"+pupil, "")
		require.Equal(t, http.StatusConflict, res.status, res)
		assert.Contains(t, res.problem(t).Message, "attendance record(s)")
	})
	t.Run("deleting one of several roles keeps the person", func(t *testing.T) {
		id := h.newEmployee(t)
		require.NoError(t, h.srv.store.Write(func(w *store.Writer) error {
			p := *h.storedPerson(t, id)
			x := *p.Directory
			x.Roles = []model.PersonRole{model.RoleEmployee, model.RoleGuardian}
			p.Directory = &x
			_, _, err := w.PutPerson(p)
			return err
		}))
		assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/guardian/"+id, "").status)
		res := h.send(http.MethodDelete, PrefixA+"/guardian/"+id, "")
		require.Equal(t, http.StatusNoContent, res.status, res)
		assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, PrefixA+"/guardian/"+id, "").status)
		assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/employee/"+id, "").status)
		assert.Equal(t, []model.PersonRole{model.RoleEmployee}, h.storedPerson(t, id).Directory.Roles)
	})
	t.Run("one of several roles still referred to is a 409", func(t *testing.T) {
		id := h.newEmployee(t)
		school := h.newSchool(t, "GR")
		h.mustCreate(t, "/employee-placement", fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"startDate":"2026-08-01"}`, id, school))
		require.NoError(t, h.srv.store.Write(func(w *store.Writer) error {
			p := *h.storedPerson(t, id)
			x := *p.Directory
			x.Roles = []model.PersonRole{model.RoleEmployee, model.RoleGuardian}
			p.Directory = &x
			_, _, err := w.PutPerson(p)
			return err
		}))
		res := h.send(http.MethodDelete, PrefixA+"/employee/"+id, "")
		require.Equal(t, http.StatusConflict, res.status, res)
		assert.Contains(t, res.problem(t).Message, "employee placement(s)")
		assert.Len(t, h.storedPerson(t, id).Directory.Roles, 2)
	})
}

func TestPersonListAndSearch(t *testing.T) {
	h := newHarness(t)
	for _, role := range []string{"student", "employee", "guardian"} {
		t.Run(role, func(t *testing.T) {
			var want []string
			_ = h.srv.store.Read().Scan(store.TablePersons, store.IndexPersonsByRole, role, func(obj any) bool {
				want = append(want, obj.(*model.Person).ID)
				return true
			})
			require.NotEmpty(t, want, "the default scenario has %ss", role)
			var got []string
			for offset := 0; ; offset += 7 {
				res := h.send(http.MethodGet, fmt.Sprintf("%s/%s?limit=7&offset=%d", PrefixA, role, offset), "")
				require.Equal(t, http.StatusOK, res.status, res)
				var page struct {
					Data       []map[string]any     `json:"data"`
					Pagination directory.Pagination `json:"pagination"`
				}
				res.decode(&page)
				assert.Equal(t, directory.Pagination{Offset: offset, Limit: 7, Total: len(want)}, page.Pagination)
				for _, item := range page.Data {
					got = append(got, item["id"].(string))
				}
				if len(page.Data) < 7 {
					break
				}
			}
			assert.Equal(t, want, got, "offset paging walks the role's persons in created order, each once")

			one := h.storedPerson(t, want[len(want)/2])
			for _, tc := range []struct{ name, filter string }{
				{"equals identityNumber", fmt.Sprintf(`{"equals":{"identityNumber":%q},"orCondition":false}`, identityNumber(one.CivicNo.Value))},
				{"like lastName and equals id", fmt.Sprintf(`{"like":{"lastName":%q},"equals":{"id":%q},"orCondition":false}`, strings.ToLower(one.FamilyName[:1])+"%", one.ID)},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := h.send(http.MethodPost, PrefixA+"/"+role+"/_search", `{"filter":`+tc.filter+`}`)
					require.Equal(t, http.StatusOK, res.status, res)
					var page struct {
						Data       []map[string]any     `json:"data"`
						Pagination directory.Pagination `json:"pagination"`
					}
					res.decode(&page)
					require.Len(t, page.Data, 1, res)
					assert.Equal(t, one.ID, page.Data[0]["id"])
					assert.Equal(t, 1, page.Pagination.Total)
				})
			}
		})
	}
	t.Run("search on a field the resource lacks is a 422", func(t *testing.T) {
		res := h.send(http.MethodPost, PrefixA+"/guardian/_search", `{"filter":{"equals":{"gender":"Male"},"orCondition":false}}`)
		require.Equal(t, http.StatusUnprocessableEntity, res.status, res)
	})
}

// TestEveryGeneratedRecordMeetsTheContract lists every record of the
// resources built on generated data; the harness validates each page.
func TestEveryGeneratedRecordMeetsTheContract(t *testing.T) {
	for _, scenario := range []string{"default", "edge-cases"} {
		h := newHarness(t, unlimited(t, scenario, 7))
		everyRecordMeetsTheContract(t, h, scenario)
	}
}

// everyRecordMeetsTheContract walks every list of interface A's persons,
// placements and grades (the harness checks every answer against the
// contract), each record once.
func everyRecordMeetsTheContract(t *testing.T, h *harness, scenario string) {
	for _, resource := range []string{"student", "employee", "guardian", "student-placement", "employee-placement", "grade-elementary", "grade-upper-secondary"} {
		t.Run(scenario+"/"+resource, func(t *testing.T) {
			seen := map[string]bool{}
			total := -1
			for offset := 0; total < 0 || offset < total; offset += 500 {
				res := h.send(http.MethodGet, fmt.Sprintf("%s/%s?limit=500&offset=%d", PrefixA, resource, offset), "")
				require.Equal(t, http.StatusOK, res.status, res)
				var page struct {
					Data       []map[string]any     `json:"data"`
					Pagination directory.Pagination `json:"pagination"`
				}
				res.decode(&page)
				total = page.Pagination.Total
				for _, item := range page.Data {
					id := item["id"].(string)
					require.False(t, seen[id], "%s listed twice", id)
					seen[id] = true
				}
			}
			assert.Len(t, seen, total)
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSearchErrorsUnchanged checks that bodies that are not JSON or break the
// filter language still get their errors, through the gate and the contract:
// 400 for what is not JSON, 422 with the violations for what breaks the
// language, on every search the contract declares.
func TestSearchErrorsUnchanged(t *testing.T) {
	h := newHarness(t)
	var searches []string
	for path := range h.srv.Contract().Doc(openapi.NameDirectory).Paths.Map() {
		if strings.HasSuffix(path, "/_search") {
			searches = append(searches, PrefixA+path)
		}
	}
	slices.Sort(searches)
	require.Len(t, searches, 9)
	for _, path := range searches {
		for _, tc := range []struct {
			body   string
			status int
		}{
			{`{"filter":`, http.StatusBadRequest},
			{`{"filter":{"equals":{"identityNumber":5,"nope":"x"},"orCondition":"no"}}`, http.StatusUnprocessableEntity},
			{`{"filter":{"equals":{"id":"not-a-uuid"},"orCondition":false,"nestedFilters":[{"like":{"id":"x"}}]}}`, http.StatusUnprocessableEntity},
			{`{"filter":{"orCondition":false},"extra":1}`, http.StatusUnprocessableEntity},
		} {
			got := h.send(http.MethodPost, path, tc.body)
			require.Equal(t, tc.status, got.status, got)
			e := got.problem(t)
			if tc.status == http.StatusBadRequest {
				assert.Equal(t, surface.CodeBadRequest, e.Code)
				continue
			}
			assert.Equal(t, surface.CodeUnprocessable, e.Code)
			assert.NotEmpty(t, e.Details)
		}
	}
}
