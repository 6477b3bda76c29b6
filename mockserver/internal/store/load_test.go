package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// TestLoadBuildsIndexesInKeyOrder: the pages a load builds for an index list
// every entry once, in (value, id) order, whatever the records' order and
// however many share a value: timestamp indexes grouped by instant (few
// instants) or sorted (many), and value indexes whose equal values come in
// runs of consecutive ids or scattered.
func TestLoadBuildsIndexesInKeyOrder(t *testing.T) {
	base := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		n        int
		instants int  // distinct start times
		runs     bool // events of a group have consecutive ids
	}{
		{"few instants, groups in runs", 3000, 7, true},
		{"few instants, groups scattered", 3000, 7, false},
		{"every event its own instant", 3000, 3000, false},
		{"just past the grouping threshold", 2000, 2000/8 + 70, true},
		{"one event", 1, 1, true},
		{"no events", 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			recs := make([]model.CalendarEvent, tc.n)
			for i := range recs {
				g := r.IntN(20)
				id := fmt.Sprintf("%08x-ev", r.Uint32())
				if tc.runs {
					id = fmt.Sprintf("g%02d-%06d", g, i)
				}
				recs[i] = model.CalendarEvent{
					ID:        id,
					StartTime: base.Add(time.Duration(r.IntN(tc.instants)) * 7 * time.Minute).Add(time.Duration(r.IntN(2)) * time.Nanosecond * time.Duration(tc.instants/1000)),
					EventRefs: &model.EventRefs{Activity: model.ObjectReference{ID: fmt.Sprintf("g%02d", g)}},
				}
			}
			tl := prepareRecords(calendarEvents, builtinSchema().table(TableCalendarEvents), builtinSchema(), recs, base, false)
			require.NoError(t, tl.err)
			tl.indexPages = make([][]*page, len(tl.td.indexes))
			for _, index := range []string{IndexStartTime, IndexActivity} {
				t.Run(index, func(t *testing.T) {
					i := slices.IndexFunc(tl.td.indexes, func(ix indexDef) bool { return ix.name == index })
					require.GreaterOrEqual(t, i, 0)
					tl.buildPages(i)
					var got []string
					for _, p := range tl.indexPages[i] {
						for _, e := range p.entries {
							got = append(got, e.val+"|"+e.rec.(*model.CalendarEvent).ID)
						}
					}
					want := make([]string, len(recs))
					for k, ev := range recs {
						v := ev.Activity.ID
						if index == IndexStartTime {
							v = timeKey(ev.StartTime)
						}
						want[k] = v + "|" + ev.ID
					}
					slices.SortFunc(want, func(a, b string) int {
						return strings.Compare(strings.Replace(a, "|", keySep, 1), strings.Replace(b, "|", keySep, 1))
					})
					if len(want) == 0 {
						want = nil
					}
					assert.Equal(t, want, got)
				})
			}
		})
	}
}

// TestIDSetSmallAndLarge: the id sets of a load's reference checks answer
// alike as a map (small tables) and as sorted ids (large ones).
func TestIDSetSmallAndLarge(t *testing.T) {
	for _, n := range []int{0, 10, 1<<16 + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ids := make([]string, n)
			for i := range ids {
				ids[i] = fmt.Sprintf("id-%08d", 2*i)
			}
			set := newIDSet(ids)
			assert.Equal(t, n > 1<<16, set.m == nil, "sorted ids only for large tables")
			for i := range min(n, 300) {
				assert.True(t, set.has(fmt.Sprintf("id-%08d", 2*i)))
				assert.False(t, set.has(fmt.Sprintf("id-%08d", 2*i+1)))
			}
			assert.False(t, set.has(""))
			var none *idSet
			assert.False(t, none.has("id-00000000"), "a table without an id set holds nothing")
		})
	}
}

// TestLoadOwnedLoadsWhatLoadLoads: a store loaded with LoadOwned holds what
// one loaded with Load holds (every table, every index walk), and a
// dangling reference fails LoadOwned as it fails Load, leaving the old
// content.
func TestLoadOwnedLoadsWhatLoadLoads(t *testing.T) {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	build := func() *Dataset {
		cfg := fixtures.DefaultConfig(3, now)
		cfg.CalendarEvents = 2000
		ds, err := fixtures.Generate(cfg)
		require.NoError(t, err)
		fixtures.Complete(ds, now)
		return ds
	}
	copied, owned := New(func() time.Time { return now }), New(func() time.Time { return now })
	require.NoError(t, copied.Load(build()))
	require.NoError(t, owned.LoadOwned(build()))
	assert.Equal(t, copied.Export(), owned.Export())
	for _, index := range []string{IndexStartTime, IndexActivity} {
		walk := func(s *Store) []string {
			var ids []string
			require.NoError(t, s.Read().Scan(TableCalendarEvents, index, "", func(o any) bool {
				ids = append(ids, o.(*model.CalendarEvent).ID)
				return true
			}))
			return ids
		}
		assert.Equal(t, walk(copied), walk(owned), "calendar events by %s", index)
		assert.Len(t, walk(owned), 2000)
	}

	bad := build()
	bad.Attendances[len(bad.Attendances)-1].CalendarEvent.ID = "no-such-event"
	err := owned.LoadOwned(bad)
	var refErr *RefError
	require.ErrorAs(t, err, &refErr)
	assert.Equal(t, "calendarEvent.id", refErr.Field)
	assert.Equal(t, copied.Export(), owned.Export(), "a failed load keeps the old content")
}

// TestSortByIDOrdersLikeASort: ordering records by id through their sorted
// runs gives what a sort by (id, position) gives, whether the runs lie apart,
// interleave, share an id or are too many to be worth it.
func TestSortByIDOrdersLikeASort(t *testing.T) {
	ids := func(groups ...[]string) []idAt {
		var out []idAt
		for _, g := range groups {
			for _, id := range g {
				out = append(out, idAt{id, len(out)})
			}
		}
		return out
	}
	run := func(prefix string, n int) []string { // ids that share a long prefix
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s-0000-4000-8000-%04d", prefix, i)
		}
		return out
	}
	scattered := make([]string, 500)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range scattered {
		scattered[i] = fmt.Sprintf("%08x", r.Uint32())
	}
	for _, tc := range []struct {
		name  string
		order []idAt
		runs  bool // put in order run by run
	}{
		{"empty", nil, false},
		{"one record", ids([]string{"a"}), false},
		{"sorted", ids(run("a", 100)), true},
		{"runs apart, out of order", ids(run("c", 100), run("a", 100), run("b", 100)), true},
		{"runs that interleave", ids(run("a", 100), run("a", 60)[50:], run("b", 100)), false},
		{"the same id at the end of one run and the start of another", ids(run("a", 50)[49:], run("c", 10), run("a", 50)), false},
		{"a duplicate inside a run", ids(run("b", 40), run("b", 40)[39:], run("a", 40)), true},
		{"short ids", ids([]string{"b", "c", "d"}, []string{"a"}), false},
		{"too many runs", ids(scattered), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.order) > 1 {
				assert.Equal(t, tc.runs, idRuns(tc.order) != nil, "runs")
			}
			want := slices.Clone(tc.order)
			slices.SortFunc(want, func(a, b idAt) int {
				if c := strings.Compare(a.id, b.id); c != 0 {
					return c
				}
				return a.at - b.at
			})
			order := slices.Clone(tc.order)
			var got []idAt
			for _, run := range inIDOrder(order) {
				got = append(got, order[run[0]:run[1]]...)
			}
			if len(tc.order) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestGeneratedLessonsComeInRunsOfIDs: the generator's lessons come in runs
// of ids that a load puts in order whole, so no load sorts a
// million ids.
func TestGeneratedLessonsComeInRunsOfIDs(t *testing.T) {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	cfg := fixtures.DefaultConfig(3, now)
	cfg.CalendarEvents = 20000
	ds, err := fixtures.Generate(cfg)
	require.NoError(t, err)
	order := make([]idAt, len(ds.CalendarEvents))
	for i, ev := range ds.CalendarEvents {
		order[i] = idAt{ev.ID, i}
	}
	require.False(t, slices.IsSortedFunc(order, func(a, b idAt) int { return strings.Compare(a.id, b.id) }), "the case needs lessons out of id order")
	assert.NotNil(t, idRuns(order))
}
