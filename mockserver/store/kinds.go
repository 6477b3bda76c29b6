package store

import (
	"fmt"
	"strings"

	"github.com/skolkit/skolkit/model"
)

var organisations = kind[model.Organisation]{
	table: TableOrganisations,
	id:    func(o *model.Organisation) string { return o.ID },
	meta:  func(o *model.Organisation) *model.Meta { return &o.Meta },
	refs: func(o *model.Organisation, refs []ref) []ref {
		if o.ParentOrganisation == nil {
			return refs
		}
		return append(refs, []ref{{"parentOrganisation.id", TableOrganisations, o.ParentOrganisation.ID, -1}}...)
	},
}

var persons = kind[model.Person]{
	table: TablePersons,
	id:    func(p *model.Person) string { return p.ID },
	meta:  func(p *model.Person) *model.Meta { return &p.Meta },
	refs: func(p *model.Person, refs []ref) []ref {
		for i, e := range p.Enrolments {
			refs = append(refs, ref{"enrolments[%d].enroledAt.id", TableOrganisations, e.EnroledAt.ID, i})
		}
		for i, r := range p.Responsibles {
			refs = append(refs, ref{"responsibles[%d].person.id", TablePersons, r.Person.ID, i})
		}
		return refs
	},
}

var groups = kind[model.Group]{
	table: TableGroups,
	id:    func(g *model.Group) string { return g.ID },
	meta:  func(g *model.Group) *model.Meta { return &g.Meta },
	strip: func(g *model.Group) { g.Embedded = nil },
	conflict: func(t *tx, g *model.Group) error {
		var err error
		_ = t.scan(tableDefs[TableGroups], IndexSchoolTitle, g.Organisation.ID+keySep+strings.ToLower(g.DisplayName), func(obj any) bool {
			if other := obj.(*model.Group); other.ID != g.ID {
				err = &ConflictError{Message: fmt.Sprintf("the school already has a group titled %q (%s)", other.DisplayName, other.ID)}
			}
			return false
		})
		return err
	},
	refs: func(g *model.Group, refs []ref) []ref {
		refs = append(refs, []ref{{"organisation.id", TableOrganisations, g.Organisation.ID, -1}}...)
		for i, m := range g.GroupMemberships {
			refs = append(refs, ref{"groupMemberships[%d].person.id", TablePersons, m.Person.ID, i})
		}
		return refs
	},
}

var placements = kind[model.Placement]{
	table: TablePlacements,
	id:    func(p *model.Placement) string { return p.ID },
	meta:  func(p *model.Placement) *model.Meta { return &p.Meta },
	strip: func(p *model.Placement) { p.Embedded = nil },
	refs: func(p *model.Placement, refs []ref) []ref {
		refs = append(refs, []ref{
			{"placedAt.id", TableOrganisations, p.PlacedAt.ID, -1},
			{"child.id", TablePersons, p.Child.ID, -1},
		}...)
		if p.Group != nil {
			refs = append(refs, ref{"group.id", TableGroups, p.Group.ID, -1})
		}
		for i, o := range p.Owners {
			refs = append(refs, ref{"owners[%d].id", TablePersons, o.ID, i})
		}
		return refs
	},
}

var syllabuses = kind[model.Syllabus]{
	table: TableSyllabuses,
	id:    func(s *model.Syllabus) string { return s.ID },
	meta:  func(s *model.Syllabus) *model.Meta { return &s.Meta },
}

var calendarEvents = kind[model.CalendarEvent]{
	table: TableCalendarEvents,
	id:    func(c *model.CalendarEvent) string { return c.ID },
	meta:  func(c *model.CalendarEvent) *model.Meta { return &c.Meta },
	// An event without references gets empty ones (the reference checks then
	// name what is missing); shared ones stay shared (model.CalendarEvent).
	strip: func(c *model.CalendarEvent) { c.EnsureRefs() },
	refs: func(c *model.CalendarEvent, refs []ref) []ref {
		refs = append(refs, []ref{
			{"organisation.id", TableOrganisations, c.Organisation.ID, -1},
			{"group.id", TableGroups, c.Group.ID, -1},
			{"syllabus.id", TableSyllabuses, c.Syllabus.ID, -1},
			{"teacher.id", TablePersons, c.Teacher.ID, -1},
		}...)
		if c.Activity.ID != "" {
			refs = append(refs, ref{"activity.id", TableActivities, c.Activity.ID, -1})
		}
		for i, r := range c.Rooms {
			refs = append(refs, ref{"rooms[%d].id", TableRooms, r.ID, i})
		}
		for i, r := range c.Resources {
			refs = append(refs, ref{"resources[%d].id", TableResources, r.ID, i})
		}
		return refs
	},
	// the event agrees with its activity (events.go)
	conflict: func(t *tx, c *model.CalendarEvent) error {
		var r eventRule
		return r.check(c, func(id string) *model.Activity {
			a, _ := first(t, activities, id)
			return a
		})
	},
	// its attendance records move with it to another day (eventdays.go)
	cascade: moveEventDays,
}

var attendances = kind[model.Attendance]{
	table:  TableAttendances,
	id:     func(a *model.Attendance) string { return a.ID },
	meta:   func(a *model.Attendance) *model.Meta { return &a.Meta },
	derive: deriveEventDay, // eventdays.go
	refs: func(a *model.Attendance, refs []ref) []ref {
		refs = append(refs, []ref{
			{"calendarEvent.id", TableCalendarEvents, a.CalendarEvent.ID, -1},
			{"student.id", TablePersons, a.Student.ID, -1},
		}...)
		if a.Reporter != nil {
			refs = append(refs, ref{"reporter.id", TablePersons, a.Reporter.ID, -1})
		}
		return refs
	},
}

var absences = kind[model.Absence]{
	table: TableAbsences,
	id:    func(a *model.Absence) string { return a.ID },
	meta:  func(a *model.Absence) *model.Meta { return &a.Meta },
	refs: func(a *model.Absence, refs []ref) []ref {
		refs = append(refs, []ref{
			{"student.id", TablePersons, a.Student.ID, -1},
			{"organisation.id", TableOrganisations, a.Organisation.ID, -1},
		}...)
		if a.RegisteredBy != nil {
			refs = append(refs, ref{"registeredBy.id", TablePersons, a.RegisteredBy.ID, -1})
		}
		return refs
	},
}

// Interface A's own tables.

var employeePlacements = kind[model.EmployeePlacement]{
	table: TableEmployeePlacements,
	id:    func(p *model.EmployeePlacement) string { return p.ID },
	meta:  func(p *model.EmployeePlacement) *model.Meta { return &p.Meta },
	refs: func(p *model.EmployeePlacement, refs []ref) []ref {
		return []ref{
			{"employeeID", TablePersons, p.EmployeeID, -1},
			{"schoolID", TableOrganisations, p.SchoolID, -1},
		}
	},
}

var tombstones = kind[model.Tombstone]{
	table: TableTombstones,
	id:    func(t *model.Tombstone) string { return t.ID },
	meta:  func(t *model.Tombstone) *model.Meta { return &t.Meta },
}
