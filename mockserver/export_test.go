package mockserver

import (
	"cmp"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

type exportPage struct {
	Data       []directory.AttendanceExport `json:"data"`
	Pagination directory.Pagination         `json:"pagination"`
}

// stockholm is the zone of the service's days.
var stockholm = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		panic(err)
	}
	return loc
}()

func (h *harness) exportPage(t testing.TB, query string) exportPage {
	t.Helper()
	res := h.send(http.MethodGet, PrefixExport+"/attendance?"+query, "")
	require.Equal(t, http.StatusOK, res.status, res)
	var page exportPage
	res.decode(&page)
	return page
}

// attendancesInExportOrder returns the stored attendance records by
// meta.created, then id.
func attendancesInExportOrder(h *harness) []model.Attendance {
	all := h.srv.store.Export().Attendances
	slices.SortFunc(all, func(a, b model.Attendance) int {
		return cmp.Or(a.Meta.Created.Compare(b.Meta.Created), cmp.Compare(a.ID, b.ID))
	})
	return all
}

func TestExportItemsMatchTheStoredAttendance(t *testing.T) {
	h := newHarness(t)
	want := attendancesInExportOrder(h)
	require.NotEmpty(t, want, "the default scenario has attendance records")
	sn := h.srv.store.Read()
	sexes := map[model.Sex]string{"Kvinna": "Female", "Man": "Male", "Okänt": "Other"}

	var got []directory.AttendanceExport
	for offset := 0; ; offset += 500 {
		page := h.exportPage(t, fmt.Sprintf("limit=500&offset=%d", offset))
		assert.Equal(t, directory.Pagination{Offset: offset, Limit: 500, Total: len(want)}, page.Pagination)
		got = append(got, page.Data...)
		if len(page.Data) < 500 {
			break
		}
	}
	require.Len(t, got, len(want), "paging walks every record once")

	for i, a := range want {
		item := got[i]
		ev, ok := sn.CalendarEvent(a.CalendarEvent.ID)
		require.True(t, ok)
		org, _ := sn.Organisation(ev.Organisation.ID)
		p, _ := sn.Person(a.Student.ID)
		syl, _ := sn.Syllabus(ev.Syllabus.ID)
		local := ev.StartTime.In(stockholm)
		_, week := local.ISOWeek()
		lesson := int(ev.EndTime.Sub(ev.StartTime) / time.Minute)

		assert.Equal(t, directory.ExportSchool{ID: org.ID, DisplayName: org.DisplayName}, item.School, "item %d", i)
		assert.Equal(t, p.ID, item.Student.ID)
		assert.Equal(t, identityNumber(p.CivicNo.Value), item.Student.IdentityNumber, "the vendor form YYYYMMDD-NNNN")
		assert.Equal(t, p.GivenName, item.Student.FirstName)
		assert.Equal(t, p.FamilyName, item.Student.LastName)
		require.NotNil(t, item.Student.DateOfBirth)
		assert.Equal(t, p.BirthDate, *item.Student.DateOfBirth)
		require.NotNil(t, item.Student.Gender)
		assert.Equal(t, sexes[p.Sex], *item.Student.Gender)
		if len(p.Enrolments) == 1 && (p.Enrolments[0].SchoolType == model.SchoolTypeGR || p.Enrolments[0].SchoolType == model.SchoolTypeGY) {
			assert.Equal(t, string(p.Enrolments[0].SchoolType), item.Student.SchoolType)
			require.NotNil(t, item.Student.SchoolYear)
			assert.Equal(t, fmt.Sprint(*p.Enrolments[0].SchoolYear), *item.Student.SchoolYear)
		}
		if syl.CourseCode == "" {
			assert.Equal(t, &directory.ExportSyllabus{Title: syl.SubjectName, Code: syl.SubjectCode}, item.Subject)
			assert.Nil(t, item.Course)
		} else {
			assert.Nil(t, item.Subject)
			assert.Equal(t, syl.CourseCode, item.Course.Code)
		}
		assert.Equal(t, model.Date(local.Format(model.DateLayout)), item.Report.Date)
		assert.Equal(t, week, item.Report.Week)
		assert.Equal(t, lesson, item.Report.LessonDurationMinutes)
		switch {
		case !a.IsReported:
			assert.Equal(t, "NotReported", item.Report.Status)
			assert.Zero(t, item.Report.AbsenceDurationMinutes)
		case *a.AttendanceMinutes > 0 || *a.OtherAttendanceMinutes > 0:
			assert.Equal(t, "Present", item.Report.Status)
			assert.Equal(t, *a.ValidAbsenceMinutes+*a.InvalidAbsenceMinutes, item.Report.AbsenceDurationMinutes)
		case *a.InvalidAbsenceMinutes > 0:
			assert.Equal(t, "InvalidAbsence", item.Report.Status)
			assert.Equal(t, lesson, item.Report.AbsenceDurationMinutes)
		default:
			assert.Equal(t, "ValidAbsence", item.Report.Status)
			assert.Equal(t, lesson, item.Report.AbsenceDurationMinutes)
		}
	}
}

func TestExportStatusesAndLessons(t *testing.T) {
	h := newHarness(t)
	st := h.srv.store
	sn := st.Read()
	school := h.newSchool(t, "GY")
	student := h.newStudent(t) // no enrolment: the school's type, no year
	var group, teacher string
	_ = sn.Scan(store.TableCalendarEvents, store.IndexID, "", func(obj any) bool {
		ev := obj.(*model.CalendarEvent)
		group, teacher = ev.Group.ID, ev.Teacher.ID
		return false
	})
	course, subject := uuid.NewString(), uuid.NewString()
	_, _, err := st.PutSyllabus(model.Syllabus{ID: course, SchoolType: "GY", SubjectName: "Matematik", SubjectCode: "MAT", CourseCode: "MATMAT01c", CourseName: "Matematik 1c", Official: true})
	require.NoError(t, err)
	_, _, err = st.PutSyllabus(model.Syllabus{ID: subject, SchoolType: "GY", SubjectName: "Mentorstid", Official: false})
	require.NoError(t, err)
	// Sunday 1 March 2026 23:30 UTC is Monday 2 March 00:30 in Stockholm (ISO week 10).
	start := time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)
	// The lessons of an activity at the new school (an event's organisation,
	// group and teacher are its activity's), loaded with the rest.
	ds := st.Export()
	activity := model.Activity{ID: uuid.NewString(), DisplayName: "Lektioner", StartDate: "2026-01-01",
		Organisation: model.ObjectReference{ID: school}, Groups: []model.ObjectReference{{ID: group}},
		Teachers: []model.DutyAssignment{{Duty: model.ObjectReference{ID: fixtures.DutyID(teacher, school)}}}}
	ds.Activities = append(ds.Activities, activity)
	event := func(syllabus string) string {
		ev := model.CalendarEvent{ID: uuid.NewString(), Title: "Lektion", StartTime: start, EndTime: start.Add(60 * time.Minute),
			EventRefs: &model.EventRefs{Organisation: model.ObjectReference{ID: school}, Group: model.ObjectReference{ID: group},
				Syllabus: model.ObjectReference{ID: syllabus}, Teacher: model.PersonReference{ID: teacher},
				Activity: model.ObjectReference{ID: activity.ID}}}
		ds.CalendarEvents = append(ds.CalendarEvents, ev)
		return ev.ID
	}
	withCourse, withSubject := event(course), event(subject)
	require.NoError(t, st.Load(ds))
	n := func(v int) *int { return &v }
	cases := []struct {
		name                           string
		event                          string
		reported                       bool
		present, valid, invalid, other *int
		status                         string
		absence                        int
	}{
		{"not reported", withCourse, false, nil, nil, nil, nil, "NotReported", 0},
		{"late", withCourse, true, n(45), n(0), n(15), n(0), "Present", 15},
		{"excused", withSubject, true, n(0), n(60), n(0), n(0), "ValidAbsence", 60},
		{"partly unexcused", withSubject, true, n(0), n(30), n(30), n(0), "InvalidAbsence", 60},
		{"elsewhere", withSubject, true, n(0), n(0), n(0), n(60), "Present", 0},
		{"more absence than lesson", withSubject, true, n(0), n(50), n(50), n(0), "InvalidAbsence", 60},
	}
	for _, c := range cases {
		h.clock.Advance(time.Second) // one created instant each: the export's order
		_, _, err := st.PutAttendance(model.Attendance{ID: uuid.NewString(), CalendarEvent: model.ObjectReference{ID: c.event},
			Student: model.PersonReference{ID: student}, IsReported: c.reported, AttendanceMinutes: c.present,
			ValidAbsenceMinutes: c.valid, InvalidAbsenceMinutes: c.invalid, OtherAttendanceMinutes: c.other})
		require.NoError(t, err)
	}
	total := h.exportPage(t, "limit=1").Pagination.Total
	page := h.exportPage(t, fmt.Sprintf("offset=%d", total-len(cases)))
	require.Len(t, page.Data, len(cases), "the new records come last")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			item := page.Data[i]
			assert.Equal(t, directory.ExportReport{Status: c.status, Date: "2026-03-02", Week: 10, LessonDurationMinutes: 60, AbsenceDurationMinutes: c.absence}, item.Report)
			assert.Equal(t, student, item.Student.ID)
			assert.Equal(t, "GY", item.Student.SchoolType, "no enrolment: the school's type")
			assert.Nil(t, item.Student.SchoolYear)
			assert.Nil(t, item.Student.Gender)
			assert.Equal(t, school, item.School.ID)
			if c.event == withCourse {
				assert.Nil(t, item.Subject)
				assert.Equal(t, &directory.ExportSyllabus{Title: "Matematik 1c", Code: "MATMAT01c"}, item.Course)
			} else {
				assert.Equal(t, &directory.ExportSyllabus{Title: "Mentorstid", Code: ""}, item.Subject)
				assert.Nil(t, item.Course)
			}
		})
	}
	t.Run("an offset past the end gives an empty page", func(t *testing.T) {
		page := h.exportPage(t, fmt.Sprintf("offset=%d&limit=10", total))
		assert.Empty(t, page.Data)
		assert.Equal(t, directory.Pagination{Offset: total, Limit: 10, Total: total}, page.Pagination)
	})
}

func TestExportAccess(t *testing.T) {
	h := newHarness(t)
	id, secret := h.srv.Credentials()
	page := h.exportPage(t, "")
	assert.Equal(t, directory.DirectoryDefaultLimit, page.Pagination.Limit)
	assert.Len(t, page.Data, directory.DirectoryDefaultLimit)

	for _, tc := range []struct {
		name   string
		query  string
		header http.Header
		status int
	}{
		{"legacy headers", "limit=1", http.Header{surface.HeaderClientID: {id}, surface.HeaderClientSecret: {secret}}, 200},
		{"no credentials", "limit=1", http.Header{}, 401},
		{"limit 0", "limit=0", nil, 400},
		{"limit above 500", "limit=501", nil, 400},
		{"unknown parameter", "from=2026-01-01", nil, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixExport+"/attendance?"+tc.query, nil)
			if tc.header == nil {
				req.Header.Set("Authorization", "Bearer "+h.token)
			}
			for k, v := range tc.header {
				req.Header[k] = v
			}
			res := h.do(req)
			require.Equal(t, tc.status, res.status, res)
			for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
				assert.NotEmpty(t, res.header.Get(name), name)
			}
		})
	}
	t.Run("a token without export:read is a 403", func(t *testing.T) {
		res := h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {"student:read"}}, nil)
		require.Equal(t, http.StatusOK, res.status, res)
		var tr tokenResponse
		res.decode(&tr)
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixExport+"/attendance", nil)
		req.Header.Set("Authorization", "Bearer "+tr.AccessToken)
		res = h.do(req)
		require.Equal(t, http.StatusForbidden, res.status, res)
		assert.Equal(t, surface.CodeForbidden, res.problem(t).Code)
	})
}
