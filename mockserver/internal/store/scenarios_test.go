package store_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/scenarios"
)

// The built-in scenarios' data loads into a store: every reference
// resolves and every calendar event agrees with its activity.

var testNow = time.Date(2026, 3, 14, 10, 30, 0, 0, time.UTC)

// TestEveryBuiltinScenarioIsValidForManySeeds: every built-in scenario
// builds at seeds 1 to 20 (large and default with small counts, to stay
// fast), its data loads into a store (every reference resolves), and every
// calendar event has its activity and every placement its schedule.
func TestEveryBuiltinScenarioIsValidForManySeeds(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		for seed := int64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				sc, err := scenarios.Builtin(name)
				require.NoError(t, err)
				sc.Seed = seed
				if g := &sc.Generate; g.Children+g.Pupils > 60 {
					g.SchoolUnits, g.Children, g.Pupils, g.Staff = 3, 20, 30, 12
					g.Groups, g.Placements, g.Syllabuses = 14, 20, 10
					g.CalendarEvents, g.Attendances, g.Absences = 40, 20, 8
				}
				ds, err := sc.Build(testNow)
				require.NoError(t, err)
				require.NoError(t, store.New(time.Now).Load(ds), "every reference resolves")
				if len(ds.CalendarEvents) > 0 {
					assert.NotEmpty(t, ds.Activities)
				}
				for _, ev := range ds.CalendarEvents {
					assert.NotEmpty(t, ev.Activity.ID, "calendar event %s has its activity", ev.ID)
				}
				if len(ds.Placements) > 0 {
					assert.NotEmpty(t, ds.AttendanceSchedules)
				}
			})
		}
	}
}

// TestLargeScenarioIsAMunicipality builds the large built-in scenario at its
// own seed and loads it, as `skolkit serve --scenario large` does: at least
// 50 000 persons and 1 000 000 calendar events, every reference resolving,
// every event an occasion of an activity in a room whose school, group and
// teacher are the event's (the store checks it), listed group by group in
// time order, and fewer than one in a thousand starting with another of
// its group.
//
// It takes seconds and a gigabyte, so it runs only when SKOLKIT_LARGE=1
// (.ci/run sets it). Without it, TestEveryBuiltinScenarioIsValidForManySeeds
// builds large's profile with small counts at 20 seeds, and the benchmarks
// BuildLarge, HeapPerRecordLarge (here) and NewScenario/large (mockserver)
// build the whole of it.
func TestLargeScenarioIsAMunicipality(t *testing.T) {
	if os.Getenv("SKOLKIT_LARGE") != "1" {
		t.Skip("builds a million calendar events: set SKOLKIT_LARGE=1 to run it (.ci/run does)")
	}
	sc, err := scenarios.Builtin("large")
	require.NoError(t, err)
	ds, err := sc.Build(testNow)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(ds.Persons), 50000)
	assert.GreaterOrEqual(t, len(ds.CalendarEvents), 1000000)
	assert.GreaterOrEqual(t, len(ds.Placements), 100000)

	type slot struct {
		group string
		start time.Time
	}
	starts := make(map[slot]bool, len(ds.CalendarEvents))
	clashes := 0
	for i := range ds.CalendarEvents {
		ev := &ds.CalendarEvents[i]
		if ev.Activity.ID == "" || len(ev.Rooms) == 0 {
			t.Fatalf("calendar event %s has no activity or no room", ev.ID)
		}
		if i > 0 {
			prev := &ds.CalendarEvents[i-1]
			if prev.Group.ID == ev.Group.ID && (ev.StartTime.Before(prev.StartTime) || ev.ID <= prev.ID) {
				t.Fatalf("events %s and %s of group %s are not in time and id order", prev.ID, ev.ID, ev.Group.ID)
			}
		}
		k := slot{ev.Group.ID, ev.StartTime}
		if starts[k] {
			clashes++
		}
		starts[k] = true
	}
	// Groups that start or end inside the lessons' window can run out of
	// free slots; in the municipality that is a few hundred lessons of a
	// million (about 80 to 320, depending on the day).
	assert.Less(t, clashes, len(ds.CalendarEvents)/1000, "lessons of a group that start together")
	require.NoError(t, store.New(time.Now).LoadOwned(ds), "every reference resolves, every event agrees with its activity")
}

// BenchmarkHeapPerRecordLarge reports the heap the store keeps for the large
// scenario, per stored record of every table (records, their strings and
// their index pages): the live heap after a collection with the loaded store
// less the live heap before the build. The dataset is handed over with
// LoadOwned, as the mock does, so the store keeps the built slices (and any
// spare capacity they have).
func BenchmarkHeapPerRecordLarge(b *testing.B) {
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for b.Loop() {
		before := heap()
		ds, err := sc.Build(testNow)
		if err != nil {
			b.Fatal(err)
		}
		n := len(ds.Organisations) + len(ds.Persons) + len(ds.Groups) + len(ds.Placements) + len(ds.Syllabuses) +
			len(ds.CalendarEvents) + len(ds.Attendances) + len(ds.Absences) + len(ds.Programmes) + len(ds.StudyPlans) +
			len(ds.SchoolUnitOfferings) + len(ds.Activities) + len(ds.AttendanceEvents) + len(ds.AttendanceSchedules) +
			len(ds.Grades) + len(ds.Resources) + len(ds.Rooms)
		st := store.New(time.Now)
		if err := st.LoadOwned(ds); err != nil {
			b.Fatal(err)
		}
		ds = nil
		after := heap()
		b.ReportMetric(float64(after-before)/float64(n), "B/record")
		b.ReportMetric(float64(n), "records")
		runtime.KeepAlive(st)
	}
}
