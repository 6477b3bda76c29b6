package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// preloaded are the tables the tests preload: the large ones and one of
// every kind of reference check (events name activities and rooms).
var preloaded = []string{store.TableCalendarEvents, store.TableAttendances, store.TableActivities, store.TableRooms}

// freshDataset builds a built-in scenario's data set, for a store to own.
func freshDataset(t *testing.T, name string) *store.Dataset {
	t.Helper()
	sc, err := scenarios.Builtin(name)
	require.NoError(t, err)
	ds, err := sc.Build(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	return ds
}

// TestPreloadedLoadIsTheLoad: a load whose large tables were preloaded while
// the caller went on with the others holds what LoadOwned holds, record for
// record, and its indexes answer the same.
func TestPreloadedLoadIsTheLoad(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC) }
	for _, name := range []string{"default", "edge-cases"} {
		t.Run(name, func(t *testing.T) {
			plain, pre := store.New(now), store.New(now)
			require.NoError(t, plain.LoadOwned(freshDataset(t, name)))
			ds := freshDataset(t, name)
			p := pre.Preload(ds, preloaded...)
			ds.Persons = append(ds.Persons[:0:0], ds.Persons...) // the caller goes on with a table not preloaded
			require.NoError(t, pre.LoadPreloaded(ds, p))

			want, err := json.Marshal(plain.Export())
			require.NoError(t, err)
			got, err := json.Marshal(pre.Export())
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
			for _, sn := range []*store.Snapshot{plain.Read(), pre.Read()} {
				n := 0
				require.NoError(t, sn.Scan(store.TableCalendarEvents, store.IndexActivity, firstActivity(t, plain), func(any) bool { n++; return true }))
				assert.Positive(t, n, "the activity index of the calendar events answers")
			}
		})
	}
}

func firstActivity(t *testing.T, st *store.Store) string {
	t.Helper()
	acts := st.Export().Activities
	require.NotEmpty(t, acts)
	return acts[0].ID
}

// TestPreloadedLoadReportsWhatLoadOwnedReports: a bad record in a preloaded
// table, or a reference to one, fails the load as LoadOwned fails it, and the
// store keeps its content.
func TestPreloadedLoadReportsWhatLoadOwnedReports(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		name  string
		spoil func(ds *store.Dataset)
	}{
		{"duplicate id in a preloaded table", func(ds *store.Dataset) { ds.CalendarEvents[3].ID = ds.CalendarEvents[2].ID }},
		{"a preloaded table refers to nothing", func(ds *store.Dataset) {
			ev := &ds.CalendarEvents[1]
			ev.EventRefs = &model.EventRefs{Organisation: ev.Organisation, Group: ev.Group, Syllabus: ev.Syllabus, Teacher: ev.Teacher,
				Activity: model.ObjectReference{ID: "no-such-activity"}, Rooms: ev.Rooms}
		}},
		{"a table not preloaded fails first", func(ds *store.Dataset) { ds.Persons[1].ID = ds.Persons[0].ID }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := freshDataset(t, "default")
			c.spoil(ds)
			wantErr := store.New(now).LoadOwned(ds)
			require.Error(t, wantErr)

			st := store.New(now)
			ds = freshDataset(t, "default")
			c.spoil(ds)
			err := st.LoadPreloaded(ds, st.Preload(ds, preloaded...))
			require.Error(t, err)
			assert.Equal(t, wantErr.Error(), err.Error())
			assert.Empty(t, st.Export().CalendarEvents, "the store keeps its (empty) content")
		})
	}
}
