package directory

import (
	"cmp"
	"net/http"
	"strconv"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// The data export (/data-export/v1) shows each stored attendance record as
// one item, with the school, student, subject or course and lesson it is
// about. It sits behind the same gate as interface A (authentication and
// rate limit) and pages with limit and offset.

// AttendanceExport is one item of GET /data-export/v1/attendance.
type AttendanceExport struct {
	School  ExportSchool    `json:"school"`
	Student ExportStudent   `json:"student"`
	Subject *ExportSyllabus `json:"subject"`
	Course  *ExportSyllabus `json:"course"`
	Report  ExportReport    `json:"report"`
}

// ExportSchool is the school of the lesson.
type ExportSchool struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

// ExportStudent is the student, with the school form and year of the
// enrolment that the lesson falls in.
type ExportStudent struct {
	ID             string      `json:"id"`
	IdentityNumber string      `json:"identityNumber"`
	FirstName      string      `json:"firstName"`
	LastName       string      `json:"lastName"`
	DateOfBirth    *model.Date `json:"dateOfBirth"`
	Gender         *string     `json:"gender"`
	SchoolType     string      `json:"schoolType"`
	SchoolYear     *string     `json:"schoolYear"`
}

// ExportSyllabus is the subject or the course of the lesson.
type ExportSyllabus struct {
	Title string `json:"title"`
	Code  string `json:"code"`
}

// ExportReport is the attendance at the lesson.
type ExportReport struct {
	Status                 string     `json:"status"`
	Date                   model.Date `json:"date"`
	Week                   int        `json:"week"`
	LessonDurationMinutes  int        `json:"lessonDurationMinutes"`
	AbsenceDurationMinutes int        `json:"absenceDurationMinutes"`
}

// Attendance statuses of the export.
const (
	attendancePresent        = "Present"
	attendanceValidAbsence   = "ValidAbsence"
	attendanceInvalidAbsence = "InvalidAbsence"
	attendanceNotReported    = "NotReported"
)

// exportSchoolTypes maps SS 12000 school forms to the export's (interface
// A's StudentPlacementSchoolType). Forms not listed fall back to the
// school's interface-A school type.
var exportSchoolTypes = map[model.SchoolType]string{
	"FS": "FS", "FKLASS": "GR", "GR": "GR", "SAM": "GR", "SP": "GR", "GRS": "GRAN", "TR": "GRAN",
	"GY": "GY", "GYS": "GYAN",
	"VUX": "VUX", "VUXGR": "VUX", "VUXGY": "VUX", "VUXSARGR": "VUX", "VUXSARTR": "VUX", "VUXSARGY": "VUX",
	"SARVUX": "VUX", "SARVUXGR": "VUX", "SARVUXGY": "VUX", "SFI": "VUXSFI", "VUXSFI": "VUXSFI",
}

// ScopeExportRead lets a client read the data export.
const ScopeExportRead = "export:read"

// exportEndpoints are the operations of the data export.
func (s *API) exportEndpoints() []surface.Endpoint {
	return []surface.Endpoint{{
		Method: http.MethodGet, Path: PrefixExport + "/attendance", Scope: ScopeExportRead,
		Doc: openapi.NameExport, Kind: surface.Directory, Handle: s.exportAttendance,
	}}
}

// exportAttendance lists the attendance records in the order of their
// meta.created, then id: new records come last, so offset paging over a
// growing store does not skip any.
func (s *API) exportAttendance(w http.ResponseWriter, r *http.Request) {
	limit, offset := listParams(r)
	sn := s.store.Read()
	items := []AttendanceExport{}
	total := 0
	_ = sn.Scan(store.TableAttendances, store.IndexCreated, "", func(obj any) bool {
		if total >= offset && total < offset+limit {
			items = append(items, exportItem(sn, obj.(*model.Attendance)))
		}
		total++
		return true
	})
	surface.WriteJSON(w, http.StatusOK, map[string]any{"data": items, "pagination": Pagination{Offset: offset, Limit: limit, Total: total}})
}

// exportItem renders one attendance record.
func exportItem(sn *store.Snapshot, a *model.Attendance) AttendanceExport {
	var out AttendanceExport
	ev, _ := sn.CalendarEvent(a.CalendarEvent.ID)
	if ev == nil {
		ev = &model.CalendarEvent{EventRefs: &model.EventRefs{}} // the store keeps references whole; this is belt and braces
	}
	date := model.DateOf(ev.StartTime.In(stockholm))
	_, week := ev.StartTime.In(stockholm).ISOWeek()
	lesson := max(0, int(ev.EndTime.Sub(ev.StartTime).Minutes()))

	out.School.ID = ev.Organisation.ID
	school, _ := sn.Organisation(ev.Organisation.ID)
	if school != nil {
		out.School.DisplayName = school.DisplayName
	}

	out.Student.ID = a.Student.ID
	if p, ok := sn.Person(a.Student.ID); ok {
		v := renderPerson(p)
		out.Student.IdentityNumber, out.Student.FirstName, out.Student.LastName = v.IdentityNumber, v.FirstName, v.LastName
		out.Student.DateOfBirth, out.Student.Gender = v.DateOfBirth, v.Gender
		out.Student.SchoolType, out.Student.SchoolYear = studentSchoolForm(p, ev.Organisation.ID, date)
	}
	if out.Student.SchoolType == "" {
		out.Student.SchoolType = placementSchoolTypeFS
		if school != nil && school.Directory != nil {
			out.Student.SchoolType = school.Directory.SchoolType
		}
	}

	if syl, ok := sn.Syllabus(ev.Syllabus.ID); ok {
		if syl.CourseCode == "" {
			out.Subject = &ExportSyllabus{Title: syl.SubjectName, Code: syl.SubjectCode}
		} else {
			title := syl.CourseName
			if title == "" {
				title = syl.SubjectName
			}
			out.Course = &ExportSyllabus{Title: title, Code: syl.CourseCode}
		}
	}

	out.Report = ExportReport{Date: date, Week: week, LessonDurationMinutes: lesson}
	out.Report.Status, out.Report.AbsenceDurationMinutes = attendanceStatus(a, lesson)
	return out
}

// attendanceStatus derives the export's status and absence minutes from an
// SS 12000 attendance record: not reported → NotReported with 0; any time
// present (attendance or other attendance) → Present, absence counting late
// arrival or early leave; otherwise InvalidAbsence when any absence is
// invalid, ValidAbsence when it is all valid, and Present when the report
// records no absence. Absence minutes are valid plus invalid, at most the
// lesson's length.
func attendanceStatus(a *model.Attendance, lesson int) (string, int) {
	if !a.IsReported {
		return attendanceNotReported, 0
	}
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return max(0, *p)
	}
	present := n(a.AttendanceMinutes) + n(a.OtherAttendanceMinutes)
	valid, invalid := n(a.ValidAbsenceMinutes), n(a.InvalidAbsenceMinutes)
	absence := min(valid+invalid, lesson)
	switch {
	case present > 0:
		return attendancePresent, absence
	case invalid > 0:
		return attendanceInvalidAbsence, absence
	case valid > 0:
		return attendanceValidAbsence, absence
	default:
		return attendancePresent, 0
	}
}

// studentSchoolForm returns the export's school type and year of the
// student on the date: from the enrolment at the lesson's school that covers
// the date, else any enrolment that covers it, else the latest enrolment
// begun by then. The type is "" when no enrolment gives one.
func studentSchoolForm(p *model.Person, school string, date model.Date) (string, *string) {
	covers := func(e *model.Enrolment) bool {
		return e.StartDate <= date && (e.EndDate.IsZero() || e.EndDate >= date)
	}
	var atSchool, covering *model.Enrolment
	for i := range p.Enrolments {
		e := &p.Enrolments[i]
		if !covers(e) {
			continue
		}
		if atSchool == nil && e.EnroledAt.ID == school {
			atSchool = e
		}
		if covering == nil {
			covering = e
		}
	}
	pick := cmp.Or(atSchool, covering)
	if pick == nil {
		for i := range p.Enrolments {
			e := &p.Enrolments[i]
			if e.StartDate <= date && (pick == nil || e.StartDate > pick.StartDate) {
				pick = e
			}
		}
	}
	if pick == nil {
		return "", nil
	}
	st := exportSchoolTypes[pick.SchoolType]
	var year *string
	switch {
	case pick.SchoolYear != nil && *pick.SchoolYear >= 0 && *pick.SchoolYear <= 9:
		year = strPtr(strconv.Itoa(*pick.SchoolYear))
	case pick.SchoolType == model.SchoolTypeFKLASS:
		year = strPtr("0")
	}
	return st, year
}
