package mockserver

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeletedEntitiesLeaveOutWhatBNeverShowed: a record interface B never
// showed — a grade interface A wrote without a teacher or without a value
// (docs/decisions.md#grades-in-both-views), a compulsory-school student
// placement (docs/decisions.md#b-preschool-placements-only) — is not one of B's
// deleted entities when interface A deletes it; the same records that B
// showed are. Interface A's audit events list every one.
func TestDeletedEntitiesLeaveOutWhatBNeverShowed(t *testing.T) {
	h := newHarness(t)
	student, teacher, school, preschool := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR"), h.newSchool(t, "FS")
	for _, c := range []struct {
		name, path, body, entity, member string
		inB                              bool
	}{
		{"a grade without a teacher", "/grade-upper-secondary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"QQQQQ09","grade":"C","includeOnFinalGrade":false}`, student, school),
			"Grade", "grades", false},
		{"a grade without a value", "/grade-elementary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"7","teacher1EmployeeID":%q,"finalGrade":false,"isEnded":false}`, student, school, teacher),
			"Grade", "grades", false},
		{"a grade with a teacher and a value", "/grade-elementary",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"7","teacher1EmployeeID":%q,"grade":"B","finalGrade":false,"isEnded":false}`, student, school, teacher),
			"Grade", "grades", true},
		{"a compulsory-school placement", "/student-placement",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17"}`, student, school),
			"Placement", "placements", false},
		{"a preschool placement", "/student-placement",
			fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"FS","startDate":"2026-08-17"}`, student, preschool),
			"Placement", "placements", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := h.mustCreate(t, c.path, c.body)
			shown := h.get(PrefixB + "/" + c.member + "/" + id).status
			require.Equal(t, map[bool]int{true: http.StatusOK, false: http.StatusNotFound}[c.inB], shown, "B shows it: %v", c.inB)
			h.clock.Advance(1e9)
			res := h.send(http.MethodDelete, PrefixA+c.path+"/"+id, "")
			require.Equal(t, http.StatusNoContent, res.status, res)
			if c.inB {
				assert.Contains(t, h.deleted(t, c.entity)[c.member], id, "B showed it: one of its deleted entities")
			} else {
				assert.NotContains(t, h.deleted(t, c.entity)[c.member], id, "B never showed it")
				assert.NotContains(t, string(h.get(PrefixB+"/deletedEntities").body), id, "under no entity")
			}
			logged := false
			for _, tb := range h.srv.store.Read().Tombstones(testNow) {
				logged = logged || tb.RecordID == id
			}
			assert.True(t, logged, "the deletion log has the delete (interface A's audit events read it)")
		})
	}
}

// TestSubscribersHearNothingOfWhatBNeverShows: creating, changing and
// deleting through interface A a record B never shows
// (docs/decisions.md#b-hidden-records) sends no
// callback to Grade or Placement subscribers; the same writes of a record B
// shows do, and a change that makes a hidden grade visible does.
func TestSubscribersHearNothingOfWhatBNeverShows(t *testing.T) {
	h := hookHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	rcv := webhooktest.NewReceiver(t)
	h.subscribe(t, rcv.URL, model.ResourceGrade, model.ResourcePlacement)
	quiet := func(t *testing.T, what string) {
		t.Helper()
		// The hub hears of a change in the write's own commit: not idle, or
		// a callback already received, means B's subscribers were told.
		assert.True(t, h.srv.Webhooks().Idle(), "%s: no delivery under way", what)
		assert.Empty(t, rcv.Calls(), "%s: no callback", what)
	}

	grade := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"7","teacher1EmployeeID":%q,"finalGrade":false,"isEnded":false}`, student, school, teacher))
	quiet(t, "a grade without a value created")
	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+grade, `{"schoolYear":"8"}`).status)
	quiet(t, "a grade without a value changed")
	placement := h.mustCreate(t, "/student-placement", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"GR","startDate":"2026-08-17"}`, student, school))
	quiet(t, "a compulsory-school placement created")
	require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/student-placement/"+placement, "").status)
	quiet(t, "a compulsory-school placement deleted")
	hidden := h.mustCreate(t, "/grade-upper-secondary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"courseCode":"QQQQQ09","grade":"C","includeOnFinalGrade":false}`, student, school))
	require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/grade-upper-secondary/"+hidden, "").status)
	quiet(t, "a grade without a teacher created and deleted")

	// The grade gets its value: B shows it from now on, and says so.
	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+grade, `{"grade":"B"}`).status)
	calls := rcv.Wait(t, 1, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourceGrade}}, calls[0].Body)
	require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/grade-elementary/"+grade, "").status)
	calls = rcv.Wait(t, 2, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{}, DeletedEntities: true}, calls[1].Body)
}

// TestDeletedEntitiesListAGradeAHides: a grade B showed that a PATCH through
// interface A hides (its value removed) is one of B's deleted entities from
// that moment, though interface A keeps it, and B's GET answers 404; when a
// later PATCH shows it again it is no longer one, and interface A's audit
// events list neither change.
func TestDeletedEntitiesListAGradeAHides(t *testing.T) {
	h := newHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	grade := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"7","teacher1EmployeeID":%q,"grade":"B","finalGrade":false,"isEnded":false}`, student, school, teacher))
	require.Equal(t, http.StatusOK, h.get(PrefixB+"/grades/"+grade).status, "B shows the grade")
	audit := func() string { return string(h.get(PrefixA + "/audit-event").body) }
	auditBefore := audit()

	h.clock.Advance(1e9)
	res := h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+grade, `{"grade":null}`)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/grades/"+grade).status, "B no longer shows it")
	assert.Equal(t, http.StatusOK, h.get(PrefixA+"/grade-elementary/"+grade).status, "A keeps it")
	assert.Contains(t, h.deleted(t, "Grade")["grades"], grade, "for B's clients it went away")

	h.clock.Advance(1e9)
	res = h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+grade, `{"grade":"C"}`)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Equal(t, http.StatusOK, h.get(PrefixB+"/grades/"+grade).status, "B shows it again")
	assert.NotContains(t, h.deleted(t, "Grade")["grades"], grade, "shown again: not deleted")
	assert.Equal(t, auditBefore, audit(), "interface A's audit events list neither change")
}

// TestSubscribersHearOfAGradeAHides: hiding from B a grade B showed (a PATCH
// through interface A removes its value) tells Grade subscribers that grades
// changed and that there are deleted entities to fetch.
func TestSubscribersHearOfAGradeAHides(t *testing.T) {
	h := hookHarness(t)
	student, teacher, school := h.newStudent(t), h.newEmployee(t), h.newSchool(t, "GR")
	grade := h.mustCreate(t, "/grade-elementary", fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"subjectCode":"XYZ","academicYear":"2025/2026","term":"HT","schoolYear":"7","teacher1EmployeeID":%q,"grade":"B","finalGrade":false,"isEnded":false}`, student, school, teacher))
	rcv := webhooktest.NewReceiver(t)
	h.subscribe(t, rcv.URL, model.ResourceGrade)
	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/grade-elementary/"+grade, `{"grade":null}`).status)
	calls := rcv.Wait(t, 1, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourceGrade}, DeletedEntities: true}, calls[0].Body)
}
