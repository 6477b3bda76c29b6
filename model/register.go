package model

import "time"

// The SS 12000 records interface B serves beside placements, groups,
// syllabuses, attendance and absences. Each is stored as it is
// shown; references carry only an id in the store, and the renderer fills
// displayName (on request) and securityMarking (always, on person
// references). The struct tag ref names the table a reference points at, so
// that one renderer fills every reference of every record.

// Programme is an education programme (gymnasieprogram, inriktning, ...).
type Programme struct {
	ID              string             `json:"id"`
	Meta            Meta               `json:"meta"`
	Name            string             `json:"name"`
	Type            string             `json:"type"`
	ParentProgramme *ObjectReference   `json:"parentProgramme,omitempty" ref:"programmes"`
	SchoolType      SchoolType         `json:"schoolType"`
	Code            string             `json:"code,omitempty"`
	Content         []ProgrammeContent `json:"content,omitempty"`
}

// ProgrammeContent is one part of a programme and the syllabuses it holds.
type ProgrammeContent struct {
	Type    string            `json:"type"`
	Points  *int              `json:"points,omitempty"`
	Content []ObjectReference `json:"content,omitempty" ref:"syllabuses"`
}

// StudyPlan is a pupil's study plan.
type StudyPlan struct {
	ID        string             `json:"id"`
	Meta      Meta               `json:"meta"`
	Student   PersonReference    `json:"student" ref:"persons"`
	Content   []StudyPlanContent `json:"content,omitempty"`
	Notes     []StudyPlanNote    `json:"notes,omitempty"`
	StartDate Date               `json:"startDate"`
	EndDate   Date               `json:"endDate,omitempty"`
}

// StudyPlanContent is one part of a study plan.
type StudyPlanContent struct {
	Title      string              `json:"title,omitempty"`
	Type       string              `json:"type,omitempty"`
	Points     *int                `json:"points,omitempty"`
	Syllabuses []StudyPlanSyllabus `json:"syllabuses"`
}

// StudyPlanSyllabus is a syllabus in a study plan.
type StudyPlanSyllabus struct {
	Syllabus  ObjectReference `json:"syllabus" ref:"syllabuses"`
	Note      string          `json:"note,omitempty"`
	StartDate Date            `json:"startDate,omitempty"`
	EndDate   Date            `json:"endDate,omitempty"`
	Hours     *int            `json:"hours,omitempty"`
}

// StudyPlanNote is a note in a study plan.
type StudyPlanNote struct {
	Type string `json:"type"`
	Note string `json:"note"`
}

// SchoolUnitOffering is what a school unit offers: syllabuses and
// programmes. SS 12000 gives the record no id or meta, yet serves it by id;
// the store keeps both and the wire shows them
// (docs/decisions.md#ss12000-defects).
type SchoolUnitOffering struct {
	ID                string            `json:"id"`
	Meta              Meta              `json:"meta"`
	StartDate         Date              `json:"startDate,omitempty"`
	EndDate           Date              `json:"endDate,omitempty"`
	OfferedAt         ObjectReference   `json:"offeredAt" ref:"organisations"`
	OfferedSyllabuses []ObjectReference `json:"offeredSyllabuses" ref:"syllabuses"`
	OfferedProgrammes []ObjectReference `json:"offeredProgrammes,omitempty" ref:"programmes"`
}

// Activity is a planned activity (usually teaching) of groups, with its
// teachers' duties: what calendar events are occasions of.
type Activity struct {
	ID                     string            `json:"id"`
	Meta                   Meta              `json:"meta"`
	DisplayName            string            `json:"displayName"`
	CalendarEventsRequired bool              `json:"calendarEventsRequired"`
	StartDate              Date              `json:"startDate"`
	EndDate                Date              `json:"endDate,omitempty"`
	ActivityType           string            `json:"activityType,omitempty"`
	Comment                string            `json:"comment,omitempty"`
	MinutesPlanned         *int              `json:"minutesPlanned,omitempty"`
	Groups                 []ObjectReference `json:"groups" ref:"groups"`
	Teachers               []DutyAssignment  `json:"teachers,omitempty"`
	Syllabus               *ObjectReference  `json:"syllabus,omitempty" ref:"syllabuses"`
	Organisation           ObjectReference   `json:"organisation" ref:"organisations"`
	ParentActivity         *ObjectReference  `json:"parentActivity,omitempty" ref:"activities"`
}

// DutyAssignment is a duty's part in an activity.
type DutyAssignment struct {
	Duty           ObjectReference `json:"duty" ref:"employeePlacements"`
	StartDate      Date            `json:"startDate,omitempty"`
	EndDate        Date            `json:"endDate,omitempty"`
	MinutesPlanned *int            `json:"minutesPlanned,omitempty"`
	Grader         *bool           `json:"grader,omitempty"`
}

// AttendanceEvent is a check-in or check-out of a child at a preschool or
// after-school group.
type AttendanceEvent struct {
	ID           string           `json:"id"`
	Meta         Meta             `json:"meta"`
	Time         time.Time        `json:"time"`
	EventType    string           `json:"eventType"`
	Person       PersonReference  `json:"person" ref:"persons"`
	RegisteredBy *PersonReference `json:"registeredBy,omitempty" ref:"persons"`
	Group        ObjectReference  `json:"group" ref:"groups"`
}

// AttendanceSchedule is the weekly schedule of a placement.
type AttendanceSchedule struct {
	ID              string                    `json:"id"`
	Meta            Meta                      `json:"meta"`
	Placement       ObjectReference           `json:"placement" ref:"placements"`
	NumberOfWeeks   int                       `json:"numberOfWeeks"`
	StartDate       Date                      `json:"startDate"`
	EndDate         Date                      `json:"endDate,omitempty"`
	Temporary       *bool                     `json:"temporary,omitempty"`
	State           []AttendanceScheduleState `json:"state"`
	ScheduleEntries []AttendanceScheduleEntry `json:"scheduleEntries,omitempty"`
	// ScheduleDays repeats ScheduleEntries on the wire: SS 12000 requires a
	// scheduleDays it does not define (docs/decisions.md#ss12000-defects).
	ScheduleDays []AttendanceScheduleEntry `json:"scheduleDays"`
}

// AttendanceScheduleState is one step of a schedule's approval.
type AttendanceScheduleState struct {
	State        string           `json:"state"`
	RegisteredAt time.Time        `json:"registeredAt"`
	Comment      string           `json:"comment,omitempty"`
	RegisteredBy *PersonReference `json:"registeredBy,omitempty" ref:"persons"`
}

// AttendanceScheduleEntry is one day's times in a schedule (HH:MM).
type AttendanceScheduleEntry struct {
	WeekOffset int    `json:"weekOffset"`
	DayOfWeek  string `json:"dayOfWeek"`
	StartTime  string `json:"startTime"`
	EndTime    string `json:"endTime"`
}

// Grade is a grade in SS 12000's shape. SchoolUnit repeats Organisation:
// SS 12000 requires a schoolUnit it does not define
// (docs/decisions.md#ss12000-defects).
// Interface A's GradeElementary and GradeUpperSecondary are the same records
// (Directory).
type Grade struct {
	ID               string           `json:"id"`
	Meta             Meta             `json:"meta"`
	Student          PersonReference  `json:"student" ref:"persons"`
	Organisation     *ObjectReference `json:"organisation,omitempty" ref:"organisations"`
	SchoolUnit       *ObjectReference `json:"schoolUnit,omitempty" ref:"organisations"`
	RegisteredBy     PersonReference  `json:"registeredBy" ref:"persons"`
	GradingTeacher   *PersonReference `json:"gradingTeacher,omitempty" ref:"persons"`
	Group            *ObjectReference `json:"group,omitempty" ref:"groups"`
	RegisteredDate   Date             `json:"registeredDate"`
	GradeValue       string           `json:"gradeValue"`
	FinalGrade       bool             `json:"finalGrade"`
	Trial            *bool            `json:"trial,omitempty"`
	AdaptedStudyPlan string           `json:"adaptedStudyPlan"`
	Remark           string           `json:"remark,omitempty"`
	Converted        *bool            `json:"converted,omitempty"`
	CorrectionType   string           `json:"correctionType,omitempty"`
	Semester         string           `json:"semester,omitempty"`
	Year             *int             `json:"year,omitempty"`
	Syllabus         ObjectReference  `json:"syllabus" ref:"syllabuses"`
	// Directory is the grade as interface A wrote it (nil: interface A does
	// not show the grade).
	Directory *GradeExtra `json:"-"`
}

// RegisterVisible reports whether interface B shows the grade: SS 12000
// requires a gradeValue and a registeredBy, which a grade written through
// interface A without a grade or without a teacher lacks.
func (g *Grade) RegisterVisible() bool {
	return g.GradeValue != "" && g.RegisteredBy.ID != ""
}

// Resource is a bookable resource other than a room (a projector, a bus).
type Resource struct {
	ID          string          `json:"id"`
	Meta        Meta            `json:"meta"`
	DisplayName string          `json:"displayName"`
	Description string          `json:"description,omitempty"`
	Owner       ObjectReference `json:"owner" ref:"organisations"`
}

// Room is a room of a school unit.
type Room struct {
	ID          string          `json:"id"`
	Meta        Meta            `json:"meta"`
	DisplayName string          `json:"displayName"`
	Seats       *int            `json:"seats,omitempty"`
	Owner       ObjectReference `json:"owner" ref:"organisations"`
}

// Duty is the interface-B view of an interface-A employee placement: a
// member of staff's duty at a school unit
// (docs/decisions.md#duties-are-employee-placements). It
// is rendered, not stored.
type Duty struct {
	ID             string               `json:"id"`
	Meta           Meta                 `json:"meta"`
	Person         *PersonReference     `json:"person,omitempty" ref:"persons"`
	AssignmentRole []DutyAssignmentRole `json:"assignmentRole,omitempty"`
	DutyAt         ObjectReference      `json:"dutyAt" ref:"organisations"`
	DutyRole       string               `json:"dutyRole"`
	Description    string               `json:"description,omitempty"`
	Signature      string               `json:"signature,omitempty"`
	DutyPercent    *int                 `json:"dutyPercent,omitempty"`
	HoursPerYear   *int                 `json:"hoursPerYear,omitempty"`
	StartDate      Date                 `json:"startDate"`
	EndDate        Date                 `json:"endDate,omitempty"`
	Embedded       *DutyEmbedded        `json:"_embedded,omitempty"`
}

// DutyAssignmentRole is a duty's role towards a group.
type DutyAssignmentRole struct {
	Group              ObjectReference    `json:"group" ref:"groups"`
	AssignmentRoleType AssignmentRoleType `json:"assignmentRoleType"`
	StartDate          Date               `json:"startDate,omitempty"`
	EndDate            Date               `json:"endDate,omitempty"`
}

// DutyEmbedded is the _embedded object of a duty.
type DutyEmbedded struct {
	Person *Person `json:"person,omitempty"`
}

// AggregatedAttendance sums a pupil's attendance in one activity over a
// period. It is computed from the attendance records, not stored.
type AggregatedAttendance struct {
	Activity           ObjectReference `json:"activity" ref:"activities"`
	Student            PersonReference `json:"student" ref:"persons"`
	StartDate          Date            `json:"startDate"`
	EndDate            Date            `json:"endDate"`
	AttendanceSum      int             `json:"attendanceSum"`
	ValidAbsenceSum    int             `json:"validAbsenceSum"`
	InvalidAbsenceSum  int             `json:"invalidAbsenceSum"`
	OtherAttendanceSum int             `json:"otherAttendanceSum"`
	ReportedSum        int             `json:"reportedSum"`
	OfferedSum         int             `json:"offeredSum"`
	Embedded           *struct {
		Activity *Activity `json:"activity,omitempty"`
		Student  *Person   `json:"student,omitempty"`
	} `json:"_embedded,omitempty"`
}

// ActivityTypes are SS 12000's activity types.
var ActivityTypes = []string{"Undervisning", "Elevaktivitet", "Provaktivitet", "Läraraktivitet", "Övrigt"}
