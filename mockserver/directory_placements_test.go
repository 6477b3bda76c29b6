package mockserver

import (
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// The test clock starts at testNow, 2026-11-02 10:00 in Stockholm.
const (
	pastDate   = "2026-11-01"
	todayDate  = "2026-11-02"
	futureDate = "2027-06-30"
)

func (h *harness) studentPlacement(t testing.TB, path string) directory.DirectoryStudentPlacement {
	t.Helper()
	res := h.send(http.MethodGet, path, "")
	require.Equal(t, http.StatusOK, res.status, res)
	var p directory.DirectoryStudentPlacement
	res.decode(&p)
	return p
}

func TestStudentPlacementCreateAndRead(t *testing.T) {
	h := newHarness(t)
	student, school := h.newStudent(t), h.newSchool(t, "GR")
	body := fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","schoolYear":"7","hasChildcare":true,"motherTongue":"fin",
		"modernLanguageAlternative":"ML","swedishAsSecondLanguage":true,"modernLanguageInSchoolChoice":"de","startDate":"2026-08-17",
		"endDate":%q,"external":{"sourceID":"9"}}`, student, school, futureDate)
	res := h.send(http.MethodPost, PrefixA+"/student-placement", body)
	require.Equal(t, http.StatusCreated, res.status, res)
	created := res.object(t)
	id := created["id"].(string)
	assert.Equal(t, PrefixA+"/student-placement/"+id, res.header.Get("Location"))
	for _, path := range []string{"/student-placement/", "/student-placements/"} {
		got := h.send(http.MethodGet, PrefixA+path+id, "")
		require.Equal(t, http.StatusOK, got.status, got)
		assert.Equal(t, created, got.object(t), path)
	}
	assert.Nil(t, created["archivedAt"])
	assert.Equal(t, false, created["motherTongueParticipates"], "a default")
	assert.Nil(t, created["modernLanguageInLanguageChoice"])

	p, ok := h.srv.store.Read().Placement(id)
	require.True(t, ok)
	assert.Equal(t, student, p.Child.ID)
	assert.Equal(t, school, p.PlacedAt.ID)
	assert.Equal(t, model.SchoolType(""), p.SchoolType, "a GR placement has no interface-B school form")
	assert.Equal(t, model.Date(futureDate), p.EndDate)
	assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/placements/"+id).status, "interface B does not show a GR placement")

	list := h.send(http.MethodGet, PrefixA+"/student-placement?limit=500", "")
	require.Equal(t, http.StatusOK, list.status, list)
	assert.Contains(t, string(list.body), id)
}

func TestStudentPlacementIsAPlacementInInterfaceB(t *testing.T) {
	h := newHarness(t)
	identity := newIdentity()
	student := h.mustCreate(t, "/student", fmt.Sprintf(`{"identityNumber":%q,"firstName":"Alva","lastName":"Lindqvist","gender":"Female","dateOfBirth":"2022-03-04","emailAddress1":"alva@example.se",
		"phoneNumber1":"08-123","address":{"postalAddress":"Storgatan 1","postalCode":"111 22","postalCity":"Stockholm","countryCode":"SWE","municipalityCode":"0180"}}`, identity))
	preschool := h.newSchool(t, "FS")
	id := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"FS","startDate":"2026-08-17"}`, student, preschool))

	res := h.get(PrefixB + "/placements/" + id + "?expand=child&expandReferenceNames=true")
	require.Equal(t, http.StatusOK, res.status, res)
	var p model.Placement
	res.decode(&p)
	assert.Equal(t, model.SchoolTypeFS, p.SchoolType)
	assert.Equal(t, preschool, p.PlacedAt.ID)
	assert.Equal(t, model.Date("2026-08-17"), p.StartDate)
	require.NotNil(t, p.Embedded)
	require.NotNil(t, p.Embedded.Child)
	c := p.Embedded.Child
	assert.Equal(t, student, c.ID)
	assert.Equal(t, "Alva", c.GivenName)
	assert.Equal(t, "Lindqvist", c.FamilyName)
	assert.Equal(t, strings.ReplaceAll(identity, "-", ""), c.CivicNo.Value)
	assert.Equal(t, model.Sex("Kvinna"), c.Sex)
	assert.Equal(t, model.Date("2022-03-04"), c.BirthDate)
	assert.Equal(t, []model.Email{{Value: "alva@example.se", Type: "Privat"}}, c.Emails)
	assert.Equal(t, "Alva Lindqvist", p.Child.DisplayName)
	assert.Equal(t, []model.PhoneNumber{{Value: "08-123", Type: "Hem"}}, c.PhoneNumbers)
	require.Len(t, c.Addresses, 1)
	assert.Equal(t, "Sverige", c.Addresses[0].Country)

	t.Run("changing the school form takes it out of interface B", func(t *testing.T) {
		res := h.send(http.MethodPatch, PrefixA+"/student-placement/"+id, `{"schoolType":"GR"}`)
		require.Equal(t, http.StatusOK, res.status, res)
		assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/placements/"+id).status)
		res = h.send(http.MethodPatch, PrefixA+"/student-placement/"+id, `{"schoolType":"FS"}`)
		require.Equal(t, http.StatusOK, res.status, res)
		assert.Equal(t, http.StatusOK, h.get(PrefixB+"/placements/"+id).status)
	})
	t.Run("generated preschool placements are student placements", func(t *testing.T) {
		var b model.Placement
		_ = h.srv.store.Read().Scan(store.TablePlacements, store.IndexID, "", func(obj any) bool {
			if p := obj.(*model.Placement); p.SchoolType == model.SchoolTypeFS && p.ID != id {
				b = *p
				return false
			}
			return true
		})
		require.NotEmpty(t, b.ID)
		a := h.studentPlacement(t, PrefixA+"/student-placement/"+b.ID)
		assert.Equal(t, b.Child.ID, a.StudentID)
		assert.Equal(t, b.PlacedAt.ID, a.SchoolID)
		assert.Equal(t, "FS", a.SchoolType)
		assert.Equal(t, b.StartDate, a.StartDate)
	})
}

func TestPlacementArchiving(t *testing.T) {
	h := newHarness(t)
	student, employee, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	for _, kind := range []struct {
		name, create, patchPath, archivePath string
	}{
		{"StudentPlacement by the vendor path", fmt.Sprintf(`"studentID":%q,"schoolID":%q,"schoolType":"GR"`, student, school), "/student-placement/", "/student-placement/"},
		{"StudentPlacement by the spec path", fmt.Sprintf(`"studentID":%q,"schoolID":%q,"schoolType":"GY"`, student, school), "/student-placements/", "/student-placement/"},
		{"EmployeePlacement", fmt.Sprintf(`"employeeID":%q,"schoolID":%q,"roles":["Teacher","MealPlanner"]`, employee, school), "/employee-placement/", "/employee-placement/"},
	} {
		t.Run(kind.name, func(t *testing.T) {
			collection := "/student-placement"
			if kind.archivePath == "/employee-placement/" {
				collection = "/employee-placement"
			}
			createdAt := h.clock.Now()
			id := h.mustCreate(t, collection, `{`+kind.create+`,"startDate":"2025-08-18","endDate":"`+pastDate+`"}`)
			path := PrefixA + kind.patchPath + id
			archivedAt := func() *string {
				t.Helper()
				res := h.send(http.MethodGet, PrefixA+kind.archivePath+id, "")
				require.Equal(t, http.StatusOK, res.status, res)
				v, _ := res.object(t)["archivedAt"].(string)
				if v == "" {
					return nil
				}
				return &v
			}
			patch := func(body string) {
				t.Helper()
				h.clock.Advance(time.Minute)
				res := h.send(http.MethodPatch, path, body)
				require.Equal(t, http.StatusOK, res.status, res)
			}
			first := archivedAt()
			require.NotNil(t, first, "a create with a past endDate archives")
			assert.Equal(t, createdAt, parseTime(t, *first), "archivedAt is the time of the request")

			patch(`{}`)
			assert.Equal(t, first, archivedAt(), "a PATCH without endDate keeps the placement archived")
			patch(`{"startDate":"2025-08-19"}`)
			assert.Equal(t, first, archivedAt(), "a PATCH without endDate keeps the placement archived")

			patch(`{"endDate":null}`)
			assert.Nil(t, archivedAt(), "endDate null restores")

			patch(`{"endDate":"` + pastDate + `"}`)
			second := archivedAt()
			require.NotNil(t, second, "a past endDate archives")
			assert.True(t, parseTime(t, *second).After(parseTime(t, *first)), "archivedAt is the time of the archiving request")
			patch(`{"endDate":"2026-10-01"}`)
			assert.Equal(t, second, archivedAt(), "another past endDate keeps the first archiving time")

			patch(`{"endDate":"` + futureDate + `"}`)
			assert.Nil(t, archivedAt(), "a future endDate restores")

			patch(`{"endDate":"` + pastDate + `"}`)
			require.NotNil(t, archivedAt())
			patch(`{"endDate":"` + todayDate + `"}`)
			assert.Nil(t, archivedAt(), "an endDate of today (inclusive) restores")

			t.Run("archive and restore are idempotent", func(t *testing.T) {
				archive := PrefixA + kind.archivePath + id + "/archive"
				restore := PrefixA + kind.archivePath + id + "/restore"
				res := h.send(http.MethodPatch, archive, "")
				require.Equal(t, http.StatusOK, res.status, res)
				once := res.object(t)
				require.NotNil(t, once["archivedAt"])
				h.clock.Advance(time.Minute)
				res = h.send(http.MethodPatch, archive, "")
				require.Equal(t, http.StatusOK, res.status, res)
				assert.Equal(t, once, res.object(t), "archiving again changes nothing, meta included")

				res = h.send(http.MethodPatch, restore, "")
				require.Equal(t, http.StatusOK, res.status, res)
				restored := res.object(t)
				assert.Nil(t, restored["archivedAt"])
				h.clock.Advance(time.Minute)
				res = h.send(http.MethodPatch, restore, "")
				require.Equal(t, http.StatusOK, res.status, res)
				assert.Equal(t, restored, res.object(t))

				patch(`{"endDate":"` + pastDate + `"}`)
				res = h.send(http.MethodPatch, restore, "")
				require.Equal(t, http.StatusOK, res.status, res)
				assert.Nil(t, res.object(t)["archivedAt"], "restore clears archivedAt whatever the endDate")
				assert.Equal(t, pastDate, res.object(t)["endDate"])
			})
		})
	}
	t.Run("past is judged in Stockholm", func(t *testing.T) {
		h.clock.Advance(time.Date(2026, 11, 2, 23, 30, 0, 0, time.UTC).Sub(h.clock.Now())) // 00:30 on 3 November in Stockholm
		h.token = h.fetchToken(h.srv.Credentials())
		id := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17","endDate":%q}`, student, school, todayDate))
		assert.NotNil(t, h.studentPlacement(t, PrefixA+"/student-placement/"+id).ArchivedAt, "2 November has passed in Stockholm though not in UTC")
	})
	t.Run("the active ones are found by search", func(t *testing.T) {
		for _, resource := range []string{"student-placement", "employee-placement"} {
			res := h.send(http.MethodPost, PrefixA+"/"+resource+"/_search?limit=500", `{"filter":{"null":{"archivedAt":true},"notNull":{"endDate":true},"greaterOrEqual":{"startDate":"2025-08-18"},"orCondition":false}}`)
			require.Equal(t, http.StatusOK, res.status, res)
			var page struct {
				Data []map[string]any `json:"data"`
			}
			res.decode(&page)
			require.NotEmpty(t, page.Data, resource)
			for _, p := range page.Data {
				assert.Nil(t, p["archivedAt"])
				assert.NotNil(t, p["endDate"])
			}
		}
	})
}

func TestPlacementRequestErrors(t *testing.T) {
	h := newHarness(t)
	student, employee, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	sp := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17"}`, student, school))
	ep := h.mustCreate(t, "/employee-placement", fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"startDate":"2026-08-01","employmentPercent":80}`, employee, school))
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		fields                   []string
	}{
		{"unknown id", http.MethodGet, "/student-placement/" + unknownID, "", 404, nil},
		{"unknown id by the spec path", http.MethodPatch, "/student-placements/" + unknownID, `{"schoolType":"FS","startDate":"2026-01-01"}`, 404, nil},
		{"unknown id to archive", http.MethodPatch, "/employee-placement/" + unknownID + "/archive", "", 404, nil},
		{"unknown id to restore", http.MethodPatch, "/student-placement/" + unknownID + "/restore", "", 404, nil},
		{"an employee placement is not a student placement", http.MethodGet, "/student-placement/" + ep, "", 404, nil},
		{"malformed id", http.MethodPatch, "/student-placement/123/archive", "", 400, nil},
		{"bad limit", http.MethodGet, "/employee-placement?limit=x", "", 400, nil},
		{"schema violations", http.MethodPost, "/student-placement", `{"schoolType":"XX","schoolYear":"10","startDate":"2026-13-01"}`, 422,
			[]string{"/studentID", "/schoolID", "/schoolType", "/schoolYear", "/startDate"}},
		{"references and dates", http.MethodPost, "/student-placement",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17","endDate":"2026-08-16"}`, employee, student), 422,
			[]string{"/studentID", "/schoolID", "/endDate"}},
		{"employee references", http.MethodPost, "/employee-placement",
			fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"startDate":"2026-08-17","roles":["Janitor"],"employmentPercent":101}`, student, school), 422,
			[]string{"/roles/0"}},
		{"employee must be an employee", http.MethodPost, "/employee-placement",
			fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"startDate":"2026-08-17"}`, student, school), 422, []string{"/employeeID"}},
		{"studentID cannot be changed", http.MethodPatch, "/student-placement/" + sp, fmt.Sprintf(`{"studentID":%q}`, student), 422, []string{"/studentID"}},
		{"archivedAt is read-only", http.MethodPatch, "/student-placements/" + sp, `{"archivedAt":"2026-01-01T00:00:00Z"}`, 422, []string{"/archivedAt"}},
		{"employeeID cannot be changed", http.MethodPatch, "/employee-placement/" + ep, fmt.Sprintf(`{"employeeID":%q}`, employee), 422, []string{"/employeeID"}},
		{"PATCH dates are checked against the stored ones", http.MethodPatch, "/employee-placement/" + ep, `{"endDate":"2026-07-01"}`, 422, []string{"/endDate"}},
		{"PATCH to an unknown school", http.MethodPatch, "/student-placement/" + sp, fmt.Sprintf(`{"schoolID":%q}`, unknownID), 422, []string{"/schoolID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.send(tc.method, PrefixA+tc.path, tc.body)
			require.Equal(t, tc.status, res.status, res)
			e := res.problem(t)
			assert.Equal(t, map[int]string{400: surface.CodeBadRequest, 404: surface.CodeNotFound, 422: surface.CodeUnprocessable}[tc.status], e.Code)
			if tc.fields != nil {
				assert.ElementsMatch(t, tc.fields, fieldsOf(e), res)
			}
		})
	}
}

func TestEmployeePlacement(t *testing.T) {
	h := newHarness(t)
	employee, school := h.newEmployee(t), h.newSchool(t, "GY")
	body := fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"signature":"ABC","title":"Lärare","roles":["Teacher","MealPlanner"],"startDate":"2024-08-01","employmentPercent":80}`, employee, school)
	res := h.send(http.MethodPost, PrefixA+"/employee-placement", body)
	require.Equal(t, http.StatusCreated, res.status, res)
	created := res.object(t)
	id := created["id"].(string)
	assert.Equal(t, []any{"Teacher", "MealPlanner"}, created["roles"])
	assert.Equal(t, created, h.send(http.MethodGet, PrefixA+"/employee-placement/"+id, "").object(t))

	res = h.send(http.MethodPatch, PrefixA+"/employee-placement/"+id, `{"roles":["Admin"],"signature":null}`)
	require.Equal(t, http.StatusOK, res.status, res)
	got := res.object(t)
	assert.Equal(t, []any{"Admin"}, got["roles"])
	assert.Nil(t, got["signature"])
	assert.Equal(t, "Lärare", got["title"])
	assert.Equal(t, float64(80), got["employmentPercent"])

	t.Run("search", func(t *testing.T) {
		res := h.send(http.MethodPost, PrefixA+"/employee-placement/_search", fmt.Sprintf(`{"filter":{"equals":{"employeeID":%q},"smallerOrEqual":{"employmentPercent":80},"orCondition":false}}`, employee))
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Data       []directory.DirectoryEmployeePlacement `json:"data"`
			Pagination directory.Pagination                   `json:"pagination"`
		}
		res.decode(&page)
		require.Len(t, page.Data, 1)
		assert.Equal(t, id, page.Data[0].ID)
	})
	t.Run("generated staff have employee placements", func(t *testing.T) {
		res := h.send(http.MethodGet, PrefixA+"/employee-placement?limit=3", "")
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Data       []directory.DirectoryEmployeePlacement `json:"data"`
			Pagination directory.Pagination                   `json:"pagination"`
		}
		res.decode(&page)
		assert.Greater(t, page.Pagination.Total, 3)
		for _, p := range page.Data {
			assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/employee/"+p.EmployeeID, "").status)
			assert.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/school/"+p.SchoolID, "").status)
			assert.NotEmpty(t, p.Roles)
		}
	})
	t.Run("delete", func(t *testing.T) {
		res := h.send(http.MethodDelete, PrefixA+"/employee-placement/"+id, "")
		require.Equal(t, http.StatusNoContent, res.status, res)
		assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, PrefixA+"/employee-placement/"+id, "").status)
		assert.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/employee/"+employee, "").status,
			"with its placement gone the employee can be deleted")
	})
	t.Run("student placement delete", func(t *testing.T) {
		student := h.newStudent(t)
		sp := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GY","startDate":"2026-08-17"}`, student, school))
		require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/student-placement/"+sp, "").status)
		assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, PrefixA+"/student-placements/"+sp, "").status)
	})
}
