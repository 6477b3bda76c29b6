package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// eventActivity is an activity of one organisation and group, taught by the
// person's duty at the organisation: the activity a calendar event of that
// group and teacher may name.
func eventActivity(id, org, group, teacher string) model.Activity {
	return model.Activity{ID: id, DisplayName: "act", StartDate: "2026-08-17", Organisation: model.ObjectReference{ID: org},
		Groups:   []model.ObjectReference{{ID: group}},
		Teachers: []model.DutyAssignment{{Duty: model.ObjectReference{ID: fixtures.DutyID(teacher, org)}}}}
}

// eventWorld is two schools, each with a group and a teacher, one activity
// per school, and an event of the first.
func eventWorld() *Dataset {
	return &Dataset{
		Organisations: []model.Organisation{
			{ID: id('o', 0), DisplayName: "A", OrganisationType: model.OrganisationTypeSchoolUnit},
			{ID: id('o', 1), DisplayName: "B", OrganisationType: model.OrganisationTypeSchoolUnit},
		},
		Persons: []model.Person{{ID: id('p', 0)}, {ID: id('p', 1)}},
		Groups: []model.Group{
			{ID: id('g', 0), DisplayName: "a", Organisation: model.ObjectReference{ID: id('o', 0)}},
			{ID: id('g', 1), DisplayName: "b", Organisation: model.ObjectReference{ID: id('o', 1)}},
		},
		Syllabuses: []model.Syllabus{{ID: id('s', 0)}},
		Activities: []model.Activity{
			eventActivity(id('c', 0), id('o', 0), id('g', 0), id('p', 0)),
			eventActivity(id('c', 1), id('o', 1), id('g', 1), id('p', 1)),
		},
		CalendarEvents: []model.CalendarEvent{event(0, id('c', 0), id('o', 0), id('g', 0), id('p', 0))},
	}
}

func event(n int, activity, org, group, teacher string) model.CalendarEvent {
	start := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	return model.CalendarEvent{ID: id('e', n), Title: "Lektion", StartTime: start, EndTime: start.Add(time.Hour),
		EventRefs: &model.EventRefs{Activity: model.ObjectReference{ID: activity}, Organisation: model.ObjectReference{ID: org},
			Group: model.ObjectReference{ID: group}, Syllabus: model.ObjectReference{ID: id('s', 0)}, Teacher: model.PersonReference{ID: teacher}}}
}

// TestCalendarEventsAgreeWithTheirActivity: a calendar event names an
// activity, and its organisation, group and teacher are the activity's,
// whether it comes with a load or a put; a load that breaks
// the rule fails with a RuleError naming the field and keeps the old content.
func TestCalendarEventsAgreeWithTheirActivity(t *testing.T) {
	o0, o1, g0, g1, p0, p1 := id('o', 0), id('o', 1), id('g', 0), id('g', 1), id('p', 0), id('p', 1)
	for _, tc := range []struct {
		name  string
		ev    model.CalendarEvent
		field string // "" = agrees
	}{
		{"the activity's organisation, group and teacher", event(1, id('c', 0), o0, g0, p0), ""},
		{"no activity", event(1, "", o0, g0, p0), "activity.id"},
		{"another organisation", event(1, id('c', 0), o1, g0, p0), "organisation.id"},
		{"a group the activity does not have", event(1, id('c', 0), o0, g1, p0), "group.id"},
		{"a teacher the activity does not name", event(1, id('c', 0), o0, g0, p1), "teacher.id"},
		{"the other activity's teacher and group", event(1, id('c', 1), o1, g1, p1), ""},
	} {
		t.Run(tc.name+"/load", func(t *testing.T) {
			s := New(func() time.Time { return epoch })
			require.NoError(t, s.Load(eventWorld()))
			ds := eventWorld()
			ds.CalendarEvents = append(ds.CalendarEvents, tc.ev)
			err := s.Load(ds)
			if tc.field == "" {
				require.NoError(t, err)
				assert.Equal(t, 2, s.Read().Count(TableCalendarEvents))
				return
			}
			var rule *RuleError
			require.ErrorAs(t, err, &rule)
			assert.Equal(t, tc.field, rule.Field)
			assert.Equal(t, tc.ev.ID, rule.ID)
			assert.Contains(t, err.Error(), tc.field)
			assert.Equal(t, 1, s.Read().Count(TableCalendarEvents), "a failed load keeps the old content")
		})
		t.Run(tc.name+"/put", func(t *testing.T) {
			s := New(func() time.Time { return epoch })
			require.NoError(t, s.Load(eventWorld()))
			_, _, err := s.PutCalendarEvent(tc.ev)
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			var rule *RuleError
			require.ErrorAs(t, err, &rule)
			assert.Equal(t, tc.field, rule.Field)
			_, ok := s.Read().CalendarEvent(tc.ev.ID)
			assert.False(t, ok, "a refused put stores nothing")
		})
	}
}

// TestDeleteCountsCalendarEventsThroughActivities: the events of a group and
// the events a person teaches still hold back their delete, found through
// the activities (the events table has no group or teacher index).
func TestDeleteCountsCalendarEventsThroughActivities(t *testing.T) {
	ds := eventWorld()
	ds.CalendarEvents = append(ds.CalendarEvents,
		event(1, id('c', 0), id('o', 0), id('g', 0), id('p', 0)),
		event(2, id('c', 1), id('o', 1), id('g', 1), id('p', 1)))
	s := New(func() time.Time { return epoch })
	require.NoError(t, s.Load(ds))
	for _, tc := range []struct {
		table, id, want string
	}{
		{TableGroups, id('g', 0), "2 calendar event(s)"},
		{TableGroups, id('g', 1), "1 calendar event(s)"},
		{TablePersons, id('p', 0), "2 calendar event(s) as teacher"},
		{TablePersons, id('p', 1), "1 calendar event(s) as teacher"},
	} {
		err := s.Delete(tc.table, tc.id)
		var conflict *ConflictError
		require.ErrorAs(t, err, &conflict, "%s %s", tc.table, tc.id)
		assert.Contains(t, conflict.Message, tc.want, "%s %s", tc.table, tc.id)
	}
	assert.Equal(t, 2, s.Read().EventsTaughtBy(id('p', 0)))
	assert.Equal(t, 0, s.Read().EventsTaughtBy(id('s', 0)), "a record that teaches nothing")
}
