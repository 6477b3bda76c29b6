package directory

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// Interface A's grades (list, create, get, PATCH and DELETE, no _search) are
// interface B's grades: one table of model.Grade, whose Directory holds what
// interface A wrote and says which of A's two kinds the grade is; the SS 12000
// members are derived from it on every write (registerGrade), so a grade
// written through A is read through B at once, by the same id
// (docs/decisions.md#grades-in-both-views). References must name a
// student, a school and employees (422 otherwise).

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

// gradeSyllabusSpace is the name space of the ids of the syllabuses a grade
// written through interface A derives when none of its code exists.
var gradeSyllabusSpace = uuid.MustParse("5b0d8f3e-2f0a-4c59-9d3c-6a3f1c2e7b41")

// academicYearPattern is "2025/2026" (also "2025-2026" and "2025/26").
var academicYearPattern = regexp.MustCompile(`^(\d{4})(?:[/-](\d{2}|\d{4}))?$`)

// gradeValueOf is interface B's gradeValue of interface A's grade: the
// letter, "-" (the Swedish dash for a missing basis) for MISSING, "" (not
// shown by B) for none.
func gradeValueOf(grade *string) string {
	switch {
	case grade == nil:
		return ""
	case *grade == "MISSING":
		return "-"
	}
	return *grade
}

// directoryGradeOf is the reverse of gradeValueOf: nil when the value is
// not one of interface A's.
func directoryGradeOf(value string) *string {
	switch value {
	case "A", "B", "C", "D", "E", "F":
		return &value
	case "-":
		v := "MISSING"
		return &v
	}
	return nil
}

// registerGrade derives the SS 12000 members of a grade from what interface
// A wrote (x) and returns the grade to store, creating the syllabus of its
// subject or course code when none exists. cur is the stored grade, if any.
func registerGrade(w *store.Writer, id, student, school string, x *model.GradeExtra, cur *model.Grade) (model.Grade, error) {
	g := gradeFromDirectory(id, student, school, x, cur, model.DateOf(w.Now().In(stockholm)))
	key := gradeSyllabusKey(x)
	var syllabus string
	if cur != nil { // the grade's syllabus when it still has the code (several may)
		if sy, ok := w.Read().Syllabus(cur.Syllabus.ID); ok && store.SyllabusCodeKey(sy.SchoolType, sy.CourseCode, sy.SubjectCode) == key {
			syllabus = sy.ID
		}
	}
	if syllabus == "" {
		_ = w.Read().Scan(store.TableSyllabuses, store.IndexSyllabusCode, key, func(obj any) bool {
			syllabus = obj.(*model.Syllabus).ID
			return false
		})
	}
	if syllabus == "" {
		sy := derivedSyllabus(x)
		if _, _, err := w.PutSyllabus(sy); err != nil {
			return g, err
		}
		syllabus = sy.ID
	}
	g.Syllabus = model.ObjectReference{ID: syllabus}
	return g, nil
}

// gradeSyllabusKey is the IndexSyllabusCode key of the syllabus of a grade
// interface A wrote: a compulsory-school subject or an upper-secondary course.
func gradeSyllabusKey(x *model.GradeExtra) string {
	if x.Kind == model.GradeKindElementary {
		return store.SyllabusCodeKey(model.SchoolTypeGR, "", x.SubjectCode)
	}
	return store.SyllabusCodeKey(model.SchoolTypeGY, x.CourseCode, "")
}

// derivedSyllabus is the syllabus a grade written through interface A gets
// when none of its code exists: named by its code, not official.
func derivedSyllabus(x *model.GradeExtra) model.Syllabus {
	if x.Kind == model.GradeKindElementary {
		return model.Syllabus{ID: uuid.NewSHA1(gradeSyllabusSpace, []byte("GR/"+x.SubjectCode)).String(),
			SchoolType: model.SchoolTypeGR, SubjectCode: x.SubjectCode, SubjectName: x.SubjectCode}
	}
	return model.Syllabus{ID: uuid.NewSHA1(gradeSyllabusSpace, []byte("GY/"+x.CourseCode)).String(),
		SchoolType: model.SchoolTypeGY, CourseCode: x.CourseCode, CourseName: x.CourseCode, SubjectName: x.CourseCode}
}

// gradeFromDirectory is the grade with its SS 12000 members derived from what
// interface A wrote (x), all but the syllabus; today is the registeredDate of
// a new grade without a gradeDate.
func gradeFromDirectory(id, student, school string, x *model.GradeExtra, cur *model.Grade, today model.Date) model.Grade {
	schoolRef := model.ObjectReference{ID: school}
	schoolUnit := schoolRef
	g := model.Grade{
		ID: id, Student: model.PersonReference{ID: student}, Organisation: &schoolRef, SchoolUnit: &schoolUnit,
		GradeValue: gradeValueOf(x.Grade), Directory: x,
	}
	if cur != nil { // what only interface B has is kept
		g.Meta = cur.Meta
		g.Group, g.Trial, g.Converted, g.CorrectionType = cur.Group, cur.Trial, cur.Converted, cur.CorrectionType
		g.AdaptedStudyPlan = cur.AdaptedStudyPlan
	}
	switch {
	case x.Teacher1EmployeeID != nil:
		g.RegisteredBy = model.PersonReference{ID: *x.Teacher1EmployeeID}
		g.GradingTeacher = &model.PersonReference{ID: *x.Teacher1EmployeeID}
	case x.Teacher2EmployeeID != nil:
		g.RegisteredBy = model.PersonReference{ID: *x.Teacher2EmployeeID}
	}
	switch {
	case !x.GradeDate.IsZero():
		g.RegisteredDate = x.GradeDate
	case cur != nil && !cur.RegisteredDate.IsZero():
		g.RegisteredDate = cur.RegisteredDate
	default:
		g.RegisteredDate = today
	}
	if x.Kind == model.GradeKindElementary {
		g.FinalGrade = x.FinalGrade
		g.Remark = deref(x.SchoolComment)
		g.Semester = x.Term
		if m := academicYearPattern.FindStringSubmatch(x.AcademicYear); m != nil {
			year, _ := strconv.Atoi(m[1])
			if x.Term == "VT" {
				year++
			}
			g.Year = &year
		}
	} else {
		g.FinalGrade = x.IncludeOnFinalGrade
		g.Remark = deref(x.GradeComment)
		if t := g.RegisteredDate.Time(); !t.IsZero() {
			year := t.Year()
			g.Year = &year
			g.Semester = "VT"
			if t.Month() >= time.July {
				g.Semester = "HT"
			}
		}
	}
	return g
}

// directoryGrade returns the stored grade with the id when interface A shows
// it as the kind.
func directoryGrade(sn *store.Snapshot, id, kind string) (*model.Grade, bool) {
	g, ok := sn.Grade(id)
	if !ok || g.Directory == nil || g.Directory.Kind != kind {
		return nil, false
	}
	return g, true
}

func renderGradeElementary(g *model.Grade) DirectoryGradeElementary {
	x := g.Directory
	return DirectoryGradeElementary{
		ID: g.ID, Meta: dirMeta(g.Meta), External: x.External, StudentID: g.Student.ID, SchoolID: g.Organisation.OptionalID(),
		SubjectCode: x.SubjectCode, LanguageCode: x.LanguageCode, AcademicYear: x.AcademicYear, Term: x.Term,
		SchoolYear: deref(x.SchoolYear), Teacher1EmployeeID: x.Teacher1EmployeeID, Teacher2EmployeeID: x.Teacher2EmployeeID,
		Grade: x.Grade, GradeDate: datePtr(x.GradeDate), FinalGrade: x.FinalGrade, IsEnded: x.IsEnded,
		SchoolComment: x.SchoolComment,
	}
}

// gradeResource is what interface A's two grade resources share: list,
// get and delete over the one grades table, by kind.
func gradeResource(name, path, kind, index string, render func(*model.Grade) any) *dirResource {
	return &dirResource{
		name: name, path: path, scope: "grade", schema: kind, canDelete: true,
		table: store.TableGrades, logged: true,
		member: func(g any) bool { x := g.(*model.Grade).Directory; return x != nil && x.Kind == kind },
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableGrades, index, "", fn)
		},
		get:    func(sn *store.Snapshot, id string) (any, bool) { return directoryGrade(sn, id, kind) },
		render: func(_ *store.Snapshot, rec any) any { return render(rec.(*model.Grade)) },
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				if _, ok := directoryGrade(w.Read(), id, kind); !ok {
					return store.ErrNotFound
				}
				return w.Delete(store.TableGrades, id)
			})
		},
	}
}

func (s *API) gradeElementaryResource() *dirResource {
	write := func(w *store.Writer, id string, cur *model.Grade, base DirectoryGradeElementary, body map[string]json.RawMessage) error {
		v := overlay(base, body)
		if problems := checkGrade(w.Read(), v.StudentID, v.SchoolID, v.Teacher1EmployeeID, v.Teacher2EmployeeID); len(problems) > 0 {
			return unprocessable(problems...)
		}
		schoolYear := v.SchoolYear
		g, err := registerGrade(w, id, v.StudentID, v.SchoolID, &model.GradeExtra{
			Kind: model.GradeKindElementary, External: v.External, SubjectCode: v.SubjectCode,
			LanguageCode: v.LanguageCode, AcademicYear: v.AcademicYear, Term: v.Term, SchoolYear: &schoolYear,
			Teacher1EmployeeID: v.Teacher1EmployeeID, Teacher2EmployeeID: v.Teacher2EmployeeID, Grade: v.Grade,
			GradeDate: dateOf(v.GradeDate), FinalGrade: v.FinalGrade, IsEnded: v.IsEnded, SchoolComment: v.SchoolComment,
		}, cur)
		if err != nil {
			return err
		}
		_, _, err = w.PutGrade(g)
		return err
	}
	res := gradeResource("elementary grade", "/grade-elementary", model.GradeKindElementary,
		store.IndexGradesElementaryByCreated, func(g *model.Grade) any { return renderGradeElementary(g) })
	res.create = func(s *API, by string, body map[string]json.RawMessage) (string, error) {
		id := uuid.NewString()
		return id, s.store.WriteBy(by, func(w *store.Writer) error { return write(w, id, nil, DirectoryGradeElementary{}, body) })
	}
	res.patch = func(s *API, by, id string, body map[string]json.RawMessage) error {
		return s.store.WriteBy(by, func(w *store.Writer) error {
			cur, ok := directoryGrade(w.Read(), id, model.GradeKindElementary)
			if !ok {
				return store.ErrNotFound
			}
			return write(w, id, cur, renderGradeElementary(cur), body)
		})
	}
	return res
}

func renderGradeUpperSecondary(g *model.Grade) DirectoryGradeUpperSecondary {
	x := g.Directory
	return DirectoryGradeUpperSecondary{
		ID: g.ID, Meta: dirMeta(g.Meta), External: x.External, StudentID: g.Student.ID, SchoolID: g.Organisation.OptionalID(),
		CourseCode: x.CourseCode, LanguageCode: x.LanguageCode, Teacher1EmployeeID: x.Teacher1EmployeeID,
		Teacher2EmployeeID: x.Teacher2EmployeeID, Grade: x.Grade, GradeDate: datePtr(x.GradeDate),
		GradeComment: x.GradeComment, Extent: x.Extent, SchoolYear: x.SchoolYear, Section: x.Section,
		TeacherComment: x.TeacherComment, IncludeOnFinalGrade: x.IncludeOnFinalGrade, ProgramTitle: x.ProgramTitle,
		StartDate: datePtr(x.StartDate), EndDate: datePtr(x.EndDate),
	}
}

func (s *API) gradeUpperSecondaryResource() *dirResource {
	write := func(w *store.Writer, id string, cur *model.Grade, base DirectoryGradeUpperSecondary, body map[string]json.RawMessage) error {
		v := overlay(base, body)
		problems := checkGrade(w.Read(), v.StudentID, v.SchoolID, v.Teacher1EmployeeID, v.Teacher2EmployeeID)
		if start, end := dateOf(v.StartDate), dateOf(v.EndDate); !start.IsZero() && !end.IsZero() && end < start {
			problems = append(problems, surface.FieldProblem{Field: "/endDate", Message: fmt.Sprintf("endDate %s is before startDate %s", end, start)})
		}
		if len(problems) > 0 {
			return unprocessable(problems...)
		}
		g, err := registerGrade(w, id, v.StudentID, v.SchoolID, &model.GradeExtra{
			Kind: model.GradeKindUpperSecondary, External: v.External, CourseCode: v.CourseCode,
			LanguageCode: v.LanguageCode, Teacher1EmployeeID: v.Teacher1EmployeeID, Teacher2EmployeeID: v.Teacher2EmployeeID,
			Grade: v.Grade, GradeDate: dateOf(v.GradeDate), GradeComment: v.GradeComment, Extent: v.Extent,
			SchoolYear: v.SchoolYear, Section: v.Section, TeacherComment: v.TeacherComment,
			IncludeOnFinalGrade: v.IncludeOnFinalGrade, ProgramTitle: v.ProgramTitle,
			StartDate: dateOf(v.StartDate), EndDate: dateOf(v.EndDate),
		}, cur)
		if err != nil {
			return err
		}
		_, _, err = w.PutGrade(g)
		return err
	}
	res := gradeResource("upper-secondary grade", "/grade-upper-secondary", model.GradeKindUpperSecondary,
		store.IndexGradesUpperSecondaryByCreated, func(g *model.Grade) any { return renderGradeUpperSecondary(g) })
	res.create = func(s *API, by string, body map[string]json.RawMessage) (string, error) {
		id := uuid.NewString()
		return id, s.store.WriteBy(by, func(w *store.Writer) error { return write(w, id, nil, DirectoryGradeUpperSecondary{}, body) })
	}
	res.patch = func(s *API, by, id string, body map[string]json.RawMessage) error {
		return s.store.WriteBy(by, func(w *store.Writer) error {
			cur, ok := directoryGrade(w.Read(), id, model.GradeKindUpperSecondary)
			if !ok {
				return store.ErrNotFound
			}
			return write(w, id, cur, renderGradeUpperSecondary(cur), body)
		})
	}
	return res
}

// prepareGrades gives the grades that have no interface-A view (generated
// ones, a scenario's, a hand-written state's) the one their syllabus
// implies: a compulsory-school subject grade of a pupil enrolled in school
// year 6 to 9 is a GradeElementary, an upper-secondary course grade a
// GradeUpperSecondary; any other grade is interface B's alone.
func prepareGrades(ds *store.Dataset) {
	if len(ds.Grades) == 0 {
		return
	}
	syllabuses := make(map[string]*model.Syllabus, len(ds.Syllabuses))
	for i := range ds.Syllabuses {
		syllabuses[ds.Syllabuses[i].ID] = &ds.Syllabuses[i]
	}
	pupils := map[string]*model.Person{}
	for i := range ds.Grades {
		if ds.Grades[i].Directory == nil {
			pupils[ds.Grades[i].Student.ID] = nil
		}
	}
	for i := range ds.Persons {
		if _, ok := pupils[ds.Persons[i].ID]; ok {
			pupils[ds.Persons[i].ID] = &ds.Persons[i]
		}
	}
	byCode := map[string]string{} // IndexSyllabusCode key → the first syllabus id
	for i := range ds.Syllabuses {
		sy := &ds.Syllabuses[i]
		if k := store.SyllabusCodeKey(sy.SchoolType, sy.CourseCode, sy.SubjectCode); k != "" {
			if cur, ok := byCode[k]; !ok || sy.ID < cur {
				byCode[k] = sy.ID
			}
		}
	}
	for i := range ds.Grades {
		g := &ds.Grades[i]
		if g.Directory != nil && g.Syllabus.ID == "" {
			// interface A's view alone (a state written before grades were
			// one table): derive the SS 12000 members as a write would.
			x := g.Directory
			created := model.DateOf(g.Meta.Created.In(stockholm))
			cur := *g
			*g = gradeFromDirectory(g.ID, g.Student.ID, g.Organisation.OptionalID(), x, nil, created)
			g.Meta = cur.Meta
			key := gradeSyllabusKey(x)
			if id, ok := byCode[key]; ok {
				g.Syllabus.ID = id
			} else {
				sy := derivedSyllabus(x)
				ds.Syllabuses = append(ds.Syllabuses, sy)
				byCode[key] = sy.ID
				g.Syllabus.ID = sy.ID
			}
			continue
		}
		sy := syllabuses[g.Syllabus.ID]
		if g.Directory != nil || sy == nil || g.Organisation == nil {
			continue
		}
		if x := directoryViewOf(g, sy, pupils[g.Student.ID]); x != nil {
			g.Directory = x
		}
	}
}

// directoryViewOf is the interface-A view of an SS 12000 grade, nil when
// interface A has no kind for it.
func directoryViewOf(g *model.Grade, sy *model.Syllabus, pupil *model.Person) *model.GradeExtra {
	semester, year := g.Semester, 0
	if g.Year != nil {
		year = *g.Year
	}
	if t := g.RegisteredDate.Time(); !t.IsZero() {
		if semester == "" {
			semester = "VT"
			if t.Month() >= time.July {
				semester = "HT"
			}
		}
		if year == 0 {
			year = t.Year()
		}
	}
	x := &model.GradeExtra{Grade: directoryGradeOf(g.GradeValue), GradeDate: g.RegisteredDate}
	var teacher1 string
	if g.GradingTeacher != nil {
		teacher1 = g.GradingTeacher.ID
	} else {
		teacher1 = g.RegisteredBy.ID
	}
	if teacher1 != "" {
		x.Teacher1EmployeeID = &teacher1
	}
	if r := g.RegisteredBy.ID; r != "" && r != teacher1 {
		x.Teacher2EmployeeID = &r
	}
	var remark *string
	if g.Remark != "" {
		r := g.Remark
		remark = &r
	}
	if sy.LanguageCode != "" {
		l := sy.LanguageCode
		x.LanguageCode = &l
	}
	schoolYear := func(form model.SchoolType, lo, hi int) *string {
		if pupil == nil {
			return nil
		}
		for _, e := range pupil.Enrolments {
			if e.SchoolType == form && e.SchoolYear != nil && *e.SchoolYear >= lo && *e.SchoolYear <= hi &&
				(e.EnroledAt.ID == g.Organisation.ID) {
				y := strconv.Itoa(*e.SchoolYear)
				return &y
			}
		}
		return nil
	}
	switch {
	case sy.SchoolType == model.SchoolTypeGR && sy.CourseCode == "" && sy.SubjectCode != "":
		x.SchoolYear = schoolYear(model.SchoolTypeGR, 6, 9)
		if x.SchoolYear == nil || year == 0 {
			return nil
		}
		x.Kind, x.SubjectCode, x.Term, x.FinalGrade, x.SchoolComment = model.GradeKindElementary, sy.SubjectCode, semester, g.FinalGrade, remark
		if semester == "VT" {
			x.AcademicYear = fmt.Sprintf("%d/%d", year-1, year)
		} else {
			x.AcademicYear = fmt.Sprintf("%d/%d", year, year+1)
		}
	case sy.SchoolType == model.SchoolTypeGY && sy.CourseCode != "":
		x.Kind, x.CourseCode, x.IncludeOnFinalGrade, x.GradeComment = model.GradeKindUpperSecondary, sy.CourseCode, g.FinalGrade, remark
		x.SchoolYear = schoolYear(model.SchoolTypeGY, 1, 3)
	default:
		return nil
	}
	return x
}
