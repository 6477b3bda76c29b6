package mockserver

// The SS 12000 sweep: every read operation of the official SS
// 12000 2.1.0 document, sent to the mock with every parameter the document
// declares, every list walked to its end, every record by id and every
// lookup, and every answer validated against the OFFICIAL document (not our
// contract). No operation of the document may answer 404 or 405 for lack of
// a route.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/internal/reference"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// ss12000NotYetServed are the operations of SS 12000 that interface B does
// not serve: none.
var ss12000NotYetServed = map[string]string{}

// ss12000SweptElsewhere are the writes, subscriptions, the change log, log
// and statistics: the read sweep
// does not know their bodies; officialSweep (ss12000_profile_test.go) sends
// and validates them.
var ss12000SweptElsewhere = map[string]bool{
	"POST /attendances": true, "DELETE /attendances/{id}": true, "POST /attendanceEvents": true,
	"DELETE /attendanceEvents/{id}": true, "POST /attendanceSchedule": true, "DELETE /attendanceSchedule/{id}": true,
	"POST /absences": true, "GET /subscriptions": true, "POST /subscriptions": true, "GET /subscriptions/{id}": true,
	"PATCH /subscriptions/{id}": true, "DELETE /subscriptions/{id}": true, "GET /deletedEntities": true,
	"POST /log/": true, "POST /statistics/": true,
}

// ss12000Deliberate are schema violations against the official document
// that are deliberate, each a decision: the property path as kin-openapi
// reports it, and why.
var ss12000Deliberate = map[string]string{
	`"type"`:  "Absence.type has the spec's values Giltig/Ogiltig (docs/decisions.md#absence-follows-the-spec)",
	"endTime": "AttendanceScheduleEntry.endTime is a time of day HH:MM, where SS 12000 declares an integer (docs/decisions.md#ss12000-defects)",
}

// ss12000Defects are the operations whose documented answer is a known
// defect of the document (its SOURCE notes): the schema of the items they
// evidently answer.
var ss12000Defects = map[string]string{
	"POST /calendarEvents/lookup":     "CalendarEvent",
	"POST /attendanceSchedule/lookup": "AttendanceSchedule",
}

// arrayIndex matches an array position in a violation's path.
var arrayIndex = regexp.MustCompile(`\b[0-9]+\b`)

type ss12000Op struct {
	method, path string
	route        routers.Route
}

func ss12000Ops(t *testing.T) (*openapi3.T, []ss12000Op) {
	t.Helper()
	doc := reference.LoadSS12000(t)
	var ops []ss12000Op
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, ss12000Op{method: method, path: path,
				route: routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].method+ops[i].path < ops[j].method+ops[j].path })
	return doc, ops
}

// sweeper sends requests and validates the answers against the official
// document.
type ss12000Sweeper struct {
	t *testing.T
	// exact accepts no deliberate difference (the ss12000 profile).
	exact      bool
	p          *inproc
	violations map[string][]string // message → requests
	deliberate map[string]int
	requests   int
}

func (sw *ss12000Sweeper) send(op ss12000Op, target string, body []byte) []byte {
	sw.t.Helper()
	sw.requests++
	ct := ""
	if body != nil {
		ct = surface.ContentTypeJSON
	}
	req := sw.p.request(op.method, PrefixB+target, body, ct)
	rec := sw.p.serve(req)
	if !assert.Equal(sw.t, http.StatusOK, rec.Code, "%s %s: %s", op.method, target, rec.Body.String()) {
		return nil
	}
	// Validate against the official document: the request as the document
	// sees it (its own path, without our prefix).
	vreq := sw.p.request(op.method, target, body, ct)
	pathParams := map[string]string{}
	if strings.Contains(op.path, "{id}") {
		parts := strings.Split(strings.Split(target, "?")[0], "/")
		pathParams["id"] = parts[len(parts)-1]
	}
	err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: vreq, PathParams: pathParams, Route: &op.route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, SchemaValidationOptions: openapi.SchemaOptions()},
	})
	if item, ok := ss12000Defects[op.method+" "+op.path]; ok {
		// The document's answer is a defect (docs/decisions.md#ss12000-defects):
		// each item must be what
		// the document evidently means.
		err = nil
		var items []any
		if json.Unmarshal(rec.Body.Bytes(), &items) != nil {
			err = fmt.Errorf("not a JSON array")
		}
		for _, it := range items {
			if e := op.route.Spec.Components.Schemas[item].Value.VisitJSON(it, openapi.SchemaOptions()...); e != nil {
				err = e
				break
			}
		}
	}
	if err != nil {
		for _, msg := range flattenErrors(err) {
			msg = arrayIndex.ReplaceAllString(msg, "[]")
			if reason := deliberateViolation(op, msg); reason != "" && !sw.exact {
				sw.deliberate[reason]++
				continue
			}
			if len(sw.violations[msg]) < 3 {
				sw.violations[msg] = append(sw.violations[msg], op.method+" "+target)
			}
		}
	}
	return rec.Body.Bytes()
}

func flattenErrors(err error) []string {
	var out []string
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(x)
			}
		case *openapi3filter.ResponseError:
			if e.Err != nil {
				walk(e.Err)
			} else {
				out = append(out, e.Error())
			}
		case *openapi3.SchemaError:
			out = append(out, fmt.Sprintf("%s at %s: %s", e.SchemaField, strings.Join(e.JSONPointer(), "."), e.Reason))
		default:
			if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
				walk(u.Unwrap())
				return
			}
			out = append(out, err.Error())
		}
	}
	walk(err)
	return out
}

func deliberateViolation(op ss12000Op, msg string) string {
	// Attendance schedules: times of day where SS 12000 declares an integer.
	if strings.HasPrefix(op.path, "/attendanceSchedule") && strings.HasPrefix(msg, "type at ") &&
		strings.HasSuffix(strings.SplitN(msg, ":", 2)[0], "scheduleEntries.[].endTime") {
		return ss12000Deliberate["endTime"]
	}
	// Absences: the spec's values of type, on absences only.
	if strings.HasPrefix(op.path, "/absences") && strings.HasPrefix(msg, "enum at ") {
		at := strings.SplitN(msg, ":", 2)[0]
		if at == "enum at type" || strings.HasSuffix(at, ".type") {
			return ss12000Deliberate[`"type"`]
		}
	}
	return ""
}

// sampleValue is a value for a query parameter of the official document:
// a real id or code where the parameter names one, else a value of its
// schema.
func (sw *ss12000Sweeper) sampleValue(p *openapi3.Parameter, samples map[string]string) []string {
	if v, ok := samples[p.Name]; ok {
		return []string{v}
	}
	s := p.Schema.Value
	if s.Type.Is("array") && s.Items != nil {
		if len(s.Items.Value.Enum) > 0 {
			var out []string
			for _, e := range s.Items.Value.Enum {
				out = append(out, fmt.Sprint(e))
			}
			return out
		}
		return []string{sampleScalar(s.Items.Value)}
	}
	return []string{sampleScalar(s)}
}

func sampleScalar(s *openapi3.Schema) string {
	switch {
	case len(s.Enum) > 0:
		return fmt.Sprint(s.Enum[0])
	case s.Format == "uuid":
		return unknownID
	case s.Format == "date":
		return "2026-01-01"
	case s.Format == "date-time":
		return "2026-01-01T00:00:00Z"
	case s.Type.Is("boolean"):
		return "true"
	case s.Type.Is("integer"):
		return "2"
	}
	return "a"
}

// required are the parameters the document requires, with wide values.
var ss12000Required = map[string]string{
	"startTime.onOrAfter":  "2000-01-01T00:00:00Z",
	"startTime.onOrBefore": "2100-01-01T00:00:00Z",
	"startDate":            "2000-01-01",
	"endDate":              "2100-01-01",
}

// TestEveryReadOperationValidatesAgainstSS12000 sweeps the default scenario
// (every resource has records) and the edge cases (protected identities,
// coordination numbers, open ends, empty groups, ...), under the service
// profile (TestEveryOperationOfTheSS12000ProfileValidatesAgainstSS12000
// sweeps the ss12000 profile).
func TestEveryReadOperationValidatesAgainstSS12000(t *testing.T) {
	for _, name := range []string{"default", "edge-cases"} {
		t.Run(name, func(t *testing.T) { sweepSS12000(t, name, ProfileService) })
	}
}

// sweepSS12000 sweeps the read operations of a scenario served under a
// profile (and the legal variants given). Under the service profile the
// deliberate differences are accepted; under ss12000 none is.
func sweepSS12000(t *testing.T, scenario, profile string, variants ...string) {
	_, ops := ss12000Ops(t)
	sc, err := scenarios.Builtin(scenario)
	require.NoError(t, err)
	sc.Clients = slices.Clone(sc.Clients)
	sc.Clients[0].RateLimit = 1 << 30
	clock := &fakeClock{t: testNow}
	srv, err := New(Options{Scenario: sc, Now: clock.Now, Profile: profile, Variants: variants})
	require.NoError(t, err)
	p := &inproc{srv: srv, clock: clock}
	p.id, p.secret = srv.Credentials()
	p.token = p.fetchToken(t)
	sw := &ss12000Sweeper{t: t, p: p, exact: profile == ProfileSS12000, violations: map[string][]string{}, deliberate: map[string]int{}}
	ds := p.srv.store.Export()

	// Real values for the filters that name records.
	firstOf := func(n int, ok func(i int) bool) int {
		for i := range n {
			if ok(i) {
				return i
			}
		}
		t.Fatalf("scenario %s lacks a record the sweep needs", scenario)
		return -1
	}
	pl := ds.Placements[firstOf(len(ds.Placements), func(i int) bool { return len(ds.Placements[i].Owners) > 0 })]
	grp := ds.Groups[firstOf(len(ds.Groups), func(i int) bool { return len(ds.Groups[i].GroupMemberships) > 0 })]
	act := ds.Activities[firstOf(len(ds.Activities), func(i int) bool { return len(ds.Activities[i].Teachers) > 0 })]
	civic := ds.Persons[firstOf(len(ds.Persons), func(i int) bool { return ds.Persons[i].CivicNo != nil })]
	unit := ds.Organisations[firstOf(len(ds.Organisations), func(i int) bool { return ds.Organisations[i].SchoolUnitCode != "" })]
	samples := map[string]string{
		"organisation": pl.PlacedAt.ID, "parent": ds.Organisations[firstOf(len(ds.Organisations), func(i int) bool {
			return ds.Organisations[i].ParentOrganisation == nil
		})].ID, "relationship.organisation": pl.PlacedAt.ID,
		"group": grp.ID, "child": pl.Child.ID, "owner": pl.Owners[0].ID, "student": ds.Attendances[0].Student.ID,
		"person": pl.Child.ID, "member": grp.GroupMemberships[0].Person.ID,
		"teacher": act.Teachers[0].Duty.ID, "activity": act.ID,
		"calendarEvent": ds.Attendances[0].CalendarEvent.ID, "placement": pl.ID,
		"civicNo": civic.CivicNo.Value, "schoolUnitCode": unit.SchoolUnitCode,
		"nameContains": string([]rune(civic.FamilyName)[:3]), "code": "NA",
	}
	// Lists the scenario may leave empty (edge-cases has no upper-secondary
	// school, so no programmes or study plans): their by-id and lookup
	// operations are swept where the default scenario has records.
	mayBeEmpty := scenario != "default"
	for k, v := range ss12000Required {
		samples[k] = v
	}
	requiredQuery := func(op ss12000Op) url.Values {
		q := url.Values{}
		for _, pr := range op.route.Operation.Parameters {
			if pr.Value.In == "query" && pr.Value.Required {
				q.Set(pr.Value.Name, ss12000Required[pr.Value.Name])
			}
		}
		return q
	}

	firstIDs := map[string][]string{} // list path → ids of its first page
	for _, op := range ops {
		key := op.method + " " + op.path
		if _, ok := ss12000NotYetServed[key]; ok || ss12000SweptElsewhere[key] {
			continue
		}
		switch {
		case op.method == http.MethodGet && !strings.Contains(op.path, "{"):
			t.Run(key, func(t *testing.T) {
				sw.t = t
				// 1. The walk, to its end.
				q := requiredQuery(op)
				q.Set("limit", "40")
				target := op.path + "?" + q.Encode()
				pages := 0
				for target != "" && pages < 200 {
					body := sw.send(op, target, nil)
					var page struct {
						Data      []map[string]any `json:"data"`
						PageToken *string          `json:"pageToken"`
					}
					require.NoError(t, json.Unmarshal(body, &page), target)
					if pages == 0 {
						for _, d := range page.Data {
							if id, ok := d["id"].(string); ok {
								firstIDs[op.path] = append(firstIDs[op.path], id)
							}
						}
					}
					pages++
					target = ""
					if page.PageToken != nil {
						// SS 12000 requires some parameters on every page
						// (calendarEvents' startTime bounds): they come along.
						q := requiredQuery(op)
						q.Set("pageToken", *page.PageToken)
						target = op.path + "?" + q.Encode()
					}
				}
				require.Less(t, pages, 200, "the walk ends")
				// 2. Every declared parameter, one at a time (each sortkey and
				// expand value), with the required ones.
				for _, pr := range op.route.Operation.Parameters {
					prm := pr.Value
					if prm.In != "query" || prm.Name == "pageToken" || prm.Required {
						continue
					}
					vals := sw.sampleValue(prm, samples)
					variants := [][]string{vals}
					if prm.Name == "sortkey" {
						variants = nil
						for _, e := range prm.Schema.Value.Enum {
							variants = append(variants, []string{fmt.Sprint(e)})
						}
					}
					for _, v := range variants {
						q := requiredQuery(op)
						q[prm.Name] = v
						sw.send(op, op.path+"?"+q.Encode(), nil)
					}
				}
				// 3. References with names, and every expand at once.
				q = requiredQuery(op)
				q.Set("expandReferenceNames", "true")
				if e := op.route.Operation.Parameters.GetByInAndName("query", "expand"); e != nil {
					q["expand"] = sw.sampleValue(e, nil)
				}
				sw.send(op, op.path+"?"+q.Encode(), nil)
			})
		}
	}
	for _, op := range ops {
		key := op.method + " " + op.path
		if _, ok := ss12000NotYetServed[key]; ok || ss12000SweptElsewhere[key] {
			continue
		}
		base := strings.Split(strings.TrimSuffix(strings.TrimSuffix(op.path, "/{id}"), "/lookup"), "?")[0]
		ids := firstIDs[base]
		switch {
		case op.method == http.MethodGet && strings.HasSuffix(op.path, "/{id}"):
			t.Run(key, func(t *testing.T) {
				sw.t = t
				if len(ids) == 0 && mayBeEmpty {
					t.Logf("%s: no records in scenario %s", base, scenario)
					return
				}
				require.NotEmpty(t, ids, "%s has records to get by id", base)
				for _, id := range ids[:min(3, len(ids))] {
					sw.send(op, base+"/"+id, nil)
					q := url.Values{}
					for _, pr := range op.route.Operation.Parameters {
						if pr.Value.In == "query" {
							q[pr.Value.Name] = sw.sampleValue(pr.Value, nil)
						}
					}
					if len(q) > 0 {
						sw.send(op, base+"/"+id+"?"+q.Encode(), nil)
					}
				}
			})
		case op.method == http.MethodPost && strings.HasSuffix(op.path, "/lookup"):
			t.Run(key, func(t *testing.T) {
				sw.t = t
				body := map[string][]string{}
				schema := op.route.Operation.RequestBody.Value.Content.Get("application/json").Schema.Value
				for name, prop := range schema.Properties {
					if name == "ids" {
						body[name] = append([]string{}, ids[:min(3, len(ids))]...)
						continue
					}
					v := samples[strings.TrimSuffix(strings.TrimSuffix(name, "s"), "Id")]
					switch name {
					case "civicNos":
						v = samples["civicNo"]
					case "schoolUnitCodes":
						v = samples["schoolUnitCode"]
					case "personIds":
						v = samples["child"]
					case "calendareEvents":
						v = samples["calendarEvent"]
					case "teachers":
						v = ds.Activities[0].Teachers[0].Duty.ID
					}
					if v == "" {
						v = sampleScalar(prop.Value.Items.Value)
					}
					body[name] = []string{v}
				}
				b, _ := json.Marshal(body)
				sw.send(op, op.path, b)
				q := url.Values{}
				for _, pr := range op.route.Operation.Parameters {
					if pr.Value.In == "query" {
						q[pr.Value.Name] = sw.sampleValue(pr.Value, nil)
					}
				}
				if len(q) > 0 {
					sw.send(op, op.path+"?"+q.Encode(), b)
				}
			})
		}
	}
	sw.t = t
	msgs := make([]string, 0, len(sw.violations))
	for m := range sw.violations {
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	for _, m := range msgs {
		t.Errorf("schema violation against SS 12000: %s (e.g. %s)", m, strings.Join(sw.violations[m], "; "))
	}
	t.Logf("%d requests; deliberate differences seen: %v", sw.requests, sw.deliberate)
}

// TestEveryDocumentedOperationHasARoute: no operation of the official
// document answers 404 or 405 for lack of a route (the operations of issue
// 12 excepted, by name).
func TestEveryDocumentedOperationHasARoute(t *testing.T) {
	_, ops := ss12000Ops(t)
	p := newInproc(t, 1<<30)
	for _, op := range ops {
		key := op.method + " " + op.path
		if reason, ok := ss12000NotYetServed[key]; ok {
			t.Logf("%s: not served yet (%s)", key, reason)
			continue
		}
		target := PrefixB + strings.ReplaceAll(op.path, "{id}", unknownID)
		var body []byte
		if op.method == http.MethodPost {
			body = []byte(`{"ids":[]}`)
		}
		rec := p.serve(p.request(op.method, target, body, surface.ContentTypeJSON))
		assert.NotEqual(t, http.StatusMethodNotAllowed, rec.Code, "%s: %s", key, rec.Body.String())
		if rec.Code == http.StatusNotFound {
			assert.NotContains(t, rec.Body.String(), "no operation", "%s answers 404 for lack of a route", key)
		}
	}
}
