package conformance

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// The SS 12000 writes of interface B. Attendance records the runner makes
// are deleted when the check ends; absences cannot be deleted through
// SS 12000, so the absence check is opt-in. The records are built from the
// server's own data: the calendar event and student of an attendance given
// with --id attendance=, and the child and unit of a placement.

var (
	specBAttCreate = SpecRef{Section: "SS 12000 2.1.0, POST /attendances", Quote: "Registrera en ny närvaro post."}
	specBAttDelete = SpecRef{Section: "SS 12000 2.1.0, DELETE /attendances/{id}", Quote: "Ta bort en närvaro post."}
	specBAbsCreate = SpecRef{Section: "SS 12000 2.1.0, POST /absences", Quote: "Registrera en ny anmäld frånvaropost eller beviljad ledighet"}
	specBLog       = SpecRef{Section: "SS 12000 2.1.0, POST /log/", Quote: "Loggpost skapad."}
	specBStats     = SpecRef{Section: "SS 12000 2.1.0, POST /statistics/", Quote: "Statistikpost skapad."}
)

const absenceOptIn = "creates an Absence, which SS 12000 gives no way to delete"

func bWriteChecks() []*Check {
	b := []Surface{SurfaceB}
	w := LevelWrite
	area := "B.writes"
	return []*Check{
		{ID: "B.attendances.create", Title: "POST /attendances answers 200 with the stored record, and GET /attendances/{id} returns it", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBAttCreate, Run: checkAttendanceCreate},
		{ID: "B.attendances.create-unknown-reference", Title: "POST /attendances naming a calendar event that does not exist is 400 and creates nothing", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBAttCreate, Run: checkAttendanceUnknownRef},
		{ID: "B.attendances.delete", Title: "DELETE /attendances/{id} answers 204, then the record is 404, and a second DELETE is 404", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBAttDelete, Run: checkAttendanceDelete},
		{ID: "B.absences.create", Title: "POST /absences answers 200 with the stored record, and GET /absences/{id} returns it", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBAbsCreate, OptIn: absenceOptIn, Run: checkAbsenceCreate},
		{ID: "B.log.create", Title: "POST /log/ with a LogEntry answers 201", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBLog, Run: checkReport("/log/", map[string]any{"message": "skolkit conformance check", "messageType": "skolkit-conformance", "severityLevel": "Info"})},
		{ID: "B.statistics.create", Title: "POST /statistics/ with a StatisticsEntry answers 201", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBStats, Run: checkReport("/statistics/", map[string]any{"resourceType": "Person", "newCount": 0, "updatedCount": 0, "deletedCount": 0})},
		{ID: "B.log.create-invalid", Title: "POST /log/ without the required message is 400", Area: area, Level: w, Severity: SHOULD, Needs: b, Spec: specBLog, Run: checkReportInvalid("/log/", map[string]any{"severityLevel": "Info"})},
	}
}

// attendanceBody builds a POST /attendances body from the attendance given
// with --id attendance=, or skips.
func (t *T) attendanceBody() map[string]any {
	t.requireAuth(SurfaceB)
	ids := t.env.cfg.IDs["attendance"]
	if len(ids) == 0 {
		t.Skipf("no attendance to take a calendar event and a student from: pass --id attendance=<uuid>")
	}
	resp := t.Get(SurfaceB, "/attendances/"+ids[0], nil)
	if resp.Status != http.StatusOK {
		t.Skipf("GET /attendances/%s answered %d: the calendar event and student of an existing attendance are needed", ids[0], resp.Status)
	}
	a := t.RequireObject(resp)
	return map[string]any{
		"calendarEvent":     map[string]any{"id": refID(a, "calendarEvent")},
		"student":           map[string]any{"id": refID(a, "student")},
		"isReported":        true,
		"attendanceMinutes": 30.0, // float64: decoded responses compare numbers as float64
		"absenceReason":     "skolkit-conformance",
		"reportedTimestamp": time.Now().UTC().Truncate(time.Second).Format(time.RFC3339),
	}
}

// createAttendance POSTs the body, deletes the record when the check ends
// and returns it.
func (t *T) createAttendance(body map[string]any) map[string]any {
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/attendances", JSON: body})
	t.cleanupCreated(resp, "/attendances/")
	t.RequireStatus(resp, http.StatusOK)
	rec := t.RequireObject(resp)
	if !isUUID(str(rec, "id")) {
		t.Fatalf(resp, "the created record with a uuid id", "the 200 body has no uuid id")
	}
	return rec
}

// cleanupCreated deletes a record the response says was created (any 2xx
// with an id) when the check ends.
func (t *T) cleanupCreated(resp *Response, path string) {
	if resp.Status < 200 || resp.Status > 299 {
		return
	}
	rec, err := resp.Object()
	if err != nil || !isUUID(str(rec, "id")) {
		return
	}
	id := str(rec, "id")
	t.Cleanup(func(ctx context.Context) {
		resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: path + id})
		if resp.Status != http.StatusNoContent && resp.Status != http.StatusNotFound {
			t.Failf(resp, "204", "cleanup: DELETE %s%s answered %d; the record is left behind", path, id, resp.Status)
		}
	})
}

// sameWritten fails for every member sent that the record does not hold
// (references compared by id).
func (t *T) sameWritten(resp *Response, sent, got map[string]any) {
	for k, v := range sent {
		if ref, ok := v.(map[string]any); ok {
			if refID(got, k) != str(ref, "id") {
				t.Failf(resp, fmt.Sprintf("%s.id %s", k, str(ref, "id")), "%s.id is %q", k, refID(got, k))
			}
			continue
		}
		if k == "reportedTimestamp" || k == "startTime" || k == "endTime" {
			a, err1 := time.Parse(time.RFC3339Nano, fmt.Sprint(v))
			b, err2 := time.Parse(time.RFC3339Nano, str(got, k))
			if err1 == nil && err2 == nil && a.Equal(b) {
				continue
			}
		}
		if !jsonEqual(v, got[k]) {
			t.Failf(resp, fmt.Sprintf("%s %s", k, compact(v)), "%s is %s", k, compact(got[k]))
		}
	}
}

func checkAttendanceCreate(t *T) {
	body := t.attendanceBody()
	rec := t.createAttendance(body)
	t.sameWritten(t.last, body, rec)
	resp := t.Get(SurfaceB, "/attendances/"+str(rec, "id"), nil)
	t.RequireStatus(resp, http.StatusOK)
	if got := t.RequireObject(resp); !jsonEqual(any(rec), any(got)) {
		t.Failf(resp, compact(rec), "GET answered %s", compact(got))
	}
}

func checkAttendanceUnknownRef(t *T) {
	body := t.attendanceBody()
	body["calendarEvent"] = map[string]any{"id": unknownID}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/attendances", JSON: body})
	t.cleanupCreated(resp, "/attendances/")
	t.ExpectStatus(resp, http.StatusBadRequest)
}

func checkAttendanceDelete(t *T) {
	rec := t.createAttendance(t.attendanceBody())
	path := "/attendances/" + str(rec, "id")
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: path})
	t.RequireStatus(resp, http.StatusNoContent)
	if len(resp.Body) > 0 {
		t.Failf(resp, "204 without a body", "the 204 has a %d-byte body", len(resp.Body))
	}
	t.ExpectStatus(t.Get(SurfaceB, path, nil), http.StatusNotFound)
	t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: path}), http.StatusNotFound)
}

func checkAbsenceCreate(t *T) {
	var p placement
	for _, c := range t.samplePlacements(5) {
		if c.Child != "" && c.PlacedAt != "" {
			p = c
			break
		}
	}
	if p.ID == "" {
		t.Skipf("no placement with a child and a unit to register an absence for")
	}
	now := time.Now().UTC().Truncate(time.Second)
	body := map[string]any{
		"student":          map[string]any{"id": p.Child},
		"organisation":     map[string]any{"id": p.PlacedAt},
		"registrationDate": now.Format(time.DateOnly),
		"startTime":        now.Format(time.RFC3339),
		"endTime":          now.Add(time.Hour).Format(time.RFC3339),
		"type":             "Giltig",
		"absenceReason":    "skolkit-conformance",
	}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/absences", JSON: body})
	t.RequireStatus(resp, http.StatusOK)
	rec := t.RequireObject(resp)
	t.sameWritten(resp, body, rec)
	if !isUUID(str(rec, "id")) {
		t.Fatalf(resp, "the created record with a uuid id", "the 200 body has no uuid id")
	}
	t.Notef("absence %s is left behind: SS 12000 has no DELETE /absences/{id}", str(rec, "id"))
	resp = t.Get(SurfaceB, "/absences/"+str(rec, "id"), nil)
	t.RequireStatus(resp, http.StatusOK)
	if got := t.RequireObject(resp); !jsonEqual(any(rec), any(got)) {
		t.Failf(resp, compact(rec), "GET answered %s", compact(got))
	}
}

func checkReport(path string, body map[string]any) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: path, JSON: body}), http.StatusCreated)
	}
}

func checkReportInvalid(path string, body map[string]any) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: path, JSON: body}), http.StatusBadRequest)
	}
}
