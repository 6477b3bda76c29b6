package store

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skolkit/skolkit/model"
)

// Names of the built-in tables.
const (
	TableOrganisations  = "organisations"
	TablePersons        = "persons"
	TableGroups         = "groups"
	TablePlacements     = "placements"
	TableSyllabuses     = "syllabuses"
	TableCalendarEvents = "calendarEvents"
	TableAttendances    = "attendances"
	TableAbsences       = "absences"
	// TableEmployeePlacements is interface A's; interface B shows its
	// records as duties.
	TableEmployeePlacements  = "employeePlacements"
	TableProgrammes          = "programmes"
	TableStudyPlans          = "studyPlans"
	TableSchoolUnitOfferings = "schoolUnitOfferings"
	TableActivities          = "activities"
	TableAttendanceEvents    = "attendanceEvents"
	TableAttendanceSchedules = "attendanceSchedules"
	// TableGrades holds interface B's grades and interface A's two kinds of
	// grade alike.
	TableGrades    = "grades"
	TableResources = "resources"
	TableRooms     = "rooms"
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
	IndexParent           = "parent" // parentOrganisation
	IndexOrganisationCode = "organisationCode"

	// groups, activities, absences, ...
	IndexOrganisation = "organisation"
	IndexMember       = "member"

	// attendances, absences, grades, study plans
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
	// groups: the duties of their assignment roles
	IndexDuty = "duty"
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
	// calendar events
	IndexActivity  = "activity"
	IndexStartTime = "startTime"
	// attendance events
	IndexPerson = "person"
	// attendance schedules
	IndexPlacement = "placement"
	// programmes
	IndexCode = "code"

	// IndexDeletedAt orders tombstones by deletion time, then id;
	// IndexKindDeletedAt by kind, then deletion time.
	IndexDeletedAt     = "deletedAt"
	IndexKindDeletedAt = "kindDeletedAt"
)

// The order indexes: one per sortkey of interface B
// (docs/decisions.md#interface-b-indexes), so that a sorted list walks an index that has the order and stops
// after a page instead of sorting every match. An ascending and a
// descending sortkey of the same field share one index, walked both ways.
// Unlike the equality indexes of the filters, an order index holds every
// record, "" included (a syllabus without a course code sorts first).
// IndexModified, IndexStartDate, IndexEndDate and IndexStartTime serve as
// order indexes too.
const (
	IndexDisplayNameOrder        = "displayNameOrder"
	IndexGivenNameOrder          = "givenNameOrder"
	IndexFamilyNameOrder         = "familyNameOrder"
	IndexCivicNoOrder            = "civicNoOrder"
	IndexNameOrder               = "nameOrder"
	IndexCodeOrder               = "codeOrder"
	IndexSubjectNameOrder        = "subjectNameOrder"
	IndexSubjectCodeOrder        = "subjectCodeOrder"
	IndexCourseNameOrder         = "courseNameOrder"
	IndexCourseCodeOrder         = "courseCodeOrder"
	IndexSubjectDesignationOrder = "subjectDesignationOrder"
	IndexRegisteredDate          = "registeredDate"
)

// The built-in tables, one declaration each (Table): the records of both
// interfaces, interface A's employee placements, and the deletion log. The
// order is the Dataset's and the state document's.
func builtinTables() []TableDecl {
	return []TableDecl{
		organisations, persons, groups, placements, syllabuses, calendarEvents, attendances, absences,
		employeePlacements, programmes, studyPlans, schoolUnitOfferings, activities, attendanceEvents,
		attendanceSchedules, grades, resources, rooms, tombstones,
	}
}

// optionalRef is the IDs of a reference that may be absent (nil).
func optionalRef[T any](ref func(*T) *model.ObjectReference) func(*T, []string) []string {
	return func(rec *T, dst []string) []string {
		if r := ref(rec); r != nil {
			dst = append(dst, r.ID)
		}
		return dst
	}
}

// optionalPerson is the IDs of a person reference that may be absent (nil).
func optionalPerson[T any](ref func(*T) *model.PersonReference) func(*T, []string) []string {
	return func(rec *T, dst []string) []string {
		if r := ref(rec); r != nil {
			dst = append(dst, r.ID)
		}
		return dst
	}
}

// each is the IDs of a list of references.
func each[T, R any](list func(*T) []R, id func(R) string) func(*T, []string) []string {
	return func(rec *T, dst []string) []string {
		for _, r := range list(rec) {
			dst = append(dst, id(r))
		}
		return dst
	}
}

func objectID(r model.ObjectReference) string { return r.ID }
func personID(r model.PersonReference) string { return r.ID }

// always cascades every holder of a reference.
func always[T any](*T) bool { return true }

var organisations = &Table[model.Organisation]{
	Name:    TableOrganisations,
	ID:      func(o *model.Organisation) string { return o.ID },
	Meta:    func(o *model.Organisation) *model.Meta { return &o.Meta },
	Records: func(ds *Dataset) *[]model.Organisation { return &ds.Organisations },
	Indexes: []Index[model.Organisation]{
		By(IndexOrganisationType, func(o *model.Organisation) string { return string(o.OrganisationType) }),
		By(IndexSchoolUnitCode, func(o *model.Organisation) string { return o.SchoolUnitCode }),
		By(IndexParent, func(o *model.Organisation) string { return o.ParentOrganisation.OptionalID() }),
		By(IndexOrganisationCode, func(o *model.Organisation) string { return o.OrganisationCode }),
		By(IndexSchoolsByCreated, func(o *model.Organisation) string {
			if o.Directory == nil {
				return ""
			}
			return timeKey(o.Meta.Created)
		}),
		By(IndexUnitsByCreated, func(o *model.Organisation) string {
			if o.Unit == nil {
				return ""
			}
			return timeKey(o.Meta.Created)
		}),
		ModifiedOrder(func(o *model.Organisation) *model.Meta { return &o.Meta }),
		Ordered(IndexDisplayNameOrder, func(o *model.Organisation) string { return FoldKey(o.DisplayName) }),
	},
	Refs: []Ref[model.Organisation]{
		{Field: "parentOrganisation.id", To: TableOrganisations, Label: "organisation(s) as parent", Index: IndexParent,
			IDs: optionalRef(func(o *model.Organisation) *model.ObjectReference { return o.ParentOrganisation })},
	},
}

var persons = &Table[model.Person]{
	Name:      TablePersons,
	ID:        func(p *model.Person) string { return p.ID },
	Meta:      func(p *model.Person) *model.Meta { return &p.Meta },
	Records:   func(ds *Dataset) *[]model.Person { return &ds.Persons },
	Deletable: true,
	Indexes: []Index[model.Person]{
		ByEach(IndexPersonsByRole, func(p *model.Person) []string {
			if p.Directory == nil {
				return nil
			}
			keys := make([]string, len(p.Directory.Roles))
			for i, r := range p.Directory.Roles {
				keys[i] = string(r) + keySep + timeKey(p.Meta.Created)
			}
			return keys
		}),
		ModifiedOrder(func(p *model.Person) *model.Meta { return &p.Meta }),
		ByEach(IndexResponsible, responsibleIDs),
		By(IndexCivicNo, func(p *model.Person) string {
			if p.CivicNo == nil {
				return ""
			}
			return p.CivicNo.Value
		}),
		Ordered(IndexDisplayNameOrder, func(p *model.Person) string { return FoldKey(p.DisplayName()) }),
		Ordered(IndexGivenNameOrder, func(p *model.Person) string { return FoldKey(p.GivenName) }),
		// family name, then given name
		Ordered(IndexFamilyNameOrder, func(p *model.Person) string { return FoldKey(p.FamilyName + "\x01" + p.GivenName) }),
		Ordered(IndexCivicNoOrder, func(p *model.Person) string {
			if p.CivicNo == nil {
				return ""
			}
			return p.CivicNo.Value
		}),
	},
	Refs: []Ref[model.Person]{
		{Field: "enrolments[%d].enroledAt.id", To: TableOrganisations, Label: "person(s) enrolled",
			IDs: each(func(p *model.Person) []model.Enrolment { return p.Enrolments }, func(e model.Enrolment) string { return e.EnroledAt.ID })},
		{Field: "responsibles[%d].person.id", To: TablePersons, Label: "person(s) as responsible", Index: IndexResponsible,
			IDs: each(func(p *model.Person) []model.Responsible { return p.Responsibles }, func(r model.Responsible) string { return r.Person.ID })},
	},
	holds: func(d dependencies, p *model.Person, set relatedSet) relatedSet {
		return personRelations(set, p, d.placementsOf(p.ID), d.groupsOf(p.ID))
	},
}

var groups = &Table[model.Group]{
	Name:      TableGroups,
	ID:        func(g *model.Group) string { return g.ID },
	Meta:      func(g *model.Group) *model.Meta { return &g.Meta },
	Records:   func(ds *Dataset) *[]model.Group { return &ds.Groups },
	Deletable: true,
	Strip:     func(g *model.Group) { g.Embedded = nil },
	Indexes: []Index[model.Group]{
		By(IndexOrganisation, func(g *model.Group) string { return g.Organisation.ID }),
		ByEach(IndexMember, func(g *model.Group) []string {
			ids := make([]string, 0, len(g.GroupMemberships))
			for _, m := range g.GroupMemberships {
				ids = append(ids, m.Person.ID)
			}
			return ids
		}),
		ByTime(IndexGroupsByCreated, func(g *model.Group) time.Time { return g.Meta.Created }),
		ModifiedOrder(func(g *model.Group) *model.Meta { return &g.Meta }),
		By(IndexSchoolTitle, schoolTitleKey),
		ByEach(IndexDuty, func(g *model.Group) []string {
			ids := make([]string, len(g.AssignmentRoles))
			for i, r := range g.AssignmentRoles {
				ids[i] = r.Duty.ID
			}
			return ids
		}),
		Ordered(IndexDisplayNameOrder, func(g *model.Group) string { return FoldKey(g.DisplayName) }),
		Ordered(IndexStartDate, func(g *model.Group) string { return string(g.StartDate) }),
		Ordered(IndexEndDate, func(g *model.Group) string { return EndDateOrder(g.EndDate) }),
	},
	Refs: []Ref[model.Group]{
		{Field: "organisation.id", To: TableOrganisations, Label: "group(s)", Index: IndexOrganisation,
			IDs: One(func(g *model.Group) string { return g.Organisation.ID })},
		{Field: "groupMemberships[%d].person.id", To: TablePersons, Label: "group membership(s)", Index: IndexMember,
			IDs: each(func(g *model.Group) []model.GroupMembership { return g.GroupMemberships }, func(m model.GroupMembership) string { return m.Person.ID })},
	},
	// A school's group titles are unique, whatever their case.
	Conflict: func(sn *Snapshot, g *model.Group) error {
		var err error
		_ = sn.Scan(TableGroups, IndexSchoolTitle, schoolTitleKey(g), func(obj any) bool {
			if other := obj.(*model.Group); other.ID != g.ID {
				err = &ConflictError{Message: fmt.Sprintf("the school already has a group titled %q (%s)", other.DisplayName, other.ID)}
			}
			return false
		})
		return err
	},
	affects: changedMembers,
}

// schoolTitleKey is a group's value under IndexSchoolTitle.
func schoolTitleKey(g *model.Group) string {
	return g.Organisation.ID + keySep + strings.ToLower(g.DisplayName)
}

var placements = &Table[model.Placement]{
	Name:      TablePlacements,
	ID:        func(p *model.Placement) string { return p.ID },
	Meta:      func(p *model.Placement) *model.Meta { return &p.Meta },
	Records:   func(ds *Dataset) *[]model.Placement { return &ds.Placements },
	Deletable: true,
	Strip:     func(p *model.Placement) { p.Embedded = nil },
	// Interface B has placements of FS, FTH and OPPFTH only; the table also
	// holds interface A's student placements of other school forms.
	Hidden: func(p *model.Placement) bool { return !model.IsRegisterPlacement(p) },
	Indexes: []Index[model.Placement]{
		placementIndex(IndexPlacedAt), placementIndex(IndexGroup), placementIndex(IndexChild),
		placementIndex(IndexOwner), placementIndex(IndexStartDate), placementIndex(IndexEndDate),
		placementIndex(IndexCreated), placementIndex(IndexModified),
	},
	Refs: []Ref[model.Placement]{
		{Field: "placedAt.id", To: TableOrganisations, Label: "placement(s)", Index: IndexPlacedAt,
			IDs: One(func(p *model.Placement) string { return p.PlacedAt.ID })},
		{Field: "child.id", To: TablePersons, Label: "placement(s) as child", Index: IndexChild,
			IDs: One(func(p *model.Placement) string { return p.Child.ID })},
		{Field: "group.id", To: TableGroups, Label: "placement(s)", Index: IndexGroup,
			IDs: optionalRef(func(p *model.Placement) *model.ObjectReference { return p.Group })},
		{Field: "owners[%d].id", To: TablePersons, Label: "placement(s) as owner", Index: IndexOwner,
			IDs: each(func(p *model.Placement) []model.PersonReference { return p.Owners }, personID)},
	},
	// A placement's child holds the relationships the placement gives.
	affects: func(old, now *model.Placement) []string {
		var out []string
		if old != nil {
			out = append(out, old.Child.ID)
		}
		if now != nil && !slices.Contains(out, now.Child.ID) {
			out = append(out, now.Child.ID)
		}
		return out
	},
}

var syllabuses = &Table[model.Syllabus]{
	Name:    TableSyllabuses,
	ID:      func(s *model.Syllabus) string { return s.ID },
	Meta:    func(s *model.Syllabus) *model.Meta { return &s.Meta },
	Records: func(ds *Dataset) *[]model.Syllabus { return &ds.Syllabuses },
	Indexes: []Index[model.Syllabus]{
		By(IndexSyllabusCode, func(s *model.Syllabus) string { return SyllabusCodeKey(s.SchoolType, s.CourseCode, s.SubjectCode) }),
		ModifiedOrder(func(s *model.Syllabus) *model.Meta { return &s.Meta }),
		Ordered(IndexSubjectNameOrder, func(s *model.Syllabus) string { return FoldKey(s.SubjectName) }),
		Ordered(IndexSubjectCodeOrder, func(s *model.Syllabus) string { return FoldKey(s.SubjectCode) }),
		Ordered(IndexCourseNameOrder, func(s *model.Syllabus) string { return FoldKey(s.CourseName) }),
		Ordered(IndexCourseCodeOrder, func(s *model.Syllabus) string { return FoldKey(s.CourseCode) }),
		Ordered(IndexSubjectDesignationOrder, func(s *model.Syllabus) string { return FoldKey(s.SubjectDesignation) }),
	},
}

// SyllabusCodeKey is a syllabus's key in IndexSyllabusCode: its school type
// and its course code, else its subject code.
func SyllabusCodeKey(schoolType model.SchoolType, courseCode, subjectCode string) string {
	code := courseCode
	if code == "" {
		code = subjectCode
	}
	if code == "" {
		return ""
	}
	return string(schoolType) + "/" + code
}

// Calendar events are the largest table (a million in the municipality-sized
// scenario), so they have only two secondary indexes: their activity and
// their start time. Their group, organisation and teacher are their
// activity's (events.go), and the events of a group, an organisation or a
// teacher are found through the activities.
var calendarEvents = &Table[model.CalendarEvent]{
	Name:    TableCalendarEvents,
	ID:      func(c *model.CalendarEvent) string { return c.ID },
	Meta:    func(c *model.CalendarEvent) *model.Meta { return &c.Meta },
	Records: func(ds *Dataset) *[]model.CalendarEvent { return &ds.CalendarEvents },
	// An event without references gets empty ones (the reference checks then
	// name what is missing); shared ones stay shared (model.CalendarEvent).
	Strip: func(c *model.CalendarEvent) { c.EnsureRefs() },
	Indexes: []Index[model.CalendarEvent]{
		By(IndexActivity, func(c *model.CalendarEvent) string { return c.Activity.ID }),
		ByTime(IndexStartTime, func(c *model.CalendarEvent) time.Time { return c.StartTime }),
	},
	Refs: []Ref[model.CalendarEvent]{
		{Field: "organisation.id", To: TableOrganisations, Label: "calendar event(s)", Count: eventsOfOrganisation,
			IDs: One(func(c *model.CalendarEvent) string { return c.Organisation.ID })},
		{Field: "group.id", To: TableGroups, Label: "calendar event(s)", Count: eventsOfGroup,
			IDs: One(func(c *model.CalendarEvent) string { return c.Group.ID })},
		{Field: "syllabus.id", To: TableSyllabuses, Label: "calendar event(s)",
			IDs: One(func(c *model.CalendarEvent) string { return c.Syllabus.ID })},
		{Field: "teacher.id", To: TablePersons, Label: "calendar event(s) as teacher", Count: eventsTaughtBy,
			IDs: One(func(c *model.CalendarEvent) string { return c.Teacher.ID })},
		{Field: "activity.id", To: TableActivities, Label: "calendar event(s)", Index: IndexActivity,
			IDs: func(c *model.CalendarEvent, dst []string) []string {
				if c.Activity.ID != "" {
					dst = append(dst, c.Activity.ID)
				}
				return dst
			}},
		{Field: "rooms[%d].id", To: TableRooms, Label: "calendar event(s)",
			IDs: each(func(c *model.CalendarEvent) []model.ObjectReference { return c.Rooms }, objectID)},
		{Field: "resources[%d].id", To: TableResources, Label: "calendar event(s)",
			IDs: each(func(c *model.CalendarEvent) []model.ObjectReference { return c.Resources }, objectID)},
	},
	// the event agrees with its activity (events.go)
	Conflict: func(sn *Snapshot, c *model.CalendarEvent) error {
		var r eventRule
		return r.check(c, func(id string) *model.Activity {
			a, _ := getAs[model.Activity](sn.t, TableActivities, id)
			return a
		})
	},
	// its attendance records move with it to another day (eventdays.go)
	Cascade: moveEventDays,
}

var attendances = &Table[model.Attendance]{
	Name:      TableAttendances,
	ID:        func(a *model.Attendance) string { return a.ID },
	Meta:      func(a *model.Attendance) *model.Meta { return &a.Meta },
	Records:   func(ds *Dataset) *[]model.Attendance { return &ds.Attendances },
	Deletable: true,
	Derive:    deriveEventDay, // eventdays.go
	Indexes: []Index[model.Attendance]{
		By(IndexStudent, func(a *model.Attendance) string { return a.Student.ID }),
		By(IndexCalendarEvent, func(a *model.Attendance) string { return a.CalendarEvent.ID }),
		By(IndexEventDay, func(a *model.Attendance) string {
			if a.EventDay() == "" {
				return ""
			}
			return EventDayKey(a.EventDay(), a.Student.ID)
		}),
		// the data export's order: meta.created, then id
		ByTime(IndexCreated, func(a *model.Attendance) time.Time { return a.Meta.Created }),
	},
	Refs: []Ref[model.Attendance]{
		{Field: "calendarEvent.id", To: TableCalendarEvents, Label: "attendance record(s)", Index: IndexCalendarEvent,
			IDs: One(func(a *model.Attendance) string { return a.CalendarEvent.ID })},
		{Field: "student.id", To: TablePersons, Label: "attendance record(s)", Index: IndexStudent,
			IDs: One(func(a *model.Attendance) string { return a.Student.ID })},
		// Reporters are not indexed (nothing lists by them): deleting a
		// person, which is rare, scans the table.
		{Field: "reporter.id", To: TablePersons, Label: "attendance record(s) as reporter",
			IDs: optionalPerson(func(a *model.Attendance) *model.PersonReference { return a.Reporter })},
	},
}

var absences = &Table[model.Absence]{
	Name:      TableAbsences,
	ID:        func(a *model.Absence) string { return a.ID },
	Meta:      func(a *model.Absence) *model.Meta { return &a.Meta },
	Records:   func(ds *Dataset) *[]model.Absence { return &ds.Absences },
	Deletable: true,
	Indexes: []Index[model.Absence]{
		By(IndexStudent, func(a *model.Absence) string { return a.Student.ID }),
		By(IndexOrganisation, func(a *model.Absence) string { return a.Organisation.ID }),
		ModifiedOrder(func(a *model.Absence) *model.Meta { return &a.Meta }),
		ByTime(IndexStartTime, func(a *model.Absence) time.Time { return a.StartTime }),
	},
	Refs: []Ref[model.Absence]{
		{Field: "student.id", To: TablePersons, Label: "absence record(s)", Index: IndexStudent,
			IDs: One(func(a *model.Absence) string { return a.Student.ID })},
		{Field: "organisation.id", To: TableOrganisations, Label: "absence record(s)", Index: IndexOrganisation,
			IDs: One(func(a *model.Absence) string { return a.Organisation.ID })},
		// Registrars are not indexed (nothing lists by them).
		{Field: "registeredBy.id", To: TablePersons, Label: "absence record(s) as registrar",
			IDs: optionalPerson(func(a *model.Absence) *model.PersonReference { return a.RegisteredBy })},
	},
}

var employeePlacements = &Table[model.EmployeePlacement]{
	Name:      TableEmployeePlacements,
	ID:        func(p *model.EmployeePlacement) string { return p.ID },
	Meta:      func(p *model.EmployeePlacement) *model.Meta { return &p.Meta },
	Records:   func(ds *Dataset) *[]model.EmployeePlacement { return &ds.EmployeePlacements },
	Deletable: true,
	Indexes: []Index[model.EmployeePlacement]{
		ByTime(IndexCreated, func(p *model.EmployeePlacement) time.Time { return p.Meta.Created }),
		ModifiedOrder(func(p *model.EmployeePlacement) *model.Meta { return &p.Meta }),
		By(IndexEmployee, func(p *model.EmployeePlacement) string { return p.EmployeeID }),
		By(IndexOrganisation, func(p *model.EmployeePlacement) string { return p.SchoolID }),
		Ordered(IndexStartDate, func(p *model.EmployeePlacement) string { return string(p.StartDate) }),
	},
	Refs: []Ref[model.EmployeePlacement]{
		{Field: "employeeID", To: TablePersons, Label: "employee placement(s)", Index: IndexEmployee,
			IDs: One(func(p *model.EmployeePlacement) string { return p.EmployeeID })},
		{Field: "schoolID", To: TableOrganisations, Label: "employee placement(s)", Index: IndexOrganisation,
			IDs: One(func(p *model.EmployeePlacement) string { return p.SchoolID })},
	},
	holds: func(_ dependencies, d *model.EmployeePlacement, set relatedSet) relatedSet {
		return dutyRelations(set, d)
	},
}

var programmes = &Table[model.Programme]{
	Name:    TableProgrammes,
	ID:      func(p *model.Programme) string { return p.ID },
	Meta:    func(p *model.Programme) *model.Meta { return &p.Meta },
	Records: func(ds *Dataset) *[]model.Programme { return &ds.Programmes },
	Indexes: []Index[model.Programme]{
		By(IndexCode, func(p *model.Programme) string { return p.Code }),
		ModifiedOrder(func(p *model.Programme) *model.Meta { return &p.Meta }),
		Ordered(IndexNameOrder, func(p *model.Programme) string { return FoldKey(p.Name) }),
		Ordered(IndexCodeOrder, func(p *model.Programme) string { return p.Code }),
	},
	Refs: []Ref[model.Programme]{
		{Field: "parentProgramme.id", To: TableProgrammes, Label: "programme(s) as parent",
			IDs: optionalRef(func(p *model.Programme) *model.ObjectReference { return p.ParentProgramme })},
		{Field: "content[].content[%d].id", To: TableSyllabuses, Label: "programme(s)",
			IDs: func(p *model.Programme, dst []string) []string {
				for _, c := range p.Content {
					for _, s := range c.Content {
						dst = append(dst, s.ID)
					}
				}
				return dst
			}},
	},
}

var studyPlans = &Table[model.StudyPlan]{
	Name:    TableStudyPlans,
	ID:      func(p *model.StudyPlan) string { return p.ID },
	Meta:    func(p *model.StudyPlan) *model.Meta { return &p.Meta },
	Records: func(ds *Dataset) *[]model.StudyPlan { return &ds.StudyPlans },
	Indexes: []Index[model.StudyPlan]{
		By(IndexStudent, func(p *model.StudyPlan) string { return p.Student.ID }),
		ModifiedOrder(func(p *model.StudyPlan) *model.Meta { return &p.Meta }),
		Ordered(IndexStartDate, func(p *model.StudyPlan) string { return string(p.StartDate) }),
		Ordered(IndexEndDate, func(p *model.StudyPlan) string { return EndDateOrder(p.EndDate) }),
	},
	Refs: []Ref[model.StudyPlan]{
		// A pupil's study plans go with the pupil: interface A's clients
		// cannot see them (docs/decisions.md#ss12000-record-deletes).
		{Field: "student.id", To: TablePersons, Index: IndexStudent, Cascade: always[model.StudyPlan],
			IDs: One(func(p *model.StudyPlan) string { return p.Student.ID })},
		{Field: "content[].syllabuses[%d].syllabus.id", To: TableSyllabuses, Label: "study plan(s)",
			IDs: func(p *model.StudyPlan, dst []string) []string {
				for _, c := range p.Content {
					for _, s := range c.Syllabuses {
						dst = append(dst, s.Syllabus.ID)
					}
				}
				return dst
			}},
	},
}

var schoolUnitOfferings = &Table[model.SchoolUnitOffering]{
	Name:    TableSchoolUnitOfferings,
	ID:      func(o *model.SchoolUnitOffering) string { return o.ID },
	Meta:    func(o *model.SchoolUnitOffering) *model.Meta { return &o.Meta },
	Records: func(ds *Dataset) *[]model.SchoolUnitOffering { return &ds.SchoolUnitOfferings },
	Indexes: []Index[model.SchoolUnitOffering]{
		By(IndexOrganisation, func(o *model.SchoolUnitOffering) string { return o.OfferedAt.ID }),
		ModifiedOrder(func(o *model.SchoolUnitOffering) *model.Meta { return &o.Meta }),
		Ordered(IndexStartDate, func(o *model.SchoolUnitOffering) string { return string(o.StartDate) }),
		Ordered(IndexEndDate, func(o *model.SchoolUnitOffering) string { return EndDateOrder(o.EndDate) }),
	},
	Refs: []Ref[model.SchoolUnitOffering]{
		{Field: "offeredAt.id", To: TableOrganisations, Label: "school unit offering(s)", Index: IndexOrganisation,
			IDs: One(func(o *model.SchoolUnitOffering) string { return o.OfferedAt.ID })},
		{Field: "offeredSyllabuses[%d].id", To: TableSyllabuses, Label: "school unit offering(s)",
			IDs: each(func(o *model.SchoolUnitOffering) []model.ObjectReference { return o.OfferedSyllabuses }, objectID)},
		{Field: "offeredProgrammes[%d].id", To: TableProgrammes, Label: "school unit offering(s)",
			IDs: each(func(o *model.SchoolUnitOffering) []model.ObjectReference { return o.OfferedProgrammes }, objectID)},
	},
}

var activities = &Table[model.Activity]{
	Name:    TableActivities,
	ID:      func(a *model.Activity) string { return a.ID },
	Meta:    func(a *model.Activity) *model.Meta { return &a.Meta },
	Records: func(ds *Dataset) *[]model.Activity { return &ds.Activities },
	Indexes: []Index[model.Activity]{
		By(IndexOrganisation, func(a *model.Activity) string { return a.Organisation.ID }),
		ByEach(IndexGroup, func(a *model.Activity) []string {
			ids := make([]string, len(a.Groups))
			for i, g := range a.Groups {
				ids[i] = g.ID
			}
			return ids
		}),
		ByEach(IndexTeacher, func(a *model.Activity) []string {
			ids := make([]string, len(a.Teachers))
			for i, t := range a.Teachers {
				ids[i] = t.Duty.ID
			}
			return ids
		}),
		ModifiedOrder(func(a *model.Activity) *model.Meta { return &a.Meta }),
		Ordered(IndexDisplayNameOrder, func(a *model.Activity) string { return FoldKey(a.DisplayName) }),
	},
	Refs: []Ref[model.Activity]{
		{Field: "organisation.id", To: TableOrganisations, Label: "activit(y/ies)", Index: IndexOrganisation,
			IDs: One(func(a *model.Activity) string { return a.Organisation.ID })},
		{Field: "groups[%d].id", To: TableGroups, Label: "activit(y/ies)", Index: IndexGroup,
			IDs: each(func(a *model.Activity) []model.ObjectReference { return a.Groups }, objectID)},
		{Field: "syllabus.id", To: TableSyllabuses, Label: "activit(y/ies)",
			IDs: optionalRef(func(a *model.Activity) *model.ObjectReference { return a.Syllabus })},
	},
}

var attendanceEvents = &Table[model.AttendanceEvent]{
	Name:    TableAttendanceEvents,
	ID:      func(e *model.AttendanceEvent) string { return e.ID },
	Meta:    func(e *model.AttendanceEvent) *model.Meta { return &e.Meta },
	Records: func(ds *Dataset) *[]model.AttendanceEvent { return &ds.AttendanceEvents },
	Indexes: []Index[model.AttendanceEvent]{
		By(IndexPerson, func(e *model.AttendanceEvent) string { return e.Person.ID }),
		By(IndexGroup, func(e *model.AttendanceEvent) string { return e.Group.ID }),
	},
	Refs: []Ref[model.AttendanceEvent]{
		// A person's and a group's attendance events go with them:
		// interface A's clients cannot see them
		// (docs/decisions.md#ss12000-record-deletes).
		{Field: "person.id", To: TablePersons, Index: IndexPerson, Cascade: always[model.AttendanceEvent],
			IDs: One(func(e *model.AttendanceEvent) string { return e.Person.ID })},
		{Field: "group.id", To: TableGroups, Index: IndexGroup, Cascade: always[model.AttendanceEvent],
			IDs: One(func(e *model.AttendanceEvent) string { return e.Group.ID })},
		{Field: "registeredBy.id", To: TablePersons, Label: "attendance event(s) as registrar",
			IDs: optionalPerson(func(e *model.AttendanceEvent) *model.PersonReference { return e.RegisteredBy })},
	},
}

var attendanceSchedules = &Table[model.AttendanceSchedule]{
	Name:    TableAttendanceSchedules,
	ID:      func(s *model.AttendanceSchedule) string { return s.ID },
	Meta:    func(s *model.AttendanceSchedule) *model.Meta { return &s.Meta },
	Records: func(ds *Dataset) *[]model.AttendanceSchedule { return &ds.AttendanceSchedules },
	Indexes: []Index[model.AttendanceSchedule]{
		By(IndexPlacement, func(s *model.AttendanceSchedule) string { return s.Placement.ID }),
	},
	Refs: []Ref[model.AttendanceSchedule]{
		// A placement's schedules go with it (docs/decisions.md#ss12000-record-deletes).
		{Field: "placement.id", To: TablePlacements, Index: IndexPlacement, Cascade: always[model.AttendanceSchedule],
			IDs: One(func(s *model.AttendanceSchedule) string { return s.Placement.ID })},
	},
}

var grades = &Table[model.Grade]{
	Name:      TableGrades,
	ID:        func(g *model.Grade) string { return g.ID },
	Meta:      func(g *model.Grade) *model.Meta { return &g.Meta },
	Records:   func(ds *Dataset) *[]model.Grade { return &ds.Grades },
	Deletable: true,
	// A grade interface A wrote without a grade or a teacher lacks what
	// SS 12000 requires (docs/decisions.md#grades-in-both-views).
	Hidden: func(g *model.Grade) bool { return !g.RegisterVisible() },
	Indexes: []Index[model.Grade]{
		By(IndexStudent, func(g *model.Grade) string { return g.Student.ID }),
		ByEach(IndexTeacher, gradePersons),
		By(IndexGradesElementaryByCreated, func(g *model.Grade) string {
			return gradeCreatedKey(g, model.GradeKindElementary)
		}),
		By(IndexGradesUpperSecondaryByCreated, func(g *model.Grade) string {
			return gradeCreatedKey(g, model.GradeKindUpperSecondary)
		}),
		By(IndexOrganisation, func(g *model.Grade) string { return g.Organisation.OptionalID() }),
		ModifiedOrder(func(g *model.Grade) *model.Meta { return &g.Meta }),
		Ordered(IndexRegisteredDate, func(g *model.Grade) string { return string(g.RegisteredDate) }),
	},
	Refs: []Ref[model.Grade]{
		// A pupil's grades go with the pupil, unless interface A shows them
		// (docs/decisions.md#ss12000-record-deletes).
		{Field: "student.id", To: TablePersons, Label: "grade(s) as student", Index: IndexStudent,
			Cascade: func(g *model.Grade) bool { return g.Directory == nil },
			IDs:     One(func(g *model.Grade) string { return g.Student.ID })},
		{Field: "syllabus.id", To: TableSyllabuses, Label: "grade(s)",
			IDs: One(func(g *model.Grade) string { return g.Syllabus.ID })},
		// a grade interface A wrote without a teacher has no registrar
		{Field: "registeredBy.id", To: TablePersons, Label: gradeTeachers, Index: IndexTeacher,
			IDs: func(g *model.Grade, dst []string) []string {
				if g.RegisteredBy.ID != "" {
					dst = append(dst, g.RegisteredBy.ID)
				}
				return dst
			}},
		{Field: "teacher1EmployeeID", To: TablePersons, Label: gradeTeachers, Index: IndexTeacher,
			IDs: func(g *model.Grade, dst []string) []string {
				if x := g.Directory; x != nil && x.Teacher1EmployeeID != nil {
					dst = append(dst, *x.Teacher1EmployeeID)
				}
				return dst
			}},
		{Field: "teacher2EmployeeID", To: TablePersons, Label: gradeTeachers, Index: IndexTeacher,
			IDs: func(g *model.Grade, dst []string) []string {
				if x := g.Directory; x != nil && x.Teacher2EmployeeID != nil {
					dst = append(dst, *x.Teacher2EmployeeID)
				}
				return dst
			}},
		{Field: "organisation.id", To: TableOrganisations, Label: "grade(s)", Index: IndexOrganisation,
			IDs: optionalRef(func(g *model.Grade) *model.ObjectReference { return g.Organisation })},
		{Field: "gradingTeacher.id", To: TablePersons, Label: gradeTeachers, Index: IndexTeacher,
			IDs: optionalPerson(func(g *model.Grade) *model.PersonReference { return g.GradingTeacher })},
		{Field: "group.id", To: TableGroups, Label: "grade(s)",
			IDs: optionalRef(func(g *model.Grade) *model.ObjectReference { return g.Group })},
	},
}

// gradeTeachers labels the grades that name a person as a teacher or the
// registrar.
const gradeTeachers = "grade(s) as teacher or registrar"

// gradePersons lists the persons a grade names besides its pupil: interface
// A's teachers, the registrar and the grading teacher, each once.
func gradePersons(g *model.Grade) []string {
	var out []string
	if g.Directory != nil {
		out = g.Directory.Teachers()
	}
	if g.RegisteredBy.ID != "" {
		out = append(out, g.RegisteredBy.ID)
	}
	if g.GradingTeacher != nil {
		out = append(out, g.GradingTeacher.ID)
	}
	return out
}

// gradeCreatedKey is a grade's key in the list-order index of interface A's
// view kind, "" when the grade is not of that kind.
func gradeCreatedKey(g *model.Grade, kind string) string {
	if g.Directory == nil || g.Directory.Kind != kind {
		return ""
	}
	return timeKey(g.Meta.Created)
}

var resources = &Table[model.Resource]{
	Name:    TableResources,
	ID:      func(r *model.Resource) string { return r.ID },
	Meta:    func(r *model.Resource) *model.Meta { return &r.Meta },
	Records: func(ds *Dataset) *[]model.Resource { return &ds.Resources },
	Indexes: []Index[model.Resource]{
		By(IndexOrganisation, func(r *model.Resource) string { return r.Owner.ID }),
		ModifiedOrder(func(r *model.Resource) *model.Meta { return &r.Meta }),
		Ordered(IndexDisplayNameOrder, func(r *model.Resource) string { return FoldKey(r.DisplayName) }),
	},
	Refs: []Ref[model.Resource]{
		{Field: "owner.id", To: TableOrganisations, Label: "resource(s)", Index: IndexOrganisation,
			IDs: One(func(r *model.Resource) string { return r.Owner.ID })},
	},
}

var rooms = &Table[model.Room]{
	Name:    TableRooms,
	ID:      func(r *model.Room) string { return r.ID },
	Meta:    func(r *model.Room) *model.Meta { return &r.Meta },
	Records: func(ds *Dataset) *[]model.Room { return &ds.Rooms },
	Indexes: []Index[model.Room]{
		By(IndexOrganisation, func(r *model.Room) string { return r.Owner.ID }),
		ModifiedOrder(func(r *model.Room) *model.Meta { return &r.Meta }),
		Ordered(IndexDisplayNameOrder, func(r *model.Room) string { return FoldKey(r.DisplayName) }),
	},
	Refs: []Ref[model.Room]{
		{Field: "owner.id", To: TableOrganisations, Label: "room(s)", Index: IndexOrganisation,
			IDs: One(func(r *model.Room) string { return r.Owner.ID })},
	},
}

var tombstones = &Table[model.Tombstone]{
	Name:    TableTombstones,
	ID:      func(t *model.Tombstone) string { return t.ID },
	Meta:    func(t *model.Tombstone) *model.Meta { return &t.Meta },
	Records: func(ds *Dataset) *[]model.Tombstone { return &ds.Tombstones },
	Indexes: []Index[model.Tombstone]{
		ByTime(IndexDeletedAt, func(t *model.Tombstone) time.Time { return t.DeletedAt }),
		By(IndexKindDeletedAt, func(t *model.Tombstone) string { return t.Kind + keySep + timeKey(t.DeletedAt) }),
	},
}

// placementIndex is a secondary index of the placements table: the
// placement planner (query.go) reads the same values
// (appendPlacementIndexValues).
func placementIndex(name string) Index[model.Placement] {
	ix := indexDef{name: name, values: func(o any, dst []string) []string {
		return appendPlacementIndexValues(dst, o.(*model.Placement), name)
	}}
	switch name {
	case IndexCreated:
		ix.time = func(o any) time.Time { return o.(*model.Placement).Meta.Created }
	case IndexModified:
		ix.time = func(o any) time.Time { return o.(*model.Placement).Meta.Modified }
	}
	return Index[model.Placement]{ix}
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
