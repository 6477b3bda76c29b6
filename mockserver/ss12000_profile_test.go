package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/internal/reference"
	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// officialBody builds a request body from a schema of the official document:
// the members it requires (full: every member it defines), read-only ones
// left out, each a value of its schema. value gives the value of a member by
// its name where the schema alone cannot (a reference's id, a time of day).
func officialBody(s *openapi3.Schema, full bool, value func(name string, s *openapi3.Schema) (any, bool)) any {
	props := map[string]*openapi3.SchemaRef{}
	var required []string
	collect := func(s *openapi3.Schema) {
		for n, p := range s.Properties {
			props[n] = p
		}
		required = append(required, s.Required...)
	}
	collect(s)
	for _, a := range s.AllOf {
		collect(a.Value)
	}
	switch {
	case len(props) > 0 || len(required) > 0:
		out := map[string]any{}
		names := required
		if full {
			for n := range props {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		for _, n := range slices.Compact(names) {
			p := props[n]
			if p == nil || p.Value == nil {
				// Required but undefined (the document's defect): a client
				// generated from the document cannot send it; the full body
				// sends what value gives.
				if v, ok := value(n, nil); ok && full {
					out[n] = v
				}
				continue
			}
			if p.Value.ReadOnly {
				continue
			}
			if v, ok := value(n, p.Value); ok {
				out[n] = v
				continue
			}
			out[n] = officialBody(p.Value, full, value)
		}
		return out
	case s.Type.Is("array") && s.Items != nil:
		return []any{officialBody(s.Items.Value, full, value)}
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Format == "uuid":
		return unknownID
	case s.Format == "date":
		return "2026-11-02"
	case s.Format == "date-time":
		return "2026-11-02T10:00:00Z"
	case s.Format == "uri":
		return "https://example.se/x"
	case s.Type.Is("boolean"):
		return true
	case s.Type.Is("integer"), s.Type.Is("number"):
		return 1
	}
	return "x"
}

// officialSweep sends the operations of the official document that the read
// sweep leaves out — the writes, subscriptions, deletedEntities, log and
// statistics, each with the members the document requires and with every
// member it defines, and every lookup with an empty body — and returns the
// violations (the subscription callbacks included): a request the document allows that is not answered 2xx, or an
// answer the document does not allow. The requests are checked against the
// document first (a request the document does not allow is the sweep's bug).
func officialSweep(t *testing.T, h *harness, doc *openapi3.T, accepted func(op, msg string) bool) []string {
	ds := h.srv.store.Export()
	rcv := webhooktest.NewReceiver(t)
	var violations []string
	sent := 0
	defer func() { t.Logf("the official sweep sent %d requests", sent) }()
	opts := &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: openapi.SchemaOptions(), IncludeResponseStatus: true}
	send := func(method, path, target string, body any) *result {
		t.Helper()
		item := doc.Paths.Value(path)
		require.NotNil(t, item, path)
		op := item.GetOperation(method)
		require.NotNil(t, op, "%s %s", method, path)
		var raw []byte
		if body != nil {
			raw, _ = json.Marshal(body)
		}
		res := h.call(method, PrefixB+target, string(raw), nil)
		sent++
		route := &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
		params := map[string]string{}
		if strings.Contains(path, "{id}") {
			parts := strings.Split(strings.Split(target, "?")[0], "/")
			params["id"] = parts[len(parts)-1]
		}
		vreq, _ := http.NewRequest(method, "http://x"+target, bytes.NewReader(raw))
		if body != nil {
			vreq.Header.Set("Content-Type", "application/json")
		}
		in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			for _, msg := range flattenErrors(err) {
				require.True(t, undefinedMemberMissing(msg),
					"the sweep's own request %s %s %s is not valid against the official document: %s", method, target, raw, msg)
			}
		}
		key := method + " " + path
		report := func(msg string) {
			if accepted != nil && accepted(key, msg) {
				return
			}
			violations = append(violations, fmt.Sprintf("%s: %s (request %s %s)", key, msg, target, raw))
		}
		if res.status < 200 || res.status > 299 {
			report(fmt.Sprintf("a request the document allows is answered %d: %s", res.status, res.body))
			return res
		}
		err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: res.status, Header: res.header,
			Body: io.NopCloser(bytes.NewReader(res.body)), Options: opts,
		})
		if err != nil {
			for _, msg := range flattenErrors(err) {
				report(arrayIndex.ReplaceAllString(msg, "[]"))
			}
		}
		return res
	}
	schemaOf := func(path string) *openapi3.Schema {
		return doc.Paths.Value(path).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	}

	a := ds.Attendances[0]
	ev := ds.AttendanceEvents[0]
	var unit, placement string
	for _, o := range ds.Organisations {
		if o.OrganisationType == model.OrganisationTypeSchoolUnit {
			unit = o.ID
			break
		}
	}
	for _, p := range ds.Placements {
		if model.IsRegisterPlacement(&p) {
			placement = p.ID
			break
		}
	}
	ids := map[string]string{
		"calendarEvent": a.CalendarEvent.ID, "student": a.Student.ID, "reporter": a.Student.ID,
		"registeredBy": ev.Person.ID, "person": ev.Person.ID, "group": ev.Group.ID,
		"organisation": unit, "placement": placement,
	}
	var value func(name string, s *openapi3.Schema) (any, bool)
	value = func(name string, s *openapi3.Schema) (any, bool) {
		if s == nil {
			if name == "scheduleDays" { // the entries again (docs/decisions.md#ss12000-defects)
				return officialBody(doc.Components.Schemas["AttendanceSchedule"].Value.Properties["scheduleEntries"].Value, true, value), true
			}
			return nil, false
		}
		if id, ok := ids[name]; ok {
			return map[string]any{"id": id}, true
		}
		switch {
		case name == "target":
			return rcv.URL, true
		case (name == "startTime" || name == "endTime") && strings.Contains(s.Format, "[0-9]"):
			// A schedule's time of day (the document: "08:30", of type string
			// for startTime, integer for endTime).
			if s.Type.Is("integer") {
				return 1600, true
			}
			return "08:00", true
		case name == "endTime" && s.Format == "date-time":
			return "2026-11-02T11:00:00Z", true
		case name == "resourceTypes":
			return []any{map[string]any{"resource": "Attendance"}}, true
		}
		return nil, false
	}

	created := map[string][]string{} // path → ids made
	for _, path := range []string{"/attendances", "/attendanceEvents", "/attendanceSchedule", "/absences", "/subscriptions", "/log/", "/statistics/"} {
		for _, full := range []bool{false, true} {
			res := send(http.MethodPost, path, path, officialBody(schemaOf(path), full, value))
			var made struct{ ID string }
			if res.status/100 == 2 && json.Unmarshal(res.body, &made) == nil && made.ID != "" {
				created[path] = append(created[path], made.ID)
			}
		}
	}
	send(http.MethodGet, "/subscriptions", "/subscriptions", nil)
	for _, id := range created["/subscriptions"] {
		send(http.MethodGet, "/subscriptions/{id}", "/subscriptions/"+id, nil)
		send(http.MethodPatch, "/subscriptions/{id}", "/subscriptions/"+id, nil)
	}
	for _, path := range []string{"/attendances", "/attendanceEvents", "/attendanceSchedule"} {
		for _, id := range created[path] {
			send(http.MethodDelete, path+"/{id}", path+"/"+id, nil)
		}
	}
	// The deletes of attendances above were told to the subscriptions: each
	// callback body is the document's subscription event.
	event := doc.Components.Schemas["_subscriptions_get_request"].Value
	calls := rcv.Wait(t, 1, 10*time.Second)
	waitIdle(t, h.srv)
	for _, c := range append(calls, rcv.Calls()...) {
		var v any
		require.NoError(t, json.Unmarshal(c.Raw, &v))
		if err := event.VisitJSON(v); err != nil {
			violations = append(violations, fmt.Sprintf("callback %s: %v", c.Raw, err))
		}
	}
	for _, id := range created["/subscriptions"] {
		send(http.MethodDelete, "/subscriptions/{id}", "/subscriptions/"+id, nil)
	}
	send(http.MethodGet, "/deletedEntities", "/deletedEntities", nil)
	send(http.MethodGet, "/deletedEntities", "/deletedEntities?after=2000-01-01T00:00:00Z&entities=Attendance&limit=5", nil)
	for _, path := range doc.Paths.InMatchingOrder() {
		if strings.HasSuffix(path, "/lookup") {
			send(http.MethodPost, path, path, map[string]any{})
		}
	}
	return violations
}

// undefinedMemberMissing reports whether a violation of a request is only
// the absence of a member the official document requires without defining
// it (AttendanceSchedule.scheduleDays): what every client generated from
// the document sends.
func undefinedMemberMissing(msg string) bool {
	return strings.HasPrefix(msg, "required at") && strings.Contains(msg, `property "scheduleDays" is missing`)
}

// TestEveryOperationOfTheSS12000ProfileValidatesAgainstSS12000: under the
// ss12000 profile, every operation of the official document — the reads of
// two scenarios with every parameter, the writes with the members the
// document requires and with all it defines, subscriptions, deletedEntities,
// log, statistics and every lookup with an empty body — is answered 2xx
// and valid against the document, with no exception.
func TestEveryOperationOfTheSS12000ProfileValidatesAgainstSS12000(t *testing.T) {
	doc := reference.LoadSS12000(t)
	for _, name := range []string{"default", "edge-cases"} {
		t.Run("reads of "+name, func(t *testing.T) { sweepSS12000(t, name, ProfileSS12000) })
	}
	t.Run("writes and empty lookups", func(t *testing.T) {
		h := hookHarness(t, func(o *Options) { o.Profile = ProfileSS12000 })
		assert.Empty(t, officialSweep(t, h, doc, nil))
	})
}

// serviceDifferences are the ways the service profile refuses what SS 12000
// allows, as the official sweep sees them, each a row of
// docs/decisions.md#interface-b-profiles: the operation (a prefix of "METHOD
// /path") and the violation the mock's 400 names.
var serviceDifferences = []struct{ name, op, violation string }{
	{"the spec's absence types", "POST /absences", `at /type: value is not one of the allowed values ["Giltig","Ogiltig"]`},
	{"the spec's required absence members", "POST /absences", `at /organisation: property "organisation" is missing`},
	{"the spec's required absence members", "POST /absences", `at /registrationDate: property "registrationDate" is missing`},
	{"scheduleDays demanded", "POST /attendanceSchedule", `at /scheduleDays: property "scheduleDays" is missing`},
	{"schedule end times as HH:MM", "POST /attendanceSchedule", `/endTime: value must be a string`},
	{"a lookup needs ids", "POST /", `at /ids: property "ids" is missing`},
}

// TestTheServiceProfileDiffersFromSS12000OnlyWhereDecided: the official
// sweep of the service profile finds exactly the decided differences, each
// of them; what the read sweep accepts under the service profile is
// ss12000Deliberate.
func TestTheServiceProfileDiffersFromSS12000OnlyWhereDecided(t *testing.T) {
	doc := reference.LoadSS12000(t)
	h := hookHarness(t)
	seen := map[string]bool{}
	accepted := func(op, msg string) bool {
		_, body, ok := strings.Cut(msg, "is answered 400: ")
		if !ok {
			return false
		}
		var e surface.RegisterError
		if json.Unmarshal([]byte(body), &e) != nil {
			return false
		}
		for _, part := range strings.Split(e.Message, "; ") {
			known := false
			for _, d := range serviceDifferences {
				if strings.HasPrefix(op, d.op) && strings.Contains(part, d.violation) {
					seen[d.name], known = true, true
				}
			}
			if !known {
				return false
			}
		}
		return true
	}
	assert.Empty(t, officialSweep(t, h, doc, accepted), "violations no decision names")
	for _, d := range serviceDifferences {
		assert.True(t, seen[d.name], "difference %q was not seen: is it still a difference?", d.name)
	}
}
