package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

func TestBuiltinNamesListEveryEmbeddedScenario(t *testing.T) {
	assert.Equal(t, []string{"default", "edge-cases", "empty", "large", "rate-limited"}, scenarios.BuiltinNames())
	_, err := scenarios.Builtin("nope")
	assert.EqualError(t, err, `no built-in scenario "nope" (have: default, edge-cases, empty, large, rate-limited)`)
	_, err = scenarios.Builtin("../builtin/default")
	assert.Error(t, err)
}

func TestEveryBuiltinScenarioParses(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Builtin(name)
			require.NoError(t, err)
			assert.Equal(t, name, sc.Name)
			assert.NotEmpty(t, sc.Description)
			require.NotEmpty(t, sc.Clients)
			assert.Equal(t, "skolkit-client", sc.Clients[0].ID)
			assert.Equal(t, "skolkit-secret", sc.Clients[0].Secret)
		})
	}
}

// The large scenario is built only by TestLargeScenarioIsAMunicipality (opt-in,
// SKOLKIT_LARGE=1) and the benchmarks: it takes seconds and a gigabyte.
func TestEveryBuiltinScenarioButLargeBuilds(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		if name == "large" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Builtin(name)
			require.NoError(t, err)
			ds, err := sc.Build(time.Now())
			require.NoError(t, err)
			checkReferences(t, ds)
		})
	}
}

func TestBuiltinScenarioSizes(t *testing.T) {
	def, err := scenarios.Builtin("default")
	require.NoError(t, err)
	assert.Equal(t, fixtures.DefaultConfig(def.Seed, testNow), def.Generate.Config(def.Seed, testNow),
		"the default scenario is the mock's former default data")
	assert.False(t, def.Clock.Fixed())
	assert.Equal(t, 1500, def.Clients[0].RateLimit)

	empty, err := scenarios.Builtin("empty")
	require.NoError(t, err)
	ds := build(t, empty)
	assert.Equal(t, &fixtures.Dataset{
		Organisations: []model.Organisation{}, Persons: []model.Person{}, Groups: []model.Group{},
		Placements: []model.Placement{}, Syllabuses: []model.Syllabus{}, CalendarEvents: []model.CalendarEvent{},
		Attendances: []model.Attendance{}, Absences: []model.Absence{}, EmployeePlacements: []model.EmployeePlacement{},
		Programmes: []model.Programme{}, StudyPlans: []model.StudyPlan{}, SchoolUnitOfferings: []model.SchoolUnitOffering{},
		Activities: []model.Activity{}, AttendanceEvents: []model.AttendanceEvent{}, AttendanceSchedules: []model.AttendanceSchedule{},
		Grades: []model.Grade{}, Resources: []model.Resource{}, Rooms: []model.Room{}, Tombstones: []model.Tombstone{},
	}, ds, "every table is an array, none is null")

	large, err := scenarios.Builtin("large")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, large.Generate.Placements, 100000)
	// TestLargeScenarioIsAMunicipality (opt-in) and BenchmarkBuildLarge check
	// the 50 000 persons and 1 000 000 calendar events: counting them takes
	// generating them.

	limited, err := scenarios.Builtin("rate-limited")
	require.NoError(t, err)
	assert.Equal(t, 5, limited.Clients[0].Quota())
}

func TestEdgeCasesScenarioHoldsTheEdgeCases(t *testing.T) {
	sc, err := scenarios.Builtin("edge-cases")
	require.NoError(t, err)
	require.True(t, sc.Clock.Fixed())
	ds := build(t, sc)
	today := model.DateOf(sc.Clock.Now)
	r := sc.Records

	has := func(what string, ok func(p scenarios.PlacementRecord) bool) {
		t.Helper()
		for _, p := range r.Placements {
			if ok(p) {
				return
			}
		}
		t.Errorf("no explicit placement %s", what)
	}
	has("ending before today (archived)", func(p scenarios.PlacementRecord) bool { return p.EndDate != "" && p.EndDate < today })
	has("without end (open-ended)", func(p scenarios.PlacementRecord) bool { return p.EndDate == "" })
	has("ending today", func(p scenarios.PlacementRecord) bool { return p.EndDate == today })
	has("starting today", func(p scenarios.PlacementRecord) bool { return p.StartDate == today })
	has("starting in the future", func(p scenarios.PlacementRecord) bool { return p.StartDate > today })
	has("starting and ending the same day", func(p scenarios.PlacementRecord) bool { return p.StartDate == p.EndDate })
	has("ending on the 1st of a month", func(p scenarios.PlacementRecord) bool { return strings.HasSuffix(string(p.EndDate), "-01") })
	has("starting on a leap day", func(p scenarios.PlacementRecord) bool { return strings.HasSuffix(string(p.StartDate), "-02-29") })
	has("without owners or group", func(p scenarios.PlacementRecord) bool { return len(p.Owners) == 0 && p.Group == "" })
	for _, st := range model.PlacementSchoolTypes {
		has("of school type "+string(st), func(p scenarios.PlacementRecord) bool { return p.SchoolType == st })
	}

	markings := map[model.SecurityMarking]int{}
	var coordination, temporary, swedishHyphenated bool
	for _, p := range r.Persons {
		markings[p.SecurityMarking]++
		if p.CivicNo != nil {
			coordination = coordination || fixtures.IsCoordinationNumber(p.CivicNo.Value)
			temporary = temporary || fixtures.IsTemporaryNumber(p.CivicNo.Value)
		}
		name := p.GivenName + " " + p.FamilyName
		swedishHyphenated = swedishHyphenated || (strings.ContainsAny(name, "åäöÅÄÖ") && strings.Contains(name, "-"))
	}
	assert.Positive(t, markings[model.SecurityMarkingConfidential], "a person with Sekretessmarkering")
	assert.Positive(t, markings[model.SecurityMarkingProtected], "a person with Skyddad folkbokföring")
	assert.True(t, coordination, "a coordination number")
	assert.True(t, temporary, "a temporary number")
	assert.True(t, swedishHyphenated, "a name with å, ä or ö and a hyphen")

	groupsOf := map[string]int{}
	empty := false
	for _, g := range r.Groups {
		empty = empty || len(g.Members) == 0
		for _, m := range g.Members {
			groupsOf[m.Person]++
		}
	}
	assert.True(t, empty, "an empty group")
	several := false
	for _, n := range groupsOf {
		several = several || n >= 3
	}
	assert.True(t, several, "a person in three or more groups")

	// Protected identities have no address.
	for _, p := range ds.Persons {
		if p.SecurityMarking == model.SecurityMarkingProtected {
			assert.Empty(t, p.Addresses, "%s %s has Skyddad folkbokföring and an address", p.GivenName, p.FamilyName)
		}
	}
	assert.Greater(t, len(ds.Placements), len(r.Placements), "a little generated data too")
}
