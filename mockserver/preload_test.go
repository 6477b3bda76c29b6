package mockserver

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/scenarios"
)

// TestDirectoryViewLeavesThePreloadedTablesAlone: buildData loads the tables
// of untouchedByDirectoryView while directory.PrepareGenerated runs, so
// PrepareGenerated must neither change their records (hidden fields
// included: they are compared in the state document's form) nor replace
// their slices. It fails when PrepareGenerated starts writing one of them:
// take the table out of the list then.
func TestDirectoryViewLeavesThePreloadedTablesAlone(t *testing.T) {
	for _, name := range []string{"default", "edge-cases", "large-profile-small"} {
		t.Run(name, func(t *testing.T) {
			ds, err := builtinOrSmallLarge(t, name).Build(testNow)
			require.NoError(t, err)
			d := store.Dataset(*ds)
			before, starts := preloadedTables(t, &d)
			directory.PrepareGenerated(&d)
			after, startsAfter := preloadedTables(t, &d)
			assert.Len(t, before, len(untouchedByDirectoryView), "every preloaded table is a table of the state")
			for table := range before {
				assert.Equal(t, before[table], after[table], "%s: records unchanged", table)
				assert.Equal(t, starts[table], startsAfter[table], "%s: the same slice", table)
			}
		})
	}
}

// preloadedTables renders the tables of ds that untouchedByDirectoryView
// names as the state document does, with where each slice starts.
func preloadedTables(t *testing.T, ds *store.Dataset) (map[string]string, map[string]uintptr) {
	t.Helper()
	rendered, starts := map[string]string{}, map[string]uintptr{}
	require.NoError(t, StateTables(ds, func(name string, records []any) error {
		if !slices.Contains(untouchedByDirectoryView, name) {
			return nil
		}
		b, err := json.Marshal(records)
		rendered[name] = string(b)
		return err
	}))
	v := reflect.ValueOf(ds).Elem()
	for i := range v.NumField() {
		if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); slices.Contains(untouchedByDirectoryView, name) {
			starts[name] = v.Field(i).Pointer()
		}
	}
	return rendered, starts
}

// builtinOrSmallLarge is a built-in scenario, or "large-profile-small": the
// large profile at small counts (every kind of record large has).
func builtinOrSmallLarge(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	if name != "large-profile-small" {
		sc, err := scenarios.Builtin(name)
		require.NoError(t, err)
		return sc
	}
	sc, err := scenarios.Builtin("default")
	require.NoError(t, err)
	g, ok := scenarios.Profile("large")
	require.True(t, ok)
	g.Children, g.Pupils, g.Staff, g.Groups, g.Placements, g.CalendarEvents, g.Attendances, g.Absences = 200, 300, 60, 80, 400, 3000, 400, 100
	sc.Generate = g
	return sc
}
