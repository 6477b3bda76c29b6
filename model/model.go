package model

import (
	"encoding/json"
	"fmt"
	"time"
)

// Date is an RFC 3339 full-date ("2006-01-02"). The empty Date means "not set".
// Because the layout is fixed-width, string order is chronological order.
type Date string

// DateLayout is the layout of Date in time.Parse terms.
const DateLayout = "2006-01-02"

// ParseDate parses an RFC 3339 full-date and rejects anything else.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil || t.Format(DateLayout) != s {
		return "", fmt.Errorf("%q is not an RFC 3339 full-date (YYYY-MM-DD)", s)
	}
	return Date(s), nil
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date { return Date(t.Format(DateLayout)) }

// IsZero reports whether the date is unset.
func (d Date) IsZero() bool { return d == "" }

// Time returns the date at midnight UTC; the zero time for an unset date.
func (d Date) Time() time.Time {
	t, _ := time.Parse(DateLayout, string(d))
	return t
}

// Meta holds the store-maintained timestamps of a record. Modified moves only
// when an attribute that belongs directly to the record changes.
//
// CreatedBy and UpdatedBy are the ids of the API client that created the
// record and that made its last change (nil for records loaded from a
// scenario or written through the control plane). Interface A shows them as
// meta.createdBy and meta.updatedBy; interface B's meta has no such members,
// so they are hidden from its wire (json:"-") and kept by the state file.
type Meta struct {
	Created   time.Time `json:"created"`
	Modified  time.Time `json:"modified"`
	CreatedBy *string   `json:"-"`
	UpdatedBy *string   `json:"-"`
}

// ObjectReference points at another record. DisplayName is filled only when a
// request asks for expandReferenceNames=true; the store never relies on it.
type ObjectReference struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName,omitempty"`
}

// OptionalID is the id of an optional reference: "" when there is none.
func (r *ObjectReference) OptionalID() string {
	if r == nil {
		return ""
	}
	return r.ID
}

// PersonReference points at a person. SecurityMarking is always present on
// the wire (it is filled from the referenced person when rendered).
type PersonReference struct {
	ID              string          `json:"id"`
	DisplayName     string          `json:"displayName,omitempty"`
	SecurityMarking SecurityMarking `json:"securityMarking"`
}

// Organisation is an organisation element: the organiser (Huvudman) or a
// school unit (Skolenhet) below it.
type Organisation struct {
	ID                 string               `json:"id"`
	Meta               Meta                 `json:"meta"`
	DisplayName        string               `json:"displayName"`
	OrganisationCode   string               `json:"organisationCode,omitempty"`
	OrganisationType   OrganisationType     `json:"organisationType"`
	OrganisationNumber string               `json:"organisationNumber,omitempty"`
	ParentOrganisation *ObjectReference     `json:"parentOrganisation,omitempty" ref:"organisations"`
	SchoolUnitCode     string               `json:"schoolUnitCode,omitempty"`
	SchoolTypes        []SchoolType         `json:"schoolTypes,omitempty"`
	Address            *OrganisationAddress `json:"address,omitempty"`
	MunicipalityCode   string               `json:"municipalityCode,omitempty"`
	URL                string               `json:"url,omitempty"`
	Email              string               `json:"email,omitempty"`
	PhoneNumber        string               `json:"phoneNumber,omitempty"`
	StartDate          Date                 `json:"startDate,omitempty"`
	EndDate            Date                 `json:"endDate,omitempty"`
	// Directory is the school's interface-A view; nil for organisation
	// elements that are not schools in interface A.
	Directory *SchoolExtra `json:"-"`
	// Unit is the element's view as an interface-A Unit; nil for elements
	// that are not Units.
	Unit *UnitExtra `json:"-"`
}

// OrganisationAddress is the address of an organisation element.
type OrganisationAddress struct {
	Type                  OrganisationAddressType `json:"type,omitempty"`
	StreetAddress         string                  `json:"streetAddress"`
	Locality              string                  `json:"locality"`
	PostalCode            string                  `json:"postalCode"`
	CountyCode            *int                    `json:"countyCode,omitempty"`
	MunicipalityCode      *int                    `json:"municipalityCode,omitempty"`
	RealEstateDesignation string                  `json:"realEstateDesignation,omitempty"`
	Country               string                  `json:"country,omitempty"`
}

// Person is a child, pupil, guardian or member of staff.
type Person struct {
	ID                      string               `json:"id"`
	Meta                    Meta                 `json:"meta"`
	GivenName               string               `json:"givenName"`
	MiddleName              string               `json:"middleName,omitempty"`
	FamilyName              string               `json:"familyName"`
	EduPersonPrincipalNames []string             `json:"eduPersonPrincipalNames,omitempty"`
	ExternalIdentifiers     []ExternalIdentifier `json:"externalIdentifiers,omitempty"`
	CivicNo                 *CivicNo             `json:"civicNo,omitempty"`
	BirthDate               Date                 `json:"birthDate,omitempty"`
	Sex                     Sex                  `json:"sex,omitempty"`
	SecurityMarking         SecurityMarking      `json:"securityMarking,omitempty"`
	PersonStatus            PersonStatus         `json:"personStatus,omitempty"`
	Emails                  []Email              `json:"emails,omitempty"`
	PhoneNumbers            []PhoneNumber        `json:"phoneNumbers,omitempty"`
	Addresses               []PersonAddress      `json:"addresses,omitempty"`
	Photo                   string               `json:"photo,omitempty"`
	Enrolments              []Enrolment          `json:"enrolments,omitempty"`
	Responsibles            []Responsible        `json:"responsibles,omitempty"`
	// Directory is the person's interface-A view.
	Directory *PersonExtra `json:"-"`
}

// DisplayName is the name shown in references to the person.
func (p *Person) DisplayName() string {
	if p.MiddleName != "" {
		return p.GivenName + " " + p.MiddleName + " " + p.FamilyName
	}
	return p.GivenName + " " + p.FamilyName
}

// ExternalIdentifier is an identifier of the person in another system.
type ExternalIdentifier struct {
	Value          string `json:"value"`
	Context        string `json:"context"`
	GloballyUnique bool   `json:"globallyUnique"`
}

// CivicNo is a Swedish personal identity number (personnummer), coordination
// number or temporary number: 12 characters without separators.
type CivicNo struct {
	Value       string `json:"value"`
	Nationality string `json:"nationality,omitempty"`
}

// Email is an e-mail address with its SS 12000 type.
type Email struct {
	Value string    `json:"value"`
	Type  EmailType `json:"type"`
}

// PhoneNumber is a telephone number with its SS 12000 type.
type PhoneNumber struct {
	Value  string    `json:"value"`
	Type   PhoneType `json:"type"`
	Mobile bool      `json:"mobile"`
}

// PersonAddress is a postal address of a person.
type PersonAddress struct {
	Type                  PersonAddressType `json:"type,omitempty"`
	StreetAddress         string            `json:"streetAddress"`
	Locality              string            `json:"locality"`
	PostalCode            string            `json:"postalCode"`
	CountyCode            *int              `json:"countyCode,omitempty"`
	MunicipalityCode      *int              `json:"municipalityCode,omitempty"`
	RealEstateDesignation string            `json:"realEstateDesignation,omitempty"`
	Country               string            `json:"country"`
}

// Enrolment is a person's enrolment at a school unit.
type Enrolment struct {
	EnroledAt     ObjectReference  `json:"enroledAt"`
	SchoolYear    *int             `json:"schoolYear,omitempty"`
	SchoolType    SchoolType       `json:"schoolType"`
	StartDate     Date             `json:"startDate"`
	EndDate       Date             `json:"endDate,omitempty"`
	Cancelled     *bool            `json:"cancelled,omitempty"`
	EducationCode string           `json:"educationCode,omitempty"`
	Programme     *ObjectReference `json:"programme,omitempty"`
	Specification string           `json:"specification,omitempty"`
}

// Responsible links a person to a guardian or other responsible adult.
type Responsible struct {
	Person       PersonReference `json:"person"`
	RelationType RelationType    `json:"relationType"`
}

// Placement is a child's placement at a preschool or after-school centre.
type Placement struct {
	ID                     string             `json:"id"`
	Meta                   Meta               `json:"meta"`
	PlacedAt               ObjectReference    `json:"placedAt"`
	Group                  *ObjectReference   `json:"group,omitempty"`
	Child                  PersonReference    `json:"child"`
	Owners                 []PersonReference  `json:"owners,omitempty"`
	SchoolType             SchoolType         `json:"schoolType"`
	StartDate              Date               `json:"startDate"`
	EndDate                Date               `json:"endDate,omitempty"`
	Reason                 PlacementReason    `json:"reason,omitempty"`
	MaxWeeklyScheduleHours *int               `json:"maxWeeklyScheduleHours,omitempty"`
	Embedded               *PlacementEmbedded `json:"_embedded,omitempty"`
	// Directory makes the placement a StudentPlacement of interface A.
	Directory *PlacementExtra `json:"-"`
}

// PlacementEmbedded carries the persons a placement refers to, on request.
type PlacementEmbedded struct {
	Child  *Person  `json:"child,omitempty"`
	Owners []Person `json:"owners,omitempty"`
}

// Group is a group of persons: a class, a teaching group, a preschool
// department and so on.
type Group struct {
	ID               string            `json:"id"`
	Meta             Meta              `json:"meta"`
	DisplayName      string            `json:"displayName"`
	StartDate        Date              `json:"startDate"`
	EndDate          Date              `json:"endDate,omitempty"`
	GroupType        GroupType         `json:"groupType"`
	SchoolType       SchoolType        `json:"schoolType,omitempty"`
	Organisation     ObjectReference   `json:"organisation"`
	GroupMemberships []GroupMembership `json:"groupMemberships,omitempty"`
	// AssignmentRoles are stored with the group and appear on the wire only
	// as _embedded.assignmentRoles when expand=assignmentRoles is asked for.
	AssignmentRoles []AssignmentRole `json:"-"`
	Embedded        *GroupEmbedded   `json:"_embedded,omitempty"`
	// Directory is the group's interface-A view.
	Directory *GroupExtra `json:"-"`
}

// GroupMembership is a person's membership of a group and the period it covers.
type GroupMembership struct {
	Person    PersonReference `json:"person"`
	StartDate Date            `json:"startDate,omitempty"`
	EndDate   Date            `json:"endDate,omitempty"`
}

// GroupEmbedded is the _embedded object of a group.
type GroupEmbedded struct {
	AssignmentRoles []AssignmentRole `json:"assignmentRoles"`
}

// AssignmentRole ties a member of staff's duty to a group (mentor, preschool
// teacher, ...). The service keeps no duty records of its own, so the duty's
// display name is stored with the role.
type AssignmentRole struct {
	Duty               ObjectReference    `json:"duty"`
	AssignmentRoleType AssignmentRoleType `json:"assignmentRoleType"`
	StartDate          Date               `json:"startDate,omitempty"`
	EndDate            Date               `json:"endDate,omitempty"`
	// DutyName is what duty.displayName shows when reference names are asked for.
	DutyName string `json:"-"`
}

// Syllabus is a subject or course.
type Syllabus struct {
	ID                          string                       `json:"id"`
	Meta                        Meta                         `json:"meta"`
	SchoolType                  SchoolType                   `json:"schoolType"`
	SubjectCode                 string                       `json:"subjectCode,omitempty"`
	SubjectName                 string                       `json:"subjectName"`
	SubjectDesignation          string                       `json:"subjectDesignation,omitempty"`
	CourseCode                  string                       `json:"courseCode,omitempty"`
	CourseName                  string                       `json:"courseName,omitempty"`
	StartSchoolYear             *int                         `json:"startSchoolYear,omitempty"`
	EndSchoolYear               *int                         `json:"endSchoolYear,omitempty"`
	Points                      *int                         `json:"points,omitempty"`
	Curriculum                  Curriculum                   `json:"curriculum,omitempty"`
	LanguageCode                string                       `json:"languageCode,omitempty"`
	SpecialisationCourseContent *SpecialisationCourseContent `json:"specialisationCourseContent,omitempty"`
	Official                    bool                         `json:"official"`
}

// DisplayName is the name shown in references to the syllabus.
func (s *Syllabus) DisplayName() string {
	if s.CourseName != "" {
		return s.CourseName
	}
	return s.SubjectName
}

// SpecialisationCourseContent describes the content of a specialisation course.
type SpecialisationCourseContent struct {
	Title              string `json:"title"`
	TitleEnglish       string `json:"titleEnglish,omitempty"`
	Description        string `json:"description"`
	DescriptionEnglish string `json:"descriptionEnglish,omitempty"`
}

// CalendarEvent is one scheduled lesson or activity occasion. Interface B
// shows it in SS 12000's shape (activity, times, rooms, resources); the
// title, group, syllabus and teacher are the store's, for interface A and
// the data export.
//
// Its references are held by a pointer (EventRefs, whose fields are promoted:
// ev.Group.ID reads as a field, and the JSON is that of plain fields) so that
// the events of one group's run of lessons can share them: a stored event
// takes 184 bytes, where references of its own would take 376
// (docs/decisions.md#calendar-event-shared-refs). The pointer is never nil in
// an event the fixtures, a decoder or the store hands out. The referenced
// EventRefs may be shared: change an event's references by giving it a new
// EventRefs (ev.EventRefs = ev.RefsCopy()), never by writing through it.
type CalendarEvent struct {
	ID        string    `json:"id"`
	Meta      Meta      `json:"meta"`
	Title     string    `json:"title"`
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	Cancelled bool      `json:"cancelled"`
	*EventRefs
	// Resources are what the event uses (SS 12000); they differ from event
	// to event, so they are the event's own.
	Resources []ObjectReference `json:"resources,omitempty"`
}

// EventRefs are the references of a calendar event, often shared by the
// events of a run (see CalendarEvent).
type EventRefs struct {
	Organisation ObjectReference `json:"organisation"`
	Group        ObjectReference `json:"group"`
	Syllabus     ObjectReference `json:"syllabus"`
	Teacher      PersonReference `json:"teacher"`
	// Activity is the activity the event is an occasion of (SS 12000);
	// Rooms are where it takes place.
	Activity ObjectReference   `json:"activity"`
	Rooms    []ObjectReference `json:"rooms,omitempty"`
}

// RefsCopy returns a copy of the event's references (empty ones when it has
// none) for the event to own and change.
func (e *CalendarEvent) RefsCopy() *EventRefs {
	if e.EventRefs == nil {
		return &EventRefs{}
	}
	c := *e.EventRefs
	return &c
}

// EnsureRefs gives an event without references empty ones of its own.
func (e *CalendarEvent) EnsureRefs() {
	if e.EventRefs == nil {
		e.EventRefs = &EventRefs{}
	}
}

// UnmarshalJSON decodes an event as encoding/json does, and gives one
// without any reference field empty references (never a nil EventRefs).
func (e *CalendarEvent) UnmarshalJSON(data []byte) error {
	type plain CalendarEvent
	if err := json.Unmarshal(data, (*plain)(e)); err != nil {
		return err
	}
	e.EnsureRefs()
	return nil
}

// Attendance is a pupil's attendance at one calendar event.
type Attendance struct {
	ID                     string           `json:"id"`
	Meta                   Meta             `json:"meta"`
	CalendarEvent          ObjectReference  `json:"calendarEvent"`
	Student                PersonReference  `json:"student"`
	Reporter               *PersonReference `json:"reporter,omitempty"`
	IsReported             bool             `json:"isReported"`
	AttendanceMinutes      *int             `json:"attendanceMinutes,omitempty"`
	ValidAbsenceMinutes    *int             `json:"validAbsenceMinutes,omitempty"`
	InvalidAbsenceMinutes  *int             `json:"invalidAbsenceMinutes,omitempty"`
	OtherAttendanceMinutes *int             `json:"otherAttendanceMinutes,omitempty"`
	AbsenceReason          string           `json:"absenceReason,omitempty"`
	ReportedTimestamp      *time.Time       `json:"reportedTimestamp,omitempty"`

	// eventDay is the UTC date of the calendar event's start: not an
	// attribute of the record (never on the wire), but kept with it by the
	// store, which sets it from the event whenever the record is stored, so
	// that the records of a period can be found by date.
	eventDay Date
}

// EventDay is the UTC date of the start of the attendance's calendar event,
// as the store last set it; "" for a record not (yet) stored.
func (a *Attendance) EventDay() Date { return a.eventDay }

// SetEventDay records the UTC date of the calendar event's start; only the
// store sets it.
func (a *Attendance) SetEventDay(d Date) { a.eventDay = d }

// Absence is a registered absence of a pupil.
type Absence struct {
	ID               string           `json:"id"`
	Meta             Meta             `json:"meta"`
	Student          PersonReference  `json:"student"`
	Organisation     ObjectReference  `json:"organisation"`
	RegistrationDate Date             `json:"registrationDate"`
	StartTime        time.Time        `json:"startTime"`
	EndTime          time.Time        `json:"endTime"`
	Type             AbsenceType      `json:"type"`
	AbsenceReason    string           `json:"absenceReason,omitempty"`
	Verified         *bool            `json:"verified,omitempty"`
	RegisteredBy     *PersonReference `json:"registeredBy,omitempty"`
}
