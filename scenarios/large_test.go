package scenarios_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/scenarios"
)

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
