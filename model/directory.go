package model

import "time"

// Directory extensions: the attributes that interface A (the directory API)
// has and interface B does not. They hang off the shared records, never
// appear on interface B's wire (json:"-" on the owning field), and are
// documented field by field in docs/decisions.md#one-store-two-views.

// External identifies a record in the system it came from.
type External struct {
	Source   *string `json:"source"`
	SourceID *string `json:"sourceID"`
}

// SchoolExtra holds a school unit's interface-A attributes.
type SchoolExtra struct {
	External      *External `json:"external,omitempty"`
	UnitID        *string   `json:"unitID,omitempty"`
	CSNSchoolCode *string   `json:"csnSchoolCode,omitempty"`
	// SchoolType is the one school form interface A shows (GR, GY or FS).
	SchoolType string `json:"schoolType"`
}

// UnitExtra holds an organisation element's attributes as an interface-A
// Unit (its title is the element's displayName). Units are organisation
// elements of type OrganisationTypeUnit.
type UnitExtra struct {
	External    *External `json:"external,omitempty"`
	Description *string   `json:"description,omitempty"`
}

// GroupExtra holds a group's interface-A attributes.
type GroupExtra struct {
	External     *External `json:"external,omitempty"`
	Category     string    `json:"category"`
	Types        []string  `json:"types"`
	ModeratorIDs []string  `json:"moderatorIDs"`
}

// PersonRole is a role a person has in interface A.
type PersonRole string

// Person roles.
const (
	RoleStudent  PersonRole = "student"
	RoleEmployee PersonRole = "employee"
	RoleGuardian PersonRole = "guardian"
)

// PersonExtra holds a person's interface-A attributes.
type PersonExtra struct {
	Roles             []PersonRole `json:"roles"`
	External          *External    `json:"external,omitempty"`
	IdentityTemporary bool         `json:"identityTemporary"`
}

// PlacementExtra holds a student placement's interface-A attributes. A
// placement with an Extra is a StudentPlacement in interface A.
type PlacementExtra struct {
	External                       *External  `json:"external,omitempty"`
	SchoolType                     string     `json:"schoolType"`
	SchoolYear                     *string    `json:"schoolYear"`
	HasChildcare                   bool       `json:"hasChildcare"`
	MotherTongue                   *string    `json:"motherTongue"`
	ModernLanguageAlternative      *string    `json:"modernLanguageAlternative"`
	SwedishAsSecondLanguage        bool       `json:"swedishAsSecondLanguage"`
	MotherTongueParticipates       bool       `json:"motherTongueParticipates"`
	ModernLanguageInSchoolChoice   *string    `json:"modernLanguageInSchoolChoice"`
	ModernLanguageInLanguageChoice *string    `json:"modernLanguageInLanguageChoice"`
	ArchiveYear                    *string    `json:"archiveYear"`
	ArchivedAt                     *time.Time `json:"archivedAt"`
}

// Interface A's two kinds of grade; a grade's GradeExtra says which one it is.
const (
	GradeKindElementary     = "GradeElementary"
	GradeKindUpperSecondary = "GradeUpperSecondary"
)

// GradeExtra holds a grade's interface-A attributes, as interface A wrote
// them. A grade with an Extra is a GradeElementary or a GradeUpperSecondary
// in interface A (Kind); the SS 12000 members of the grade are derived from
// it (docs/decisions.md#grades-in-both-views). Enumerated members hold
// interface A's wire values (Term HT/VT, SchoolYear "6".."9" or "1".."3",
// Grade A..F/MISSING).
type GradeExtra struct {
	Kind     string    `json:"kind"`
	External *External `json:"external,omitempty"`
	// SubjectCode (elementary) or CourseCode (upper secondary).
	SubjectCode        string  `json:"subjectCode,omitempty"`
	CourseCode         string  `json:"courseCode,omitempty"`
	LanguageCode       *string `json:"languageCode,omitempty"`
	AcademicYear       string  `json:"academicYear,omitempty"`
	Term               string  `json:"term,omitempty"`
	SchoolYear         *string `json:"schoolYear,omitempty"`
	Teacher1EmployeeID *string `json:"teacher1EmployeeID,omitempty"`
	Teacher2EmployeeID *string `json:"teacher2EmployeeID,omitempty"`
	Grade              *string `json:"grade,omitempty"`
	GradeDate          Date    `json:"gradeDate,omitempty"`
	// FinalGrade is the elementary grade's finalGrade, IncludeOnFinalGrade
	// the upper-secondary one's includeOnFinalGrade.
	FinalGrade          bool    `json:"finalGrade,omitempty"`
	IncludeOnFinalGrade bool    `json:"includeOnFinalGrade,omitempty"`
	IsEnded             bool    `json:"isEnded,omitempty"`
	SchoolComment       *string `json:"schoolComment,omitempty"`
	GradeComment        *string `json:"gradeComment,omitempty"`
	Extent              *string `json:"extent,omitempty"`
	Section             *string `json:"section,omitempty"`
	TeacherComment      *string `json:"teacherComment,omitempty"`
	ProgramTitle        *string `json:"programTitle,omitempty"`
	StartDate           Date    `json:"startDate,omitempty"`
	EndDate             Date    `json:"endDate,omitempty"`
}

// Teachers returns the ids of the grade's teachers that are set, each once.
func (g *GradeExtra) Teachers() []string {
	return teacherIDs(g.Teacher1EmployeeID, g.Teacher2EmployeeID)
}
