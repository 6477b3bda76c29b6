package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// The lists of explicit records a scenario may hold (records.<key>), one
// declaration each: what its records are called in messages, whether other
// records must be able to name them by alias, how one is checked, and the
// record of the data set it becomes. The loader (checkRecords) and the
// builder (builder.build) derive everything else from these: aliases and
// ids, the generated ids an explicit id must not take, the order of the
// data. The order of the table is the order records are checked and built
// in (organisers, then the schools and units under them, ...).
func recordLists() []anyList {
	return []anyList{
		organisersList, schoolsList, unitsList, personsList, groupsList, placementsList, syllabusesList,
		calendarEventsList, roomsList, resourcesList, activitiesList, gradesList, attendancesList, absencesList,
	}
}

// recordList declares the list of explicit records of type R that become
// records of type T of the data set.
type recordList[R, T any] struct {
	key  string     // the member of records: "schools"
	kind recordKind // how messages name a record: "school"
	// needAlias: other records refer to the list's records, so each has an
	// alias.
	needAlias bool
	records   func(*Records) []R
	ident     func(*R) (alias, id string)
	// check returns the check of one record at path (its alias and id are
	// checked already); a list whose records are checked against each other
	// keeps what it saw in the closure. all is the whole scenario's records.
	check func(c *recordChecker, all *Records) func(path string, rec *R)
	// into is the data set's table the records go to, id a record's id
	// there; build makes the record of the data set with the id.
	into  func(*fixtures.Dataset) *[]T
	id    func(*T) string
	build func(b *builder, id string, rec *R) T
}

// anyList is a recordList of any record types.
type anyList interface {
	listKey() string
	// idents lists the records' aliases and ids, with their kind and path.
	idents(r *Records) []recordIdent
	checkAll(c *recordChecker, r *Records)
	// generated lists the ids of the list's table in a data set.
	generated(ds *fixtures.Dataset) (table any, ids []string)
	buildAll(b *builder, r *Records, ids []string)
}

// recordIdent is a record's alias and explicit id.
type recordIdent struct {
	kind            recordKind
	path, alias, id string
	needAlias       bool
}

func (l *recordList[R, T]) listKey() string { return l.key }

func (l *recordList[R, T]) idents(r *Records) []recordIdent {
	recs := l.records(r)
	out := make([]recordIdent, len(recs))
	for i := range recs {
		alias, id := l.ident(&recs[i])
		out[i] = recordIdent{l.kind, fmt.Sprintf("records.%s[%d]", l.key, i), alias, id, l.needAlias}
	}
	return out
}

func (l *recordList[R, T]) checkAll(c *recordChecker, r *Records) {
	recs := l.records(r)
	if len(recs) == 0 {
		return
	}
	check := l.check(c, r)
	for i := range recs {
		check(fmt.Sprintf("records.%s[%d]", l.key, i), &recs[i])
	}
}

func (l *recordList[R, T]) generated(ds *fixtures.Dataset) (any, []string) {
	table := l.into(ds)
	ids := make([]string, len(*table))
	for i := range *table {
		ids[i] = l.id(&(*table)[i])
	}
	return table, ids
}

func (l *recordList[R, T]) buildAll(b *builder, r *Records, ids []string) {
	recs := l.records(r)
	table := l.into(b.ds)
	for i := range recs {
		*table = append(*table, l.build(b, ids[i], &recs[i]))
	}
}

var organisersList = &recordList[OrganiserRecord, model.Organisation]{
	key: "organisers", kind: kindOrganiser, needAlias: true,
	records: func(r *Records) []OrganiserRecord { return r.Organisers },
	ident:   func(o *OrganiserRecord) (string, string) { return o.Alias, o.ID },
	check: func(c *recordChecker, _ *Records) func(string, *OrganiserRecord) {
		return func(p string, o *OrganiserRecord) {
			c.required(p+".displayName", o.DisplayName)
			c.period(p, o.StartDate, o.EndDate)
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Organisation { return &ds.Organisations },
	id:   func(o *model.Organisation) string { return o.ID },
	build: func(_ *builder, id string, o *OrganiserRecord) model.Organisation {
		return model.Organisation{
			ID: id, DisplayName: o.DisplayName, OrganisationCode: o.OrganisationCode,
			OrganisationType: model.OrganisationTypeOrganiser, OrganisationNumber: o.OrganisationNumber,
			MunicipalityCode: o.MunicipalityCode, Address: o.Address, URL: o.URL, Email: o.Email,
			PhoneNumber: o.PhoneNumber, StartDate: o.StartDate, EndDate: o.EndDate,
		}
	},
}

var schoolsList = &recordList[SchoolRecord, model.Organisation]{
	key: "schools", kind: kindSchool, needAlias: true,
	records: func(r *Records) []SchoolRecord { return r.Schools },
	ident:   func(s *SchoolRecord) (string, string) { return s.Alias, s.ID },
	check: func(c *recordChecker, _ *Records) func(string, *SchoolRecord) {
		codes := map[string]string{}
		return func(p string, s *SchoolRecord) {
			c.required(p+".displayName", s.DisplayName)
			if s.SchoolUnitCode != "" {
				if !reSchoolUnitCode.MatchString(s.SchoolUnitCode) {
					c.d.problem(p+".schoolUnitCode", "%q is not a school unit code of 8 digits", s.SchoolUnitCode)
				} else if first, dup := codes[s.SchoolUnitCode]; dup {
					c.d.problem(p+".schoolUnitCode", "school unit code %s is also used by %s", s.SchoolUnitCode, first)
				} else {
					codes[s.SchoolUnitCode] = p
				}
			}
			if s.Organiser != "" {
				c.ref(p+".organiser", s.Organiser, kindOrganiser)
			}
			if s.Unit != "" {
				c.ref(p+".unit", s.Unit, kindUnit)
			}
			c.period(p, s.StartDate, s.EndDate)
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Organisation { return &ds.Organisations },
	id:   func(o *model.Organisation) string { return o.ID },
	build: func(b *builder, id string, s *SchoolRecord) model.Organisation {
		o := model.Organisation{
			ID: id, DisplayName: s.DisplayName, OrganisationCode: s.OrganisationCode,
			OrganisationType: model.OrganisationTypeSchoolUnit, SchoolUnitCode: s.SchoolUnitCode,
			SchoolTypes: s.SchoolTypes, Address: s.Address, MunicipalityCode: s.MunicipalityCode,
			URL: s.URL, Email: s.Email, PhoneNumber: s.PhoneNumber, StartDate: s.StartDate, EndDate: s.EndDate,
		}
		o.ParentOrganisation = b.parentOf(s.Organiser)
		if s.Unit != "" {
			unit := b.ids[s.Unit]
			o.Directory = &model.SchoolExtra{UnitID: &unit} // the school form is the mock's to derive
		}
		return o
	},
}

var unitsList = &recordList[UnitRecord, model.Organisation]{
	key: "units", kind: kindUnit, needAlias: true,
	records: func(r *Records) []UnitRecord { return r.Units },
	ident:   func(u *UnitRecord) (string, string) { return u.Alias, u.ID },
	check: func(c *recordChecker, _ *Records) func(string, *UnitRecord) {
		return func(p string, u *UnitRecord) {
			c.required(p+".displayName", u.DisplayName)
			if u.Organiser != "" {
				c.ref(p+".organiser", u.Organiser, kindOrganiser)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Organisation { return &ds.Organisations },
	id:   func(o *model.Organisation) string { return o.ID },
	build: func(b *builder, id string, u *UnitRecord) model.Organisation {
		o := model.Organisation{ID: id, DisplayName: u.DisplayName, OrganisationType: model.OrganisationTypeUnit, Unit: &model.UnitExtra{}}
		if u.Description != "" {
			d := u.Description
			o.Unit.Description = &d
		}
		o.ParentOrganisation = b.parentOf(u.Organiser)
		return o
	},
}

var personsList = &recordList[PersonRecord, model.Person]{
	key: "persons", kind: kindPerson, needAlias: true,
	records: func(r *Records) []PersonRecord { return r.Persons },
	ident:   func(p *PersonRecord) (string, string) { return p.Alias, p.ID },
	check: func(c *recordChecker, _ *Records) func(string, *PersonRecord) {
		civic := map[string]string{}
		return func(p string, r *PersonRecord) { c.person(p, r, civic) }
	},
	into:  func(ds *fixtures.Dataset) *[]model.Person { return &ds.Persons },
	id:    func(p *model.Person) string { return p.ID },
	build: func(b *builder, id string, r *PersonRecord) model.Person { return b.buildPerson(id, r) },
}

var groupsList = &recordList[GroupRecord, model.Group]{
	key: "groups", kind: kindGroup, needAlias: true,
	records: func(r *Records) []GroupRecord { return r.Groups },
	ident:   func(g *GroupRecord) (string, string) { return g.Alias, g.ID },
	check: func(c *recordChecker, _ *Records) func(string, *GroupRecord) {
		return func(p string, g *GroupRecord) {
			c.required(p+".displayName", g.DisplayName)
			c.required(p+".groupType", string(g.GroupType))
			c.requiredRef(p+".organisation", g.Organisation, kindSchool, kindOrganiser)
			c.required(p+".startDate", string(g.StartDate))
			c.period(p, g.StartDate, g.EndDate)
			members := map[string]bool{}
			for j, m := range g.Members {
				mp := fmt.Sprintf("%s.members[%d]", p, j)
				if c.requiredRef(mp+".person", m.Person, kindPerson) {
					if members[m.Person] {
						c.d.problem(mp+".person", "%q is a member twice", m.Person)
					}
					members[m.Person] = true
				}
				c.period(mp, m.StartDate, m.EndDate)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Group { return &ds.Groups },
	id:   func(g *model.Group) string { return g.ID },
	build: func(b *builder, id string, g *GroupRecord) model.Group {
		grp := model.Group{
			ID: id, DisplayName: g.DisplayName, StartDate: g.StartDate, EndDate: g.EndDate,
			GroupType: g.GroupType, SchoolType: g.SchoolType, Organisation: b.obj(g.Organisation),
		}
		for _, m := range g.Members {
			grp.GroupMemberships = append(grp.GroupMemberships, model.GroupMembership{
				Person: b.person(m.Person), StartDate: m.StartDate, EndDate: m.EndDate,
			})
		}
		return grp
	},
}

var placementsList = &recordList[PlacementRecord, model.Placement]{
	key: "placements", kind: kindPlacement,
	records: func(r *Records) []PlacementRecord { return r.Placements },
	ident:   func(p *PlacementRecord) (string, string) { return p.Alias, p.ID },
	check: func(c *recordChecker, _ *Records) func(string, *PlacementRecord) {
		return func(p string, pl *PlacementRecord) {
			c.requiredRef(p+".child", pl.Child, kindPerson)
			c.requiredRef(p+".placedAt", pl.PlacedAt, kindSchool)
			if pl.Group != "" {
				c.ref(p+".group", pl.Group, kindGroup)
			}
			for j, o := range pl.Owners {
				c.ref(fmt.Sprintf("%s.owners[%d]", p, j), o, kindPerson)
			}
			if c.required(p+".schoolType", string(pl.SchoolType)) && !slices.Contains(model.PlacementSchoolTypes, pl.SchoolType) {
				c.d.problem(p+".schoolType", "%q is not a school type of placements; one of FS, FTH, OPPFTH", pl.SchoolType)
			}
			c.required(p+".startDate", string(pl.StartDate))
			c.period(p, pl.StartDate, pl.EndDate)
			if h := pl.MaxWeeklyScheduleHours; h != nil && (*h < 0 || *h > 7*24) {
				c.d.problem(p+".maxWeeklyScheduleHours", "%d is not a number of hours in a week", *h)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Placement { return &ds.Placements },
	id:   func(p *model.Placement) string { return p.ID },
	build: func(b *builder, id string, p *PlacementRecord) model.Placement {
		pl := model.Placement{
			ID: id, PlacedAt: b.obj(p.PlacedAt), Child: b.person(p.Child), SchoolType: p.SchoolType,
			StartDate: p.StartDate, EndDate: p.EndDate, Reason: p.Reason, MaxWeeklyScheduleHours: p.MaxWeeklyScheduleHours,
		}
		if p.Group != "" {
			g := b.obj(p.Group)
			pl.Group = &g
		}
		for _, o := range p.Owners {
			pl.Owners = append(pl.Owners, b.person(o))
		}
		return pl
	},
}

var syllabusesList = &recordList[SyllabusRecord, model.Syllabus]{
	key: "syllabuses", kind: kindSyllabus,
	records: func(r *Records) []SyllabusRecord { return r.Syllabuses },
	ident:   func(s *SyllabusRecord) (string, string) { return s.Alias, s.ID },
	check: func(c *recordChecker, _ *Records) func(string, *SyllabusRecord) {
		return func(p string, s *SyllabusRecord) {
			c.required(p+".schoolType", string(s.SchoolType))
			c.required(p+".subjectName", s.SubjectName)
			c.schoolYear(p+".startSchoolYear", s.StartSchoolYear)
			c.schoolYear(p+".endSchoolYear", s.EndSchoolYear)
			if s.StartSchoolYear != nil && s.EndSchoolYear != nil && *s.EndSchoolYear < *s.StartSchoolYear {
				c.d.problem(p+".endSchoolYear", "%d is before startSchoolYear %d", *s.EndSchoolYear, *s.StartSchoolYear)
			}
			if s.Points != nil && *s.Points < 0 {
				c.d.problem(p+".points", "%d is negative", *s.Points)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Syllabus { return &ds.Syllabuses },
	id:   func(s *model.Syllabus) string { return s.ID },
	build: func(_ *builder, id string, s *SyllabusRecord) model.Syllabus {
		official := true
		if s.Official != nil {
			official = *s.Official
		}
		return model.Syllabus{
			ID: id, SchoolType: s.SchoolType, SubjectCode: s.SubjectCode, SubjectName: s.SubjectName,
			SubjectDesignation: s.SubjectDesignation, CourseCode: s.CourseCode, CourseName: s.CourseName,
			StartSchoolYear: s.StartSchoolYear, EndSchoolYear: s.EndSchoolYear, Points: s.Points,
			Curriculum: s.Curriculum, LanguageCode: s.LanguageCode,
			SpecialisationCourseContent: s.SpecialisationCourseContent, Official: official,
		}
	},
}

var calendarEventsList = &recordList[CalendarEventRecord, model.CalendarEvent]{
	key: "calendarEvents", kind: kindCalendarEvent,
	records: func(r *Records) []CalendarEventRecord { return r.CalendarEvents },
	ident:   func(e *CalendarEventRecord) (string, string) { return e.Alias, e.ID },
	check: func(c *recordChecker, all *Records) func(string, *CalendarEventRecord) {
		return func(p string, e *CalendarEventRecord) {
			c.required(p+".title", e.Title)
			c.requiredRef(p+".organisation", e.Organisation, kindSchool)
			c.requiredRef(p+".group", e.Group, kindGroup)
			c.requiredRef(p+".syllabus", e.Syllabus, kindSyllabus)
			c.requiredRef(p+".teacher", e.Teacher, kindPerson)
			c.interval(p, e.StartTime, e.EndTime)
			if e.Activity != "" && c.ref(p+".activity", e.Activity, kindActivity) {
				c.eventOfActivity(p, *e, all.Activities)
			}
			for j, rm := range e.Rooms {
				c.ref(fmt.Sprintf("%s.rooms[%d]", p, j), rm, kindRoom)
			}
			for j, rs := range e.Resources {
				c.ref(fmt.Sprintf("%s.resources[%d]", p, j), rs, kindResource)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.CalendarEvent { return &ds.CalendarEvents },
	id:   func(e *model.CalendarEvent) string { return e.ID },
	build: func(b *builder, id string, e *CalendarEventRecord) model.CalendarEvent {
		return model.CalendarEvent{
			ID: id, Title: e.Title, StartTime: e.StartTime.UTC(), EndTime: e.EndTime.UTC(), Cancelled: e.Cancelled,
			EventRefs: &model.EventRefs{
				Organisation: b.obj(e.Organisation), Group: b.obj(e.Group), Syllabus: b.obj(e.Syllabus),
				Teacher:  b.person(e.Teacher),
				Activity: b.obj(e.Activity), // "" when the activity is derived
				Rooms:    b.objs(e.Rooms),
			},
			Resources: b.objs(e.Resources),
		}
	},
}

var roomsList = &recordList[RoomRecord, model.Room]{
	key: "rooms", kind: kindRoom,
	records: func(r *Records) []RoomRecord { return r.Rooms },
	ident:   func(x *RoomRecord) (string, string) { return x.Alias, x.ID },
	check: func(c *recordChecker, _ *Records) func(string, *RoomRecord) {
		return func(p string, x *RoomRecord) {
			c.required(p+".displayName", x.DisplayName)
			c.requiredRef(p+".owner", x.Owner, kindSchool)
			if x.Seats != nil && *x.Seats < 0 {
				c.d.problem(p+".seats", "%d is negative", *x.Seats)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Room { return &ds.Rooms },
	id:   func(r *model.Room) string { return r.ID },
	build: func(b *builder, id string, x *RoomRecord) model.Room {
		return model.Room{ID: id, DisplayName: x.DisplayName, Seats: x.Seats, Owner: b.obj(x.Owner)}
	},
}

var resourcesList = &recordList[ResourceRecord, model.Resource]{
	key: "resources", kind: kindResource,
	records: func(r *Records) []ResourceRecord { return r.Resources },
	ident:   func(x *ResourceRecord) (string, string) { return x.Alias, x.ID },
	check: func(c *recordChecker, _ *Records) func(string, *ResourceRecord) {
		return func(p string, x *ResourceRecord) {
			c.required(p+".displayName", x.DisplayName)
			c.requiredRef(p+".owner", x.Owner, kindSchool)
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Resource { return &ds.Resources },
	id:   func(r *model.Resource) string { return r.ID },
	build: func(b *builder, id string, x *ResourceRecord) model.Resource {
		return model.Resource{ID: id, DisplayName: x.DisplayName, Description: x.Description, Owner: b.obj(x.Owner)}
	},
}

var activitiesList = &recordList[ActivityRecord, model.Activity]{
	key: "activities", kind: kindActivity,
	records: func(r *Records) []ActivityRecord { return r.Activities },
	ident:   func(x *ActivityRecord) (string, string) { return x.Alias, x.ID },
	check: func(c *recordChecker, _ *Records) func(string, *ActivityRecord) {
		return func(p string, x *ActivityRecord) {
			c.required(p+".displayName", x.DisplayName)
			c.requiredRef(p+".organisation", x.Organisation, kindSchool)
			if len(x.Groups) == 0 {
				c.d.problem(p+".groups", "required: at least one group alias")
			}
			for j, g := range x.Groups {
				c.ref(fmt.Sprintf("%s.groups[%d]", p, j), g, kindGroup)
			}
			if x.Syllabus != "" {
				c.ref(p+".syllabus", x.Syllabus, kindSyllabus)
			}
			for j, tp := range x.Teachers {
				c.ref(fmt.Sprintf("%s.teachers[%d]", p, j), tp, kindPerson)
			}
			if x.ActivityType != "" && !slices.Contains(model.ActivityTypes, x.ActivityType) {
				c.d.problem(p+".activityType", "%q is not an activity type; one of %s", x.ActivityType, strings.Join(model.ActivityTypes, ", "))
			}
			c.required(p+".startDate", string(x.StartDate))
			c.period(p, x.StartDate, x.EndDate)
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Activity { return &ds.Activities },
	id:   func(a *model.Activity) string { return a.ID },
	build: func(b *builder, id string, x *ActivityRecord) model.Activity {
		a := model.Activity{
			ID: id, DisplayName: x.DisplayName, CalendarEventsRequired: true,
			StartDate: x.StartDate, EndDate: x.EndDate, ActivityType: cmpOr(x.ActivityType, "Undervisning"),
			MinutesPlanned: x.MinutesPlanned, Groups: b.objs(x.Groups), Organisation: b.obj(x.Organisation),
		}
		if x.CalendarEventsRequired != nil {
			a.CalendarEventsRequired = *x.CalendarEventsRequired
		}
		if x.Syllabus != "" {
			s := b.obj(x.Syllabus)
			a.Syllabus = &s
		}
		for _, tp := range x.Teachers {
			a.Teachers = append(a.Teachers, model.DutyAssignment{Duty: model.ObjectReference{ID: fixtures.DutyID(b.ids[tp], b.ids[x.Organisation])}})
		}
		return a
	},
}

var gradesList = &recordList[GradeRecord, model.Grade]{
	key: "grades", kind: kindGrade,
	records: func(r *Records) []GradeRecord { return r.Grades },
	ident:   func(x *GradeRecord) (string, string) { return x.Alias, x.ID },
	check: func(c *recordChecker, _ *Records) func(string, *GradeRecord) {
		return func(p string, x *GradeRecord) {
			c.requiredRef(p+".student", x.Student, kindPerson)
			c.requiredRef(p+".organisation", x.Organisation, kindSchool)
			c.requiredRef(p+".registeredBy", x.RegisteredBy, kindPerson)
			if x.GradingTeacher != "" {
				c.ref(p+".gradingTeacher", x.GradingTeacher, kindPerson)
			}
			if x.Group != "" {
				c.ref(p+".group", x.Group, kindGroup)
			}
			c.requiredRef(p+".syllabus", x.Syllabus, kindSyllabus)
			c.required(p+".gradeValue", x.GradeValue)
			c.required(p+".registeredDate", string(x.RegisteredDate))
			if x.Semester != "" && x.Semester != "HT" && x.Semester != "VT" {
				c.d.problem(p+".semester", "%q is not a semester; one of HT, VT", x.Semester)
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Grade { return &ds.Grades },
	id:   func(g *model.Grade) string { return g.ID },
	build: func(b *builder, id string, x *GradeRecord) model.Grade {
		school := b.obj(x.Organisation)
		g := model.Grade{
			ID: id, Student: b.person(x.Student), Organisation: &school, SchoolUnit: &school,
			RegisteredBy: b.person(x.RegisteredBy), GradingTeacher: b.optPerson(x.GradingTeacher),
			RegisteredDate: x.RegisteredDate, GradeValue: x.GradeValue, FinalGrade: x.FinalGrade,
			AdaptedStudyPlan: "Nej", Semester: x.Semester, Year: x.Year, Remark: x.Remark, Syllabus: b.obj(x.Syllabus),
		}
		if x.Group != "" {
			gr := b.obj(x.Group)
			g.Group = &gr
		}
		return g
	},
}

var attendancesList = &recordList[AttendanceRecord, model.Attendance]{
	key: "attendances", kind: kindAttendance,
	records: func(r *Records) []AttendanceRecord { return r.Attendances },
	ident:   func(a *AttendanceRecord) (string, string) { return a.Alias, a.ID },
	check: func(c *recordChecker, _ *Records) func(string, *AttendanceRecord) {
		return func(p string, a *AttendanceRecord) {
			c.requiredRef(p+".calendarEvent", a.CalendarEvent, kindCalendarEvent)
			c.requiredRef(p+".student", a.Student, kindPerson)
			if a.Reporter != "" {
				c.ref(p+".reporter", a.Reporter, kindPerson)
			}
			for _, m := range []struct {
				key string
				n   *int
			}{
				{"attendanceMinutes", a.AttendanceMinutes}, {"validAbsenceMinutes", a.ValidAbsenceMinutes},
				{"invalidAbsenceMinutes", a.InvalidAbsenceMinutes}, {"otherAttendanceMinutes", a.OtherAttendanceMinutes},
			} {
				if m.n != nil && *m.n < 0 {
					c.d.problem(p+"."+m.key, "%d is negative", *m.n)
				}
			}
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Attendance { return &ds.Attendances },
	id:   func(a *model.Attendance) string { return a.ID },
	build: func(b *builder, id string, a *AttendanceRecord) model.Attendance {
		at := model.Attendance{
			ID: id, CalendarEvent: b.obj(a.CalendarEvent), Student: b.person(a.Student), Reporter: b.optPerson(a.Reporter),
			IsReported: a.IsReported, AttendanceMinutes: a.AttendanceMinutes, ValidAbsenceMinutes: a.ValidAbsenceMinutes,
			InvalidAbsenceMinutes: a.InvalidAbsenceMinutes, OtherAttendanceMinutes: a.OtherAttendanceMinutes,
			AbsenceReason: a.AbsenceReason,
		}
		if a.ReportedTimestamp != nil {
			t := a.ReportedTimestamp.UTC()
			at.ReportedTimestamp = &t
		}
		return at
	},
}

var absencesList = &recordList[AbsenceRecord, model.Absence]{
	key: "absences", kind: kindAbsence,
	records: func(r *Records) []AbsenceRecord { return r.Absences },
	ident:   func(a *AbsenceRecord) (string, string) { return a.Alias, a.ID },
	check: func(c *recordChecker, _ *Records) func(string, *AbsenceRecord) {
		return func(p string, a *AbsenceRecord) {
			c.requiredRef(p+".student", a.Student, kindPerson)
			c.requiredRef(p+".organisation", a.Organisation, kindSchool)
			c.required(p+".registrationDate", string(a.RegistrationDate))
			c.required(p+".type", string(a.Type))
			if a.RegisteredBy != "" {
				c.ref(p+".registeredBy", a.RegisteredBy, kindPerson)
			}
			c.interval(p, a.StartTime, a.EndTime)
		}
	},
	into: func(ds *fixtures.Dataset) *[]model.Absence { return &ds.Absences },
	id:   func(a *model.Absence) string { return a.ID },
	build: func(b *builder, id string, a *AbsenceRecord) model.Absence {
		return model.Absence{
			ID: id, Student: b.person(a.Student), Organisation: b.obj(a.Organisation),
			RegistrationDate: a.RegistrationDate, StartTime: a.StartTime.UTC(), EndTime: a.EndTime.UTC(),
			Type: a.Type, AbsenceReason: a.AbsenceReason, Verified: a.Verified, RegisteredBy: b.optPerson(a.RegisteredBy),
		}
	},
}
