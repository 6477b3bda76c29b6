package mockserver

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
)

func TestAttendanceEventWrites(t *testing.T) {
	h := hookHarness(t)
	rcv := webhooktest.NewReceiver(t)
	h.subscribe(t, rcv.URL, model.ResourceAttendanceEvent)
	ds := h.srv.store.Export()
	require.NotEmpty(t, ds.AttendanceEvents)
	ev := ds.AttendanceEvents[0]
	body := fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":"In","person":{"id":%q},"group":{"id":%q},"registeredBy":{"id":%q}}`, ev.Person.ID, ev.Group.ID, ev.Person.ID)
	res := h.postJSON(PrefixB+"/attendanceEvents", body)
	require.Equal(t, http.StatusOK, res.status, res)
	var made model.AttendanceEvent
	res.decode(&made)
	assert.Equal(t, "In", made.EventType)
	assert.Equal(t, model.Meta{Created: testNow, Modified: testNow}, made.Meta)
	got := h.get(PrefixB + "/attendanceEvents/" + made.ID)
	require.Equal(t, http.StatusOK, got.status, got)
	assert.JSONEq(t, string(res.body), string(got.body), "read back identically by id")
	list := h.get(PrefixB + "/attendanceEvents?person=" + ev.Person.ID + "&limit=1000")
	require.Equal(t, http.StatusOK, list.status, list)
	assert.Contains(t, string(list.body), made.ID, "in the list")
	lookup := h.postJSON(PrefixB+"/attendanceEvents/lookup", fmt.Sprintf(`{"ids":[%q]}`, made.ID))
	require.Equal(t, http.StatusOK, lookup.status, lookup)
	assert.JSONEq(t, "["+string(res.body)+"]", string(lookup.body), "read back identically by lookup")
	calls := rcv.Wait(t, 1, 10*time.Second)
	assert.Equal(t, []model.ResourceType{model.ResourceAttendanceEvent}, calls[0].Body.ModifiedEntites)

	for _, tc := range []struct{ name, body, field string }{
		{"unknown person", fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":"In","person":{"id":%q},"group":{"id":%q}}`, unknownID, ev.Group.ID), "person.id"},
		{"unknown group", fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":"In","person":{"id":%q},"group":{"id":%q}}`, ev.Person.ID, unknownID), "group.id"},
		{"unknown event type", fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":"Maybe","person":{"id":%q},"group":{"id":%q}}`, ev.Person.ID, ev.Group.ID), "eventType"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+"/attendanceEvents", tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Contains(t, res.errorBody(t).Message, tc.field)
		})
	}
	assert.Len(t, h.srv.store.Export().AttendanceEvents, len(ds.AttendanceEvents)+1)

	res = h.call(http.MethodDelete, PrefixB+"/attendanceEvents/"+made.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/attendanceEvents/"+made.ID).status)
	assert.Equal(t, http.StatusNotFound, h.call(http.MethodDelete, PrefixB+"/attendanceEvents/"+made.ID, "", nil).status)
	calls = rcv.Wait(t, 2, 10*time.Second)
	assert.True(t, calls[1].Body.DeletedEntities)
	assert.Equal(t, []string{made.ID}, h.deleted(t, "AttendanceEvent")["attendanceEvents"])
}

func (h *harness) deleted(t testing.TB, entity string) map[string][]string {
	t.Helper()
	res := h.get(PrefixB + "/deletedEntities?entities=" + entity)
	require.Equal(t, http.StatusOK, res.status, res)
	var page deletedPage
	res.decode(&page)
	return page.Data
}

func TestAttendanceScheduleWrites(t *testing.T) {
	h := hookHarness(t)
	ds := h.srv.store.Export()
	var fs, gr string
	for _, p := range ds.Placements {
		if model.IsRegisterPlacement(&p) {
			fs = p.ID
		} else {
			gr = p.ID
		}
	}
	require.NotEmpty(t, fs)
	person := ds.Persons[0].ID
	body := func(placement, end string) string {
		return fmt.Sprintf(`{"placement":{"id":%q},"numberOfWeeks":1,"startDate":"2026-11-02"%s,"temporary":false,
			"state":[{"state":"Godkänt","registeredAt":"2026-11-01T10:00:00Z","registeredBy":{"id":%q}}],
			"scheduleDays":[{"weekOffset":0,"dayOfWeek":"Måndag","startTime":"08:00","endTime":"16:00"}]}`, placement, end, person)
	}
	res := h.postJSON(PrefixB+"/attendanceSchedule", body(fs, ""))
	require.Equal(t, http.StatusOK, res.status, res)
	var made model.AttendanceSchedule
	res.decode(&made)
	require.Len(t, made.ScheduleEntries, 1, "scheduleDays sent, scheduleEntries stored")
	assert.Equal(t, made.ScheduleEntries, made.ScheduleDays)
	got := h.get(PrefixB + "/attendanceSchedule/" + made.ID)
	require.Equal(t, http.StatusOK, got.status, got)
	assert.JSONEq(t, string(res.body), string(got.body))

	cases := []struct{ name, body, message string }{
		{"unknown placement", body(unknownID, ""), "placement.id"},
		{"ends before it starts", body(fs, `,"endDate":"2026-11-01"`), "before startDate"},
		{"unknown registrar", fmt.Sprintf(`{"placement":{"id":%q},"numberOfWeeks":1,"startDate":"2026-11-02","state":[{"state":"Godkänt","registeredAt":"2026-11-01T10:00:00Z","registeredBy":{"id":%q}}],"scheduleDays":[]}`, fs, unknownID), "state[0].registeredBy.id"},
	}
	if gr != "" {
		cases = append(cases, struct{ name, body, message string }{"a placement interface B does not show", body(gr, ""), "placement.id"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+"/attendanceSchedule", tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Contains(t, res.errorBody(t).Message, tc.message)
		})
	}
	res = h.call(http.MethodDelete, PrefixB+"/attendanceSchedule/"+made.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/attendanceSchedule/"+made.ID).status)
}
