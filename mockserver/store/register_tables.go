package store

import (
	"fmt"
	"time"

	"github.com/skolkit/skolkit/model"
)

// The SS 12000 tables that only interface B's engine reads (issue 11), and
// the indexes its filters use.

// Table names of the SS 12000 records.
const (
	TableProgrammes          = "programmes"
	TableStudyPlans          = "studyPlans"
	TableSchoolUnitOfferings = "schoolUnitOfferings"
	TableActivities          = "activities"
	TableAttendanceEvents    = "attendanceEvents"
	TableAttendanceSchedules = "attendanceSchedules"
	TableGrades              = "grades"
	TableResources           = "resources"
	TableRooms               = "rooms"
)

// Index names of the SS 12000 tables.
const (
	IndexParent           = "parent"           // organisations: parentOrganisation
	IndexOrganisationCode = "organisationCode" // organisations
	IndexActivity         = "activity"         // calendar events
	IndexStartTime        = "startTime"        // calendar events
	IndexPerson           = "person"           // attendance events
	IndexPlacement        = "placement"        // attendance schedules
	IndexCode             = "code"             // programmes
	IndexDuty             = "duty"             // groups: the duties of their assignment roles
)

var registerTables = []*tableDef{
	def(TableProgrammes, func(p *model.Programme) string { return p.ID },
		by(IndexCode, func(p *model.Programme) string { return p.Code }),
	),
	def(TableStudyPlans, func(p *model.StudyPlan) string { return p.ID },
		by(IndexStudent, func(p *model.StudyPlan) string { return p.Student.ID }),
	),
	def(TableSchoolUnitOfferings, func(o *model.SchoolUnitOffering) string { return o.ID },
		by(IndexOrganisation, func(o *model.SchoolUnitOffering) string { return o.OfferedAt.ID }),
	),
	def(TableActivities, func(a *model.Activity) string { return a.ID },
		by(IndexOrganisation, func(a *model.Activity) string { return a.Organisation.ID }),
		byEach(IndexGroup, func(a *model.Activity) []string {
			ids := make([]string, len(a.Groups))
			for i, g := range a.Groups {
				ids[i] = g.ID
			}
			return ids
		}),
		byEach(IndexTeacher, func(a *model.Activity) []string {
			ids := make([]string, len(a.Teachers))
			for i, t := range a.Teachers {
				ids[i] = t.Duty.ID
			}
			return ids
		}),
	),
	def(TableAttendanceEvents, func(e *model.AttendanceEvent) string { return e.ID },
		by(IndexPerson, func(e *model.AttendanceEvent) string { return e.Person.ID }),
		by(IndexGroup, func(e *model.AttendanceEvent) string { return e.Group.ID }),
	),
	def(TableAttendanceSchedules, func(s *model.AttendanceSchedule) string { return s.ID },
		by(IndexPlacement, func(s *model.AttendanceSchedule) string { return s.Placement.ID }),
	),
	def(TableGrades, func(g *model.Grade) string { return g.ID },
		by(IndexStudent, func(g *model.Grade) string { return g.Student.ID }),
		byEach(IndexTeacher, gradePersons),
		by(IndexGradesElementaryByCreated, func(g *model.Grade) string {
			return gradeCreatedKey(g, model.GradeKindElementary)
		}),
		by(IndexGradesUpperSecondaryByCreated, func(g *model.Grade) string {
			return gradeCreatedKey(g, model.GradeKindUpperSecondary)
		}),
		by(IndexOrganisation, func(g *model.Grade) string {
			if g.Organisation == nil {
				return ""
			}
			return g.Organisation.ID
		}),
	),
	def(TableResources, func(r *model.Resource) string { return r.ID },
		by(IndexOrganisation, func(r *model.Resource) string { return r.Owner.ID }),
	),
	def(TableRooms, func(r *model.Room) string { return r.ID },
		by(IndexOrganisation, func(r *model.Room) string { return r.Owner.ID }),
	),
}

var programmes = kind[model.Programme]{
	table: TableProgrammes,
	id:    func(p *model.Programme) string { return p.ID },
	meta:  func(p *model.Programme) *model.Meta { return &p.Meta },
	refs: func(p *model.Programme, refs []ref) []ref {
		if p.ParentProgramme != nil {
			refs = append(refs, ref{"parentProgramme.id", TableProgrammes, p.ParentProgramme.ID, -1})
		}
		for _, c := range p.Content {
			for i, s := range c.Content {
				refs = append(refs, ref{"content[].content[%d].id", TableSyllabuses, s.ID, i})
			}
		}
		return refs
	},
}

var studyPlans = kind[model.StudyPlan]{
	table: TableStudyPlans,
	id:    func(p *model.StudyPlan) string { return p.ID },
	meta:  func(p *model.StudyPlan) *model.Meta { return &p.Meta },
	refs: func(p *model.StudyPlan, refs []ref) []ref {
		refs = append(refs, []ref{{"student.id", TablePersons, p.Student.ID, -1}}...)
		for _, c := range p.Content {
			for i, s := range c.Syllabuses {
				refs = append(refs, ref{"content[].syllabuses[%d].syllabus.id", TableSyllabuses, s.Syllabus.ID, i})
			}
		}
		return refs
	},
}

var schoolUnitOfferings = kind[model.SchoolUnitOffering]{
	table: TableSchoolUnitOfferings,
	id:    func(o *model.SchoolUnitOffering) string { return o.ID },
	meta:  func(o *model.SchoolUnitOffering) *model.Meta { return &o.Meta },
	refs: func(o *model.SchoolUnitOffering, refs []ref) []ref {
		refs = append(refs, []ref{{"offeredAt.id", TableOrganisations, o.OfferedAt.ID, -1}}...)
		for i, s := range o.OfferedSyllabuses {
			refs = append(refs, ref{"offeredSyllabuses[%d].id", TableSyllabuses, s.ID, i})
		}
		for i, p := range o.OfferedProgrammes {
			refs = append(refs, ref{"offeredProgrammes[%d].id", TableProgrammes, p.ID, i})
		}
		return refs
	},
}

var activities = kind[model.Activity]{
	table: TableActivities,
	id:    func(a *model.Activity) string { return a.ID },
	meta:  func(a *model.Activity) *model.Meta { return &a.Meta },
	refs: func(a *model.Activity, refs []ref) []ref {
		refs = append(refs, []ref{{"organisation.id", TableOrganisations, a.Organisation.ID, -1}}...)
		for i, g := range a.Groups {
			refs = append(refs, ref{"groups[%d].id", TableGroups, g.ID, i})
		}
		if a.Syllabus != nil {
			refs = append(refs, ref{"syllabus.id", TableSyllabuses, a.Syllabus.ID, -1})
		}
		return refs
	},
}

var attendanceEvents = kind[model.AttendanceEvent]{
	table: TableAttendanceEvents,
	id:    func(e *model.AttendanceEvent) string { return e.ID },
	meta:  func(e *model.AttendanceEvent) *model.Meta { return &e.Meta },
	refs: func(e *model.AttendanceEvent, refs []ref) []ref {
		refs = append(refs, []ref{{"person.id", TablePersons, e.Person.ID, -1}, {"group.id", TableGroups, e.Group.ID, -1}}...)
		if e.RegisteredBy != nil {
			refs = append(refs, ref{"registeredBy.id", TablePersons, e.RegisteredBy.ID, -1})
		}
		return refs
	},
}

var attendanceSchedules = kind[model.AttendanceSchedule]{
	table: TableAttendanceSchedules,
	id:    func(s *model.AttendanceSchedule) string { return s.ID },
	meta:  func(s *model.AttendanceSchedule) *model.Meta { return &s.Meta },
	refs: func(s *model.AttendanceSchedule, refs []ref) []ref {
		return append(refs, []ref{{"placement.id", TablePlacements, s.Placement.ID, -1}}...)
	},
}

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

var grades = kind[model.Grade]{
	table: TableGrades,
	id:    func(g *model.Grade) string { return g.ID },
	meta:  func(g *model.Grade) *model.Meta { return &g.Meta },
	refs: func(g *model.Grade, refs []ref) []ref {
		refs = append(refs, []ref{
			{"student.id", TablePersons, g.Student.ID, -1},
			{"syllabus.id", TableSyllabuses, g.Syllabus.ID, -1},
		}...)
		if g.RegisteredBy.ID != "" { // a grade interface A wrote without a teacher
			refs = append(refs, ref{"registeredBy.id", TablePersons, g.RegisteredBy.ID, -1})
		}
		if x := g.Directory; x != nil {
			if x.Teacher1EmployeeID != nil {
				refs = append(refs, ref{"teacher1EmployeeID", TablePersons, *x.Teacher1EmployeeID, -1})
			}
			if x.Teacher2EmployeeID != nil {
				refs = append(refs, ref{"teacher2EmployeeID", TablePersons, *x.Teacher2EmployeeID, -1})
			}
		}
		if g.Organisation != nil {
			refs = append(refs, ref{"organisation.id", TableOrganisations, g.Organisation.ID, -1})
		}
		if g.GradingTeacher != nil {
			refs = append(refs, ref{"gradingTeacher.id", TablePersons, g.GradingTeacher.ID, -1})
		}
		if g.Group != nil {
			refs = append(refs, ref{"group.id", TableGroups, g.Group.ID, -1})
		}
		return refs
	},
}

var resources = kind[model.Resource]{
	table: TableResources,
	id:    func(r *model.Resource) string { return r.ID },
	meta:  func(r *model.Resource) *model.Meta { return &r.Meta },
	refs: func(r *model.Resource, refs []ref) []ref {
		return append(refs, []ref{{"owner.id", TableOrganisations, r.Owner.ID, -1}}...)
	},
}

var rooms = kind[model.Room]{
	table: TableRooms,
	id:    func(r *model.Room) string { return r.ID },
	meta:  func(r *model.Room) *model.Meta { return &r.Meta },
	refs: func(r *model.Room, refs []ref) []ref {
		return append(refs, []ref{{"owner.id", TableOrganisations, r.Owner.ID, -1}}...)
	},
}

// registerLoads prepares the SS 12000 tables of a load.
func registerLoads(ds *Dataset, now time.Time, owned bool) []tablePrepare {
	return []tablePrepare{
		prepareOf(programmes, ds.Programmes, now, owned),
		prepareOf(studyPlans, ds.StudyPlans, now, owned),
		prepareOf(schoolUnitOfferings, ds.SchoolUnitOfferings, now, owned),
		prepareOf(activities, ds.Activities, now, owned),
		prepareOf(attendanceEvents, ds.AttendanceEvents, now, owned),
		prepareOf(attendanceSchedules, ds.AttendanceSchedules, now, owned),
		prepareOf(grades, ds.Grades, now, owned),
		prepareOf(resources, ds.Resources, now, owned),
		prepareOf(rooms, ds.Rooms, now, owned),
	}
}

// exportRegister fills the SS 12000 tables of an export.
func exportRegister(sn *Snapshot, ds *Dataset) {
	ds.Programmes = all(sn.t, programmes)
	ds.StudyPlans = all(sn.t, studyPlans)
	ds.SchoolUnitOfferings = all(sn.t, schoolUnitOfferings)
	ds.Activities = all(sn.t, activities)
	ds.AttendanceEvents = all(sn.t, attendanceEvents)
	ds.AttendanceSchedules = all(sn.t, attendanceSchedules)
	ds.Grades = all(sn.t, grades)
	ds.Resources = all(sn.t, resources)
	ds.Rooms = all(sn.t, rooms)
}

// registerReferrers names the SS 12000 records that still refer to a record
// about to be deleted (see referrers) and are not deleted with it
// (cascadeRegister): a delete must not leave them dangling, or the state
// could not be loaded again.
func registerReferrers(t *tx, table, id string) []string {
	var out []string
	count := func(tbl, ix, label string) {
		n := 0
		_ = t.scan(tableDefs[tbl], ix, id, func(any) bool { n++; return true })
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, label))
		}
	}
	scanCount := func(tbl, label string, refers func(obj any) bool) {
		n := 0
		_ = t.scan(tableDefs[tbl], IndexID, "", func(obj any) bool {
			if refers(obj) {
				n++
			}
			return true
		})
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, label))
		}
	}
	switch table {
	case TableGroups:
		count(TableActivities, IndexGroup, "activit(y/ies)")
		scanCount(TableGrades, "grade(s)", func(obj any) bool {
			g := obj.(*model.Grade)
			return g.Group != nil && g.Group.ID == id
		})
	case TablePersons:
		count(TableGrades, IndexTeacher, "grade(s) as teacher or registrar")
		n := 0 // the pupil's grades that interface A shows (the others go with the pupil)
		_ = t.scan(tableDefs[TableGrades], IndexStudent, id, func(obj any) bool {
			if obj.(*model.Grade).Directory != nil {
				n++
			}
			return true
		})
		if n > 0 {
			out = append(out, fmt.Sprintf("%d grade(s) as student", n))
		}
		scanCount(TableAttendanceEvents, "attendance event(s) as registrar", func(obj any) bool {
			e := obj.(*model.AttendanceEvent)
			return e.RegisteredBy != nil && e.RegisteredBy.ID == id
		})
	case TableOrganisations:
		count(TableActivities, IndexOrganisation, "activit(y/ies)")
		count(TableSchoolUnitOfferings, IndexOrganisation, "school unit offering(s)")
		count(TableRooms, IndexOrganisation, "room(s)")
		count(TableResources, IndexOrganisation, "resource(s)")
		count(TableGrades, IndexOrganisation, "grade(s)")
	}
	return out
}

// cascadeRegister deletes the SS 12000 records that belong to a record being
// deleted: a placement's attendance schedules, a person's study plans,
// attendance events and grades (as the pupil, unless interface A shows the
// grade), a group's attendance events.
// Interface A's clients cannot see these records, so a delete through A
// takes them along rather than failing on them (docs/decisions.md, BB19).
func (w *Writer) cascadeRegister(table, id string) error {
	type owned struct{ table, index string }
	var own []owned
	switch table {
	case TablePlacements:
		own = []owned{{TableAttendanceSchedules, IndexPlacement}}
	case TablePersons:
		own = []owned{{TableStudyPlans, IndexStudent}, {TableAttendanceEvents, IndexPerson}, {TableGrades, IndexStudent}}
	case TableGroups:
		own = []owned{{TableAttendanceEvents, IndexGroup}}
	}
	for _, o := range own {
		var ids []string
		td := tableDefs[o.table]
		_ = w.t.scan(td, o.index, id, func(obj any) bool {
			if g, ok := obj.(*model.Grade); !ok || g.Directory == nil { // interface A shows the others (referrers)
				ids = append(ids, td.id(obj))
			}
			return true
		})
		for _, oid := range ids {
			if err := w.Delete(o.table, oid); err != nil {
				return err
			}
		}
	}
	return nil
}
