package scenarios

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// idNamespace is the UUID (version 5) namespace of the ids derived for
// explicit records: NewSHA1(NameSpaceURL, "https://github.com/skolkit/skolkit/scenarios").
var idNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/skolkit/skolkit/scenarios"))

// DeriveID returns the id of an explicit record without an explicit id: a
// version 5 UUID of the seed and key, where key is the record's alias, or
// for a record without alias its list and position ("placements[3]").
func DeriveID(seed int64, key string) string {
	return uuid.NewSHA1(idNamespace, []byte(strconv.FormatInt(seed, 10)+"/"+key)).String()
}

// Build returns the scenario's data: the generated records (fixtures with
// the scenario's seed and counts) followed by the explicit records, with
// every alias resolved to an id. now is the "as of" instant of the generated
// data when the scenario's clock is real; a fixed clock's instant takes its
// place. Meta timestamps of explicit records are left zero for the store to
// set. The same scenario, seed and instant always give the same data.
//
// Build fails, with a *LoadError, when the counts do not fit together (more
// attendance records than lessons can hold, say) or an explicit id is also
// the id of a generated record.
func (sc *Scenario) Build(now time.Time) (*fixtures.Dataset, error) {
	now = sc.Clock.At(now)
	ds, err := fixtures.Generate(sc.Generate.Config(sc.Seed, now))
	if err != nil {
		return nil, sc.buildError("generate", "%v", err)
	}
	b := &builder{sc: sc, ds: ds, ids: map[string]string{}}
	if len(ds.Organisations) > 0 && ds.Organisations[0].OrganisationType == model.OrganisationTypeOrganiser {
		b.organiser = ds.Organisations[0].ID
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	// The SS 12000 records derived from the others, for generated and
	// explicit records alike (activities of calendar events, rooms, ...).
	fixtures.Complete(ds, now)
	normalise(ds)
	return ds, nil
}

func (sc *Scenario) buildError(path, format string, args ...any) error {
	p := Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	if sc.src != nil {
		p.File = sc.src.file
		if n := sc.src.at(path); n != nil {
			p.Line, p.Column = n.Line, n.Column
		}
	} else {
		p.File = sc.Name
	}
	return &LoadError{File: p.File, Problems: []Problem{p}}
}

type builder struct {
	sc        *Scenario
	ds        *fixtures.Dataset
	ids       map[string]string // alias -> id
	organiser string            // the generated organiser's id, if any
	// explicit maps each explicit record's id to its path, for the check
	// against generated ids.
	explicit map[string]string
}

// id returns the id of the record at list[i], registering its alias.
func (b *builder) id(list string, i int, alias, id string) string {
	if id == "" {
		key := alias
		if key == "" {
			key = fmt.Sprintf("%s[%d]", list, i)
		}
		id = DeriveID(b.sc.Seed, key)
	} else {
		b.explicit[id] = fmt.Sprintf("records.%s[%d].id", list, i)
	}
	if alias != "" {
		b.ids[alias] = id
	}
	return id
}

func (b *builder) obj(alias string) model.ObjectReference {
	return model.ObjectReference{ID: b.ids[alias]}
}

// objs are references to the records with the aliases (nil for none).
func (b *builder) objs(aliases []string) []model.ObjectReference {
	if len(aliases) == 0 {
		return nil
	}
	out := make([]model.ObjectReference, len(aliases))
	for i, a := range aliases {
		out[i] = b.obj(a)
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (b *builder) person(alias string) model.PersonReference {
	return model.PersonReference{ID: b.ids[alias]}
}

func (b *builder) optPerson(alias string) *model.PersonReference {
	if alias == "" {
		return nil
	}
	r := b.person(alias)
	return &r
}

func (b *builder) build() error {
	r := &b.sc.Records
	b.explicit = map[string]string{}
	// Ids first, so that references may point forwards.
	orgIDs := make([]string, len(r.Organisers))
	for i, o := range r.Organisers {
		orgIDs[i] = b.id("organisers", i, o.Alias, o.ID)
	}
	unitIDs := make([]string, len(r.Units))
	for i, u := range r.Units {
		unitIDs[i] = b.id("units", i, u.Alias, u.ID)
	}
	schoolIDs := make([]string, len(r.Schools))
	for i, s := range r.Schools {
		schoolIDs[i] = b.id("schools", i, s.Alias, s.ID)
	}
	personIDs := make([]string, len(r.Persons))
	for i, p := range r.Persons {
		personIDs[i] = b.id("persons", i, p.Alias, p.ID)
	}
	groupIDs := make([]string, len(r.Groups))
	for i, g := range r.Groups {
		groupIDs[i] = b.id("groups", i, g.Alias, g.ID)
	}
	placementIDs := make([]string, len(r.Placements))
	for i, p := range r.Placements {
		placementIDs[i] = b.id("placements", i, p.Alias, p.ID)
	}
	syllabusIDs := make([]string, len(r.Syllabuses))
	for i, s := range r.Syllabuses {
		syllabusIDs[i] = b.id("syllabuses", i, s.Alias, s.ID)
	}
	eventIDs := make([]string, len(r.CalendarEvents))
	for i, e := range r.CalendarEvents {
		eventIDs[i] = b.id("calendarEvents", i, e.Alias, e.ID)
	}
	attendanceIDs := make([]string, len(r.Attendances))
	for i, a := range r.Attendances {
		attendanceIDs[i] = b.id("attendances", i, a.Alias, a.ID)
	}
	absenceIDs := make([]string, len(r.Absences))
	for i, a := range r.Absences {
		absenceIDs[i] = b.id("absences", i, a.Alias, a.ID)
	}
	roomIDs := make([]string, len(r.Rooms))
	for i, x := range r.Rooms {
		roomIDs[i] = b.id("rooms", i, x.Alias, x.ID)
	}
	resourceIDs := make([]string, len(r.Resources))
	for i, x := range r.Resources {
		resourceIDs[i] = b.id("resources", i, x.Alias, x.ID)
	}
	activityIDs := make([]string, len(r.Activities))
	for i, x := range r.Activities {
		activityIDs[i] = b.id("activities", i, x.Alias, x.ID)
	}
	gradeIDs := make([]string, len(r.Grades))
	for i, x := range r.Grades {
		gradeIDs[i] = b.id("grades", i, x.Alias, x.ID)
	}
	if err := b.checkExplicitIDs(); err != nil {
		return err
	}

	ds := b.ds
	for i, o := range r.Organisers {
		ds.Organisations = append(ds.Organisations, model.Organisation{
			ID:                 orgIDs[i],
			DisplayName:        o.DisplayName,
			OrganisationCode:   o.OrganisationCode,
			OrganisationType:   model.OrganisationTypeOrganiser,
			OrganisationNumber: o.OrganisationNumber,
			MunicipalityCode:   o.MunicipalityCode,
			Address:            o.Address,
			URL:                o.URL,
			Email:              o.Email,
			PhoneNumber:        o.PhoneNumber,
			StartDate:          o.StartDate,
			EndDate:            o.EndDate,
		})
	}
	parent := b.organiser
	if len(orgIDs) > 0 {
		parent = orgIDs[0]
	}
	for i, s := range r.Schools {
		o := model.Organisation{
			ID:               schoolIDs[i],
			DisplayName:      s.DisplayName,
			OrganisationCode: s.OrganisationCode,
			OrganisationType: model.OrganisationTypeSchoolUnit,
			SchoolUnitCode:   s.SchoolUnitCode,
			SchoolTypes:      s.SchoolTypes,
			Address:          s.Address,
			MunicipalityCode: s.MunicipalityCode,
			URL:              s.URL,
			Email:            s.Email,
			PhoneNumber:      s.PhoneNumber,
			StartDate:        s.StartDate,
			EndDate:          s.EndDate,
		}
		switch {
		case s.Organiser != "":
			o.ParentOrganisation = &model.ObjectReference{ID: b.ids[s.Organiser]}
		case parent != "":
			o.ParentOrganisation = &model.ObjectReference{ID: parent}
		}
		if s.Unit != "" {
			unit := b.ids[s.Unit]
			o.Directory = &model.SchoolExtra{UnitID: &unit} // the school form is the mock's to derive
		}
		ds.Organisations = append(ds.Organisations, o)
	}
	for i, u := range r.Units {
		o := model.Organisation{ID: unitIDs[i], DisplayName: u.DisplayName, OrganisationType: model.OrganisationTypeUnit, Unit: &model.UnitExtra{}}
		if u.Description != "" {
			d := u.Description
			o.Unit.Description = &d
		}
		switch {
		case u.Organiser != "":
			o.ParentOrganisation = &model.ObjectReference{ID: b.ids[u.Organiser]}
		case parent != "":
			o.ParentOrganisation = &model.ObjectReference{ID: parent}
		}
		ds.Organisations = append(ds.Organisations, o)
	}
	for i := range r.Persons {
		ds.Persons = append(ds.Persons, b.buildPerson(personIDs[i], &r.Persons[i]))
	}
	for i, g := range r.Groups {
		grp := model.Group{
			ID:           groupIDs[i],
			DisplayName:  g.DisplayName,
			StartDate:    g.StartDate,
			EndDate:      g.EndDate,
			GroupType:    g.GroupType,
			SchoolType:   g.SchoolType,
			Organisation: b.obj(g.Organisation),
		}
		for _, m := range g.Members {
			grp.GroupMemberships = append(grp.GroupMemberships, model.GroupMembership{
				Person: b.person(m.Person), StartDate: m.StartDate, EndDate: m.EndDate,
			})
		}
		ds.Groups = append(ds.Groups, grp)
	}
	for i, p := range r.Placements {
		pl := model.Placement{
			ID:                     placementIDs[i],
			PlacedAt:               b.obj(p.PlacedAt),
			Child:                  b.person(p.Child),
			SchoolType:             p.SchoolType,
			StartDate:              p.StartDate,
			EndDate:                p.EndDate,
			Reason:                 p.Reason,
			MaxWeeklyScheduleHours: p.MaxWeeklyScheduleHours,
		}
		if p.Group != "" {
			g := b.obj(p.Group)
			pl.Group = &g
		}
		for _, o := range p.Owners {
			pl.Owners = append(pl.Owners, b.person(o))
		}
		ds.Placements = append(ds.Placements, pl)
	}
	for i, s := range r.Syllabuses {
		official := true
		if s.Official != nil {
			official = *s.Official
		}
		ds.Syllabuses = append(ds.Syllabuses, model.Syllabus{
			ID:                          syllabusIDs[i],
			SchoolType:                  s.SchoolType,
			SubjectCode:                 s.SubjectCode,
			SubjectName:                 s.SubjectName,
			SubjectDesignation:          s.SubjectDesignation,
			CourseCode:                  s.CourseCode,
			CourseName:                  s.CourseName,
			StartSchoolYear:             s.StartSchoolYear,
			EndSchoolYear:               s.EndSchoolYear,
			Points:                      s.Points,
			Curriculum:                  s.Curriculum,
			LanguageCode:                s.LanguageCode,
			SpecialisationCourseContent: s.SpecialisationCourseContent,
			Official:                    official,
		})
	}
	for i, e := range r.CalendarEvents {
		ds.CalendarEvents = append(ds.CalendarEvents, model.CalendarEvent{
			ID:        eventIDs[i],
			Title:     e.Title,
			StartTime: e.StartTime.UTC(),
			EndTime:   e.EndTime.UTC(),
			Cancelled: e.Cancelled,
			EventRefs: &model.EventRefs{
				Organisation: b.obj(e.Organisation),
				Group:        b.obj(e.Group),
				Syllabus:     b.obj(e.Syllabus),
				Teacher:      b.person(e.Teacher),
				Activity:     b.obj(e.Activity), // "" when the activity is derived
				Rooms:        b.objs(e.Rooms),
			},
			Resources: b.objs(e.Resources),
		})
	}
	for i, x := range r.Rooms {
		ds.Rooms = append(ds.Rooms, model.Room{ID: roomIDs[i], DisplayName: x.DisplayName, Seats: x.Seats, Owner: b.obj(x.Owner)})
	}
	for i, x := range r.Resources {
		ds.Resources = append(ds.Resources, model.Resource{ID: resourceIDs[i], DisplayName: x.DisplayName, Description: x.Description, Owner: b.obj(x.Owner)})
	}
	for i, x := range r.Activities {
		a := model.Activity{
			ID: activityIDs[i], DisplayName: x.DisplayName, CalendarEventsRequired: true,
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
		ds.Activities = append(ds.Activities, a)
	}
	for i, x := range r.Grades {
		school := b.obj(x.Organisation)
		g := model.Grade{
			ID: gradeIDs[i], Student: b.person(x.Student), Organisation: &school, SchoolUnit: &school,
			RegisteredBy: b.person(x.RegisteredBy), GradingTeacher: b.optPerson(x.GradingTeacher),
			RegisteredDate: x.RegisteredDate, GradeValue: x.GradeValue, FinalGrade: x.FinalGrade,
			AdaptedStudyPlan: "Nej", Semester: x.Semester, Year: x.Year, Remark: x.Remark, Syllabus: b.obj(x.Syllabus),
		}
		if x.Group != "" {
			gr := b.obj(x.Group)
			g.Group = &gr
		}
		ds.Grades = append(ds.Grades, g)
	}
	for i, a := range r.Attendances {
		at := model.Attendance{
			ID:                     attendanceIDs[i],
			CalendarEvent:          b.obj(a.CalendarEvent),
			Student:                b.person(a.Student),
			Reporter:               b.optPerson(a.Reporter),
			IsReported:             a.IsReported,
			AttendanceMinutes:      a.AttendanceMinutes,
			ValidAbsenceMinutes:    a.ValidAbsenceMinutes,
			InvalidAbsenceMinutes:  a.InvalidAbsenceMinutes,
			OtherAttendanceMinutes: a.OtherAttendanceMinutes,
			AbsenceReason:          a.AbsenceReason,
		}
		if a.ReportedTimestamp != nil {
			t := a.ReportedTimestamp.UTC()
			at.ReportedTimestamp = &t
		}
		ds.Attendances = append(ds.Attendances, at)
	}
	for i, a := range r.Absences {
		ds.Absences = append(ds.Absences, model.Absence{
			ID:               absenceIDs[i],
			Student:          b.person(a.Student),
			Organisation:     b.obj(a.Organisation),
			RegistrationDate: a.RegistrationDate,
			StartTime:        a.StartTime.UTC(),
			EndTime:          a.EndTime.UTC(),
			Type:             a.Type,
			AbsenceReason:    a.AbsenceReason,
			Verified:         a.Verified,
			RegisteredBy:     b.optPerson(a.RegisteredBy),
		})
	}
	return nil
}

func (b *builder) buildPerson(id string, r *PersonRecord) model.Person {
	p := model.Person{
		ID:                      id,
		GivenName:               r.GivenName,
		MiddleName:              r.MiddleName,
		FamilyName:              r.FamilyName,
		EduPersonPrincipalNames: r.EduPersonPrincipalNames,
		ExternalIdentifiers:     r.ExternalIdentifiers,
		BirthDate:               r.BirthDate,
		Sex:                     r.Sex,
		SecurityMarking:         r.SecurityMarking,
		PersonStatus:            r.PersonStatus,
		Emails:                  r.Emails,
		PhoneNumbers:            r.PhoneNumbers,
		Addresses:               r.Addresses,
	}
	if p.SecurityMarking == "" {
		p.SecurityMarking = model.SecurityMarkingNone
	}
	if p.PersonStatus == "" {
		p.PersonStatus = "Aktiv"
	}
	if r.CivicNo != nil {
		c := model.CivicNo{Value: r.CivicNo.Value, Nationality: r.CivicNo.Nationality}
		if c.Nationality == "" {
			c.Nationality = "SE"
		}
		p.CivicNo = &c
		if p.BirthDate == "" {
			p.BirthDate = birthDateOf(c.Value)
		}
	}
	for _, e := range r.Enrolments {
		p.Enrolments = append(p.Enrolments, model.Enrolment{
			EnroledAt:     b.obj(e.School),
			SchoolYear:    e.SchoolYear,
			SchoolType:    e.SchoolType,
			StartDate:     e.StartDate,
			EndDate:       e.EndDate,
			Cancelled:     e.Cancelled,
			EducationCode: e.EducationCode,
			Specification: e.Specification,
		})
	}
	for _, resp := range r.Responsibles {
		rel := resp.RelationType
		if rel == "" {
			rel = model.RelationGuardian
		}
		p.Responsibles = append(p.Responsibles, model.Responsible{Person: b.person(resp.Person), RelationType: rel})
	}
	return p
}

// birthDateOf returns the date of birth in a valid civic number (day - 60
// for a coordination number).
func birthDateOf(civic string) model.Date {
	day := civic[6:8]
	if !fixtures.IsTemporaryNumber(civic) && day[0] >= '6' {
		day = strconv.Itoa(int(day[0]-'6')) + day[1:]
	}
	return model.Date(civic[0:4] + "-" + civic[4:6] + "-" + day)
}

// checkExplicitIDs fails when an explicit id is also a generated record's.
func (b *builder) checkExplicitIDs() error {
	if len(b.explicit) == 0 {
		return nil
	}
	ds := b.ds
	clash := func(id string) error {
		if path, ok := b.explicit[id]; ok {
			return b.sc.buildError(path, "id %s is also the id of a generated record; choose another or leave id out", id)
		}
		return nil
	}
	var ids []string
	collect := func(n int, id func(int) string) {
		for i := range n {
			ids = append(ids, id(i))
		}
	}
	collect(len(ds.Organisations), func(i int) string { return ds.Organisations[i].ID })
	collect(len(ds.Persons), func(i int) string { return ds.Persons[i].ID })
	collect(len(ds.Groups), func(i int) string { return ds.Groups[i].ID })
	collect(len(ds.Placements), func(i int) string { return ds.Placements[i].ID })
	collect(len(ds.Syllabuses), func(i int) string { return ds.Syllabuses[i].ID })
	collect(len(ds.CalendarEvents), func(i int) string { return ds.CalendarEvents[i].ID })
	collect(len(ds.Attendances), func(i int) string { return ds.Attendances[i].ID })
	collect(len(ds.Absences), func(i int) string { return ds.Absences[i].ID })
	collect(len(ds.Rooms), func(i int) string { return ds.Rooms[i].ID })
	collect(len(ds.Resources), func(i int) string { return ds.Resources[i].ID })
	collect(len(ds.Activities), func(i int) string { return ds.Activities[i].ID })
	collect(len(ds.Grades), func(i int) string { return ds.Grades[i].ID })
	for _, id := range ids {
		if err := clash(id); err != nil {
			return err
		}
	}
	return nil
}

// normalise replaces nil slices by empty ones, so that every table is a
// JSON array.
func normalise(ds *fixtures.Dataset) {
	if ds.Organisations == nil {
		ds.Organisations = []model.Organisation{}
	}
	if ds.Persons == nil {
		ds.Persons = []model.Person{}
	}
	if ds.Groups == nil {
		ds.Groups = []model.Group{}
	}
	if ds.Placements == nil {
		ds.Placements = []model.Placement{}
	}
	if ds.Syllabuses == nil {
		ds.Syllabuses = []model.Syllabus{}
	}
	if ds.CalendarEvents == nil {
		ds.CalendarEvents = []model.CalendarEvent{}
	}
	if ds.Attendances == nil {
		ds.Attendances = []model.Attendance{}
	}
	if ds.Absences == nil {
		ds.Absences = []model.Absence{}
	}
	emptyIfNil(&ds.Programmes)
	emptyIfNil(&ds.StudyPlans)
	emptyIfNil(&ds.SchoolUnitOfferings)
	emptyIfNil(&ds.Activities)
	emptyIfNil(&ds.AttendanceEvents)
	emptyIfNil(&ds.AttendanceSchedules)
	emptyIfNil(&ds.Grades)
	emptyIfNil(&ds.Resources)
	emptyIfNil(&ds.Rooms)
}

func emptyIfNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}
