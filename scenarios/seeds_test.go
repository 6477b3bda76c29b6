package scenarios_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/scenarios"
)

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
