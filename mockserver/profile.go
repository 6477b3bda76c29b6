package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/internal/wire"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// Profiles: what interface B follows where the service's spec and the
// official SS 12000 2.1.0 document differ. Under ProfileService (the
// default) it follows the spec; under ProfileSS12000 it is the document
// alone: its absence types and required members, lookups without members,
// its integer end times of schedule entries, none of the spec's additions
// (docs/decisions.md#interface-b-profiles; openapi.RegisterSS12000
// is the contract of the profile). The store holds one form whatever the
// profile; a profile only changes interface B's wire.
//
// The mock has one hook point for the profile, in front of interface B's
// handlers (profiled): the request is validated against the profile's
// contract and turned into the service's form (absence types, schedule end
// times), and the answer is turned into the standard's form.
const (
	ProfileService = "service"
	ProfileSS12000 = "ss12000"
)

// Profiles lists the profiles, the default first.
var Profiles = []string{ProfileService, ProfileSS12000}

// checkProfile returns the profile a name selects ("" selects the default).
func checkProfile(name string) (string, error) {
	if name == "" {
		return ProfileService, nil
	}
	if !slices.Contains(Profiles, name) {
		return "", fmt.Errorf("unknown profile %q; known: %s", name, strings.Join(Profiles, ", "))
	}
	return name, nil
}

// Profile returns the profile interface B serves.
func (s *Server) Profile() string { return s.Serving().Profile }

// Serving says how the server departs from its default behaviour now.
type Serving struct {
	// Profile is the profile interface B serves.
	Profile string `json:"profile"`
	// Deviations are the named deviations switched on, sorted.
	Deviations []string `json:"deviations"`
	// Variants are the legal variants switched on, sorted.
	Variants []string `json:"variants"`
}

// Serving returns the profile, and the deviations and legal variants
// switched on (by the scenario and Options).
func (s *Server) Serving() Serving {
	s.ctl.mu.RLock()
	defer s.ctl.mu.RUnlock()
	return Serving{Profile: s.profile, Deviations: slices.Sorted(maps.Keys(s.core.Deviations)), Variants: slices.Sorted(maps.Keys(s.variants))}
}

// absenceTypeToStandard maps the spec's absence types to SS 12000's on the
// wire: excused (approved by the school) is leave the school granted, not
// excused is an absence of another kind the pupil or a guardian reported.
var absenceTypeToStandard = map[model.AbsenceType]string{
	model.AbsenceValid:   openapi.StandardAbsenceTypes[0],
	model.AbsenceInvalid: openapi.StandardAbsenceTypes[1],
}

// absenceTypeFromStandard is absenceTypeToStandard the other way.
func absenceTypeFromStandard(v string) (model.AbsenceType, bool) {
	for spec, std := range absenceTypeToStandard {
		if std == v {
			return spec, true
		}
	}
	return "", false
}

// absenceSpecMembers are the members of an absence the spec adds to SS
// 12000's: the ss12000 profile does not serve them.
var absenceSpecMembers = []string{"registrationDate", "absenceReason", "verified"}

// profileTranslation says what the ss12000 profile changes on the wire of
// one of interface B's operations.
type profileTranslation struct {
	absences  bool // the answer holds absences; a POST body is one
	schedules bool // the answer holds attendance schedules; a POST body is one
}

// profileTranslations are the operations whose wire the ss12000 profile
// changes, by "METHOD path template".
var profileTranslations = map[string]profileTranslation{
	"GET " + PrefixB + "/absences":                   {absences: true},
	"GET " + PrefixB + "/absences/{id}":              {absences: true},
	"POST " + PrefixB + "/absences":                  {absences: true},
	"POST " + PrefixB + "/absences/lookup":           {absences: true},
	"GET " + PrefixB + "/attendanceSchedule":         {schedules: true},
	"GET " + PrefixB + "/attendanceSchedule/{id}":    {schedules: true},
	"POST " + PrefixB + "/attendanceSchedule":        {schedules: true},
	"POST " + PrefixB + "/attendanceSchedule/lookup": {schedules: true},
}

// profiled returns the validation and the handler of an endpoint of
// interface B for whichever profile serves when a request comes: under the
// service profile validate and handle as they are, under ss12000 the
// validation against the profile's contract (built at its first use) and
// the handler between the translations of the request and the answer.
func (s *Server) profiled(e surface.Endpoint, validate func(http.ResponseWriter, *http.Request) bool, handle http.HandlerFunc) (func(http.ResponseWriter, *http.Request) bool, http.HandlerFunc) {
	if e.Kind != surface.Register || e.Doc != openapi.NameRegister || e.Spec != nil {
		return validate, handle
	}
	standard := sync.OnceValues(func() (*validator, error) {
		doc, err := ss12000Requests()
		if err != nil {
			return nil, err
		}
		return newValidatorIn(doc, openapi.NameRegister, e.Method, e.Path)
	})
	tr := profileTranslations[e.Method+" "+e.Path]
	profiledValidate := func(w http.ResponseWriter, r *http.Request) bool {
		if s.profile != ProfileSS12000 {
			return validate(w, r)
		}
		v, err := standard()
		if err != nil {
			s.log.Error("the ss12000 profile's contract", "err", err)
			surface.WriteRegisterError(w, http.StatusInternalServerError, surface.CodeInternal, "unexpected server error")
			return false
		}
		return v.validate(w, r) && tr.request(w, r)
	}
	profiledHandle := func(w http.ResponseWriter, r *http.Request) {
		if s.profile != ProfileSS12000 || tr == (profileTranslation{}) {
			handle(w, r)
			return
		}
		rec := wire.NewRecorder(w)
		handle(rec, r)
		rec.Send(tr.answer)
	}
	return profiledValidate, profiledHandle
}

// ss12000Requests is the document the ss12000 profile validates requests
// against: the profile's, with the writes' bodies closed, so that a member
// the profile's schema does not define is 400 naming it rather than
// dropped (openapi.RegisterSS12000Writes).
var ss12000Requests = sync.OnceValues(openapi.RegisterSS12000Writes)

// request turns a request the profile's contract has validated into the
// service's form: an absence's type, the type filter, schedule end times.
// It answers 400 and reports false for an end time that is no time of day.
func (tr profileTranslation) request(w http.ResponseWriter, r *http.Request) bool {
	if tr.absences && r.Method == http.MethodGet {
		q := r.URL.Query()
		if spec, ok := absenceTypeFromStandard(q.Get("type")); ok {
			q.Set("type", string(spec))
			r.URL.RawQuery = q.Encode()
		}
	}
	if r.Method != http.MethodPost || strings.HasSuffix(r.URL.Path, "/lookup") || !tr.absences && !tr.schedules {
		return true
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body could not be read")
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	v, err := wire.Decode(data)
	body, ok := v.(*wire.Object)
	if err != nil || !ok {
		return true // the handler words the error
	}
	if t, ok := body.String("type"); ok && tr.absences {
		if spec, ok := absenceTypeFromStandard(t); ok {
			body.Set("type", string(spec))
		}
	}
	if tr.schedules {
		for _, member := range []string{"scheduleEntries", "scheduleDays"} {
			entries, _ := body.Get(member)
			list, _ := entries.([]any)
			for i, e := range list {
				entry, _ := e.(*wire.Object)
				if entry == nil {
					continue
				}
				end, _ := entry.Get("endTime")
				n, ok := end.(json.Number)
				if !ok {
					continue
				}
				hhmm, err := strconv.Atoi(n.String())
				if err != nil || hhmm < 0 || hhmm > 2359 || hhmm%100 > 59 {
					surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest,
						fmt.Sprintf("request body: at /%s/%d/endTime: %s is not a time of day as hhmm (1530 for 15:30)", member, i, n))
					return false
				}
				entry.Set("endTime", fmt.Sprintf("%02d:%02d", hhmm/100, hhmm%100))
			}
		}
	}
	out := wire.Encode(body)
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	return true
}

// answer turns a 2xx answer of the service's form into the standard's: each
// absence with SS 12000's type and without the spec's members, each
// schedule entry with its end time as an integer hhmm.
func (tr profileTranslation) answer(a *wire.Answer) {
	v, ok := a.JSON()
	if !ok || !a.OK() {
		return
	}
	for _, rec := range records(v) {
		if tr.absences {
			if t, ok := rec.String("type"); ok {
				if std, ok := absenceTypeToStandard[model.AbsenceType(t)]; ok {
					rec.Set("type", std)
				}
			}
			for _, m := range absenceSpecMembers {
				rec.Delete(m)
			}
		}
		if tr.schedules {
			for _, member := range []string{"scheduleEntries", "scheduleDays"} {
				entries, _ := rec.Get(member)
				list, _ := entries.([]any)
				for _, e := range list {
					entry, _ := e.(*wire.Object)
					if entry == nil {
						continue
					}
					t, _ := entry.String("endTime")
					if h, m, ok := strings.Cut(t, ":"); ok {
						hh, err1 := strconv.Atoi(h)
						mm, err2 := strconv.Atoi(m)
						if err1 == nil && err2 == nil {
							entry.Set("endTime", json.Number(strconv.Itoa(hh*100+mm)))
						}
					}
				}
			}
		}
	}
}

// records returns the records of an answer of interface B: a record, an
// array of records (a lookup) or a page ({"data": [...]}).
func records(v any) []*wire.Object {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case *wire.Object:
		data, _ := x.Get("data")
		page, isPage := data.([]any)
		if !isPage {
			return []*wire.Object{x}
		}
		items = page
	}
	out := make([]*wire.Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(*wire.Object); ok {
			out = append(out, o)
		}
	}
	return out
}

// profileOf returns the profile a scenario is served under: Options.Profile
// when it was set, else the scenario's.
func (s *Server) profileOf(sc *scenarios.Scenario) (string, error) {
	if s.fixedProfile != "" {
		return s.fixedProfile, nil
	}
	return checkProfile(sc.Profile)
}
