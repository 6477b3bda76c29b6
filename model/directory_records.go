package model

import "time"

// Records that only interface A (the directory API) has. Unlike the
// extensions in directory.go they are not views of shared records: each is a
// table of its own, and interface B never shows them. Their JSON is the form
// of the state file (GET/PUT /__admin/state); the wire form of interface A is
// rendered by the mock server.

// EmployeePlacement is an employee's placement at a school, with the roles
// the employee has there (interface A's EmployeePlacement).
type EmployeePlacement struct {
	ID         string    `json:"id"`
	Meta       Meta      `json:"meta"`
	External   *External `json:"external,omitempty"`
	EmployeeID string    `json:"employeeID"`
	SchoolID   string    `json:"schoolID"`
	Signature  *string   `json:"signature,omitempty"`
	Title      *string   `json:"title,omitempty"`
	// Roles are interface A's EmployeePlacementRole values (Teacher, MealPlanner, ...).
	Roles       []string `json:"roles"`
	StartDate   Date     `json:"startDate"`
	EndDate     Date     `json:"endDate,omitempty"`
	ArchiveYear *string  `json:"archiveYear,omitempty"`
	// ArchivedAt is set by the archiving rules of interface A.
	ArchivedAt        *time.Time `json:"archivedAt,omitempty"`
	EmploymentPercent *int       `json:"employmentPercent,omitempty"`
}

// GradeElementary is a grade in compulsory school (school years 6 to 9) in
// one subject and term. Enumerated members hold interface A's wire values
// (Term HT/VT, SchoolYear "6".."9", Grade A..F/MISSING).
type GradeElementary struct {
	ID                 string    `json:"id"`
	Meta               Meta      `json:"meta"`
	External           *External `json:"external,omitempty"`
	StudentID          string    `json:"studentID"`
	SchoolID           string    `json:"schoolID"`
	SubjectCode        string    `json:"subjectCode"`
	LanguageCode       *string   `json:"languageCode,omitempty"`
	AcademicYear       string    `json:"academicYear"`
	Term               string    `json:"term"`
	SchoolYear         string    `json:"schoolYear"`
	Teacher1EmployeeID *string   `json:"teacher1EmployeeID,omitempty"`
	Teacher2EmployeeID *string   `json:"teacher2EmployeeID,omitempty"`
	Grade              *string   `json:"grade,omitempty"`
	GradeDate          Date      `json:"gradeDate,omitempty"`
	FinalGrade         bool      `json:"finalGrade"`
	IsEnded            bool      `json:"isEnded"`
	SchoolComment      *string   `json:"schoolComment,omitempty"`
}

// GradeUpperSecondary is a course grade in upper secondary school (years 1
// to 3). Enumerated members hold interface A's wire values.
type GradeUpperSecondary struct {
	ID                  string    `json:"id"`
	Meta                Meta      `json:"meta"`
	External            *External `json:"external,omitempty"`
	StudentID           string    `json:"studentID"`
	SchoolID            string    `json:"schoolID"`
	CourseCode          string    `json:"courseCode"`
	LanguageCode        *string   `json:"languageCode,omitempty"`
	Teacher1EmployeeID  *string   `json:"teacher1EmployeeID,omitempty"`
	Teacher2EmployeeID  *string   `json:"teacher2EmployeeID,omitempty"`
	Grade               *string   `json:"grade,omitempty"`
	GradeDate           Date      `json:"gradeDate,omitempty"`
	GradeComment        *string   `json:"gradeComment,omitempty"`
	Extent              *string   `json:"extent,omitempty"`
	SchoolYear          *string   `json:"schoolYear,omitempty"`
	Section             *string   `json:"section,omitempty"`
	TeacherComment      *string   `json:"teacherComment,omitempty"`
	IncludeOnFinalGrade bool      `json:"includeOnFinalGrade"`
	ProgramTitle        *string   `json:"programTitle,omitempty"`
	StartDate           Date      `json:"startDate,omitempty"`
	EndDate             Date      `json:"endDate,omitempty"`
}

// Teachers returns the ids of the grade's teachers that are set, each once.
func (g *GradeElementary) Teachers() []string {
	return teacherIDs(g.Teacher1EmployeeID, g.Teacher2EmployeeID)
}

// Teachers returns the ids of the grade's teachers that are set, each once.
func (g *GradeUpperSecondary) Teachers() []string {
	return teacherIDs(g.Teacher1EmployeeID, g.Teacher2EmployeeID)
}

func teacherIDs(ids ...*string) []string {
	var out []string
	for _, id := range ids {
		if id != nil && *id != "" && (len(out) == 0 || out[0] != *id) {
			out = append(out, *id)
		}
	}
	return out
}
