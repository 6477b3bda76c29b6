package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

func withProfile(p string) func(*Options) { return func(o *Options) { o.Profile = p } }

// TestSS12000ProfileAbsences: under the ss12000 profile an absence is SS
// 12000's on the wire (its type values, none of the spec's members), a body
// with only the members the standard requires is stored, and the type
// filter takes the standard's values; the store keeps the spec's form.
func TestSS12000ProfileAbsences(t *testing.T) {
	h := newHarness(t, withProfile(ProfileSS12000))
	ds := h.srv.store.Export()
	require.NotEmpty(t, ds.Absences)
	stored := ds.Absences[0]

	var got map[string]any
	res := h.get(PrefixB + "/absences/" + stored.ID)
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&got)
	assert.Equal(t, map[model.AbsenceType]string{model.AbsenceValid: "Beviljad ledighet", model.AbsenceInvalid: "Anmäld frånvaro"}[stored.Type], got["type"])
	for _, m := range []string{"registrationDate", "absenceReason", "verified"} {
		assert.NotContains(t, got, m, "the spec's member %s is not served", m)
	}
	assert.Equal(t, stored.Student.ID, got["student"].(map[string]any)["id"])

	t.Run("the type filter takes the standard's values", func(t *testing.T) {
		invalid := 0
		for _, a := range ds.Absences {
			if a.Type == model.AbsenceInvalid {
				invalid++
			}
		}
		require.NotZero(t, invalid)
		var page struct {
			Data []map[string]any `json:"data"`
		}
		res := h.get(PrefixB + "/absences?limit=1000&type=" + url.QueryEscape("Anmäld frånvaro"))
		require.Equal(t, http.StatusOK, res.status, res)
		res.decode(&page)
		assert.Len(t, page.Data, invalid)
		for _, a := range page.Data {
			assert.Equal(t, "Anmäld frånvaro", a["type"])
		}
		res = h.get(PrefixB + "/absences?type=Ogiltig")
		assert.Equal(t, http.StatusBadRequest, res.status, "the spec's values are not the standard's: %s", res)
		assert.Contains(t, res.errorBody(t).Message, `"type"`)
	})

	t.Run("a body with the members the standard requires", func(t *testing.T) {
		pupil := enrolledPupil(t, ds)
		res := h.postJSON(PrefixB+"/absences", fmt.Sprintf(`{"student":{"id":%q},"startTime":"2026-11-03T08:00:00+01:00","endTime":"2026-11-03T12:00:00+01:00","type":"Beviljad ledighet"}`, pupil.ID))
		require.Equal(t, http.StatusOK, res.status, res)
		var made map[string]any
		res.decode(&made)
		assert.Equal(t, "Beviljad ledighet", made["type"])
		kept, ok := h.srv.store.Read().Absence(made["id"].(string))
		require.True(t, ok)
		assert.Equal(t, model.AbsenceValid, kept.Type, "the store keeps the spec's form")
		assert.Equal(t, model.Date("2026-11-03"), kept.RegistrationDate, "the day the absence starts")
		assert.Equal(t, pupil.Enrolments[0].EnroledAt.ID, kept.Organisation.ID, "the pupil's school unit")
	})

	t.Run("a pupil at no school unit names none", func(t *testing.T) {
		var adult string
		for _, p := range ds.Persons {
			if len(p.Enrolments) == 0 && !hasPlacement(ds, p.ID) {
				adult = p.ID
				break
			}
		}
		require.NotEmpty(t, adult)
		res := h.postJSON(PrefixB+"/absences", fmt.Sprintf(`{"student":{"id":%q},"startTime":"2026-11-03T08:00:00Z","endTime":"2026-11-03T12:00:00Z","type":"Anmäld frånvaro"}`, adult))
		assert.Equal(t, http.StatusBadRequest, res.status, res)
		assert.Contains(t, res.errorBody(t).Message, "organisation: person "+adult)
	})

	t.Run("the spec's type is refused", func(t *testing.T) {
		pupil := enrolledPupil(t, ds)
		res := h.postJSON(PrefixB+"/absences", fmt.Sprintf(`{"student":{"id":%q},"startTime":"2026-11-03T08:00:00Z","endTime":"2026-11-03T12:00:00Z","type":"Giltig"}`, pupil.ID))
		assert.Equal(t, http.StatusBadRequest, res.status, res)
		assert.Contains(t, res.errorBody(t).Message, "/type")
	})
}

// TestSS12000ProfileRefusesUndefinedMembers: under the ss12000 profile a
// write that sends a member the profile's schema does not define (the
// spec's absenceReason and verified, which the service profile defines) is
// 400 with an error body naming each such member, and nothing is stored;
// the service profile takes the same members.
func TestSS12000ProfileRefusesUndefinedMembers(t *testing.T) {
	for _, tc := range []struct {
		profile, typ, more string
		status             int
		named              []string
	}{
		{ProfileSS12000, "Beviljad ledighet", `,"absenceReason":"Sjuk","verified":true`, http.StatusBadRequest, []string{"/absenceReason", "/verified"}},
		{ProfileSS12000, "Beviljad ledighet", `,"colour":"blue"`, http.StatusBadRequest, []string{"/colour"}},
		{ProfileSS12000, "Beviljad ledighet", `,"registeredBy":{"id":"00000000-0000-4000-8000-000000000001","securityMarking":"Ingen","nickname":"x"}`, http.StatusBadRequest, []string{"/registeredBy/nickname"}},
		{ProfileService, "Giltig", `,"registrationDate":"2026-11-03","absenceReason":"Sjuk","verified":true`, http.StatusOK, nil},
	} {
		t.Run(tc.profile+tc.more, func(t *testing.T) {
			h := newHarness(t, withProfile(tc.profile))
			ds := h.srv.store.Export()
			pupil := enrolledPupil(t, ds)
			before := len(ds.Absences)
			res := h.postJSON(PrefixB+"/absences", fmt.Sprintf(`{"student":{"id":%q},"organisation":{"id":%q},"startTime":"2026-11-03T08:00:00+01:00","endTime":"2026-11-03T12:00:00+01:00","type":%q%s}`,
				pupil.ID, pupil.Enrolments[0].EnroledAt.ID, tc.typ, tc.more))
			require.Equal(t, tc.status, res.status, res)
			if tc.status == http.StatusOK {
				return
			}
			body := res.errorBody(t)
			assert.Equal(t, "BadRequest", body.Code)
			for _, member := range tc.named {
				assert.Contains(t, body.Message, "at "+member+": ", "the error names the member %s", member)
			}
			assert.Len(t, h.srv.store.Export().Absences, before, "nothing is stored")
		})
	}
}

// enrolledPupil is a person with an enrolment that covers 2026-11-03.
func enrolledPupil(t *testing.T, ds *store.Dataset) model.Person {
	t.Helper()
	for _, p := range ds.Persons {
		for _, e := range p.Enrolments {
			if e.StartDate <= "2026-11-03" && (e.EndDate == "" || e.EndDate >= "2026-11-03") {
				p.Enrolments = []model.Enrolment{e}
				return p
			}
		}
	}
	t.Fatal("no enrolled pupil")
	return model.Person{}
}

func hasPlacement(ds *store.Dataset, person string) bool {
	for _, p := range ds.Placements {
		if p.Child.ID == person {
			return true
		}
	}
	return false
}

// TestProfilesOnTheWire: what each profile answers where the two differ,
// request by request.
func TestProfilesOnTheWire(t *testing.T) {
	service, standard := newHarness(t), newHarness(t, withProfile(ProfileSS12000))
	ds := service.srv.store.Export()
	require.NotEmpty(t, ds.Attendances)
	var placement string
	for _, p := range ds.Placements {
		if model.IsRegisterPlacement(&p) {
			placement = p.ID
			break
		}
	}
	schedule := func(entries string) string {
		return fmt.Sprintf(`{"placement":{"id":%q},"numberOfWeeks":1,"startDate":"2026-11-02","state":[{"state":"Godkänt","registeredAt":"2026-11-01T10:00:00Z"}],%s}`, placement, entries)
	}
	for _, tc := range []struct {
		name                string
		method, path, body  string
		service, ss12000    int
		serviceHas, ss12Has string // in the answer
	}{
		{"an empty lookup", http.MethodPost, "/groups/lookup", `{}`, 400, 200, `property \"ids\" is missing`, `[]`},
		{"a lookup by ids", http.MethodPost, "/groups/lookup", fmt.Sprintf(`{"ids":[%q]}`, ds.Groups[0].ID), 200, 200, ds.Groups[0].ID, ds.Groups[0].ID},
		{"expandReferenceNames on an attendance", http.MethodGet, "/attendances/" + ds.Attendances[0].ID + "?expandReferenceNames=true", "", 200, 400, ds.Attendances[0].ID, `unknown query parameter(s) \"expandReferenceNames\"`},
		{"a schedule without scheduleDays, the standard's end time", http.MethodPost, "/attendanceSchedule",
			schedule(`"scheduleEntries":[{"weekOffset":0,"dayOfWeek":"Måndag","startTime":"08:00","endTime":1600}]`), 400, 200, `scheduleDays`, `"endTime":1600`},
		{"a schedule with the service's end time", http.MethodPost, "/attendanceSchedule",
			schedule(`"scheduleDays":[{"weekOffset":0,"dayOfWeek":"Måndag","startTime":"08:00","endTime":"16:00"}]`), 200, 400, `"endTime":"16:00"`, `value must be an integer`},
		{"an end time that is no time of day", http.MethodPost, "/attendanceSchedule",
			schedule(`"scheduleEntries":[{"weekOffset":0,"dayOfWeek":"Måndag","startTime":"08:00","endTime":1675}]`), 400, 400, `scheduleDays`, `at /scheduleEntries/0/endTime: 1675 is not a time of day as hhmm`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []struct {
				h      *harness
				status int
				has    string
			}{{service, tc.service, tc.serviceHas}, {standard, tc.ss12000, tc.ss12Has}} {
				res := p.h.call(tc.method, PrefixB+tc.path, tc.body, nil)
				assert.Equal(t, p.status, res.status, "%s: %s", p.h.srv.Profile(), res)
				assert.Contains(t, string(res.body), p.has, p.h.srv.Profile())
			}
		})
	}

	t.Run("a schedule's end time reads back in each profile's form", func(t *testing.T) {
		res := standard.postJSON(PrefixB+"/attendanceSchedule", schedule(`"scheduleEntries":[{"weekOffset":0,"dayOfWeek":"Måndag","startTime":"08:00","endTime":805}]`))
		require.Equal(t, http.StatusOK, res.status, res)
		var made struct{ ID string }
		res.decode(&made)
		assert.Contains(t, string(standard.get(PrefixB+"/attendanceSchedule/"+made.ID).body), `"endTime":805`)
		kept, ok := standard.srv.store.Read().Get(store.TableAttendanceSchedules, made.ID)
		require.True(t, ok)
		assert.Equal(t, "08:05", kept.(*model.AttendanceSchedule).ScheduleEntries[0].EndTime, "the store keeps HH:MM")
	})

	t.Run("the served contract is the profile's", func(t *testing.T) {
		info := func(h *harness) map[string]any {
			var doc struct {
				Info map[string]any `json:"info"`
			}
			require.NoError(t, json.Unmarshal(h.get(PrefixB+"/openapi.json").body, &doc))
			return doc.Info
		}
		assert.Equal(t, "ss12000", info(standard)["x-skolkit-profile"])
		assert.NotContains(t, info(service), "x-skolkit-profile")
	})
}

// TestProfileChoice: Options.Profile replaces every scenario's profile; a
// scenario names its own; the control plane's answers say which serves; an
// unknown name is an error.
func TestProfileChoice(t *testing.T) {
	_, err := New(Options{Profile: "iso"})
	assert.ErrorContains(t, err, `unknown profile "iso"; known: service, ss12000`)

	h := newHarness(t, smallScenario(t, "profile: ss12000\n"))
	assert.Equal(t, ProfileSS12000, h.srv.Profile())
	var sum Summary
	res := h.admin(http.MethodPost, "/reset", "")
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&sum)
	assert.Equal(t, ProfileSS12000, sum.Profile)

	res = h.call(http.MethodPut, PrefixAdmin+"/scenario", "name: plain\nseed: 1\nclients: [{id: skolkit-client, secret: skolkit-secret, scopes: [all]}]\ngenerate: {profile: none, schoolUnits: 1}\n", http.Header{"Content-Type": {"application/yaml"}})
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&sum)
	assert.Equal(t, ProfileService, sum.Profile, "a scenario without a profile is served under the service profile")

	fixed := newHarness(t, smallScenario(t, "profile: ss12000\n"), withProfile(ProfileService))
	assert.Equal(t, ProfileService, fixed.srv.Profile(), "Options.Profile replaces the scenario's")

	_, err = scenarios.Parse("p.yaml", []byte("name: p\nclients: [{id: a, secret: b, scopes: [all]}]\nprofile: iso\n"))
	assert.ErrorContains(t, err, `unknown profile "iso"; known: service, ss12000`)
}
