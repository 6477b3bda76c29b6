package store

import (
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/skolkit/skolkit/model"
)

// Table names.
const (
	TableOrganisations  = "organisations"
	TablePersons        = "persons"
	TableGroups         = "groups"
	TablePlacements     = "placements"
	TableSyllabuses     = "syllabuses"
	TableCalendarEvents = "calendarEvents"
	TableAttendances    = "attendances"
	TableAbsences       = "absences"

	// interface A only
	TableEmployeePlacements   = "employeePlacements"
	TableGradesElementary     = "gradesElementary"
	TableGradesUpperSecondary = "gradesUpperSecondary"
)

// Index names, each named after the question it answers.
const (
	IndexID = "id"

	// placements
	IndexPlacedAt  = "placedAt"
	IndexGroup     = "group"
	IndexChild     = "child"
	IndexOwner     = "owner"
	IndexStartDate = "startDate"
	IndexEndDate   = "endDate"
	IndexCreated   = "created"
	IndexModified  = "modified"

	// organisations
	IndexOrganisationType = "organisationType"
	IndexSchoolUnitCode   = "schoolUnitCode"

	// groups, calendar events, absences
	IndexOrganisation = "organisation"
	IndexMember       = "member"

	// attendances, absences
	IndexStudent       = "student"
	IndexCalendarEvent = "calendarEvent"

	// interface A: each view's records in list order (meta.created, then id)
	IndexSchoolsByCreated    = "schoolsByCreated"
	IndexGroupsByCreated     = "groupsByCreated"
	IndexPersonsByRole       = "personsByRole" // role, then meta.created
	IndexDirectoryPlacements = "directoryPlacements"
	// groups: a school's group titles, folded to lower case
	IndexSchoolTitle = "schoolTitle"
	// persons: the guardians a person names as responsibles
	IndexResponsible = "responsible"
	// persons: civic number (interface A's identityNumber)
	IndexCivicNo = "civicNo"
	// employee placements: the employee
	IndexEmployee = "employee"
	// calendar events, grades: the teacher(s)
	IndexTeacher = "teacher"
)

func idIndex[T any](id func(*T) string) *memdb.IndexSchema {
	return &memdb.IndexSchema{Name: IndexID, Unique: true, Indexer: singleIndex{fieldIndex{func(o any) []string { return one(id(o.(*T))) }}}}
}

func by[T any](name string, fn func(*T) string) *memdb.IndexSchema {
	return &memdb.IndexSchema{Name: name, AllowMissing: true, Indexer: singleIndex{fieldIndex{func(o any) []string { return one(fn(o.(*T))) }}}}
}

func byEach[T any](name string, fn func(*T) []string) *memdb.IndexSchema {
	return &memdb.IndexSchema{Name: name, AllowMissing: true, Indexer: multiIndex{fieldIndex{func(o any) []string { return fn(o.(*T)) }}}}
}

func table(name string, indexes ...*memdb.IndexSchema) *memdb.TableSchema {
	t := &memdb.TableSchema{Name: name, Indexes: map[string]*memdb.IndexSchema{}}
	for _, ix := range indexes {
		t.Indexes[ix.Name] = ix
	}
	return t
}

// placementIndexValue returns the value a placement has under a placement
// index: the value part of its key, without the id suffix.
func placementIndexValue(p *model.Placement, index string) []string {
	switch index {
	case IndexID:
		return one(p.ID)
	case IndexPlacedAt:
		return one(p.PlacedAt.ID)
	case IndexGroup:
		if p.Group == nil {
			return nil
		}
		return one(p.Group.ID)
	case IndexChild:
		return one(p.Child.ID)
	case IndexOwner:
		ids := make([]string, 0, len(p.Owners))
		for _, o := range p.Owners {
			if !slices.Contains(ids, o.ID) {
				ids = append(ids, o.ID)
			}
		}
		return ids
	case IndexStartDate:
		return one(string(p.StartDate))
	case IndexEndDate:
		if p.EndDate.IsZero() {
			return []string{openEndKey}
		}
		return []string{string(p.EndDate)}
	case IndexCreated:
		return []string{timeKey(p.Meta.Created)}
	case IndexModified:
		return []string{timeKey(p.Meta.Modified)}
	}
	return nil
}

func placementIndex(name string) *memdb.IndexSchema {
	fn := func(o any) []string { return placementIndexValue(o.(*model.Placement), name) }
	if name == IndexOwner {
		return &memdb.IndexSchema{Name: name, AllowMissing: true, Indexer: multiIndex{fieldIndex{fn}}}
	}
	return &memdb.IndexSchema{Name: name, AllowMissing: true, Indexer: singleIndex{fieldIndex{fn}}}
}

func schema() *memdb.DBSchema {
	return &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{
		TableOrganisations: table(TableOrganisations,
			idIndex(func(o *model.Organisation) string { return o.ID }),
			by(IndexOrganisationType, func(o *model.Organisation) string { return string(o.OrganisationType) }),
			by(IndexSchoolUnitCode, func(o *model.Organisation) string { return o.SchoolUnitCode }),
			by(IndexSchoolsByCreated, func(o *model.Organisation) string {
				if o.Directory == nil {
					return ""
				}
				return timeKey(o.Meta.Created)
			}),
		),
		TablePersons: table(TablePersons,
			idIndex(func(p *model.Person) string { return p.ID }),
			byEach(IndexPersonsByRole, func(p *model.Person) []string {
				if p.Directory == nil {
					return nil
				}
				keys := make([]string, len(p.Directory.Roles))
				for i, r := range p.Directory.Roles {
					keys[i] = string(r) + keySep + timeKey(p.Meta.Created)
				}
				return keys
			}),
			byEach(IndexResponsible, func(p *model.Person) []string {
				ids := make([]string, 0, len(p.Responsibles))
				for _, r := range p.Responsibles {
					if !slices.Contains(ids, r.Person.ID) {
						ids = append(ids, r.Person.ID)
					}
				}
				return ids
			}),
			by(IndexCivicNo, func(p *model.Person) string {
				if p.CivicNo == nil {
					return ""
				}
				return p.CivicNo.Value
			}),
		),
		TableGroups: table(TableGroups,
			idIndex(func(g *model.Group) string { return g.ID }),
			by(IndexOrganisation, func(g *model.Group) string { return g.Organisation.ID }),
			byEach(IndexMember, func(g *model.Group) []string {
				ids := make([]string, 0, len(g.GroupMemberships))
				for _, m := range g.GroupMemberships {
					ids = append(ids, m.Person.ID)
				}
				return ids
			}),
			by(IndexGroupsByCreated, func(g *model.Group) string { return timeKey(g.Meta.Created) }),
			by(IndexSchoolTitle, func(g *model.Group) string { return g.Organisation.ID + keySep + strings.ToLower(g.DisplayName) }),
		),
		TablePlacements: table(TablePlacements,
			idIndex(func(p *model.Placement) string { return p.ID }),
			placementIndex(IndexPlacedAt), placementIndex(IndexGroup), placementIndex(IndexChild),
			placementIndex(IndexOwner), placementIndex(IndexStartDate), placementIndex(IndexEndDate),
			placementIndex(IndexCreated), placementIndex(IndexModified),
			by(IndexDirectoryPlacements, func(p *model.Placement) string {
				if p.Directory == nil {
					return ""
				}
				return timeKey(p.Meta.Created)
			}),
		),
		TableSyllabuses: table(TableSyllabuses,
			idIndex(func(s *model.Syllabus) string { return s.ID }),
		),
		TableCalendarEvents: table(TableCalendarEvents,
			idIndex(func(c *model.CalendarEvent) string { return c.ID }),
			by(IndexGroup, func(c *model.CalendarEvent) string { return c.Group.ID }),
			by(IndexTeacher, func(c *model.CalendarEvent) string { return c.Teacher.ID }),
		),
		TableAttendances: table(TableAttendances,
			idIndex(func(a *model.Attendance) string { return a.ID }),
			by(IndexStudent, func(a *model.Attendance) string { return a.Student.ID }),
			by(IndexCalendarEvent, func(a *model.Attendance) string { return a.CalendarEvent.ID }),
			// the data export's order: meta.created, then id
			by(IndexCreated, func(a *model.Attendance) string { return timeKey(a.Meta.Created) }),
		),
		TableAbsences: table(TableAbsences,
			idIndex(func(a *model.Absence) string { return a.ID }),
			by(IndexStudent, func(a *model.Absence) string { return a.Student.ID }),
			by(IndexOrganisation, func(a *model.Absence) string { return a.Organisation.ID }),
		),
		TableEmployeePlacements: table(TableEmployeePlacements,
			idIndex(func(p *model.EmployeePlacement) string { return p.ID }),
			by(IndexCreated, func(p *model.EmployeePlacement) string { return timeKey(p.Meta.Created) }),
			by(IndexEmployee, func(p *model.EmployeePlacement) string { return p.EmployeeID }),
		),
		TableGradesElementary: table(TableGradesElementary,
			idIndex(func(g *model.GradeElementary) string { return g.ID }),
			by(IndexCreated, func(g *model.GradeElementary) string { return timeKey(g.Meta.Created) }),
			by(IndexStudent, func(g *model.GradeElementary) string { return g.StudentID }),
			byEach(IndexTeacher, func(g *model.GradeElementary) []string { return g.Teachers() }),
		),
		TableGradesUpperSecondary: table(TableGradesUpperSecondary,
			idIndex(func(g *model.GradeUpperSecondary) string { return g.ID }),
			by(IndexCreated, func(g *model.GradeUpperSecondary) string { return timeKey(g.Meta.Created) }),
			by(IndexStudent, func(g *model.GradeUpperSecondary) string { return g.StudentID }),
			byEach(IndexTeacher, func(g *model.GradeUpperSecondary) []string { return g.Teachers() }),
		),
	}}
}
