package mockserver

import (
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/internal/reference"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
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

			assert.Contains(t, h.listA(t, "/"+tc.resource), patched, "the list shows the grade")

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
		assert.Contains(t, res.problem(t).Message, "grade(s) as")
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
			assert.Equal(t, map[int]string{400: surface.CodeBadRequest, 404: surface.CodeNotFound, 422: surface.CodeUnprocessable}[tc.status], e.Code)
			if tc.fields != nil {
				assert.ElementsMatch(t, tc.fields, fieldsOf(e), res)
			}
		})
	}
	t.Run("a valid teacher is accepted", func(t *testing.T) {
		res := h.send(http.MethodPatch, PrefixA+"/grade-upper-secondary/"+us, fmt.Sprintf(`{"teacher1EmployeeID":%q,"teacher2EmployeeID":%q}`, teacher, teacher))
		require.Equal(t, http.StatusOK, res.status, res)
		g, ok := h.srv.store.Read().Grade(us)
		require.True(t, ok)
		require.NotNil(t, g.Directory)
		assert.Equal(t, []string{teacher}, g.Directory.Teachers())
		assert.Equal(t, model.GradeKindUpperSecondary, g.Directory.Kind)
	})
}

// bGrade reads a grade through interface B; ok is false on 404.
func (h *harness) bGrade(t *testing.T, id string) (model.Grade, bool) {
	t.Helper()
	res := h.get(PrefixB + "/grades/" + id)
	if res.status == http.StatusNotFound {
		return model.Grade{}, false
	}
	require.Equal(t, http.StatusOK, res.status, res)
	var g model.Grade
	res.decode(&g)
	return g, true
}

func TestGradesWrittenThroughAAreGradesOfB(t *testing.T) {
	h := newHarness(t)
	student, teacher, other, school := h.newStudent(t), h.newEmployee(t), h.newEmployee(t), h.newSchool(t, "GR")
	ds := h.srv.store.Export()
	var existing model.Syllabus // a compulsory-school subject syllabus of the scenario
	for _, sy := range ds.Syllabuses {
		if sy.SchoolType == model.SchoolTypeGR && sy.CourseCode == "" && sy.SubjectCode != "" {
			existing = sy
			break
		}
	}
	require.NotEmpty(t, existing.ID, "the default scenario has a compulsory-school subject")
	year := func(y int) *int { return &y }

	for _, tc := range []struct {
		name, resource, body string
		want                 model.Grade // the members of B's grade the test compares (ids of references, values)
		subjectCode          string      // of the grade's syllabus
		courseCode           string
	}{
		{"an elementary grade with its teacher", "grade-elementary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"VT","schoolYear":"9",
				"teacher1EmployeeID":%q,"teacher2EmployeeID":%q,"grade":"B","gradeDate":"2026-06-10","finalGrade":true,"isEnded":true,"schoolComment":"Bra jobbat"}`,
				student, school, teacher, other),
			model.Grade{RegisteredBy: model.PersonReference{ID: teacher}, GradingTeacher: &model.PersonReference{ID: teacher},
				RegisteredDate: "2026-06-10", GradeValue: "B", FinalGrade: true, Remark: "Bra jobbat", Semester: "VT", Year: year(2026)},
			"XYZ", ""},
		{"an elementary grade in a subject of the scenario, MISSING is the dash", "grade-elementary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":%q,"academicYear":"2025/2026","term":"HT","schoolYear":"6",
				"teacher1EmployeeID":%q,"grade":"MISSING","gradeDate":"2025-12-18","finalGrade":false,"isEnded":false}`,
				student, school, existing.SubjectCode, teacher),
			model.Grade{RegisteredBy: model.PersonReference{ID: teacher}, GradingTeacher: &model.PersonReference{ID: teacher},
				RegisteredDate: "2025-12-18", GradeValue: "-", Semester: "HT", Year: year(2025)},
			existing.SubjectCode, ""},
		{"an upper-secondary grade registered by its second teacher", "grade-upper-secondary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"QQQQQ01","teacher2EmployeeID":%q,"grade":"E","gradeDate":"2025-10-03",
				"gradeComment":"Prövning","includeOnFinalGrade":true}`, student, school, other),
			model.Grade{RegisteredBy: model.PersonReference{ID: other}, RegisteredDate: "2025-10-03", GradeValue: "E",
				FinalGrade: true, Remark: "Prövning", Semester: "HT", Year: year(2025)},
			"", "QQQQQ01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := h.mustCreate(t, "/"+tc.resource, tc.body)
			g, ok := h.bGrade(t, id)
			require.True(t, ok, "a grade created through A is a grade of B at once, with the same id")
			assert.Equal(t, id, g.ID)
			assert.Equal(t, student, g.Student.ID)
			require.NotNil(t, g.Organisation)
			require.NotNil(t, g.SchoolUnit)
			assert.Equal(t, school, g.Organisation.ID)
			assert.Equal(t, school, g.SchoolUnit.ID)
			assert.Equal(t, tc.want.RegisteredBy.ID, g.RegisteredBy.ID)
			if tc.want.GradingTeacher == nil {
				assert.Nil(t, g.GradingTeacher)
			} else if assert.NotNil(t, g.GradingTeacher) {
				assert.Equal(t, tc.want.GradingTeacher.ID, g.GradingTeacher.ID)
			}
			assert.Equal(t, tc.want.RegisteredDate, g.RegisteredDate)
			assert.Equal(t, tc.want.GradeValue, g.GradeValue)
			assert.Equal(t, tc.want.FinalGrade, g.FinalGrade)
			assert.Equal(t, tc.want.Remark, g.Remark)
			assert.Equal(t, tc.want.Semester, g.Semester)
			assert.Equal(t, tc.want.Year, g.Year)
			var raw any
			require.NoError(t, json.Unmarshal(h.get(PrefixB+"/grades/"+id).body, &raw))
			t.Run("valid against the official Grade", func(t *testing.T) {
				grade := reference.LoadSS12000(t).Components.Schemas["Grade"].Value
				assert.NoError(t, grade.VisitJSON(raw, openapi.SchemaOptions()...))
			})

			res := h.get(PrefixB + "/syllabuses/" + g.Syllabus.ID)
			require.Equal(t, http.StatusOK, res.status, "the grade's syllabus exists: %s", res)
			var sy model.Syllabus
			res.decode(&sy)
			assert.Equal(t, tc.subjectCode, sy.SubjectCode)
			assert.Equal(t, tc.courseCode, sy.CourseCode)
			if tc.subjectCode == existing.SubjectCode {
				assert.Equal(t, existing.ID, sy.ID, "a syllabus of the code is used, not a new one")
			}

			assert.Contains(t, walkIDs(t, h, "/grades", "student="+student, ""), id)
			assert.Contains(t, walkIDs(t, h, "/grades", "organisation="+school, ""), id)
			res = h.postJSON(PrefixB+"/grades/lookup", fmt.Sprintf(`{"ids":[%q]}`, id))
			require.Equal(t, http.StatusOK, res.status, res)
			assert.Contains(t, string(res.body), id)
		})
	}

	t.Run("a change through A is a change in B, a delete through A a delete in B", func(t *testing.T) {
		id := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"7",
			"teacher1EmployeeID":%q,"grade":"C","gradeDate":"2025-12-01","finalGrade":false,"isEnded":false}`, student, school, teacher))
		before, ok := h.bGrade(t, id)
		require.True(t, ok)
		res := h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+id, `{"grade":"A","term":"VT","academicYear":"2025/2026"}`)
		require.Equal(t, http.StatusOK, res.status, res)
		after, ok := h.bGrade(t, id)
		require.True(t, ok)
		assert.Equal(t, "A", after.GradeValue)
		assert.Equal(t, "VT", after.Semester)
		assert.Equal(t, year(2026), after.Year)
		assert.True(t, after.Meta.Modified.After(before.Meta.Modified), "meta.modified moved")

		require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/grade-elementary/"+id, "").status)
		_, ok = h.bGrade(t, id)
		assert.False(t, ok, "deleted through A is gone from B")
		res = h.get(PrefixB + "/deletedEntities?entities=Grade")
		require.Equal(t, http.StatusOK, res.status, res)
		var page deletedPage
		res.decode(&page)
		assert.Contains(t, page.Data["grades"], id, "B's deletedEntities lists it as a Grade")
	})

	t.Run("B shows a grade once it has a value and a teacher", func(t *testing.T) {
		id := h.mustCreate(t, "/grade-upper-secondary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"QQQQQ02","includeOnFinalGrade":false}`, student, school))
		for _, step := range []struct {
			patch string
			shown bool
		}{
			{"", false},
			{`{"grade":"D"}`, false},
			{fmt.Sprintf(`{"grade":null,"teacher1EmployeeID":%q}`, teacher), false},
			{`{"grade":"D"}`, true},
		} {
			if step.patch != "" {
				res := h.send(http.MethodPatch, PrefixA+"/grade-upper-secondary/"+id, step.patch)
				require.Equal(t, http.StatusOK, res.status, res)
			}
			_, ok := h.bGrade(t, id)
			assert.Equal(t, step.shown, ok, "after %s", step.patch)
			assert.Equal(t, step.shown, slices.Contains(walkIDs(t, h, "/grades", "student="+student, ""), id), "list after %s", step.patch)
			res := h.postJSON(PrefixB+"/grades/lookup", fmt.Sprintf(`{"ids":[%q]}`, id))
			require.Equal(t, http.StatusOK, res.status, res)
			assert.Equal(t, step.shown, strings.Contains(string(res.body), id), "lookup after %s", step.patch)
		}
		g, _ := h.bGrade(t, id)
		assert.Equal(t, teacher, g.RegisteredBy.ID)
		assert.Equal(t, "D", g.GradeValue)
	})
}

func TestGeneratedGradesAreInterfaceAGrades(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	kinds := map[string]int{}
	for _, g := range ds.Grades {
		if g.Directory == nil {
			continue
		}
		kinds[g.Directory.Kind]++
		path := map[string]string{model.GradeKindElementary: "/grade-elementary/", model.GradeKindUpperSecondary: "/grade-upper-secondary/"}[g.Directory.Kind]
		if kinds[g.Directory.Kind] > 3 {
			continue
		}
		res := h.send(http.MethodGet, PrefixA+path+g.ID, "")
		require.Equal(t, http.StatusOK, res.status, res)
		a := res.object(t)
		assert.Equal(t, g.Student.ID, a["studentID"])
		assert.Equal(t, g.Organisation.ID, a["schoolID"])
		assert.Equal(t, g.GradeValue, a["grade"])
		assert.Equal(t, string(g.RegisteredDate), a["gradeDate"])
		assert.Equal(t, g.GradingTeacher.ID, a["teacher1EmployeeID"])
		sy, ok := h.srv.store.Read().Syllabus(g.Syllabus.ID)
		require.True(t, ok)
		if g.Directory.Kind == model.GradeKindElementary {
			assert.Equal(t, sy.SubjectCode, a["subjectCode"])
			assert.Equal(t, g.Semester, a["term"])
		} else {
			assert.Equal(t, sy.CourseCode, a["courseCode"])
		}
	}
	assert.Positive(t, kinds[model.GradeKindElementary], "the default scenario's compulsory-school grades are elementary grades of A")
	assert.Positive(t, kinds[model.GradeKindUpperSecondary], "the default scenario's upper-secondary grades are grades of A")
	for kind, path := range map[string]string{model.GradeKindElementary: "/grade-elementary", model.GradeKindUpperSecondary: "/grade-upper-secondary"} {
		res := h.send(http.MethodGet, PrefixA+path+"?limit=1", "")
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Pagination directory.Pagination `json:"pagination"`
		}
		res.decode(&page)
		assert.Equal(t, kinds[kind], page.Pagination.Total, kind)
	}
}

// listA reads every page of an interface-A list.
func (h *harness) listA(t *testing.T, path string) []map[string]any {
	t.Helper()
	var all []map[string]any
	for offset := 0; ; offset += 500 {
		res := h.send(http.MethodGet, fmt.Sprintf("%s%s?limit=500&offset=%d", PrefixA, path, offset), "")
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Data       []map[string]any     `json:"data"`
			Pagination directory.Pagination `json:"pagination"`
		}
		res.decode(&page)
		all = append(all, page.Data...)
		if len(page.Data) < 500 {
			require.Len(t, all, page.Pagination.Total)
			return all
		}
	}
}

func TestGradeWritesThroughANotifyGradeSubscribers(t *testing.T) {
	h := hookHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	rcv := webhooktest.NewReceiver(t)
	h.subscribe(t, rcv.URL, model.ResourceGrade)

	id := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"8",
		"teacher1EmployeeID":%q,"grade":"A","finalGrade":false,"isEnded":false}`, student, school, teacher))
	calls := rcv.Wait(t, 1, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourceGrade}}, calls[0].Body)

	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+id, `{"grade":"B"}`).status)
	calls = rcv.Wait(t, 2, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourceGrade}}, calls[1].Body)

	require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/grade-elementary/"+id, "").status)
	calls = rcv.Wait(t, 3, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{}, DeletedEntities: true}, calls[2].Body)
}

// A state document written before grades were one table has interface A's
// two grade tables; it still loads, each grade with both views.
func TestStateWithTheOldGradeTablesLoads(t *testing.T) {
	h := newHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GY")
	state := h.admin(http.MethodGet, "/state", "")
	require.Equal(t, http.StatusOK, state.status)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(state.body, &doc))
	assert.NotContains(t, doc, "gradesElementary", "the old members are read, never written")
	el, us := "0b6a4c0e-8f62-4a4e-9d1c-1f4d2a1b9e01", "0b6a4c0e-8f62-4a4e-9d1c-1f4d2a1b9e02"
	doc["gradesElementary"] = json.RawMessage(fmt.Sprintf(`[{"id":%q,"meta":{"created":"2026-01-10T08:00:00Z","modified":"2026-01-10T08:00:00Z"},
		"studentID":%q,"schoolID":%q,"subjectCode":"ZZ","academicYear":"2025/2026","term":"HT","schoolYear":"9","teacher1EmployeeID":%q,
		"grade":"C","gradeDate":"2025-12-20","finalGrade":false,"isEnded":false}]`, el, student, school, teacher))
	doc["gradesUpperSecondary"] = json.RawMessage(fmt.Sprintf(`[{"id":%q,"meta":{"created":"2026-01-10T08:00:00Z","modified":"2026-01-10T08:00:00Z"},
		"studentID":%q,"schoolID":%q,"courseCode":"ZZZZZ01","includeOnFinalGrade":true}]`, us, student, school))
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	res := h.admin(http.MethodPut, "/state", string(body))
	require.Equal(t, http.StatusOK, res.status, res)

	a := h.send(http.MethodGet, PrefixA+"/grade-elementary/"+el, "")
	require.Equal(t, http.StatusOK, a.status, a)
	assert.Equal(t, "C", a.object(t)["grade"])
	g, ok := h.bGrade(t, el)
	require.True(t, ok, "the old elementary grade is a grade of B")
	assert.Equal(t, "C", g.GradeValue)
	assert.Equal(t, teacher, g.RegisteredBy.ID)
	assert.Equal(t, model.Date("2025-12-20"), g.RegisteredDate)
	res = h.get(PrefixB + "/syllabuses/" + g.Syllabus.ID)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Contains(t, string(res.body), `"subjectCode":"ZZ"`)

	require.Equal(t, http.StatusOK, h.send(http.MethodGet, PrefixA+"/grade-upper-secondary/"+us, "").status)
	_, ok = h.bGrade(t, us)
	assert.False(t, ok, "without a grade and a teacher it is interface A's alone")
}
