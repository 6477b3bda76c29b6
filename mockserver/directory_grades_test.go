package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

func TestGradeCreateReadPatchDelete(t *testing.T) {
	h := newHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	for _, tc := range []struct {
		resource string
		body     string
		patch    string
		want     map[string]any // after the patch
	}{
		{"grade-elementary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"MA","languageCode":"swe","academicYear":"2025/2026","term":"HT","schoolYear":"9",
				"teacher1EmployeeID":%q,"grade":"B","gradeDate":"2025-12-19","finalGrade":false,"isEnded":false,"schoolComment":"Bra"}`, student, school, teacher),
			`{"grade":"MISSING","schoolComment":null,"teacher1EmployeeID":null,"term":"VT"}`,
			map[string]any{"grade": "MISSING", "schoolComment": nil, "teacher1EmployeeID": nil, "term": "VT", "subjectCode": "MA", "gradeDate": "2025-12-19"}},
		{"grade-upper-secondary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"MATMAT01c","grade":"C","extent":"Normal","schoolYear":"1","section":"General",
				"includeOnFinalGrade":true,"teacher2EmployeeID":%q,"programTitle":"Naturvetenskap","startDate":"2025-08-18","endDate":"2026-06-12"}`, student, school, teacher),
			`{"extent":"Reduced","section":null,"grade":"F","endDate":null}`,
			map[string]any{"extent": "Reduced", "section": nil, "grade": "F", "endDate": nil, "courseCode": "MATMAT01c", "teacher2EmployeeID": teacher}},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			id := h.mustCreate(t, "/"+tc.resource, tc.body)
			path := PrefixA + "/" + tc.resource + "/" + id
			got := h.send(http.MethodGet, path, "")
			require.Equal(t, http.StatusOK, got.status, got)
			created := got.object(t)
			var sent map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.body), &sent))
			for k, v := range sent {
				assert.Equal(t, v, created[k], k)
			}

			res := h.send(http.MethodPatch, path, tc.patch)
			require.Equal(t, http.StatusOK, res.status, res)
			patched := res.object(t)
			for k, v := range tc.want {
				assert.Equal(t, v, patched[k], k)
			}
			for k, v := range created {
				if _, changed := tc.want[k]; !changed && k != "meta" {
					assert.Equal(t, v, patched[k], "%s is kept", k)
				}
			}
			assert.Equal(t, patched, h.send(http.MethodGet, path, "").object(t))

			list := h.send(http.MethodGet, PrefixA+"/"+tc.resource, "")
			require.Equal(t, http.StatusOK, list.status, list)
			var page struct {
				Data       []map[string]any `json:"data"`
				Pagination Pagination       `json:"pagination"`
			}
			list.decode(&page)
			assert.Equal(t, 1, page.Pagination.Total, "the default scenario has no grades")
			assert.Equal(t, patched, page.Data[0])

			assert.Equal(t, http.StatusMethodNotAllowed, h.send(http.MethodPost, PrefixA+"/"+tc.resource+"/_search", `{"filter":{"orCondition":false}}`).status, "grades have no search")

			res = h.send(http.MethodDelete, path, "")
			require.Equal(t, http.StatusNoContent, res.status, res)
			assert.Equal(t, http.StatusNotFound, h.send(http.MethodGet, path, "").status)
		})
	}
}

func TestGradeReferencesBlockDeletes(t *testing.T) {
	h := newHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GY")
	id := h.mustCreate(t, "/grade-upper-secondary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"ENGENG05","includeOnFinalGrade":true,"teacher1EmployeeID":%q}`, student, school, teacher))
	for _, path := range []string{"/student/" + student, "/employee/" + teacher} {
		res := h.send(http.MethodDelete, PrefixA+path, "")
		require.Equal(t, http.StatusConflict, res.status, res)
		assert.Contains(t, res.problem(t).Message, "upper-secondary grade(s)")
	}
	require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/grade-upper-secondary/"+id, "").status)
	for _, path := range []string{"/student/" + student, "/employee/" + teacher} {
		res := h.send(http.MethodDelete, PrefixA+path, "")
		require.Equal(t, http.StatusNoContent, res.status, res)
	}
}

func TestGradeRequestErrors(t *testing.T) {
	h := newHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	el := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"SV","academicYear":"2025/2026","term":"VT","schoolYear":"6","finalGrade":true,"isEnded":true}`, student, school))
	us := h.mustCreate(t, "/grade-upper-secondary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"SVESVE01","includeOnFinalGrade":false}`, student, school))
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		fields                   []string
	}{
		{"unknown id", http.MethodGet, "/grade-elementary/" + unknownID, "", 404, nil},
		{"unknown id on PATCH", http.MethodPatch, "/grade-upper-secondary/" + unknownID, `{"includeOnFinalGrade":true}`, 404, nil},
		{"unknown id on DELETE", http.MethodDelete, "/grade-elementary/" + unknownID, "", 404, nil},
		{"the other grade table", http.MethodGet, "/grade-elementary/" + us, "", 404, nil},
		{"malformed id", http.MethodGet, "/grade-upper-secondary/x", "", 400, nil},
		{"bad offset", http.MethodGet, "/grade-elementary?offset=x", "", 400, nil},
		{"every schema violation", http.MethodPost, "/grade-elementary", `{"term":"XT","schoolYear":"5","grade":"G","gradeDate":"19-12-2025"}`, 422,
			[]string{"/studentID", "/schoolID", "/subjectCode", "/academicYear", "/finalGrade", "/isEnded", "/term", "/schoolYear", "/grade", "/gradeDate"}},
		{"upper-secondary enums", http.MethodPost, "/grade-upper-secondary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"X","includeOnFinalGrade":true,"extent":"Huge","section":"Other","schoolYear":"4"}`, student, school), 422,
			[]string{"/extent", "/section", "/schoolYear"}},
		{"references that do not exist or have another role", http.MethodPost, "/grade-elementary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"MA","academicYear":"2025/2026","term":"HT","schoolYear":"7","finalGrade":false,"isEnded":false,"teacher1EmployeeID":%q,"teacher2EmployeeID":%q}`,
				teacher, student, student, unknownID), 422,
			[]string{"/studentID", "/schoolID", "/teacher1EmployeeID", "/teacher2EmployeeID"}},
		{"studentID cannot be changed", http.MethodPatch, "/grade-elementary/" + el, fmt.Sprintf(`{"studentID":%q}`, student), 422, []string{"/studentID"}},
		{"a PATCH to a teacher who is no employee", http.MethodPatch, "/grade-upper-secondary/" + us, fmt.Sprintf(`{"teacher1EmployeeID":%q}`, student), 422, []string{"/teacher1EmployeeID"}},
		{"endDate before startDate", http.MethodPatch, "/grade-upper-secondary/" + us, `{"startDate":"2026-01-10","endDate":"2026-01-09"}`, 422, []string{"/endDate"}},
		{"required members cannot be null", http.MethodPatch, "/grade-elementary/" + el, `{"subjectCode":null,"finalGrade":null}`, 422, []string{"/subjectCode", "/finalGrade"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.send(tc.method, PrefixA+tc.path, tc.body)
			require.Equal(t, tc.status, res.status, res)
			e := res.problem(t)
			assert.Equal(t, map[int]string{400: CodeBadRequest, 404: CodeNotFound, 422: CodeUnprocessable}[tc.status], e.Code)
			if tc.fields != nil {
				assert.ElementsMatch(t, tc.fields, fieldsOf(e), res)
			}
		})
	}
	t.Run("a valid teacher is accepted", func(t *testing.T) {
		res := h.send(http.MethodPatch, PrefixA+"/grade-upper-secondary/"+us, fmt.Sprintf(`{"teacher1EmployeeID":%q,"teacher2EmployeeID":%q}`, teacher, teacher))
		require.Equal(t, http.StatusOK, res.status, res)
		g, ok := h.srv.Store().Read().GradeUpperSecondary(us)
		require.True(t, ok)
		assert.Equal(t, []string{teacher}, g.Teachers())
		assert.IsType(t, &model.GradeUpperSecondary{}, g)
	})
}
