package mockserver

import (
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

func TestAttendanceWrites(t *testing.T) {
	h := hookHarness(t)
	ds := h.srv.store.Export()
	ev, student := ds.Attendances[0].CalendarEvent.ID, ds.Attendances[0].Student.ID
	reporter := ds.Persons[len(ds.Persons)-1].ID
	before := len(ds.Attendances)

	// read-only members a client may echo back are ignored: the server
	// assigns id and meta and fills references from the store
	body := fmt.Sprintf(`{"id":"00000000-0000-4000-8000-000000000001","meta":{"created":"2001-01-01T00:00:00Z","modified":"2001-01-01T00:00:00Z"},
		"calendarEvent":{"id":%q,"displayName":"ignored"},"student":{"id":%q,"securityMarking":"Ingen"},"reporter":{"id":%q},
		"isReported":true,"attendanceMinutes":35,"validAbsenceMinutes":5,"absenceReason":"Tandläkare","reportedTimestamp":"2026-11-02T08:30:00Z"}`,
		strings.ToUpper(ev), student, reporter)
	res := h.postJSON(PrefixB+"/attendances", body)
	require.Equal(t, http.StatusOK, res.status, res)
	var made model.Attendance
	res.decode(&made)
	assert.NotEqual(t, "00000000-0000-4000-8000-000000000001", made.ID)
	assert.Equal(t, model.Meta{Created: testNow, Modified: testNow}, made.Meta)
	assert.Equal(t, ev, made.CalendarEvent.ID)
	assert.Empty(t, made.CalendarEvent.DisplayName)
	assert.Equal(t, student, made.Student.ID)
	require.NotNil(t, made.Reporter)
	assert.Equal(t, reporter, made.Reporter.ID)
	assert.Equal(t, 35, *made.AttendanceMinutes)

	// read back identically by id
	res = h.get(PrefixB + "/attendances/" + made.ID)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.JSONEq(t, string(asJSON(t, made)), string(res.body))
	// ... in the list (by the meta.modified filter), and by lookup
	h.readBackInListAndLookup(t, "/attendances", made.ID, asJSON(t, made))
	// and in the data export (interface A's side of the same records)
	found := false
	for offset := 0; !found; offset += 500 {
		page := h.exportPage(t, fmt.Sprintf("limit=500&offset=%d", offset))
		for _, it := range page.Data {
			if it.Student.ID == student && it.Report.Status == "Present" && it.Report.AbsenceDurationMinutes == 5 {
				found = true
			}
		}
		if len(page.Data) < 500 {
			break
		}
	}
	assert.True(t, found, "the new record is in the data export")

	for _, tc := range []struct{ name, body, field string }{
		{"unknown calendar event", fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"isReported":true}`, unknownID, student), "calendarEvent.id"},
		{"unknown student", fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"isReported":true}`, ev, unknownID), "student.id"},
		{"unknown reporter", fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"reporter":{"id":%q},"isReported":true}`, ev, student, unknownID), "reporter.id"},
		{"missing student", fmt.Sprintf(`{"calendarEvent":{"id":%q},"isReported":true}`, ev), "student"},
		{"missing isReported", fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q}}`, ev, student), "isReported"},
		{"minutes not an integer", fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"isReported":true,"attendanceMinutes":"40"}`, ev, student), "attendanceMinutes"},
		{"id not a uuid", fmt.Sprintf(`{"calendarEvent":{"id":"x"},"student":{"id":%q},"isReported":true}`, student), "calendarEvent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+"/attendances", tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			e := res.errorBody(t)
			assert.Equal(t, surface.CodeBadRequest, e.Code)
			assert.Contains(t, e.Message, tc.field)
		})
	}
	assert.Equal(t, before+1, len(h.srv.store.Export().Attendances), "refused writes store nothing")

	res = h.call(http.MethodDelete, PrefixB+"/attendances/"+strings.ToUpper(made.ID), "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	assert.Empty(t, res.body)
	res = h.get(PrefixB + "/attendances/" + made.ID)
	assert.Equal(t, http.StatusNotFound, res.status, res)
	res = h.call(http.MethodDelete, PrefixB+"/attendances/"+made.ID, "", nil)
	assert.Equal(t, http.StatusNotFound, res.status, res)
	assert.Equal(t, surface.CodeNotFound, res.errorBody(t).Code)
	assert.Equal(t, before, len(h.srv.store.Export().Attendances))
}

func TestAbsenceWrites(t *testing.T) {
	h := hookHarness(t)
	ds := h.srv.store.Export()
	var unit, organiser string
	for _, o := range ds.Organisations {
		switch o.OrganisationType {
		case model.OrganisationTypeSchoolUnit:
			unit = o.ID
		case model.OrganisationTypeOrganiser:
			organiser = o.ID
		}
	}
	require.NotEmpty(t, unit)
	require.NotEmpty(t, organiser)
	student := ds.Absences[0].Student.ID
	body := func(org, start, end string) string {
		return fmt.Sprintf(`{"student":{"id":%q},"organisation":{"id":%q},"registrationDate":"2026-11-02","startTime":%q,"endTime":%q,"type":"Giltig","absenceReason":"Sjuk","verified":true,"registeredBy":{"id":%q}}`,
			student, org, start, end, student)
	}
	res := h.postJSON(PrefixB+"/absences", body(unit, "2026-11-02T08:00:00Z", "2026-11-02T12:00:00Z"))
	require.Equal(t, http.StatusOK, res.status, res)
	var made model.Absence
	res.decode(&made)
	assert.Equal(t, model.AbsenceValid, made.Type)
	assert.Equal(t, time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC), made.StartTime.UTC())
	assert.Equal(t, model.Meta{Created: testNow, Modified: testNow}, made.Meta)
	res = h.get(PrefixB + "/absences/" + made.ID)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.JSONEq(t, string(asJSON(t, made)), string(res.body))
	h.readBackInListAndLookup(t, "/absences", made.ID, asJSON(t, made))

	for _, tc := range []struct{ name, body, message string }{
		{"the organiser, not a school unit", body(organiser, "2026-11-02T08:00:00Z", "2026-11-02T12:00:00Z"), "not a school unit"},
		{"unknown organisation", body(unknownID, "2026-11-02T08:00:00Z", "2026-11-02T12:00:00Z"), "organisation.id"},
		{"ends before it starts", body(unit, "2026-11-02T12:00:00Z", "2026-11-02T08:00:00Z"), "before startTime"},
		{"SS 12000's type values", strings.Replace(body(unit, "2026-11-02T08:00:00Z", "2026-11-02T12:00:00Z"), "Giltig", "Beviljad ledighet", 1), "type"},
		{"no registration date", strings.Replace(body(unit, "2026-11-02T08:00:00Z", "2026-11-02T12:00:00Z"), `"registrationDate":"2026-11-02",`, "", 1), "registrationDate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+"/absences", tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Contains(t, res.errorBody(t).Message, tc.message)
		})
	}
	assert.Equal(t, len(ds.Absences)+1, len(h.srv.store.Export().Absences))
}

func TestWritesNeedTheirScopes(t *testing.T) {
	h := hookHarness(t)
	tok := h.token
	for _, tc := range []struct{ method, path, scope string }{
		{http.MethodPost, "/attendances", register.ScopeAttendancesWrite},
		{http.MethodDelete, "/attendances/" + unknownID, register.ScopeAttendancesWrite},
		{http.MethodPost, "/absences", register.ScopeAbsencesWrite},
		{http.MethodGet, "/subscriptions", register.ScopeSubscriptionsRead},
		{http.MethodPost, "/subscriptions", register.ScopeSubscriptionsWrite},
		{http.MethodPost, "/log/", register.ScopeLogWrite},
		{http.MethodPost, "/statistics", register.ScopeStatisticsWrite},
	} {
		id, secret := h.srv.Credentials()
		res := h.postForm(PathToken, map[string][]string{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {register.ScopePlacementsRead}}, nil)
		require.Equal(t, http.StatusOK, res.status, res)
		var tr tokenResponse
		res.decode(&tr)
		h.token = tr.AccessToken
		body := ""
		if tc.method == http.MethodPost {
			body = "{}"
		}
		res = h.call(tc.method, PrefixB+tc.path, body, nil)
		assert.Equal(t, http.StatusForbidden, res.status, "%s %s needs %s: %s", tc.method, tc.path, tc.scope, res)
		h.token = tok
	}
}

// readBackInListAndLookup finds the record (created at testNow, the
// harness's clock) in the list filtered by meta.modified.after and by
// lookup, each time identical to want.
func (h *harness) readBackInListAndLookup(t *testing.T, path, id string, want []byte) {
	t.Helper()
	q := "?limit=1000&meta.modified.after=" + url.QueryEscape(testNow.Add(-time.Millisecond).Format(time.RFC3339Nano))
	res := h.get(PrefixB + path + q)
	require.Equal(t, http.StatusOK, res.status, res)
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	res.decode(&page)
	found := false
	for _, rec := range page.Data {
		if strings.Contains(string(rec), id) {
			found = true
			assert.JSONEq(t, string(want), string(rec), "%s: the list shows the record as written", path)
		}
	}
	assert.True(t, found, "%s%s lists %s", path, q, id)
	res = h.postJSON(PrefixB+path+"/lookup", fmt.Sprintf(`{"ids":[%q]}`, id))
	require.Equal(t, http.StatusOK, res.status, res)
	assert.JSONEq(t, "["+string(want)+"]", string(res.body), "%s/lookup", path)
}

// asJSON is v's JSON, to compare with a body by JSONEq.
func asJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
