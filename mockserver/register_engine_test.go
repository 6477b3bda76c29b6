package mockserver

// Behaviour of interface B's resource engine: every list walks
// every record once, filters and sort keys agree with a brute-force reading
// of the store, lookups find what their keys name, and a write through
// interface A is visible through interface B at once.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// wideTime is the startTime range calendarEvents requires.
const wideTime = "startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2100-01-01T00:00:00Z"

// walkIDs walks a list to its end with a small limit and returns the ids in
// the order served. Required parameters go along with every page.
func walkIDs(t *testing.T, h *harness, path, query, required string) []string {
	t.Helper()
	first := query
	if required != "" {
		first = strings.TrimPrefix(query+"&"+required, "&")
	}
	return walkPages(t, h, path, first, required, 7, nil)
}

// walkPages walks a list to its end with the limit and returns the ids in
// the order served: the first page with the query first, each later one
// with its pageToken and the query later (the parameters SS 12000 requires
// on every page: docs/decisions.md#pagetoken-companions). Between pages it
// calls between (nil: nothing).
func walkPages(t *testing.T, h *harness, path, first, later string, limit int, between func()) []string {
	t.Helper()
	var ids []string
	target := fmt.Sprintf("%s%s?limit=%d", PrefixB, path, limit)
	if first != "" {
		target += "&" + first
	}
	for pages := 0; target != ""; pages++ {
		require.Less(t, pages, 5000, "the walk of %s ends", path)
		res := h.get(target)
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			PageToken *string `json:"pageToken"`
		}
		res.decode(&page)
		require.LessOrEqual(t, len(page.Data), limit, res)
		for _, d := range page.Data {
			ids = append(ids, d.ID)
		}
		target = ""
		if page.PageToken != nil {
			target = PrefixB + path + "?pageToken=" + url.QueryEscape(*page.PageToken)
			if later != "" {
				target += "&" + later
			}
			if between != nil {
				between()
			}
		}
	}
	return ids
}

func idsOf[T any](recs []T, id func(*T) string, keep func(*T) bool) []string {
	var out []string
	for i := range recs {
		if keep == nil || keep(&recs[i]) {
			out = append(out, id(&recs[i]))
		}
	}
	return out
}

func TestEveryListWalksEveryRecordOnce(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	for _, c := range []struct {
		path, required string
		want           []string
	}{
		{"/organisations", "", idsOf(ds.Organisations, func(o *model.Organisation) string { return o.ID }, nil)},
		{"/persons", "", idsOf(ds.Persons, func(p *model.Person) string { return p.ID }, nil)},
		{"/placements", "", idsOf(ds.Placements, func(p *model.Placement) string { return p.ID }, model.IsRegisterPlacement)},
		{"/duties", "", idsOf(ds.EmployeePlacements, func(p *model.EmployeePlacement) string { return p.ID }, nil)},
		{"/groups", "", idsOf(ds.Groups, func(g *model.Group) string { return g.ID }, nil)},
		{"/programmes", "", idsOf(ds.Programmes, func(p *model.Programme) string { return p.ID }, nil)},
		{"/studyplans", "", idsOf(ds.StudyPlans, func(p *model.StudyPlan) string { return p.ID }, nil)},
		{"/syllabuses", "", idsOf(ds.Syllabuses, func(s *model.Syllabus) string { return s.ID }, nil)},
		{"/schoolUnitOfferings", "", idsOf(ds.SchoolUnitOfferings, func(o *model.SchoolUnitOffering) string { return o.ID }, nil)},
		{"/activities", "", idsOf(ds.Activities, func(a *model.Activity) string { return a.ID }, nil)},
		{"/calendarEvents", wideTime, idsOf(ds.CalendarEvents, func(e *model.CalendarEvent) string { return e.ID }, nil)},
		{"/attendances", "", idsOf(ds.Attendances, func(a *model.Attendance) string { return a.ID }, nil)},
		{"/attendanceEvents", "", idsOf(ds.AttendanceEvents, func(e *model.AttendanceEvent) string { return e.ID }, nil)},
		{"/attendanceSchedule", "", idsOf(ds.AttendanceSchedules, func(s *model.AttendanceSchedule) string { return s.ID }, nil)},
		{"/grades", "", idsOf(ds.Grades, func(g *model.Grade) string { return g.ID }, nil)},
		{"/absences", "", idsOf(ds.Absences, func(a *model.Absence) string { return a.ID }, nil)},
		{"/resources", "", idsOf(ds.Resources, func(r *model.Resource) string { return r.ID }, nil)},
		{"/rooms", "", idsOf(ds.Rooms, func(r *model.Room) string { return r.ID }, nil)},
	} {
		t.Run(c.path, func(t *testing.T) {
			require.NotEmpty(t, c.want, "the default scenario has %s", c.path)
			got := walkIDs(t, h, c.path, "", c.required)
			assert.ElementsMatch(t, c.want, got, "every record exactly once")
		})
	}
}

func TestFiltersAndSortKeysAgreeWithTheStore(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	// The organiser and a school unit, by type (not by their place in id
	// order, which the seed decides).
	organiser := ds.Organisations[slices.IndexFunc(ds.Organisations, func(o model.Organisation) bool {
		return o.OrganisationType == model.OrganisationTypeOrganiser
	})]
	unit := ds.Organisations[slices.IndexFunc(ds.Organisations, func(o model.Organisation) bool {
		return o.OrganisationType == model.OrganisationTypeSchoolUnit
	})]
	pl := ds.Placements[0]
	staff := ds.EmployeePlacements[0]
	grp := ds.Groups[0]
	var member string
	for _, g := range ds.Groups {
		if g.GroupType == model.GroupTypeTeaching && len(g.GroupMemberships) > 0 {
			member = g.GroupMemberships[0].Person.ID
			break
		}
	}
	require.NotEmpty(t, member)
	memberGroups := map[string]bool{}
	for _, g := range ds.Groups {
		for _, m := range g.GroupMemberships {
			if m.Person.ID == member {
				memberGroups[g.ID] = true
			}
		}
	}
	act := ds.Activities[0]
	civic := ds.Persons[3].CivicNo.Value
	name := strings.ToLower(ds.Persons[5].FamilyName[:4])

	for _, c := range []struct {
		name, path, query, required string
		want                        []string
		ordered                     bool
	}{
		{"organisations of a type", "/organisations", "type=Skolenhet", "",
			idsOf(ds.Organisations, func(o *model.Organisation) string { return o.ID }, func(o *model.Organisation) bool { return o.OrganisationType == model.OrganisationTypeSchoolUnit }), false},
		{"organisations below a parent", "/organisations", "parent=" + organiser.ID, "",
			idsOf(ds.Organisations, func(o *model.Organisation) string { return o.ID }, func(o *model.Organisation) bool {
				return o.ParentOrganisation != nil && o.ParentOrganisation.ID == organiser.ID
			}), false},
		{"organisation by school unit code", "/organisations", "schoolUnitCode=" + unit.SchoolUnitCode, "", []string{unit.ID}, false},
		{"person by civic number", "/persons", "civicNo=" + civic, "", []string{ds.Persons[3].ID}, false},
		{"persons whose name contains", "/persons", "nameContains=" + name, "",
			idsOf(ds.Persons, func(p *model.Person) string { return p.ID }, func(p *model.Person) bool {
				return strings.Contains(strings.ToLower(p.GivenName+"\x00"+p.MiddleName+"\x00"+p.FamilyName), name)
			}), false},
		{"children placed at a unit", "/persons", "relationship.entity.type=placement.child&relationship.organisation=" + pl.PlacedAt.ID, "",
			uniq(idsOf(ds.Placements, func(p *model.Placement) string { return p.Child.ID }, func(p *model.Placement) bool {
				return model.IsRegisterPlacement(p) && p.PlacedAt.ID == pl.PlacedAt.ID
			})), false},
		{"persons by family name", "/persons", "sortkey=FamilyNameAsc", "", sortedPersons(ds.Persons), true},
		{"persons enrolled at a unit", "/persons", "relationship.entity.type=enrolment&relationship.organisation=" + enrolledAt(ds), "",
			idsOf(ds.Persons, func(p *model.Person) string { return p.ID }, func(p *model.Person) bool {
				return slices.ContainsFunc(p.Enrolments, func(e model.Enrolment) bool { return e.EnroledAt.ID == enrolledAt(ds) })
			}), false},
		{"responsible for a child placed at a unit, by name", "/persons", "relationship.entity.type=responsibleFor.placement&sortkey=FamilyNameAsc&relationship.organisation=" + pl.PlacedAt.ID, "",
			responsibleForPlacedAt(ds, pl.PlacedAt.ID), true},
		{"duties of a person", "/duties", "person=" + staff.EmployeeID, "",
			idsOf(ds.EmployeePlacements, func(p *model.EmployeePlacement) string { return p.ID }, func(p *model.EmployeePlacement) bool { return p.EmployeeID == staff.EmployeeID }), false},
		{"groups of a unit by name", "/groups", "organisation=" + grp.Organisation.ID + "&sortkey=DisplayNameAsc", "",
			sortedGroups(ds.Groups, grp.Organisation.ID), true},
		{"activities of a member", "/activities", "member=" + member, "",
			idsOf(ds.Activities, func(a *model.Activity) string { return a.ID }, func(a *model.Activity) bool {
				return slices.ContainsFunc(a.Groups, func(g model.ObjectReference) bool { return memberGroups[g.ID] })
			}), false},
		{"calendar events of an activity", "/calendarEvents", "activity=" + act.ID, wideTime,
			idsOf(ds.CalendarEvents, func(e *model.CalendarEvent) string { return e.ID }, func(e *model.CalendarEvent) bool { return e.Activity.ID == act.ID }), false},
		{"calendar events of a student", "/calendarEvents", "student=" + member, wideTime,
			idsOf(ds.CalendarEvents, func(e *model.CalendarEvent) string { return e.ID }, func(e *model.CalendarEvent) bool { return memberGroups[e.Group.ID] }), false},
		{"calendar events of a group", "/calendarEvents", "group=" + ds.CalendarEvents[0].Group.ID, wideTime,
			idsOf(ds.CalendarEvents, func(e *model.CalendarEvent) string { return e.ID }, func(e *model.CalendarEvent) bool { return e.Group.ID == ds.CalendarEvents[0].Group.ID }), false},
		{"calendar events of a school", "/calendarEvents", "organisation=" + ds.CalendarEvents[0].Organisation.ID, wideTime,
			idsOf(ds.CalendarEvents, func(e *model.CalendarEvent) string { return e.ID }, func(e *model.CalendarEvent) bool {
				return e.Organisation.ID == ds.CalendarEvents[0].Organisation.ID
			}), false},
		{"calendar events of a duty", "/calendarEvents", "teacher=" + act.Teachers[0].Duty.ID, wideTime,
			idsOf(ds.CalendarEvents, func(e *model.CalendarEvent) string { return e.ID }, func(e *model.CalendarEvent) bool {
				for _, a := range ds.Activities {
					if a.ID == e.Activity.ID && slices.ContainsFunc(a.Teachers, func(d model.DutyAssignment) bool { return d.Duty.ID == act.Teachers[0].Duty.ID }) {
						return true
					}
				}
				return false
			}), false},
		{"attendances of a student", "/attendances", "student=" + ds.Attendances[0].Student.ID, "",
			idsOf(ds.Attendances, func(a *model.Attendance) string { return a.ID }, func(a *model.Attendance) bool { return a.Student.ID == ds.Attendances[0].Student.ID }), false},
		{"attendance events of a group", "/attendanceEvents", "group=" + ds.AttendanceEvents[0].Group.ID, "",
			idsOf(ds.AttendanceEvents, func(e *model.AttendanceEvent) string { return e.ID }, func(e *model.AttendanceEvent) bool { return e.Group.ID == ds.AttendanceEvents[0].Group.ID }), false},
		{"schedule of a placement", "/attendanceSchedule", "placement=" + pl.ID, "",
			idsOf(ds.AttendanceSchedules, func(s *model.AttendanceSchedule) string { return s.ID }, func(s *model.AttendanceSchedule) bool { return s.Placement.ID == pl.ID }), false},
		{"grades of a student", "/grades", "student=" + ds.Grades[0].Student.ID, "",
			idsOf(ds.Grades, func(g *model.Grade) string { return g.ID }, func(g *model.Grade) bool { return g.Student.ID == ds.Grades[0].Student.ID }), false},
		{"rooms of a unit", "/rooms", "organisation=" + unit.ID, "",
			idsOf(ds.Rooms, func(r *model.Room) string { return r.ID }, func(r *model.Room) bool { return r.Owner.ID == unit.ID }), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NotEmpty(t, c.want, "the case selects something")
			got := walkIDs(t, h, c.path, c.query, c.required)
			if c.ordered {
				assert.Equal(t, c.want, got)
			} else {
				assert.ElementsMatch(t, c.want, got)
			}
		})
	}
}

func enrolledAt(ds *store.Dataset) string {
	for _, p := range ds.Persons {
		if len(p.Enrolments) > 0 {
			return p.Enrolments[0].EnroledAt.ID
		}
	}
	return ""
}

// responsibleForPlacedAt: the responsibles of the children placed at org,
// in FamilyNameAsc order.
func responsibleForPlacedAt(ds *store.Dataset, org string) []string {
	children := map[string]bool{}
	for _, p := range ds.Placements {
		if model.IsRegisterPlacement(&p) && p.PlacedAt.ID == org {
			children[p.Child.ID] = true
		}
	}
	adults := map[string]bool{}
	for _, p := range ds.Persons {
		if children[p.ID] {
			for _, r := range p.Responsibles {
				adults[r.Person.ID] = true
			}
		}
	}
	var ps []model.Person
	for _, p := range ds.Persons {
		if adults[p.ID] {
			ps = append(ps, p)
		}
	}
	return sortedPersons(ps)
}

func uniq(ids []string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}

func sortedPersons(ps []model.Person) []string {
	ps = slices.Clone(ps)
	key := func(p *model.Person) string { return strings.ToLower(p.FamilyName+"\x01"+p.GivenName) + "\x00" + p.ID }
	slices.SortFunc(ps, func(a, b model.Person) int { return strings.Compare(key(&a), key(&b)) })
	return idsOf(ps, func(p *model.Person) string { return p.ID }, nil)
}

func sortedGroups(gs []model.Group, org string) []string {
	gs = slices.DeleteFunc(slices.Clone(gs), func(g model.Group) bool { return g.Organisation.ID != org })
	key := func(g *model.Group) string { return strings.ToLower(g.DisplayName) + "\x00" + g.ID }
	slices.SortFunc(gs, func(a, b model.Group) int { return strings.Compare(key(&a), key(&b)) })
	return idsOf(gs, func(g *model.Group) string { return g.ID }, nil)
}

func TestLookupsFindWhatTheirKeysName(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	pl := ds.Placements[0]
	at := ds.Attendances[0]
	unit := ds.Organisations[slices.IndexFunc(ds.Organisations, func(o model.Organisation) bool { return o.SchoolUnitCode != "" })]
	for _, c := range []struct {
		name, path, body string
		want             []string
	}{
		{"persons by civic number", "/persons/lookup", fmt.Sprintf(`{"civicNos":[%q,%q]}`, ds.Persons[1].CivicNo.Value, ds.Persons[2].CivicNo.Value),
			[]string{ds.Persons[1].ID, ds.Persons[2].ID}},
		{"persons by id and civic number, each once", "/persons/lookup", fmt.Sprintf(`{"ids":[%q],"civicNos":[%q]}`, strings.ToUpper(ds.Persons[1].ID), ds.Persons[1].CivicNo.Value),
			[]string{ds.Persons[1].ID}},
		{"organisations by school unit code", "/organisations/lookup", fmt.Sprintf(`{"schoolUnitCodes":[%q]}`, unit.SchoolUnitCode),
			[]string{unit.ID}},
		{"placements of a child", "/placements/lookup", fmt.Sprintf(`{"personIds":[%q]}`, pl.Child.ID),
			idsOf(ds.Placements, func(p *model.Placement) string { return p.ID }, func(p *model.Placement) bool {
				return p.Child.ID == pl.Child.ID && model.IsRegisterPlacement(p)
			})},
		{"attendances of an event, by SS 12000's misspelt key", "/attendances/lookup", fmt.Sprintf(`{"calendareEvents":[%q]}`, at.CalendarEvent.ID),
			idsOf(ds.Attendances, func(a *model.Attendance) string { return a.ID }, func(a *model.Attendance) bool { return a.CalendarEvent.ID == at.CalendarEvent.ID })},
		{"syllabuses by id, unknown left out", "/syllabuses/lookup", fmt.Sprintf(`{"ids":[%q,%q]}`, ds.Syllabuses[0].ID, unknownID),
			[]string{ds.Syllabuses[0].ID}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+c.path, c.body)
			require.Equal(t, http.StatusOK, res.status, res)
			var got []struct {
				ID string `json:"id"`
			}
			res.decode(&got)
			ids := make([]string, len(got))
			for i, g := range got {
				ids[i] = g.ID
			}
			assert.ElementsMatch(t, c.want, ids)
		})
	}
	t.Run("more than 500 keys", func(t *testing.T) {
		keys := make([]string, 501)
		for i := range keys {
			keys[i] = fmt.Sprintf("%012d", i)
		}
		b, _ := json.Marshal(map[string][]string{"civicNos": keys})
		res := h.postJSON(PrefixB+"/persons/lookup", string(b))
		require.Equal(t, http.StatusBadRequest, res.status, res)
		assert.Contains(t, res.errorBody(t).Message, "at most 500")
	})
}

func TestLimitAboveThePageSizeGivesAFullPage(t *testing.T) {
	h := newHarness(t)
	res := h.get(PrefixB + "/persons?limit=5000")
	require.Equal(t, http.StatusOK, res.status, res)
	var page struct {
		Data      []json.RawMessage `json:"data"`
		PageToken *string           `json:"pageToken"`
	}
	res.decode(&page)
	n := len(h.srv.store.Export().Persons)
	if n > maxPageSize {
		assert.Len(t, page.Data, maxPageSize)
		assert.NotNil(t, page.PageToken)
	} else {
		assert.Len(t, page.Data, n)
		assert.Nil(t, page.PageToken)
	}
}

func TestAPageTokenBelongsToItsList(t *testing.T) {
	h := newHarness(t)
	res := h.get(PrefixB + "/persons?limit=1")
	require.Equal(t, http.StatusOK, res.status, res)
	var page struct {
		PageToken *string `json:"pageToken"`
	}
	res.decode(&page)
	require.NotNil(t, page.PageToken)
	res = h.get(PrefixB + "/groups?pageToken=" + url.QueryEscape(*page.PageToken))
	require.Equal(t, http.StatusBadRequest, res.status, res)
	assert.Contains(t, res.errorBody(t).Message, "another list")
}

// TestInterfaceAWritesAreVisibleInInterfaceB: one store, two views.
func TestInterfaceAWritesAreVisibleInInterfaceB(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	var school string
	for _, o := range ds.Organisations {
		if o.Directory != nil {
			school = o.ID
			break
		}
	}
	require.NotEmpty(t, school)

	// Read first, so that a cached answer would be stale.
	require.Equal(t, http.StatusOK, h.get(PrefixB+"/persons?limit=1").status)
	employee := h.newEmployee(t)
	res := h.get(PrefixB + "/persons/" + employee)
	require.Equal(t, http.StatusOK, res.status, "an employee created through A is a person of B: %s", res)
	var p model.Person
	res.decode(&p)
	assert.Equal(t, "Lärare", p.FamilyName)

	duty := h.mustCreate(t, "/employee-placement", fmt.Sprintf(`{"employeeID":%q,"schoolID":%q,"startDate":"2026-08-01","roles":["Teacher"],"employmentPercent":80}`, employee, school))
	res = h.get(PrefixB + "/duties/" + duty)
	require.Equal(t, http.StatusOK, res.status, "an employee placement created through A is a duty of B: %s", res)
	var d model.Duty
	res.decode(&d)
	assert.Equal(t, employee, d.Person.ID)
	assert.Equal(t, school, d.DutyAt.ID)
	assert.Equal(t, "Lärare", d.DutyRole)
	require.NotNil(t, d.DutyPercent)
	assert.Equal(t, 80, *d.DutyPercent)
	assert.Contains(t, walkIDs(t, h, "/duties", "person="+employee, ""), duty)

	res = h.get(PrefixB + "/persons?relationship.entity.type=duty&relationship.organisation=" + school + "&nameContains=l%C3%A4rare")
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Contains(t, string(res.body), employee)

	// A school renamed through A is the organisation renamed in B, at once
	// (the organisation was read, and cached, before).
	require.Equal(t, http.StatusOK, h.get(PrefixB+"/organisations/"+school).status)
	res = h.send(http.MethodPatch, PrefixA+"/school/"+school, `{"title":"Nya Ekskolan"}`)
	require.Equal(t, http.StatusOK, res.status, res)
	res = h.get(PrefixB + "/organisations/" + school)
	require.Equal(t, http.StatusOK, res.status, res)
	var o model.Organisation
	res.decode(&o)
	assert.Equal(t, "Nya Ekskolan", o.DisplayName)

	// A unit created through A is an organisation of type Förvaltning in B.
	unit := h.mustCreate(t, "/unit", `{"title":"Förvaltningen Norr"}`)
	res = h.get(PrefixB + "/organisations/" + unit)
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&o)
	assert.Equal(t, "Förvaltningen Norr", o.DisplayName)
	assert.Equal(t, model.OrganisationType("Förvaltning"), o.OrganisationType)
	assert.Contains(t, walkIDs(t, h, "/organisations", "type=F%C3%B6rvaltning", ""), unit)
}

func TestArrayFiltersMatchAnyOfTheirValues(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	want := idsOf(ds.Groups, func(g *model.Group) string { return g.ID }, func(g *model.Group) bool {
		return g.SchoolType == model.SchoolTypeGR || g.SchoolType == model.SchoolTypeFS
	})
	require.NotEmpty(t, want)
	assert.ElementsMatch(t, want, walkIDs(t, h, "/groups", "schoolTypes=GR&schoolTypes=FS", ""))
	wantOrg := idsOf(ds.Organisations, func(o *model.Organisation) string { return o.ID }, func(o *model.Organisation) bool {
		return slices.Contains(o.SchoolTypes, model.SchoolTypeGY) || slices.Contains(o.SchoolTypes, model.SchoolTypeFS)
	})
	require.NotEmpty(t, wantOrg)
	assert.ElementsMatch(t, wantOrg, walkIDs(t, h, "/organisations", "schoolTypes=GY&schoolTypes=FS", ""))
}

// TestActivitiesNameExistingDuties: one store, two views: an activity's
// teachers are duties, which are interface A's employee placements.
func TestActivitiesNameExistingDuties(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	n := 0
	for _, a := range ds.Activities {
		for _, d := range a.Teachers {
			res := h.get(PrefixB + "/duties/" + d.Duty.ID)
			require.Equal(t, http.StatusOK, res.status, "activity %s names duty %s: %s", a.ID, d.Duty.ID, res)
			n++
		}
	}
	require.NotZero(t, n)
}

// TestDutiesShowTheirAssignmentRoles: a group's assignment role names a duty
// (the staff member's employee placement at the school), and the duty shows
// the role.
func TestDutiesShowTheirAssignmentRoles(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	found := 0
	for _, g := range ds.Groups {
		for _, ar := range g.AssignmentRoles {
			res := h.get(PrefixB + "/duties/" + ar.Duty.ID)
			if res.status == http.StatusNotFound {
				continue // a staff member without a derived employee placement there
			}
			require.Equal(t, http.StatusOK, res.status, res)
			var d model.Duty
			res.decode(&d)
			assert.True(t, slices.ContainsFunc(d.AssignmentRole, func(r model.DutyAssignmentRole) bool {
				return r.Group.ID == g.ID && r.AssignmentRoleType == ar.AssignmentRoleType
			}), "duty %s shows its role in group %s", ar.Duty.ID, g.ID)
			found++
		}
	}
	require.NotZero(t, found, "some assignment roles name duties")
	t.Logf("%d assignment roles name a duty", found)
}

// TestAggregatedAttendanceSumsTheRecords: every walk of aggregated attendance,
// in pages small enough to end inside a pupil's activities, yields each
// (activity, pupil) of the period once with the sums of its records, as a
// brute-force reading of the records gives them: through the period's events
// (the default scenario; a day of the busy one) and pupil by pupil (the busy
// scenario's 30,000 lessons over a long period), with and without a pupil.
func TestAggregatedAttendanceSumsTheRecords(t *testing.T) {
	busy := func(o *Options) {
		unlimited(t, "default", 12000)(o)
		o.Scenario.Generate.CalendarEvents, o.Scenario.Generate.Attendances = 30000, 3000
	}
	// manyDates adds a lesson with an attendance record on each of more
	// dates than a period is read date by date: the whole period is then
	// read pupil by pupil.
	manyDates := func(t *testing.T, h *harness) {
		ds := h.srv.store.Export()
		require.NotEmpty(t, ds.Attendances)
		a := ds.Attendances[0]
		var ev model.CalendarEvent
		for _, e := range ds.CalendarEvents {
			if e.ID == a.CalendarEvent.ID {
				ev = e
			}
		}
		start := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)
		for d := range register.PeriodDaysMerged + 50 {
			e := ev
			e.ID = fmt.Sprintf("e0000000-0000-4000-8000-%012d", d)
			e.StartTime, e.EndTime = start.AddDate(0, 0, d), start.AddDate(0, 0, d).Add(40*time.Minute)
			rec := a
			rec.ID = fmt.Sprintf("a0000000-0000-4000-8000-%012d", d)
			rec.CalendarEvent.ID = e.ID
			ds.CalendarEvents = append(ds.CalendarEvents, e)
			ds.Attendances = append(ds.Attendances, rec)
		}
		_, err := h.srv.ImportState(ds)
		require.NoError(t, err)
	}
	for _, c := range []struct {
		name     string
		opts     []func(*Options)
		prepare  func(*testing.T, *harness)
		from, to string // "" = the day of the first attendance's lesson
	}{
		{"default scenario, date by date", nil, nil, "2000-01-01", "2100-01-01"},
		{"busy scenario, date by date", []func(*Options){busy}, nil, "2000-01-01", "2100-01-01"},
		{"busy scenario, a day", []func(*Options){busy}, nil, "", ""},
		{"more dates than merged, pupil by pupil", nil, manyDates, "2000-01-01", "2100-01-01"},
		{"more dates than merged, a day", nil, manyDates, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.opts...)
			if c.prepare != nil {
				c.prepare(t, h)
			}
			ds := h.srv.store.Export()
			events := map[string]model.CalendarEvent{}
			for _, ev := range ds.CalendarEvents {
				events[ev.ID] = ev
			}
			from, to := c.from, c.to
			if from == "" {
				require.NotEmpty(t, ds.Attendances)
				d := string(model.DateOf(events[ds.Attendances[0].CalendarEvent.ID].StartTime.UTC()))
				from, to = d, d
			}
			type key struct{ activity, student string }
			type sums struct{ attendance, offered int }
			want := map[key]sums{}
			for _, a := range ds.Attendances {
				ev := events[a.CalendarEvent.ID]
				if d := string(model.DateOf(ev.StartTime.UTC())); d < from || d > to {
					continue
				}
				k := key{ev.Activity.ID, a.Student.ID}
				s := want[k]
				if a.AttendanceMinutes != nil {
					s.attendance += *a.AttendanceMinutes
				}
				s.offered += int(ev.EndTime.Sub(ev.StartTime) / time.Minute)
				want[k] = s
			}
			require.NotEmpty(t, want)
			period := "startDate=" + from + "&endDate=" + to
			// The contract requires the period on every page, the token's
			// too.
			walk := func(query string) map[key]sums {
				got := map[key]sums{}
				target := PrefixB + "/aggregatedAttendance?" + query
				for target != "" {
					res := h.get(target)
					require.Equal(t, http.StatusOK, res.status, res)
					var page struct {
						Data      []model.AggregatedAttendance `json:"data"`
						PageToken *string                      `json:"pageToken"`
					}
					res.decode(&page)
					for _, a := range page.Data {
						k := key{a.Activity.ID, a.Student.ID}
						_, dup := got[k]
						require.False(t, dup, "each (activity, pupil) once")
						got[k] = sums{a.AttendanceSum, a.OfferedSum}
					}
					target = ""
					if page.PageToken != nil {
						target = PrefixB + "/aggregatedAttendance?" + period + "&pageToken=" + url.QueryEscape(*page.PageToken)
					}
				}
				return got
			}
			assert.Equal(t, want, walk(period+"&limit=3"), "pages of 3")
			assert.Equal(t, want, walk(period+"&limit=50"), "pages of 50")
			var pupil string
			for k := range want {
				pupil = k.student
				break
			}
			onePupil := map[key]sums{}
			for k, s := range want {
				if k.student == pupil {
					onePupil[k] = s
				}
			}
			assert.Equal(t, onePupil, walk(period+"&student="+pupil+"&limit=1"), "one pupil, pages of 1")
		})
	}
}

// TestDeletesTakeTheirSS12000RecordsAlong: deleting a placement deletes its
// attendance schedule (B-only records A's clients cannot see), and the state
// stays loadable.
func TestDeletesTakeTheirSS12000RecordsAlong(t *testing.T) {
	h := newHarness(t)
	st := h.srv.store
	ds := st.Export()
	var pl model.Placement
	for _, p := range ds.Placements {
		if p.Directory != nil && model.IsRegisterPlacement(&p) {
			pl = p
			break
		}
	}
	require.NotEmpty(t, pl.ID)
	schedules := walkIDs(t, h, "/attendanceSchedule", "placement="+pl.ID, "")
	require.Len(t, schedules, 1)
	res := h.send(http.MethodDelete, PrefixA+"/student-placement/"+pl.ID, "")
	require.Equal(t, http.StatusNoContent, res.status, res)
	assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/attendanceSchedule/"+schedules[0]).status)
	require.NoError(t, store.New(time.Now).Load(st.Export()), "the state loads again: no reference dangles")
}
