package directory

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/model"
)

// Grades are tables of interface A's own: list, create, get, PATCH and
// DELETE, no _search. Their references must name a student, a school and
// employees (422 otherwise).

// DirectoryGradeElementary is a GradeElementary of interface A.
type DirectoryGradeElementary struct {
	ID                 string          `json:"id"`
	Meta               DirectoryMeta   `json:"meta"`
	External           *model.External `json:"external"`
	StudentID          string          `json:"studentID"`
	SchoolID           string          `json:"schoolID"`
	SubjectCode        string          `json:"subjectCode"`
	LanguageCode       *string         `json:"languageCode"`
	AcademicYear       string          `json:"academicYear"`
	Term               string          `json:"term"`
	SchoolYear         string          `json:"schoolYear"`
	Teacher1EmployeeID *string         `json:"teacher1EmployeeID"`
	Teacher2EmployeeID *string         `json:"teacher2EmployeeID"`
	Grade              *string         `json:"grade"`
	GradeDate          *model.Date     `json:"gradeDate"`
	FinalGrade         bool            `json:"finalGrade"`
	IsEnded            bool            `json:"isEnded"`
	SchoolComment      *string         `json:"schoolComment"`
}

// DirectoryGradeUpperSecondary is a GradeUpperSecondary of interface A.
type DirectoryGradeUpperSecondary struct {
	ID                  string          `json:"id"`
	Meta                DirectoryMeta   `json:"meta"`
	External            *model.External `json:"external"`
	StudentID           string          `json:"studentID"`
	SchoolID            string          `json:"schoolID"`
	CourseCode          string          `json:"courseCode"`
	LanguageCode        *string         `json:"languageCode"`
	Teacher1EmployeeID  *string         `json:"teacher1EmployeeID"`
	Teacher2EmployeeID  *string         `json:"teacher2EmployeeID"`
	Grade               *string         `json:"grade"`
	GradeDate           *model.Date     `json:"gradeDate"`
	GradeComment        *string         `json:"gradeComment"`
	Extent              *string         `json:"extent"`
	SchoolYear          *string         `json:"schoolYear"`
	Section             *string         `json:"section"`
	TeacherComment      *string         `json:"teacherComment"`
	IncludeOnFinalGrade bool            `json:"includeOnFinalGrade"`
	ProgramTitle        *string         `json:"programTitle"`
	StartDate           *model.Date     `json:"startDate"`
	EndDate             *model.Date     `json:"endDate"`
}

// checkGrade lists what is wrong with a grade's references.
func checkGrade(sn *store.Snapshot, student, school string, teacher1, teacher2 *string) []surface.FieldProblem {
	var problems []surface.FieldProblem
	if !isPerson(sn, student, model.RoleStudent) {
		problems = append(problems, surface.FieldProblem{Field: "/studentID", Message: fmt.Sprintf("no student with id %s", student)})
	}
	if !isSchool(sn, school) {
		problems = append(problems, surface.FieldProblem{Field: "/schoolID", Message: fmt.Sprintf("no school with id %s", school)})
	}
	for i, t := range []*string{teacher1, teacher2} {
		if t != nil && !isPerson(sn, *t, model.RoleEmployee) {
			problems = append(problems, surface.FieldProblem{Field: fmt.Sprintf("/teacher%dEmployeeID", i+1), Message: fmt.Sprintf("no employee with id %s", *t)})
		}
	}
	return problems
}

func renderGradeElementary(g *model.GradeElementary) DirectoryGradeElementary {
	return DirectoryGradeElementary{
		ID: g.ID, Meta: dirMeta(g.Meta), External: g.External, StudentID: g.StudentID, SchoolID: g.SchoolID,
		SubjectCode: g.SubjectCode, LanguageCode: g.LanguageCode, AcademicYear: g.AcademicYear, Term: g.Term,
		SchoolYear: g.SchoolYear, Teacher1EmployeeID: g.Teacher1EmployeeID, Teacher2EmployeeID: g.Teacher2EmployeeID,
		Grade: g.Grade, GradeDate: datePtr(g.GradeDate), FinalGrade: g.FinalGrade, IsEnded: g.IsEnded,
		SchoolComment: g.SchoolComment,
	}
}

func (s *API) gradeElementaryResource() *dirResource {
	write := func(w *store.Writer, id string, cur DirectoryGradeElementary, body map[string]json.RawMessage) error {
		v := overlay(cur, body)
		if problems := checkGrade(w.Read(), v.StudentID, v.SchoolID, v.Teacher1EmployeeID, v.Teacher2EmployeeID); len(problems) > 0 {
			return unprocessable(problems...)
		}
		_, _, err := w.PutGradeElementary(model.GradeElementary{
			ID: id, External: v.External, StudentID: v.StudentID, SchoolID: v.SchoolID, SubjectCode: v.SubjectCode,
			LanguageCode: v.LanguageCode, AcademicYear: v.AcademicYear, Term: v.Term, SchoolYear: v.SchoolYear,
			Teacher1EmployeeID: v.Teacher1EmployeeID, Teacher2EmployeeID: v.Teacher2EmployeeID, Grade: v.Grade,
			GradeDate: dateOf(v.GradeDate), FinalGrade: v.FinalGrade, IsEnded: v.IsEnded, SchoolComment: v.SchoolComment,
		})
		return err
	}
	return &dirResource{
		name: "elementary grade", path: "/grade-elementary", scope: "grade", schema: "GradeElementary", canDelete: true,
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableGradesElementary, store.IndexCreated, "", fn)
		},
		get:    func(sn *store.Snapshot, id string) (any, bool) { return sn.GradeElementary(id) },
		render: func(_ *store.Snapshot, rec any) any { return renderGradeElementary(rec.(*model.GradeElementary)) },
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			id := uuid.NewString()
			return id, s.store.WriteBy(by, func(w *store.Writer) error { return write(w, id, DirectoryGradeElementary{}, body) })
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().GradeElementary(id)
				if !ok {
					return store.ErrNotFound
				}
				return write(w, id, renderGradeElementary(cur), body)
			})
		},
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error { return w.Delete(store.TableGradesElementary, id) })
		},
	}
}

func renderGradeUpperSecondary(g *model.GradeUpperSecondary) DirectoryGradeUpperSecondary {
	return DirectoryGradeUpperSecondary{
		ID: g.ID, Meta: dirMeta(g.Meta), External: g.External, StudentID: g.StudentID, SchoolID: g.SchoolID,
		CourseCode: g.CourseCode, LanguageCode: g.LanguageCode, Teacher1EmployeeID: g.Teacher1EmployeeID,
		Teacher2EmployeeID: g.Teacher2EmployeeID, Grade: g.Grade, GradeDate: datePtr(g.GradeDate),
		GradeComment: g.GradeComment, Extent: g.Extent, SchoolYear: g.SchoolYear, Section: g.Section,
		TeacherComment: g.TeacherComment, IncludeOnFinalGrade: g.IncludeOnFinalGrade, ProgramTitle: g.ProgramTitle,
		StartDate: datePtr(g.StartDate), EndDate: datePtr(g.EndDate),
	}
}

func (s *API) gradeUpperSecondaryResource() *dirResource {
	write := func(w *store.Writer, id string, cur DirectoryGradeUpperSecondary, body map[string]json.RawMessage) error {
		v := overlay(cur, body)
		problems := checkGrade(w.Read(), v.StudentID, v.SchoolID, v.Teacher1EmployeeID, v.Teacher2EmployeeID)
		if start, end := dateOf(v.StartDate), dateOf(v.EndDate); !start.IsZero() && !end.IsZero() && end < start {
			problems = append(problems, surface.FieldProblem{Field: "/endDate", Message: fmt.Sprintf("endDate %s is before startDate %s", end, start)})
		}
		if len(problems) > 0 {
			return unprocessable(problems...)
		}
		_, _, err := w.PutGradeUpperSecondary(model.GradeUpperSecondary{
			ID: id, External: v.External, StudentID: v.StudentID, SchoolID: v.SchoolID, CourseCode: v.CourseCode,
			LanguageCode: v.LanguageCode, Teacher1EmployeeID: v.Teacher1EmployeeID, Teacher2EmployeeID: v.Teacher2EmployeeID,
			Grade: v.Grade, GradeDate: dateOf(v.GradeDate), GradeComment: v.GradeComment, Extent: v.Extent,
			SchoolYear: v.SchoolYear, Section: v.Section, TeacherComment: v.TeacherComment,
			IncludeOnFinalGrade: v.IncludeOnFinalGrade, ProgramTitle: v.ProgramTitle,
			StartDate: dateOf(v.StartDate), EndDate: dateOf(v.EndDate),
		})
		return err
	}
	return &dirResource{
		name: "upper-secondary grade", path: "/grade-upper-secondary", scope: "grade", schema: "GradeUpperSecondary", canDelete: true,
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableGradesUpperSecondary, store.IndexCreated, "", fn)
		},
		get: func(sn *store.Snapshot, id string) (any, bool) { return sn.GradeUpperSecondary(id) },
		render: func(_ *store.Snapshot, rec any) any {
			return renderGradeUpperSecondary(rec.(*model.GradeUpperSecondary))
		},
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			id := uuid.NewString()
			return id, s.store.WriteBy(by, func(w *store.Writer) error { return write(w, id, DirectoryGradeUpperSecondary{}, body) })
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().GradeUpperSecondary(id)
				if !ok {
					return store.ErrNotFound
				}
				return write(w, id, renderGradeUpperSecondary(cur), body)
			})
		},
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error { return w.Delete(store.TableGradesUpperSecondary, id) })
		},
	}
}
