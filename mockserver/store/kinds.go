package store

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/skolkit/skolkit/model"
)

var organisations = kind[model.Organisation]{
	table: TableOrganisations,
	id:    func(o *model.Organisation) string { return o.ID },
	meta:  func(o *model.Organisation) *model.Meta { return &o.Meta },
	refs: func(o *model.Organisation) []ref {
		if o.ParentOrganisation == nil {
			return nil
		}
		return []ref{{"parentOrganisation.id", TableOrganisations, o.ParentOrganisation.ID}}
	},
}

var persons = kind[model.Person]{
	table: TablePersons,
	id:    func(p *model.Person) string { return p.ID },
	meta:  func(p *model.Person) *model.Meta { return &p.Meta },
	refs: func(p *model.Person) []ref {
		var refs []ref
		for i, e := range p.Enrolments {
			refs = append(refs, ref{fmt.Sprintf("enrolments[%d].enroledAt.id", i), TableOrganisations, e.EnroledAt.ID})
		}
		for i, r := range p.Responsibles {
			refs = append(refs, ref{fmt.Sprintf("responsibles[%d].person.id", i), TablePersons, r.Person.ID})
		}
		return refs
	},
}

var groups = kind[model.Group]{
	table: TableGroups,
	id:    func(g *model.Group) string { return g.ID },
	meta:  func(g *model.Group) *model.Meta { return &g.Meta },
	strip: func(g *model.Group) { g.Embedded = nil },
	conflict: func(txn *memdb.Txn, g *model.Group) error {
		obj, err := txn.First(TableGroups, IndexSchoolTitle, g.Organisation.ID+keySep+strings.ToLower(g.DisplayName))
		if err != nil {
			return err
		}
		if other, ok := obj.(*model.Group); ok && other.ID != g.ID {
			return &ConflictError{Message: fmt.Sprintf("the school already has a group titled %q (%s)", other.DisplayName, other.ID)}
		}
		return nil
	},
	refs: func(g *model.Group) []ref {
		refs := []ref{{"organisation.id", TableOrganisations, g.Organisation.ID}}
		for i, m := range g.GroupMemberships {
			refs = append(refs, ref{fmt.Sprintf("groupMemberships[%d].person.id", i), TablePersons, m.Person.ID})
		}
		return refs
	},
}

var placements = kind[model.Placement]{
	table: TablePlacements,
	id:    func(p *model.Placement) string { return p.ID },
	meta:  func(p *model.Placement) *model.Meta { return &p.Meta },
	strip: func(p *model.Placement) { p.Embedded = nil },
	refs: func(p *model.Placement) []ref {
		refs := []ref{
			{"placedAt.id", TableOrganisations, p.PlacedAt.ID},
			{"child.id", TablePersons, p.Child.ID},
		}
		if p.Group != nil {
			refs = append(refs, ref{"group.id", TableGroups, p.Group.ID})
		}
		for i, o := range p.Owners {
			refs = append(refs, ref{fmt.Sprintf("owners[%d].id", i), TablePersons, o.ID})
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
	refs: func(c *model.CalendarEvent) []ref {
		return []ref{
			{"organisation.id", TableOrganisations, c.Organisation.ID},
			{"group.id", TableGroups, c.Group.ID},
			{"syllabus.id", TableSyllabuses, c.Syllabus.ID},
			{"teacher.id", TablePersons, c.Teacher.ID},
		}
	},
}

var attendances = kind[model.Attendance]{
	table: TableAttendances,
	id:    func(a *model.Attendance) string { return a.ID },
	meta:  func(a *model.Attendance) *model.Meta { return &a.Meta },
	refs: func(a *model.Attendance) []ref {
		refs := []ref{
			{"calendarEvent.id", TableCalendarEvents, a.CalendarEvent.ID},
			{"student.id", TablePersons, a.Student.ID},
		}
		if a.Reporter != nil {
			refs = append(refs, ref{"reporter.id", TablePersons, a.Reporter.ID})
		}
		return refs
	},
}

var absences = kind[model.Absence]{
	table: TableAbsences,
	id:    func(a *model.Absence) string { return a.ID },
	meta:  func(a *model.Absence) *model.Meta { return &a.Meta },
	refs: func(a *model.Absence) []ref {
		refs := []ref{
			{"student.id", TablePersons, a.Student.ID},
			{"organisation.id", TableOrganisations, a.Organisation.ID},
		}
		if a.RegisteredBy != nil {
			refs = append(refs, ref{"registeredBy.id", TablePersons, a.RegisteredBy.ID})
		}
		return refs
	},
}

// Interface A's own tables.

var employeePlacements = kind[model.EmployeePlacement]{
	table: TableEmployeePlacements,
	id:    func(p *model.EmployeePlacement) string { return p.ID },
	meta:  func(p *model.EmployeePlacement) *model.Meta { return &p.Meta },
	refs: func(p *model.EmployeePlacement) []ref {
		return []ref{
			{"employeeID", TablePersons, p.EmployeeID},
			{"schoolID", TableOrganisations, p.SchoolID},
		}
	},
}

// gradeRefs lists a grade's references under interface A's member names.
func gradeRefs(student, school string, teacher1, teacher2 *string) []ref {
	refs := []ref{
		{"studentID", TablePersons, student},
		{"schoolID", TableOrganisations, school},
	}
	if teacher1 != nil {
		refs = append(refs, ref{"teacher1EmployeeID", TablePersons, *teacher1})
	}
	if teacher2 != nil {
		refs = append(refs, ref{"teacher2EmployeeID", TablePersons, *teacher2})
	}
	return refs
}

var gradesElementary = kind[model.GradeElementary]{
	table: TableGradesElementary,
	id:    func(g *model.GradeElementary) string { return g.ID },
	meta:  func(g *model.GradeElementary) *model.Meta { return &g.Meta },
	refs: func(g *model.GradeElementary) []ref {
		return gradeRefs(g.StudentID, g.SchoolID, g.Teacher1EmployeeID, g.Teacher2EmployeeID)
	},
}

var gradesUpperSecondary = kind[model.GradeUpperSecondary]{
	table: TableGradesUpperSecondary,
	id:    func(g *model.GradeUpperSecondary) string { return g.ID },
	meta:  func(g *model.GradeUpperSecondary) *model.Meta { return &g.Meta },
	refs: func(g *model.GradeUpperSecondary) []ref {
		return gradeRefs(g.StudentID, g.SchoolID, g.Teacher1EmployeeID, g.Teacher2EmployeeID)
	},
}
