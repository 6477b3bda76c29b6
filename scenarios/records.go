package scenarios

import (
	"reflect"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skolkit/skolkit/model"
)

// Records are explicit records of a scenario. They refer to each other by
// alias, a name local to the file, instead of by id. Every record has an
// optional explicit id (a UUID); without one its id is derived from the
// scenario's seed and its alias (or, for a record without alias, its kind
// and position), so the same file always gives the same ids. Aliases are
// unique across all kinds.
//
// Field names and enumerated values are the wire names of interface B
// (SS 12000). Meta timestamps are left to the store.
type Records struct {
	// Organisers are organisations of type Huvudman.
	Organisers []OrganiserRecord `yaml:"organisers,omitempty" json:"organisers,omitempty"`
	// Units are organisations of type Förvaltning: interface A's Units.
	Units []UnitRecord `yaml:"units,omitempty" json:"units,omitempty"`
	// Schools are organisations of type Skolenhet (school units).
	Schools        []SchoolRecord        `yaml:"schools,omitempty" json:"schools,omitempty"`
	Persons        []PersonRecord        `yaml:"persons,omitempty" json:"persons,omitempty"`
	Groups         []GroupRecord         `yaml:"groups,omitempty" json:"groups,omitempty"`
	Placements     []PlacementRecord     `yaml:"placements,omitempty" json:"placements,omitempty"`
	Syllabuses     []SyllabusRecord      `yaml:"syllabuses,omitempty" json:"syllabuses,omitempty"`
	CalendarEvents []CalendarEventRecord `yaml:"calendarEvents,omitempty" json:"calendarEvents,omitempty"`
	Attendances    []AttendanceRecord    `yaml:"attendances,omitempty" json:"attendances,omitempty"`
	Absences       []AbsenceRecord       `yaml:"absences,omitempty" json:"absences,omitempty"`
	// The SS 12000 records of interface B only. Records the
	// file does not declare are derived (fixtures.Complete).
	Rooms      []RoomRecord     `yaml:"rooms,omitempty" json:"rooms,omitempty"`
	Resources  []ResourceRecord `yaml:"resources,omitempty" json:"resources,omitempty"`
	Activities []ActivityRecord `yaml:"activities,omitempty" json:"activities,omitempty"`
	Grades     []GradeRecord    `yaml:"grades,omitempty" json:"grades,omitempty"`
}

// RoomRecord is a room of a school. displayName and owner (a school alias)
// are required.
type RoomRecord struct {
	Alias       string `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID          string `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName string `yaml:"displayName" json:"displayName"`
	Seats       *int   `yaml:"seats,omitempty" json:"seats,omitempty"`
	Owner       string `yaml:"owner" json:"owner"`
}

// ResourceRecord is a bookable resource of a school. displayName and owner
// (a school alias) are required.
type ResourceRecord struct {
	Alias       string `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID          string `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName string `yaml:"displayName" json:"displayName"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Owner       string `yaml:"owner" json:"owner"`
}

// ActivityRecord is an activity of groups (teaching, usually): what
// calendar events are occasions of. displayName, organisation (a school
// alias), groups (group aliases, at least one) and startDate are required;
// teachers are person aliases (each teaches through the duty the mock gives
// the person at the school); activityType defaults to Undervisning.
type ActivityRecord struct {
	Alias                  string     `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID                     string     `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName            string     `yaml:"displayName" json:"displayName"`
	Organisation           string     `yaml:"organisation" json:"organisation"`
	Groups                 []string   `yaml:"groups" json:"groups"`
	Syllabus               string     `yaml:"syllabus,omitempty" json:"syllabus,omitempty"`
	Teachers               []string   `yaml:"teachers,omitempty" json:"teachers,omitempty"`
	StartDate              model.Date `yaml:"startDate" json:"startDate"`
	EndDate                model.Date `yaml:"endDate,omitempty" json:"endDate,omitempty"`
	ActivityType           string     `yaml:"activityType,omitempty" json:"activityType,omitempty"`
	CalendarEventsRequired *bool      `yaml:"calendarEventsRequired,omitempty" json:"calendarEventsRequired,omitempty"`
	MinutesPlanned         *int       `yaml:"minutesPlanned,omitempty" json:"minutesPlanned,omitempty"`
}

// GradeRecord is a grade in SS 12000's shape. student, organisation (a
// school alias), registeredBy, syllabus, gradeValue and registeredDate are
// required; adaptedStudyPlan defaults to "Nej".
type GradeRecord struct {
	Alias          string     `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID             string     `yaml:"id,omitempty" json:"id,omitempty"`
	Student        string     `yaml:"student" json:"student"`
	Organisation   string     `yaml:"organisation" json:"organisation"`
	RegisteredBy   string     `yaml:"registeredBy" json:"registeredBy"`
	GradingTeacher string     `yaml:"gradingTeacher,omitempty" json:"gradingTeacher,omitempty"`
	Group          string     `yaml:"group,omitempty" json:"group,omitempty"`
	Syllabus       string     `yaml:"syllabus" json:"syllabus"`
	GradeValue     string     `yaml:"gradeValue" json:"gradeValue"`
	RegisteredDate model.Date `yaml:"registeredDate" json:"registeredDate"`
	FinalGrade     bool       `yaml:"finalGrade,omitempty" json:"finalGrade,omitempty"`
	Semester       string     `yaml:"semester,omitempty" json:"semester,omitempty"`
	Year           *int       `yaml:"year,omitempty" json:"year,omitempty"`
	Remark         string     `yaml:"remark,omitempty" json:"remark,omitempty"`
}

// OrganiserRecord is an organiser (Huvudman). Alias and displayName are
// required.
type OrganiserRecord struct {
	Alias              string                     `yaml:"alias" json:"alias"`
	ID                 string                     `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName        string                     `yaml:"displayName" json:"displayName"`
	OrganisationCode   string                     `yaml:"organisationCode,omitempty" json:"organisationCode,omitempty"`
	OrganisationNumber string                     `yaml:"organisationNumber,omitempty" json:"organisationNumber,omitempty"`
	MunicipalityCode   string                     `yaml:"municipalityCode,omitempty" json:"municipalityCode,omitempty"`
	Address            *model.OrganisationAddress `yaml:"address,omitempty" json:"address,omitempty"`
	URL                string                     `yaml:"url,omitempty" json:"url,omitempty"`
	Email              string                     `yaml:"email,omitempty" json:"email,omitempty"`
	PhoneNumber        string                     `yaml:"phoneNumber,omitempty" json:"phoneNumber,omitempty"`
	StartDate          model.Date                 `yaml:"startDate,omitempty" json:"startDate,omitempty"`
	EndDate            model.Date                 `yaml:"endDate,omitempty" json:"endDate,omitempty"`
}

// UnitRecord is an administrative unit (organisation type Förvaltning), which
// interface A shows as a Unit. Alias and displayName (the Unit's title) are
// required. Its parent is Organiser, else the first explicit organiser, else
// the generated organiser, else none.
type UnitRecord struct {
	Alias       string `yaml:"alias" json:"alias"`
	ID          string `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName string `yaml:"displayName" json:"displayName"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Organiser   string `yaml:"organiser,omitempty" json:"organiser,omitempty"`
}

// SchoolRecord is a school unit (Skolenhet). Alias and displayName are
// required; schoolUnitCode, when given, is the 8-digit code of the school
// unit register. Its parent is Organiser, else the first explicit organiser,
// else the generated organiser, else none.
type SchoolRecord struct {
	Alias            string                     `yaml:"alias" json:"alias"`
	ID               string                     `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName      string                     `yaml:"displayName" json:"displayName"`
	SchoolUnitCode   string                     `yaml:"schoolUnitCode,omitempty" json:"schoolUnitCode,omitempty"`
	OrganisationCode string                     `yaml:"organisationCode,omitempty" json:"organisationCode,omitempty"`
	SchoolTypes      []model.SchoolType         `yaml:"schoolTypes,omitempty" json:"schoolTypes,omitempty"`
	Organiser        string                     `yaml:"organiser,omitempty" json:"organiser,omitempty"`
	MunicipalityCode string                     `yaml:"municipalityCode,omitempty" json:"municipalityCode,omitempty"`
	Address          *model.OrganisationAddress `yaml:"address,omitempty" json:"address,omitempty"`
	URL              string                     `yaml:"url,omitempty" json:"url,omitempty"`
	Email            string                     `yaml:"email,omitempty" json:"email,omitempty"`
	PhoneNumber      string                     `yaml:"phoneNumber,omitempty" json:"phoneNumber,omitempty"`
	StartDate        model.Date                 `yaml:"startDate,omitempty" json:"startDate,omitempty"`
	EndDate          model.Date                 `yaml:"endDate,omitempty" json:"endDate,omitempty"`
	// Unit is the alias of the unit the school belongs to (interface A's
	// School.unitID). Without one, a school is spread over the units there are.
	Unit string `yaml:"unit,omitempty" json:"unit,omitempty"`
}

// PersonRecord is a person. Alias, givenName and familyName are required.
// birthDate defaults to the date in civicNo; securityMarking to Ingen;
// personStatus to Aktiv.
type PersonRecord struct {
	Alias                   string                     `yaml:"alias" json:"alias"`
	ID                      string                     `yaml:"id,omitempty" json:"id,omitempty"`
	GivenName               string                     `yaml:"givenName" json:"givenName"`
	MiddleName              string                     `yaml:"middleName,omitempty" json:"middleName,omitempty"`
	FamilyName              string                     `yaml:"familyName" json:"familyName"`
	CivicNo                 *CivicNo                   `yaml:"civicNo,omitempty" json:"civicNo,omitempty"`
	BirthDate               model.Date                 `yaml:"birthDate,omitempty" json:"birthDate,omitempty"`
	Sex                     model.Sex                  `yaml:"sex,omitempty" json:"sex,omitempty"`
	SecurityMarking         model.SecurityMarking      `yaml:"securityMarking,omitempty" json:"securityMarking,omitempty"`
	PersonStatus            model.PersonStatus         `yaml:"personStatus,omitempty" json:"personStatus,omitempty"`
	EduPersonPrincipalNames []string                   `yaml:"eduPersonPrincipalNames,omitempty" json:"eduPersonPrincipalNames,omitempty"`
	ExternalIdentifiers     []model.ExternalIdentifier `yaml:"externalIdentifiers,omitempty" json:"externalIdentifiers,omitempty"`
	Emails                  []model.Email              `yaml:"emails,omitempty" json:"emails,omitempty"`
	PhoneNumbers            []model.PhoneNumber        `yaml:"phoneNumbers,omitempty" json:"phoneNumbers,omitempty"`
	Addresses               []model.PersonAddress      `yaml:"addresses,omitempty" json:"addresses,omitempty"`
	Enrolments              []EnrolmentRecord          `yaml:"enrolments,omitempty" json:"enrolments,omitempty"`
	Responsibles            []ResponsibleRecord        `yaml:"responsibles,omitempty" json:"responsibles,omitempty"`
}

// CivicNo is a civic number: in YAML a string ("201301011234") or a mapping
// {value, nationality}. Nationality defaults to SE.
type CivicNo struct {
	Value       string `yaml:"value" json:"value"`
	Nationality string `yaml:"nationality,omitempty" json:"nationality,omitempty"`
}

func (c *CivicNo) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		c.Value = n.Value
		return
	}
	decodePlain(d, n, path, c)
}

// EnrolmentRecord is a person's enrolment at an explicit school. school,
// schoolType and startDate are required.
type EnrolmentRecord struct {
	School        string           `yaml:"school" json:"school"`
	SchoolType    model.SchoolType `yaml:"schoolType" json:"schoolType"`
	SchoolYear    *int             `yaml:"schoolYear,omitempty" json:"schoolYear,omitempty"`
	StartDate     model.Date       `yaml:"startDate" json:"startDate"`
	EndDate       model.Date       `yaml:"endDate,omitempty" json:"endDate,omitempty"`
	Cancelled     *bool            `yaml:"cancelled,omitempty" json:"cancelled,omitempty"`
	EducationCode string           `yaml:"educationCode,omitempty" json:"educationCode,omitempty"`
	Specification string           `yaml:"specification,omitempty" json:"specification,omitempty"`
}

// ResponsibleRecord makes another explicit person responsible for this one.
// relationType defaults to Vårdnadshavare.
type ResponsibleRecord struct {
	Person       string             `yaml:"person" json:"person"`
	RelationType model.RelationType `yaml:"relationType,omitempty" json:"relationType,omitempty"`
}

// GroupRecord is a group. Alias, displayName, groupType, organisation (a
// school or organiser alias) and startDate are required.
type GroupRecord struct {
	Alias        string           `yaml:"alias" json:"alias"`
	ID           string           `yaml:"id,omitempty" json:"id,omitempty"`
	DisplayName  string           `yaml:"displayName" json:"displayName"`
	GroupType    model.GroupType  `yaml:"groupType" json:"groupType"`
	SchoolType   model.SchoolType `yaml:"schoolType,omitempty" json:"schoolType,omitempty"`
	Organisation string           `yaml:"organisation" json:"organisation"`
	StartDate    model.Date       `yaml:"startDate" json:"startDate"`
	EndDate      model.Date       `yaml:"endDate,omitempty" json:"endDate,omitempty"`
	Members      []Member         `yaml:"members,omitempty" json:"members,omitempty"`
}

// Member is a group membership: in YAML a person alias, or a mapping
// {person, startDate, endDate}.
type Member struct {
	Person    string     `yaml:"person" json:"person"`
	StartDate model.Date `yaml:"startDate,omitempty" json:"startDate,omitempty"`
	EndDate   model.Date `yaml:"endDate,omitempty" json:"endDate,omitempty"`
}

func (m *Member) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		m.Person = n.Value
		return
	}
	decodePlain(d, n, path, m)
}

// PlacementRecord is a placement of a child. child, placedAt (a school
// alias), schoolType (FS, FTH or OPPFTH) and startDate are required; alias
// is optional (nothing refers to placements).
type PlacementRecord struct {
	Alias                  string                `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID                     string                `yaml:"id,omitempty" json:"id,omitempty"`
	Child                  string                `yaml:"child" json:"child"`
	PlacedAt               string                `yaml:"placedAt" json:"placedAt"`
	Group                  string                `yaml:"group,omitempty" json:"group,omitempty"`
	Owners                 []string              `yaml:"owners,omitempty" json:"owners,omitempty"`
	SchoolType             model.SchoolType      `yaml:"schoolType" json:"schoolType"`
	StartDate              model.Date            `yaml:"startDate" json:"startDate"`
	EndDate                model.Date            `yaml:"endDate,omitempty" json:"endDate,omitempty"`
	Reason                 model.PlacementReason `yaml:"reason,omitempty" json:"reason,omitempty"`
	MaxWeeklyScheduleHours *int                  `yaml:"maxWeeklyScheduleHours,omitempty" json:"maxWeeklyScheduleHours,omitempty"`
}

// SyllabusRecord is a subject or course. schoolType and subjectName are
// required; official defaults to true.
type SyllabusRecord struct {
	Alias                       string                             `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID                          string                             `yaml:"id,omitempty" json:"id,omitempty"`
	SchoolType                  model.SchoolType                   `yaml:"schoolType" json:"schoolType"`
	SubjectName                 string                             `yaml:"subjectName" json:"subjectName"`
	SubjectCode                 string                             `yaml:"subjectCode,omitempty" json:"subjectCode,omitempty"`
	SubjectDesignation          string                             `yaml:"subjectDesignation,omitempty" json:"subjectDesignation,omitempty"`
	CourseCode                  string                             `yaml:"courseCode,omitempty" json:"courseCode,omitempty"`
	CourseName                  string                             `yaml:"courseName,omitempty" json:"courseName,omitempty"`
	StartSchoolYear             *int                               `yaml:"startSchoolYear,omitempty" json:"startSchoolYear,omitempty"`
	EndSchoolYear               *int                               `yaml:"endSchoolYear,omitempty" json:"endSchoolYear,omitempty"`
	Points                      *int                               `yaml:"points,omitempty" json:"points,omitempty"`
	Curriculum                  model.Curriculum                   `yaml:"curriculum,omitempty" json:"curriculum,omitempty"`
	LanguageCode                string                             `yaml:"languageCode,omitempty" json:"languageCode,omitempty"`
	SpecialisationCourseContent *model.SpecialisationCourseContent `yaml:"specialisationCourseContent,omitempty" json:"specialisationCourseContent,omitempty"`
	Official                    *bool                              `yaml:"official,omitempty" json:"official,omitempty"`
}

// CalendarEventRecord is a lesson, the target of attendance records. Every
// field but alias, id, cancelled, activity and rooms is required; without
// activity the event gets the activity of its group and syllabus
// (derived), without rooms a room of its school.
type CalendarEventRecord struct {
	Alias        string    `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID           string    `yaml:"id,omitempty" json:"id,omitempty"`
	Title        string    `yaml:"title" json:"title"`
	StartTime    time.Time `yaml:"startTime" json:"startTime"`
	EndTime      time.Time `yaml:"endTime" json:"endTime"`
	Cancelled    bool      `yaml:"cancelled,omitempty" json:"cancelled,omitempty"`
	Organisation string    `yaml:"organisation" json:"organisation"`
	Group        string    `yaml:"group" json:"group"`
	Syllabus     string    `yaml:"syllabus" json:"syllabus"`
	Teacher      string    `yaml:"teacher" json:"teacher"`
	Activity     string    `yaml:"activity,omitempty" json:"activity,omitempty"`
	Rooms        []string  `yaml:"rooms,omitempty" json:"rooms,omitempty"`
	Resources    []string  `yaml:"resources,omitempty" json:"resources,omitempty"`
}

// AttendanceRecord is a pupil's attendance at a calendar event.
// calendarEvent and student are required.
type AttendanceRecord struct {
	Alias                  string     `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID                     string     `yaml:"id,omitempty" json:"id,omitempty"`
	CalendarEvent          string     `yaml:"calendarEvent" json:"calendarEvent"`
	Student                string     `yaml:"student" json:"student"`
	Reporter               string     `yaml:"reporter,omitempty" json:"reporter,omitempty"`
	IsReported             bool       `yaml:"isReported,omitempty" json:"isReported,omitempty"`
	AttendanceMinutes      *int       `yaml:"attendanceMinutes,omitempty" json:"attendanceMinutes,omitempty"`
	ValidAbsenceMinutes    *int       `yaml:"validAbsenceMinutes,omitempty" json:"validAbsenceMinutes,omitempty"`
	InvalidAbsenceMinutes  *int       `yaml:"invalidAbsenceMinutes,omitempty" json:"invalidAbsenceMinutes,omitempty"`
	OtherAttendanceMinutes *int       `yaml:"otherAttendanceMinutes,omitempty" json:"otherAttendanceMinutes,omitempty"`
	AbsenceReason          string     `yaml:"absenceReason,omitempty" json:"absenceReason,omitempty"`
	ReportedTimestamp      *time.Time `yaml:"reportedTimestamp,omitempty" json:"reportedTimestamp,omitempty"`
}

// AbsenceRecord is a registered absence. student, organisation (a school
// alias), registrationDate, startTime, endTime and type are required.
type AbsenceRecord struct {
	Alias            string            `yaml:"alias,omitempty" json:"alias,omitempty"`
	ID               string            `yaml:"id,omitempty" json:"id,omitempty"`
	Student          string            `yaml:"student" json:"student"`
	Organisation     string            `yaml:"organisation" json:"organisation"`
	RegistrationDate model.Date        `yaml:"registrationDate" json:"registrationDate"`
	StartTime        time.Time         `yaml:"startTime" json:"startTime"`
	EndTime          time.Time         `yaml:"endTime" json:"endTime"`
	Type             model.AbsenceType `yaml:"type" json:"type"`
	AbsenceReason    string            `yaml:"absenceReason,omitempty" json:"absenceReason,omitempty"`
	Verified         *bool             `yaml:"verified,omitempty" json:"verified,omitempty"`
	RegisteredBy     string            `yaml:"registeredBy,omitempty" json:"registeredBy,omitempty"`
}

// decodePlain decodes a mapping into the struct v points at with the
// generic decoder, bypassing v's own decodeYAML.
func decodePlain[T any](d *decoder, n *yaml.Node, path string, v *T) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a string or a mapping, got %s", describe(n))
		return
	}
	d.decodeStruct(n, path, reflect.ValueOf(v).Elem())
}
