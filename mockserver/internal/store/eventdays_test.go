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

	"github.com/skolkit/skolkit/model"
)

// eventDaysWorld is eventWorld with events on `days` consecutive dates from
// 2026-09-01 (one to three a date, some late in the UTC day) and attendance
// records of six pupils at a random choice of them.
func eventDaysWorld(days int) *Dataset {
	ds := eventWorld()
	ds.CalendarEvents = nil
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 6 {
		ds.Persons = append(ds.Persons, model.Person{ID: id('q', i), GivenName: "Elev", FamilyName: fmt.Sprint(i)})
	}
	n := 0
	for d := range days {
		for range 1 + r.IntN(3) {
			ev := event(n, id('c', 0), id('o', 0), id('g', 0), id('p', 0))
			ev.StartTime = ev.StartTime.AddDate(0, 0, d).Add(time.Duration(r.IntN(16)) * time.Hour)
			ev.EndTime = ev.StartTime.Add(time.Hour)
			ds.CalendarEvents = append(ds.CalendarEvents, ev)
			for p := range 6 {
				if r.IntN(2) == 0 {
					ds.Attendances = append(ds.Attendances, model.Attendance{
						ID: id('a', len(ds.Attendances)), CalendarEvent: model.ObjectReference{ID: ev.ID},
						Student: model.PersonReference{ID: id('q', p)}, IsReported: true,
					})
				}
			}
			n++
		}
	}
	return ds
}

// periodByBruteForce is what AttendancesOfPeriod must yield: the ids of the
// records whose event starts on a UTC date in [from, to], of pupils from
// fromStudent on, grouped by pupil in pupil order (sorted within a pupil).
func periodByBruteForce(sn *Snapshot, from, to model.Date, fromStudent string) []string {
	var recs []*model.Attendance
	_ = sn.t.walk(sn.t.schema.table(TableAttendances), IndexID, nil, false, func(_ []byte, o any) bool {
		a := o.(*model.Attendance)
		ev, _ := sn.CalendarEvent(a.CalendarEvent.ID)
		if d := model.DateOf(ev.StartTime.UTC()); d >= from && d <= to && a.Student.ID >= fromStudent {
			recs = append(recs, a)
		}
		return true
	})
	slices.SortFunc(recs, func(a, b *model.Attendance) int {
		if a.Student.ID != b.Student.ID {
			return strings.Compare(a.Student.ID, b.Student.ID)
		}
		return strings.Compare(a.ID, b.ID)
	})
	var ids []string
	for _, a := range recs {
		ids = append(ids, a.ID)
	}
	return ids
}

// periodOf runs AttendancesOfPeriod and returns what it yields, each pupil's
// records sorted by id, and whether it served the period.
func periodOf(t *testing.T, sn *Snapshot, from, to model.Date, fromStudent string, maxDays int) ([]string, bool) {
	t.Helper()
	seq, ok := sn.AttendancesOfPeriod(from, to, fromStudent, maxDays)
	if !ok {
		return nil, false
	}
	var ids []string
	var pupils []string
	start := 0
	for a := range seq {
		if len(pupils) == 0 || pupils[len(pupils)-1] != a.Student.ID {
			slices.Sort(ids[start:])
			start = len(ids)
			require.False(t, slices.Contains(pupils, a.Student.ID), "a pupil's records come together: %s again", a.Student.ID)
			pupils = append(pupils, a.Student.ID)
		}
		ids = append(ids, a.ID)
	}
	slices.Sort(ids[start:])
	require.True(t, slices.IsSorted(pupils), "pupil order")
	return ids, true
}

// TestAttendancesOfPeriodByDate: the eventDay index yields exactly the
// records of a period's dates, from a pupil on, in pupil order, whichever way
// the store was loaded (copied, owned, or with the attendance records
// preloaded with or without their events), and refuses a period with more
// dates than asked for.
func TestAttendancesOfPeriodByDate(t *testing.T) {
	now := func() time.Time { return epoch }
	loads := map[string]func(s *Store, ds *Dataset) error{
		"Load":      (*Store).Load,
		"LoadOwned": (*Store).LoadOwned,
		"Preload with the events": func(s *Store, ds *Dataset) error {
			return s.LoadPreloaded(ds, s.Preload(ds, TableAttendances, TableCalendarEvents))
		},
		"Preload without the events": func(s *Store, ds *Dataset) error {
			return s.LoadPreloaded(ds, s.Preload(ds, TableAttendances))
		},
	}
	for name, load := range loads {
		t.Run(name, func(t *testing.T) {
			s := New(now)
			require.NoError(t, load(s, eventDaysWorld(12)))
			sn := s.Read()
			assertIndexesMatchRecords(t, sn)
			r := rand.New(rand.NewPCG(5, 6))
			first := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
			for range 200 {
				from := model.DateOf(first.AddDate(0, 0, r.IntN(16)-2))
				to := model.DateOf(first.AddDate(0, 0, r.IntN(16)-2))
				fromStudent := ""
				if r.IntN(2) == 0 {
					fromStudent = id('q', r.IntN(7))
				}
				want := periodByBruteForce(sn, from, to, fromStudent)
				got, ok := periodOf(t, sn, from, to, fromStudent, 400)
				require.True(t, ok)
				require.Equal(t, want, got, "%s to %s from %q", from, to, fromStudent)
			}
			_, ok := periodOf(t, sn, "2026-09-01", "2026-09-12", "", 11)
			assert.False(t, ok, "twelve dates with records are more than 11")
			got, ok := periodOf(t, sn, "2026-09-01", "2026-09-12", "", 12)
			assert.True(t, ok, "twelve dates are not more than 12")
			assert.Equal(t, periodByBruteForce(sn, "2026-09-01", "2026-09-12", ""), got)
		})
	}
}

// TestEventDaysFollowWrites: an attendance record put is found on its
// event's date; an event put on another date takes its records along (their
// meta unchanged); one put on the same date leaves them alone.
func TestEventDaysFollowWrites(t *testing.T) {
	s := New(func() time.Time { return epoch })
	ds := eventDaysWorld(3)
	require.NoError(t, s.Load(ds))
	day := func(d int) model.Date { return model.DateOf(time.Date(2026, 9, 1+d, 0, 0, 0, 0, time.UTC)) }

	ev := ds.CalendarEvents[0] // on the first date
	put, _, err := s.PutAttendance(model.Attendance{ID: id('a', 9999), CalendarEvent: model.ObjectReference{ID: ev.ID},
		Student: model.PersonReference{ID: id('q', 0)}})
	require.NoError(t, err)
	assert.Equal(t, day(0), put.EventDay())
	got, _ := periodOf(t, s.Read(), day(0), day(0), "", 10)
	assert.Contains(t, got, id('a', 9999))

	var before []model.Attendance
	for _, a := range s.Export().Attendances {
		if a.CalendarEvent.ID == ev.ID {
			before = append(before, a)
		}
	}
	require.NotEmpty(t, before)
	moved := ev
	moved.StartTime = ev.StartTime.AddDate(0, 0, 30)
	moved.EndTime = ev.EndTime.AddDate(0, 0, 30)
	_, _, err = s.PutCalendarEvent(moved)
	require.NoError(t, err)
	sn := s.Read()
	assertIndexesMatchRecords(t, sn)
	got, _ = periodOf(t, sn, day(30), day(30), "", 10)
	assert.Len(t, got, len(before), "the event's records moved with it")
	got, _ = periodOf(t, sn, day(0), day(0), "", 10)
	for _, a := range before {
		assert.NotContains(t, got, a.ID)
		now, ok := sn.Attendance(a.ID)
		require.True(t, ok)
		assert.Equal(t, a.Meta, now.Meta, "the record itself did not change")
		assert.Equal(t, day(30), now.EventDay())
	}

	later := moved
	later.StartTime = moved.StartTime.Add(time.Hour)
	_, _, err = s.PutCalendarEvent(later)
	require.NoError(t, err)
	got, _ = periodOf(t, s.Read(), day(30), day(30), "", 10)
	assert.Len(t, got, len(before), "an hour later on the same date")
}
