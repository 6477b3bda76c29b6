package store

import (
	"fmt"
	"slices"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// Calendar events are the largest table (a million in the municipality-sized
// scenario), so they have only two secondary indexes: their activity and
// their start time. Their group, organisation and teacher are their
// activity's (the rule below, checked wherever an event is written), so the
// events of a group, an organisation or a teacher are found through the
// activities of that group, organisation or duty: one span of the activity
// index per activity, each event then checked against its own field
// (docs/decisions.md#calendar-events-follow-activity).

// RuleError reports a record that breaks one of the store's rules about how
// records agree with each other (a calendar event and its activity).
type RuleError struct {
	Table, ID string
	Field     string // JSON path, e.g. "group.id"
	Message   string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("%s %s: %s: %s", e.Table, e.ID, e.Field, e.Message)
}

// eventRule checks that a calendar event agrees with its activity: it names
// one (SS 12000 requires it), its organisation is the activity's, its group
// is one of the activity's groups, and its teacher's duty at that
// organisation (fixtures.DutyID) is one of the activity's teachers. It
// remembers the last activity and the last agreeing (group, organisation,
// teacher), so the events of one activity, which a load visits in a run, cost
// a few comparisons each.
type eventRule struct {
	act                 *model.Activity
	group, org, teacher string
	duties              map[[2]string]string
}

func (r *eventRule) check(ev *model.CalendarEvent, activity func(id string) *model.Activity) error {
	fail := func(field, format string, args ...any) error {
		return &RuleError{Table: TableCalendarEvents, ID: ev.ID, Field: field, Message: fmt.Sprintf(format, args...)}
	}
	if ev.Activity.ID == "" {
		return fail("activity.id", "required: a calendar event is an occasion of an activity (SS 12000)")
	}
	if r.act == nil || r.act.ID != ev.Activity.ID {
		r.act, r.group, r.org, r.teacher = activity(ev.Activity.ID), "", "", ""
		if r.act == nil {
			return &RefError{Field: "activity.id", ID: ev.Activity.ID}
		}
	}
	if ev.Group.ID == r.group && ev.Organisation.ID == r.org && ev.Teacher.ID == r.teacher {
		return nil
	}
	a := r.act
	if ev.Organisation.ID != a.Organisation.ID {
		return fail("organisation.id", "%q is not the organisation of activity %s (%q)", ev.Organisation.ID, a.ID, a.Organisation.ID)
	}
	if !slices.ContainsFunc(a.Groups, func(g model.ObjectReference) bool { return g.ID == ev.Group.ID }) {
		return fail("group.id", "%q is not one of the groups of activity %s", ev.Group.ID, a.ID)
	}
	if r.duties == nil {
		r.duties = map[[2]string]string{}
	}
	k := [2]string{ev.Teacher.ID, ev.Organisation.ID}
	duty, ok := r.duties[k]
	if !ok {
		duty = fixtures.DutyID(ev.Teacher.ID, ev.Organisation.ID)
		r.duties[k] = duty
	}
	if !slices.ContainsFunc(a.Teachers, func(t model.DutyAssignment) bool { return t.Duty.ID == duty }) {
		return fail("teacher.id", "%q has no duty among the teachers of activity %s (their duty at %s would be %s)", ev.Teacher.ID, a.ID, ev.Organisation.ID, duty)
	}
	r.group, r.org, r.teacher = ev.Group.ID, ev.Organisation.ID, ev.Teacher.ID
	return nil
}

// checkEventActivities checks every calendar event of a load against its
// activity (eventRule), in id order.
func checkEventActivities(events, acts *tableLoad) error {
	byID := make(map[string]*model.Activity, len(acts.sorted))
	for _, o := range acts.sorted {
		a := o.(*model.Activity)
		byID[a.ID] = a
	}
	var r eventRule
	for _, o := range events.sorted {
		if err := r.check(o.(*model.CalendarEvent), func(id string) *model.Activity { return byID[id] }); err != nil {
			return err
		}
	}
	return nil
}

// eventsOfActivities calls fn with the calendar events of each activity the
// activities index of the activities table holds under value (a group, an
// organisation or a duty), activity by activity, until fn returns false.
func (t *tx) eventsOfActivities(index, value string, fn func(ev *model.CalendarEvent) bool) {
	var acts []string
	_ = t.scan(t.schema.table(TableActivities), index, value, func(o any) bool {
		acts = append(acts, o.(*model.Activity).ID)
		return true
	})
	slices.Sort(acts)
	acts = slices.Compact(acts)
	for _, a := range acts {
		stop := false
		_ = t.scan(t.schema.table(TableCalendarEvents), IndexActivity, a, func(o any) bool {
			stop = !fn(o.(*model.CalendarEvent))
			return !stop
		})
		if stop {
			return
		}
	}
}

// eventsOfGroup counts the calendar events of a group.
func eventsOfGroup(sn *Snapshot, group string) int {
	return countEvents(sn, IndexGroup, group, func(ev *model.CalendarEvent) bool { return ev.Group.ID == group })
}

// eventsOfOrganisation counts the calendar events of an organisation.
func eventsOfOrganisation(sn *Snapshot, org string) int {
	return countEvents(sn, IndexOrganisation, org, func(ev *model.CalendarEvent) bool { return ev.Organisation.ID == org })
}

// countEvents counts the calendar events of the activities an index of the
// activities table holds under value, for which own holds.
func countEvents(sn *Snapshot, index, value string, own func(*model.CalendarEvent) bool) int {
	n := 0
	sn.t.eventsOfActivities(index, value, func(ev *model.CalendarEvent) bool {
		if own(ev) {
			n++
		}
		return true
	})
	return n
}

// eventsTaughtBy counts the calendar events a person teaches: the events of
// the activities that name the person's duty at one of the organisations.
func eventsTaughtBy(sn *Snapshot, person string) int {
	t := sn.t
	n := 0
	_ = t.scan(t.schema.table(TableOrganisations), IndexID, "", func(o any) bool {
		org := o.(*model.Organisation).ID
		t.eventsOfActivities(IndexTeacher, fixtures.DutyID(person, org), func(ev *model.CalendarEvent) bool {
			if ev.Teacher.ID == person && ev.Organisation.ID == org {
				n++
			}
			return true
		})
		return true
	})
	return n
}

// EventsTaughtBy counts the calendar events whose teacher is the person.
func (sn *Snapshot) EventsTaughtBy(person string) int { return eventsTaughtBy(sn, person) }
