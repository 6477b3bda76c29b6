package scenarios_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

var testNow = time.Date(2026, 3, 14, 10, 30, 0, 0, time.UTC)

func parse(t testing.TB, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("s.yaml", []byte(src))
	require.NoError(t, err)
	return sc
}

func build(t testing.TB, sc *scenarios.Scenario) *fixtures.Dataset {
	t.Helper()
	ds, err := sc.Build(testNow)
	require.NoError(t, err)
	return ds
}

// docExample returns the complete example of docs/scenarios.md: the fenced
// yaml block that has a top-level name.
func docExample(t testing.TB) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/scenarios.md")
	require.NoError(t, err)
	var complete []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if regexp.MustCompile(`(?m)^name:`).MatchString(m[1]) {
			complete = append(complete, m[1])
		}
	}
	require.Len(t, complete, 1, "docs/scenarios.md should hold one complete example")
	return complete[0]
}

func TestDocExampleParsesAndBuilds(t *testing.T) {
	sc, err := scenarios.Parse("docs/scenarios.md", []byte(docExample(t)))
	require.NoError(t, err)
	ds := build(t, sc)
	checkReferences(t, ds)
	// Every record list of the format is exercised by the example.
	r := sc.Records
	for name, n := range map[string]int{
		"organisers": len(r.Organisers), "schools": len(r.Schools), "persons": len(r.Persons),
		"groups": len(r.Groups), "placements": len(r.Placements), "syllabuses": len(r.Syllabuses),
		"calendarEvents": len(r.CalendarEvents), "attendances": len(r.Attendances), "absences": len(r.Absences),
		"latency": len(sc.Behaviours.Latency), "faults": len(sc.Behaviours.Faults), "clients": len(sc.Clients),
	} {
		assert.Positive(t, n, "the example has no %s", name)
	}
	assert.True(t, sc.Clock.Fixed())
}

func TestParseFillsInTheDefaults(t *testing.T) {
	sc := parse(t, "name: t\nclients: [{id: a, secret: b}]\n")
	assert.Equal(t, scenarios.DefaultRateLimit, sc.Clients[0].RateLimit)
	assert.Equal(t, 1500, sc.Clients[0].Quota())
	assert.Equal(t, scenarios.ListShapeData, sc.ListShape)
	assert.Equal(t, 3600, sc.Lifetime())
	assert.False(t, sc.Clock.Fixed())
	assert.Equal(t, testNow, sc.Clock.At(testNow))
	want, ok := scenarios.Profile("default")
	require.True(t, ok)
	assert.Equal(t, want, sc.Generate)
	assert.Equal(t, fixtures.DefaultConfig(7, testNow), sc.Generate.Config(7, testNow), "the default profile is fixtures.DefaultConfig")
	assert.Equal(t, 1500, scenarios.Client{}.Quota())
}

func TestGivenCountsOverrideTheProfile(t *testing.T) {
	sc := parse(t, "name: t\ngenerate: {profile: large, placements: 10, absences: 0}\n")
	want, _ := scenarios.Profile("large")
	want.Placements, want.Absences = 10, 0
	assert.Equal(t, want, sc.Generate)

	sc = parse(t, "name: t\ngenerate: {schoolUnits: 1}\n")
	assert.Equal(t, "default", sc.Generate.Profile)
	assert.Equal(t, 1, sc.Generate.SchoolUnits)
	assert.Equal(t, 60, sc.Generate.Children)
}

func TestFixedClockReplacesBuildsNow(t *testing.T) {
	sc := parse(t, "name: t\nclock: {now: 2025-01-02T03:04:05Z}\ngenerate: {profile: none, schoolUnits: 1, children: 2, placements: 2}\n")
	a, err := sc.Build(time.Now())
	require.NoError(t, err)
	b, err := sc.Build(time.Now().Add(48 * time.Hour))
	require.NoError(t, err)
	assert.Equal(t, a, b)
	for _, p := range a.Persons {
		assert.False(t, p.Meta.Created.After(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)), "meta after the fixed clock")
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	src := docExample(t)
	first, err := json.Marshal(build(t, parse(t, src)))
	require.NoError(t, err)
	second, err := json.Marshal(build(t, parse(t, src)))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second), "the same file must give the same data")

	other := parse(t, src)
	other.Seed++
	third, err := json.Marshal(build(t, other))
	require.NoError(t, err)
	assert.NotEqual(t, string(first), string(third), "another seed must give other data")
}

func TestAliasesResolveToDerivedOrExplicitIDs(t *testing.T) {
	sc := parse(t, `name: t
seed: 99
generate: {profile: none}
records:
  organisers: [{alias: kommunen, displayName: Kommunen}]
  schools:
    - {alias: ekskolan, displayName: Ekskolan, schoolTypes: [FTH]}
    - {alias: solrosen, id: 0b6f3c9e-5d1a-4c43-8e1f-3a2b1c0d9e8f, displayName: Solrosen, schoolTypes: [FS]}
  persons:
    - {alias: alva, givenName: Alva, familyName: Öberg, civicNo: "201904724521", responsibles: [{person: mamma}]}
    - {alias: mamma, givenName: Eva, familyName: Öberg, securityMarking: Skyddad folkbokföring}
  groups:
    - {alias: blabaret, displayName: Blåbäret, groupType: Avdelning, organisation: solrosen, startDate: 2020-08-01,
       members: [alva, {person: mamma, startDate: 2021-01-01}]}
  placements:
    - {child: alva, placedAt: solrosen, group: blabaret, owners: [mamma], schoolType: FS, startDate: 2022-08-15}
  syllabuses: [{alias: ma, schoolType: GR, subjectName: Matematik}]
  calendarEvents:
    - {alias: lesson, title: Ma, startTime: 2026-03-13T08:15:00+01:00, endTime: 2026-03-13T09:00:00+01:00,
       organisation: ekskolan, group: blabaret, syllabus: ma, teacher: mamma}
  attendances: [{calendarEvent: lesson, student: alva, reporter: mamma}]
  absences:
    - {student: alva, organisation: ekskolan, registrationDate: 2026-03-12, type: Giltig, registeredBy: mamma,
       startTime: 2026-03-12T08:00:00+01:00, endTime: 2026-03-12T14:00:00+01:00}
`)
	ds := build(t, sc)
	id := func(alias string) string { return scenarios.DeriveID(99, alias) }
	solrosen := "0b6f3c9e-5d1a-4c43-8e1f-3a2b1c0d9e8f"

	require.Len(t, ds.Organisations, 3)
	assert.Equal(t, id("kommunen"), ds.Organisations[0].ID)
	assert.Equal(t, model.OrganisationTypeOrganiser, ds.Organisations[0].OrganisationType)
	assert.Equal(t, id("ekskolan"), ds.Organisations[1].ID)
	assert.Equal(t, model.OrganisationTypeSchoolUnit, ds.Organisations[1].OrganisationType)
	assert.Equal(t, &model.ObjectReference{ID: id("kommunen")}, ds.Organisations[1].ParentOrganisation, "schools hang under the first organiser")
	assert.Equal(t, solrosen, ds.Organisations[2].ID, "an explicit id wins")

	require.Len(t, ds.Persons, 2)
	alva, mamma := ds.Persons[0], ds.Persons[1]
	assert.Equal(t, id("alva"), alva.ID)
	assert.Equal(t, model.Date("2019-04-12"), alva.BirthDate, "the birth date of a coordination number is day - 60")
	assert.Equal(t, &model.CivicNo{Value: "201904724521", Nationality: "SE"}, alva.CivicNo)
	assert.Equal(t, model.SecurityMarkingNone, alva.SecurityMarking)
	assert.Equal(t, model.PersonStatus("Aktiv"), alva.PersonStatus)
	assert.Equal(t, []model.Responsible{{Person: model.PersonReference{ID: id("mamma")}, RelationType: model.RelationGuardian}}, alva.Responsibles)
	assert.Equal(t, model.SecurityMarkingProtected, mamma.SecurityMarking)
	assert.Zero(t, alva.Meta, "meta is the store's business")

	require.Len(t, ds.Groups, 1)
	assert.Equal(t, model.ObjectReference{ID: solrosen}, ds.Groups[0].Organisation)
	assert.Equal(t, []model.GroupMembership{
		{Person: model.PersonReference{ID: id("alva")}},
		{Person: model.PersonReference{ID: id("mamma")}, StartDate: "2021-01-01"},
	}, ds.Groups[0].GroupMemberships)

	require.Len(t, ds.Placements, 1)
	p := ds.Placements[0]
	assert.Equal(t, id("placements[0]"), p.ID, "a record without alias gets an id from its position")
	assert.Equal(t, model.PersonReference{ID: id("alva")}, p.Child)
	assert.Equal(t, model.ObjectReference{ID: solrosen}, p.PlacedAt)
	assert.Equal(t, &model.ObjectReference{ID: id("blabaret")}, p.Group)
	assert.Equal(t, []model.PersonReference{{ID: id("mamma")}}, p.Owners)

	require.Len(t, ds.Syllabuses, 1)
	assert.True(t, ds.Syllabuses[0].Official, "official defaults to true")
	require.Len(t, ds.CalendarEvents, 1)
	assert.Equal(t, time.Date(2026, 3, 13, 7, 15, 0, 0, time.UTC), ds.CalendarEvents[0].StartTime)
	assert.Equal(t, model.ObjectReference{ID: id("ma")}, ds.CalendarEvents[0].Syllabus)
	require.Len(t, ds.Attendances, 1)
	assert.Equal(t, model.ObjectReference{ID: id("lesson")}, ds.Attendances[0].CalendarEvent)
	assert.Equal(t, &model.PersonReference{ID: id("mamma")}, ds.Attendances[0].Reporter)
	require.Len(t, ds.Absences, 1)
	assert.Equal(t, &model.PersonReference{ID: id("mamma")}, ds.Absences[0].RegisteredBy)
	checkReferences(t, ds)
}

func TestExplicitSchoolsHangUnderTheGeneratedOrganiser(t *testing.T) {
	sc := parse(t, `name: t
generate: {profile: none, schoolUnits: 1}
records:
  schools: [{alias: s, displayName: S}]
`)
	ds := build(t, sc)
	require.Len(t, ds.Organisations, 3)
	assert.Equal(t, model.OrganisationTypeOrganiser, ds.Organisations[0].OrganisationType)
	assert.Equal(t, &model.ObjectReference{ID: ds.Organisations[0].ID}, ds.Organisations[2].ParentOrganisation)
	checkReferences(t, ds)
}

func TestBuildReportsGenerationProblemsAtTheGenerateKey(t *testing.T) {
	sc := parse(t, "name: t\nclock: {now: 2026-03-14T10:00:00Z}\ngenerate:\n  profile: none\n  schoolUnits: 1\n  children: 1\n"+
		"  staff: 1\n  groups: 8\n  syllabuses: 1\n  calendarEvents: 1\n  attendances: 1000\n")
	_, err := sc.Build(testNow)
	var le *scenarios.LoadError
	require.ErrorAs(t, err, &le)
	require.Len(t, le.Problems, 1)
	p := le.Problems[0]
	assert.Equal(t, []any{"s.yaml", 4, 3, "generate"}, []any{p.File, p.Line, p.Column, p.Path})
	assert.Contains(t, p.Message, "Attendances is 1000")
}

func TestBuildRejectsAnExplicitIDOfAGeneratedRecord(t *testing.T) {
	base := "name: t\nclock: {now: 2026-03-14T10:00:00Z}\ngenerate: {profile: none, schoolUnits: 2}\n"
	ds := build(t, parse(t, base))
	taken := ds.Organisations[1].ID
	sc := parse(t, base+"records:\n  persons:\n    - {alias: a, givenName: A, familyName: B, id: "+taken+"}\n")
	_, err := sc.Build(testNow)
	require.Error(t, err)
	assert.Equal(t, "s.yaml:6:51: records.persons[0].id: id "+taken+
		" is also the id of a generated record; choose another or leave id out", err.Error())
}

func TestScenarioSurvivesAJSONRoundTrip(t *testing.T) {
	sc := parse(t, docExample(t))
	data, err := json.Marshal(sc)
	require.NoError(t, err)
	back, err := scenarios.Parse("s.json", data)
	require.NoError(t, err, "%s", data)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(again))
	a, b := build(t, sc), build(t, back)
	assert.Equal(t, a, b)
}

// checkReferences fails unless every reference of the data set names a
// record of the right table and every id is unique.
func checkReferences(t *testing.T, ds *fixtures.Dataset) {
	t.Helper()
	kinds := map[string]string{}
	add := func(kind, id string) {
		if prev, dup := kinds[id]; dup {
			t.Errorf("id %s is both a %s and a %s", id, prev, kind)
		}
		kinds[id] = kind
	}
	for _, r := range ds.Organisations {
		add("organisation", r.ID)
	}
	for _, r := range ds.Persons {
		add("person", r.ID)
	}
	for _, r := range ds.Groups {
		add("group", r.ID)
	}
	for _, r := range ds.Placements {
		add("placement", r.ID)
	}
	for _, r := range ds.Syllabuses {
		add("syllabus", r.ID)
	}
	for _, r := range ds.CalendarEvents {
		add("calendarEvent", r.ID)
	}
	for _, r := range ds.Attendances {
		add("attendance", r.ID)
	}
	for _, r := range ds.Absences {
		add("absence", r.ID)
	}
	var bad []string
	ref := func(where, kind, id string) {
		if kinds[id] != kind {
			bad = append(bad, fmt.Sprintf("%s: %q is not a %s", where, id, kind))
		}
	}
	for _, o := range ds.Organisations {
		if o.ParentOrganisation != nil {
			ref("organisation "+o.ID+" parent", "organisation", o.ParentOrganisation.ID)
		}
	}
	for _, p := range ds.Persons {
		for _, r := range p.Responsibles {
			ref("person "+p.ID+" responsible", "person", r.Person.ID)
		}
		for _, e := range p.Enrolments {
			ref("person "+p.ID+" enrolment", "organisation", e.EnroledAt.ID)
		}
	}
	for _, g := range ds.Groups {
		ref("group "+g.ID+" organisation", "organisation", g.Organisation.ID)
		for _, m := range g.GroupMemberships {
			ref("group "+g.ID+" member", "person", m.Person.ID)
		}
	}
	for _, p := range ds.Placements {
		ref("placement "+p.ID+" child", "person", p.Child.ID)
		ref("placement "+p.ID+" placedAt", "organisation", p.PlacedAt.ID)
		if p.Group != nil {
			ref("placement "+p.ID+" group", "group", p.Group.ID)
		}
		for _, o := range p.Owners {
			ref("placement "+p.ID+" owner", "person", o.ID)
		}
	}
	for _, e := range ds.CalendarEvents {
		ref("event "+e.ID, "organisation", e.Organisation.ID)
		ref("event "+e.ID, "group", e.Group.ID)
		ref("event "+e.ID, "syllabus", e.Syllabus.ID)
		ref("event "+e.ID, "person", e.Teacher.ID)
	}
	for _, a := range ds.Attendances {
		ref("attendance "+a.ID, "calendarEvent", a.CalendarEvent.ID)
		ref("attendance "+a.ID, "person", a.Student.ID)
		if a.Reporter != nil {
			ref("attendance "+a.ID+" reporter", "person", a.Reporter.ID)
		}
	}
	for _, a := range ds.Absences {
		ref("absence "+a.ID, "person", a.Student.ID)
		ref("absence "+a.ID, "organisation", a.Organisation.ID)
		if a.RegisteredBy != nil {
			ref("absence "+a.ID+" registeredBy", "person", a.RegisteredBy.ID)
		}
	}
	assert.Empty(t, bad, "dangling references:\n%s", strings.Join(bad, "\n"))
}

func TestBuildTakesTheSS12000Records(t *testing.T) {
	sc, err := scenarios.Builtin("edge-cases")
	require.NoError(t, err)
	ds := build(t, sc)
	id := func(alias string) string { return scenarios.DeriveID(sc.Seed, alias) }
	var act *model.Activity
	for i := range ds.Activities {
		if ds.Activities[i].ID == id("ma-5b-activity") {
			act = &ds.Activities[i]
		}
	}
	require.NotNil(t, act, "the explicit activity")
	assert.Equal(t, []model.ObjectReference{{ID: id("ma-5b")}}, act.Groups)
	assert.Equal(t, id("ekskolan"), act.Organisation.ID)
	require.Len(t, act.Teachers, 1)
	assert.Equal(t, fixtures.DutyID(id("ylva"), id("ekskolan")), act.Teachers[0].Duty.ID, "a teacher is the person's duty at the school")
	for _, ev := range ds.CalendarEvents {
		if ev.ID == id("ma-5b-lesson") {
			assert.Equal(t, id("ma-5b-activity"), ev.Activity.ID)
			assert.Equal(t, []model.ObjectReference{{ID: id("sal-12")}}, ev.Rooms)
			assert.Equal(t, []model.ObjectReference{{ID: id("projektor")}}, ev.Resources)
		} else {
			assert.NotEmpty(t, ev.Activity.ID, "a generated event gets a derived activity")
		}
	}
	rooms := 0
	for _, r := range ds.Rooms {
		if r.Owner.ID == id("ekskolan") {
			rooms++
		}
	}
	assert.Equal(t, 1, rooms, "a school with rooms of its own gets no derived rooms")
	graded := 0
	for _, g := range ds.Grades {
		if g.Student.ID == id("carl-ake") {
			graded++
			assert.Equal(t, "E", g.GradeValue)
		}
	}
	assert.Equal(t, 1, graded, "a pupil with grades of their own gets no derived grades")
	checkReferences(t, ds)
}
