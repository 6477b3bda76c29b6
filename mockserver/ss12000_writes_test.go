package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/internal/reference"
	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// TestWritesAgainstTheOfficialDocument sends every write operation of issue
// 12 (and the subscription, log, statistics and deletedEntities
// operations) and validates each request and 2xx response against the
// official SS 12000 document, and the callback body against its
// subscriptionEvent schema. The one accepted difference is Absence.type
// (decision B1: the spec's Giltig/Ogiltig).
func TestWritesAgainstTheOfficialDocument(t *testing.T) {
	doc := reference.LoadSS12000(t)
	h := hookHarness(t)
	rcv := webhooktest.NewReceiver(t)
	ds := h.srv.Store().Export()

	check := func(method, path string, res *result) {
		t.Helper()
		item := doc.Paths.Value(path)
		require.NotNil(t, item, path)
		op := item.GetOperation(method)
		require.NotNil(t, op, "%s %s", method, path)
		route := &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
		params := map[string]string{}
		if strings.Contains(path, "{id}") {
			parts := strings.Split(res.req.URL.Path, "/")
			params["id"] = parts[len(parts)-1]
		}
		opts := &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SchemaValidationOptions: openapi.SchemaOptions()}
		in := &openapi3filter.RequestValidationInput{Request: res.req, PathParams: params, Route: route, Options: opts}
		if res.req.Body != nil {
			b, _ := io.ReadAll(res.req.Body)
			res.req.Body = io.NopCloser(bytes.NewReader(b))
		}
		reqErr := openapi3filter.ValidateRequest(context.Background(), in)
		respErr := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: res.status, Header: res.header,
			Body: io.NopCloser(bytes.NewReader(res.body)), Options: opts,
		})
		for _, err := range []error{reqErr, respErr} {
			if err == nil {
				continue
			}
			if path == "/attendanceSchedule" && onlyScheduleTimes(err) {
				t.Logf("accepted (B15): %v", err)
				continue
			}
			if path == "/absences" && strings.Contains(err.Error(), `"type"`) && strings.Count(err.Error(), "Error at") <= 1 {
				t.Logf("accepted (B1): %v", err)
				continue
			}
			t.Errorf("%s %s: %v\n%s", method, path, err, res)
		}
	}

	a := ds.Attendances[0]
	res := h.postJSON(PrefixB+"/attendances", fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"reporter":{"id":%q},"isReported":true,"attendanceMinutes":40,"validAbsenceMinutes":0,"invalidAbsenceMinutes":5,"otherAttendanceMinutes":0,"absenceReason":"x","reportedTimestamp":"2026-11-02T10:00:00Z"}`,
		a.CalendarEvent.ID, a.Student.ID, a.Student.ID))
	require.Equal(t, http.StatusOK, res.status, res)
	check(http.MethodPost, "/attendances", res)
	var made model.Attendance
	res.decode(&made)

	var unit string
	for _, o := range ds.Organisations {
		if o.OrganisationType == model.OrganisationTypeSchoolUnit {
			unit = o.ID
		}
	}
	res = h.postJSON(PrefixB+"/absences", fmt.Sprintf(`{"student":{"id":%q},"organisation":{"id":%q},"registrationDate":"2026-11-02","startTime":"2026-11-02T08:00:00Z","endTime":"2026-11-02T09:00:00Z","type":"Ogiltig"}`, a.Student.ID, unit))
	require.Equal(t, http.StatusOK, res.status, res)
	check(http.MethodPost, "/absences", res)

	res = h.postJSON(PrefixB+"/subscriptions", fmt.Sprintf(`{"name":"official","target":%q,"resourceTypes":[{"resource":"Attendance"},{"resource":"Person"}]}`, rcv.URL))
	require.Equal(t, http.StatusCreated, res.status, res)
	check(http.MethodPost, "/subscriptions", res)
	var sub struct{ ID string }
	res.decode(&sub)
	res = h.get(PrefixB + "/subscriptions")
	check(http.MethodGet, "/subscriptions", res)
	res = h.get(PrefixB + "/subscriptions/" + sub.ID)
	check(http.MethodGet, "/subscriptions/{id}", res)
	res = h.call(http.MethodPatch, PrefixB+"/subscriptions/"+sub.ID, "", nil)
	require.Equal(t, http.StatusOK, res.status, res)
	check(http.MethodPatch, "/subscriptions/{id}", res)

	res = h.call(http.MethodDelete, PrefixB+"/attendances/"+made.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	check(http.MethodDelete, "/attendances/{id}", res)
	res = h.get(PrefixB + "/deletedEntities?entities=Attendance&limit=10")
	require.Equal(t, http.StatusOK, res.status, res)
	check(http.MethodGet, "/deletedEntities", res)

	ev := ds.AttendanceEvents[0]
	res = h.postJSON(PrefixB+"/attendanceEvents", fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":"Ut","person":{"id":%q},"group":{"id":%q},"registeredBy":{"id":%q}}`, ev.Person.ID, ev.Group.ID, ev.Person.ID))
	require.Equal(t, http.StatusOK, res.status, res)
	check(http.MethodPost, "/attendanceEvents", res)
	var e struct{ ID string }
	res.decode(&e)
	res = h.call(http.MethodDelete, PrefixB+"/attendanceEvents/"+e.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	check(http.MethodDelete, "/attendanceEvents/{id}", res)
	var fs string
	for _, p := range ds.Placements {
		if model.IsRegisterPlacement(&p) {
			fs = p.ID
		}
	}
	res = h.postJSON(PrefixB+"/attendanceSchedule", fmt.Sprintf(`{"placement":{"id":%q},"numberOfWeeks":1,"startDate":"2026-11-02","state":[{"state":"Godkänt","registeredAt":"2026-11-01T10:00:00Z"}],"scheduleDays":[{"weekOffset":0,"dayOfWeek":"Måndag","startTime":"08:00","endTime":"16:00"}]}`, fs))
	require.Equal(t, http.StatusOK, res.status, res)
	check(http.MethodPost, "/attendanceSchedule", res)
	res.decode(&e)
	res = h.call(http.MethodDelete, PrefixB+"/attendanceSchedule/"+e.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	check(http.MethodDelete, "/attendanceSchedule/{id}", res)

	res = h.postJSON(PrefixB+"/log/", `{"message":"m","messageType":"t","resourceType":"Person","resourceId":"5e10f18c-6d0d-450b-a4b8-fa99e1053f78","resourceUrl":"https://example.se/x","severityLevel":"Error","timeOfOccurance":"2026-11-02T10:00:00Z"}`)
	require.Equal(t, http.StatusCreated, res.status, res)
	check(http.MethodPost, "/log/", res)
	res = h.postJSON(PrefixB+"/statistics/", `{"resourceType":"Person","newCount":1,"updatedCount":2,"deletedCount":3,"resourceUrl":"https://example.se/x","timeOfOccurance":"2026-11-02T10:00:00Z"}`)
	require.Equal(t, http.StatusCreated, res.status, res)
	check(http.MethodPost, "/statistics/", res)

	// the callbacks' bodies are the document's subscriptionEvent bodies
	calls := rcv.Wait(t, 1, 10*time.Second)
	waitIdle(t, h.srv)
	schema := doc.Components.Schemas["_subscriptions_get_request"].Value
	for _, c := range append(calls, rcv.Calls()...) {
		var v any
		require.NoError(t, json.Unmarshal(c.Raw, &v))
		assert.NoError(t, schema.VisitJSON(v), string(c.Raw))
	}

	res = h.call(http.MethodDelete, PrefixB+"/subscriptions/"+sub.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	check(http.MethodDelete, "/subscriptions/{id}", res)
}

// onlyScheduleTimes reports whether every violation is at a schedule
// entry's startTime or endTime (SS 12000's defect, decision B15).
func onlyScheduleTimes(err error) bool {
	at := regexp.MustCompile(`Error at "([^"]+)"`).FindAllStringSubmatch(err.Error(), -1)
	for _, m := range at {
		if !strings.HasSuffix(m[1], "/startTime") && !strings.HasSuffix(m[1], "/endTime") {
			return false
		}
	}
	return len(at) > 0
}
