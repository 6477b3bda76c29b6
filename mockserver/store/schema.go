package store

import (
	"slices"
	"strings"
	"time"

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

	// interface A only (interface B shows them as duties)
	TableEmployeePlacements = "employeePlacements"

	// TableTombstones is the deletion log: one model.Tombstone per deleted
	// record (tombstones.go).
	TableTombstones = "tombstones"
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

	// groups, activities, absences, ...
	IndexOrganisation = "organisation"
	IndexMember       = "member"

	// attendances, absences
	IndexStudent       = "student"
	IndexCalendarEvent = "calendarEvent"
	// IndexEventDay orders attendance records by the UTC date of their
	// event's start, then pupil: its value is EventDayKey(day, student).
	IndexEventDay = "eventDay"

	// interface A: each view's records in list order (meta.created, then id)
	IndexSchoolsByCreated = "schoolsByCreated"
	IndexUnitsByCreated   = "unitsByCreated"
	IndexGroupsByCreated  = "groupsByCreated"
	IndexPersonsByRole    = "personsByRole" // role, then meta.created
	// groups: a school's group titles, folded to lower case
	IndexSchoolTitle = "schoolTitle"
	// persons: the guardians a person names as responsibles
	IndexResponsible = "responsible"
	// persons: civic number (interface A's identityNumber)
	IndexCivicNo = "civicNo"
	// employee placements: the employee
	IndexEmployee = "employee"
	// activities: the duties of their teachers; grades: interface A's
	// teachers, the registrar and the grading teacher
	IndexTeacher = "teacher"
	// grades: interface A's two views, each in list order (meta.created)
	IndexGradesElementaryByCreated     = "gradesElementaryByCreated"
	IndexGradesUpperSecondaryByCreated = "gradesUpperSecondaryByCreated"
	// syllabuses: school type and code (the course code, else the subject code)
	IndexSyllabusCode = "syllabusCode"

	// IndexDeletedAt orders tombstones by deletion time, then id;
	// IndexKindDeletedAt by kind, then deletion time.
	IndexDeletedAt     = "deletedAt"
	IndexKindDeletedAt = "kindDeletedAt"
)

// tableDef describes a table: how to find a record's id, and its secondary
// indexes. The table and each index are kept as pages (pages.go).
type tableDef struct {
	name    string
	id      func(obj any) string
	indexes []indexDef
}

// indexDef is a secondary index: the values a record has under it.
type indexDef struct {
	name string
	// values appends the record's values to dst, each once; none when the
	// record is not in the index.
	values func(obj any, dst []string) []string
	// time, when set, is the instant whose timeKey is the record's one
	// value: a load orders the entries by it without formatting a key per
	// comparison, and formats each distinct instant once.
	time func(obj any) time.Time
}

func (td *tableDef) index(name string) *indexDef {
	for i := range td.indexes {
		if td.indexes[i].name == name {
			return &td.indexes[i]
		}
	}
	return nil
}

func def[T any](name string, id func(*T) string, indexes ...indexDef) *tableDef {
	return &tableDef{name: name, id: func(o any) string { return id(o.(*T)) }, indexes: indexes}
}

// by indexes a record by one value ("" = not indexed).
func by[T any](name string, fn func(*T) string) indexDef {
	return indexDef{name: name, values: func(o any, dst []string) []string {
		if v := fn(o.(*T)); v != "" {
			dst = append(dst, v)
		}
		return dst
	}}
}

// byTime indexes a record by a timestamp key (timeKey). Few records share
// one, except calendar events, which start at a few hundred instants.
func byTime[T any](name string, fn func(*T) time.Time) indexDef {
	ix := by(name, func(r *T) string { return timeKey(fn(r)) })
	ix.time = func(o any) time.Time { return fn(o.(*T)) }
	return ix
}

// byEach indexes a record by each of several values (duplicates are
// dropped).
func byEach[T any](name string, fn func(*T) []string) indexDef {
	return indexDef{name: name, values: func(o any, dst []string) []string {
		start := len(dst)
		for _, v := range fn(o.(*T)) {
			if v != "" && !slices.Contains(dst[start:], v) {
				dst = append(dst, v)
			}
		}
		return dst
	}}
}

// appendPlacementIndexValues appends the values a placement has under a
// placement index (the value part of its keys, without the id suffix).
func appendPlacementIndexValues(dst []string, p *model.Placement, index string) []string {
	add := func(v string) []string {
		if v != "" {
			dst = append(dst, v)
		}
		return dst
	}
	switch index {
	case IndexID:
		return add(p.ID)
	case IndexPlacedAt:
		return add(p.PlacedAt.ID)
	case IndexGroup:
		if p.Group == nil {
			return dst
		}
		return add(p.Group.ID)
	case IndexChild:
		return add(p.Child.ID)
	case IndexOwner:
		start := len(dst)
		for _, o := range p.Owners {
			if o.ID != "" && !slices.Contains(dst[start:], o.ID) {
				dst = append(dst, o.ID)
			}
		}
		return dst
	case IndexStartDate:
		return add(string(p.StartDate))
	case IndexEndDate:
		if p.EndDate.IsZero() {
			return add(openEndKey)
		}
		return add(string(p.EndDate))
	case IndexCreated:
		return add(timeKey(p.Meta.Created))
	case IndexModified:
		return add(timeKey(p.Meta.Modified))
	}
	return dst
}

func placementIndex(name string) indexDef {
	ix := indexDef{name: name, values: func(o any, dst []string) []string {
		return appendPlacementIndexValues(dst, o.(*model.Placement), name)
	}}
	switch name {
	case IndexCreated:
		ix.time = func(o any) time.Time { return o.(*model.Placement).Meta.Created }
	case IndexModified:
		ix.time = func(o any) time.Time { return o.(*model.Placement).Meta.Modified }
	}
	return ix
}

// tables lists every table of the store (registerTables: the SS 12000
// tables of interface B's engine, register_tables.go).
var tables = append([]*tableDef{
	def(TableOrganisations, func(o *model.Organisation) string { return o.ID },
		by(IndexOrganisationType, func(o *model.Organisation) string { return string(o.OrganisationType) }),
		by(IndexSchoolUnitCode, func(o *model.Organisation) string { return o.SchoolUnitCode }),
		by(IndexParent, func(o *model.Organisation) string {
			if o.ParentOrganisation == nil {
				return ""
			}
			return o.ParentOrganisation.ID
		}),
		by(IndexOrganisationCode, func(o *model.Organisation) string { return o.OrganisationCode }),
		by(IndexSchoolsByCreated, func(o *model.Organisation) string {
			if o.Directory == nil {
				return ""
			}
			return timeKey(o.Meta.Created)
		}),
		by(IndexUnitsByCreated, func(o *model.Organisation) string {
			if o.Unit == nil {
				return ""
			}
			return timeKey(o.Meta.Created)
		}),
		byTime(IndexModified, func(o *model.Organisation) time.Time { return o.Meta.Modified }),
	),
	def(TablePersons, func(p *model.Person) string { return p.ID },
		(byEach(IndexPersonsByRole, func(p *model.Person) []string {
			if p.Directory == nil {
				return nil
			}
			keys := make([]string, len(p.Directory.Roles))
			for i, r := range p.Directory.Roles {
				keys[i] = string(r) + keySep + timeKey(p.Meta.Created)
			}
			return keys
		})),
		byTime(IndexModified, func(p *model.Person) time.Time { return p.Meta.Modified }),
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
	def(TableGroups, func(g *model.Group) string { return g.ID },
		by(IndexOrganisation, func(g *model.Group) string { return g.Organisation.ID }),
		byEach(IndexMember, func(g *model.Group) []string {
			ids := make([]string, 0, len(g.GroupMemberships))
			for _, m := range g.GroupMemberships {
				ids = append(ids, m.Person.ID)
			}
			return ids
		}),
		byTime(IndexGroupsByCreated, func(g *model.Group) time.Time { return g.Meta.Created }),
		byTime(IndexModified, func(g *model.Group) time.Time { return g.Meta.Modified }),
		by(IndexSchoolTitle, func(g *model.Group) string { return g.Organisation.ID + keySep + strings.ToLower(g.DisplayName) }),
		byEach(IndexDuty, func(g *model.Group) []string {
			ids := make([]string, len(g.AssignmentRoles))
			for i, r := range g.AssignmentRoles {
				ids[i] = r.Duty.ID
			}
			return ids
		}),
	),
	def(TablePlacements, func(p *model.Placement) string { return p.ID },
		placementIndex(IndexPlacedAt), placementIndex(IndexGroup), placementIndex(IndexChild),
		placementIndex(IndexOwner), placementIndex(IndexStartDate), placementIndex(IndexEndDate),
		placementIndex(IndexCreated), placementIndex(IndexModified),
	),
	def(TableSyllabuses, func(s *model.Syllabus) string { return s.ID },
		by(IndexSyllabusCode, func(s *model.Syllabus) string { return SyllabusCodeKey(s.SchoolType, s.CourseCode, s.SubjectCode) }),
	),
	def(TableCalendarEvents, func(c *model.CalendarEvent) string { return c.ID },
		// group, organisation, teacher: through the activities (events.go)
		by(IndexActivity, func(c *model.CalendarEvent) string { return c.Activity.ID }),
		byTime(IndexStartTime, func(c *model.CalendarEvent) time.Time { return c.StartTime }),
	),
	def(TableAttendances, func(a *model.Attendance) string { return a.ID },
		by(IndexStudent, func(a *model.Attendance) string { return a.Student.ID }),
		by(IndexCalendarEvent, func(a *model.Attendance) string { return a.CalendarEvent.ID }),
		by(IndexEventDay, func(a *model.Attendance) string {
			if a.EventDay() == "" {
				return ""
			}
			return EventDayKey(a.EventDay(), a.Student.ID)
		}),
		// the data export's order: meta.created, then id
		byTime(IndexCreated, func(a *model.Attendance) time.Time { return a.Meta.Created }),
	),
	def(TableAbsences, func(a *model.Absence) string { return a.ID },
		by(IndexStudent, func(a *model.Absence) string { return a.Student.ID }),
		by(IndexOrganisation, func(a *model.Absence) string { return a.Organisation.ID }),
	),
	def(TableTombstones, func(t *model.Tombstone) string { return t.ID },
		byTime(IndexDeletedAt, func(t *model.Tombstone) time.Time { return t.DeletedAt }),
		by(IndexKindDeletedAt, func(t *model.Tombstone) string { return t.Kind + keySep + timeKey(t.DeletedAt) }),
	),
	def(TableEmployeePlacements, func(p *model.EmployeePlacement) string { return p.ID },
		byTime(IndexCreated, func(p *model.EmployeePlacement) time.Time { return p.Meta.Created }),
		byTime(IndexModified, func(p *model.EmployeePlacement) time.Time { return p.Meta.Modified }),
		by(IndexEmployee, func(p *model.EmployeePlacement) string { return p.EmployeeID }),
		by(IndexOrganisation, func(p *model.EmployeePlacement) string { return p.SchoolID }),
	),
}, registerTables...)

// tableDefs finds a table by name.
var tableDefs = func() map[string]*tableDef {
	m := map[string]*tableDef{}
	for _, td := range tables {
		m[td.name] = td
	}
	return m
}()

// schema is the go-memdb schema of the tables: each table's pages, and each
// secondary index's pages (pages.go), keyed by their fences.
func schema() *memdb.DBSchema {
	s := &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{}}
	for _, td := range tables {
		s.Tables[td.name] = &memdb.TableSchema{Name: td.name, Indexes: map[string]*memdb.IndexSchema{
			IndexID: {Name: IndexID, Unique: true, Indexer: fenceIndex{}},
		}}
		for _, ix := range td.indexes {
			pt := pageTable(td.name, ix.name)
			s.Tables[pt] = &memdb.TableSchema{Name: pt, Indexes: map[string]*memdb.IndexSchema{
				IndexID: {Name: IndexID, Unique: true, Indexer: fenceIndex{}},
			}}
		}
	}
	s.Tables[tableRelations] = &memdb.TableSchema{Name: tableRelations, Indexes: map[string]*memdb.IndexSchema{
		IndexID: {Name: IndexID, Unique: true, Indexer: relationIndex{}},
	}}
	return s
}
