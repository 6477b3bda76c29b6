package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/skolkit/skolkit/rules"
)

// The SS 12000 writes of interface B. Attendance records the runner makes
// are deleted when the check ends; absences cannot be deleted through
// SS 12000, so the absence check is opt-in. The records are built from the
// server's own data: the calendar event and student of an attendance given
// with --id attendance=, and the child and unit of a placement. Whether a
// record reads back as it was written (in the answer, by id, in its list)
// is judged by the rules (writes.read-back, representation.same-everywhere).

var (
	specBAttCreate = SpecRef{Section: "SS 12000 2.1.0, POST /attendances", Quote: "Registrera en ny närvaro post."}
	specBAttDelete = SpecRef{Section: "SS 12000 2.1.0, DELETE /attendances/{id}", Quote: "Ta bort en närvaro post."}
	specBAbsCreate = SpecRef{Section: "SS 12000 2.1.0, POST /absences", Quote: "Registrera en ny anmäld frånvaropost eller beviljad ledighet"}
	specBEvtCreate = SpecRef{Section: "SS 12000 2.1.0, POST /attendanceEvents", Quote: "Registrera en ny närvarohändelse (in-/utcheckning)."}
	specBSchCreate = SpecRef{Section: "SS 12000 2.1.0, POST /attendanceSchedule", Quote: "Registrera ett nytt vistelseschema."}
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
		{ID: "B.attendanceEvents.create-delete", Title: "POST /attendanceEvents answers 200 with the stored record, GET returns it, DELETE answers 204 and then 404", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBEvtCreate, Run: checkAttendanceEventCreateDelete},
		{ID: "B.attendanceSchedule.create-delete", Title: "POST /attendanceSchedule answers 200 with the stored record, GET returns it, DELETE answers 204 and then 404", Area: area, Level: w, Severity: MUST, Needs: b, Spec: specBSchCreate, Run: checkAttendanceScheduleCreateDelete},
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
		// SS 12000 has a list of attendances; a server may serve it.
		if resp := t.Get(SurfaceB, "/attendances", url.Values{"limit": {"1"}}); resp.Status == http.StatusOK {
			if page, err := resp.Object(); err == nil {
				for _, a := range objects(arr(page, "data")) {
					ids = append(ids, str(a, "id"))
				}
			}
		}
	}
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

func checkAttendanceCreate(t *T) {
	body := t.attendanceBody()
	rec := t.createAttendance(body)
	resp := t.Get(SurfaceB, "/attendances/"+str(rec, "id"), nil)
	t.RequireStatus(resp, http.StatusOK)
	t.RequireObject(resp)
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
	if t.standard() {
		// The standard's Absence: its type values, none of the spec's
		// members (registrationDate, absenceReason).
		body["type"] = "Beviljad ledighet"
		delete(body, "registrationDate")
		delete(body, "absenceReason")
	}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/absences", JSON: body})
	t.RequireStatus(resp, http.StatusOK)
	rec := t.RequireObject(resp)
	if !isUUID(str(rec, "id")) {
		t.Fatalf(resp, "the created record with a uuid id", "the 200 body has no uuid id")
	}
	t.Notef("absence %s is left behind: SS 12000 has no DELETE /absences/{id}", str(rec, "id"))
	resp = t.Get(SurfaceB, "/absences/"+str(rec, "id"), nil)
	t.RequireStatus(resp, http.StatusOK)
	t.RequireObject(resp)
}

func checkReport(path string, body map[string]any) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: path, JSON: body}), http.StatusCreated)
		t.sweepEnums(path, body, "")
	}
}

func checkReportInvalid(path string, body map[string]any) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: path, JSON: body}), http.StatusBadRequest)
	}
}

// firstOf returns the first record of a list the server serves, or skips.
func (t *T) firstOf(path string, query url.Values) map[string]any {
	t.requireAuth(SurfaceB)
	q := url.Values{"limit": {"1"}}
	for k, v := range query {
		q[k] = v
	}
	resp := t.Get(SurfaceB, path, q)
	if resp.Status != http.StatusOK {
		t.Skipf("GET %s answered %d: an existing record is needed to take references from", path, resp.Status)
	}
	page := t.RequireObject(resp)
	items := objects(arr(page, "data"))
	if len(items) == 0 {
		t.Skipf("GET %s lists no record to take references from", path)
	}
	return items[0]
}

// requireServed skips the check unless GET path (a list) answers 200.
func (t *T) requireServed(path string) {
	t.requireAuth(SurfaceB)
	if resp := t.Get(SurfaceB, path, url.Values{"limit": {"1"}}); resp.Status != http.StatusOK {
		t.Skipf("GET %s answered %d: the server does not serve %s", path, resp.Status, path)
	}
}

// createReadDelete POSTs body to path, reads the record back by id, deletes
// it and expects 404 afterwards.
func (t *T) createReadDelete(path string, body map[string]any) {
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: path, JSON: body})
	t.cleanupCreated(resp, path+"/")
	t.RequireStatus(resp, http.StatusOK)
	rec := t.RequireObject(resp)
	id := str(rec, "id")
	if !isUUID(id) {
		t.Fatalf(resp, "the created record with a uuid id", "the 200 body has no uuid id")
	}
	got := t.Get(SurfaceB, path+"/"+id, nil)
	t.RequireStatus(got, http.StatusOK)
	t.RequireObject(got)
	del := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: path + "/" + id})
	t.RequireStatus(del, http.StatusNoContent)
	t.sweepEnums(path, body, path+"/")
	t.ExpectStatus(t.Get(SurfaceB, path+"/"+id, nil), http.StatusNotFound)
}

func checkAttendanceEventCreateDelete(t *T) {
	ev := t.firstOf("/attendanceEvents", nil)
	t.createReadDelete("/attendanceEvents", map[string]any{
		"time":      time.Now().UTC().Truncate(time.Second).Format(time.RFC3339),
		"eventType": "In",
		"person":    map[string]any{"id": refID(ev, "person")},
		"group":     map[string]any{"id": refID(ev, "group")},
	})
}

func checkAttendanceScheduleCreateDelete(t *T) {
	t.requireServed("/attendanceSchedule")
	var p placement
	for _, c := range t.samplePlacements(5) {
		if c.ID != "" {
			p = c
			break
		}
	}
	if p.ID == "" {
		t.Skipf("no placement to make an attendance schedule for")
	}
	// The spec's servers take a time of day "16:00" (its evident intent);
	// the standard declares endTime an integer (16:00 as hhmm).
	var endTime any = "16:00"
	if t.standard() {
		endTime = 1600.0
	}
	t.createReadDelete("/attendanceSchedule", map[string]any{
		"placement":     map[string]any{"id": p.ID},
		"numberOfWeeks": 1.0,
		"startDate":     time.Now().UTC().Format(time.DateOnly),
		"state":         []any{},
		"scheduleDays":  []any{map[string]any{"weekOffset": 0.0, "dayOfWeek": "Måndag", "startTime": "08:00", "endTime": endTime}},
	})
}

// sweepEnums writes the body again with every other value the contract
// lists for each of its enumerated members, one member at a time, and
// deletes what it made (under deletePath, when the resource has a delete).
// The rules judge the answers (writes.enum-values-accepted: a value the
// contract lists is not refused; writes.read-back: what was written reads
// back).
func (t *T) sweepEnums(path string, body map[string]any, deletePath string) {
	c, err := rules.LoadContract(t.env.cfg.Profile)
	if err != nil {
		return
	}
	op, _ := c.Match(SurfaceB, http.MethodPost, path)
	if op == nil {
		return
	}
	raw, _ := json.Marshal(body)
	for _, m := range rules.EnumMembers(op, body) {
		for _, v := range m.Values {
			var variant map[string]any
			_ = json.Unmarshal(raw, &variant)
			var current any
			_ = json.Unmarshal(raw, &current)
			if rules.Compact(rules.ValueAtPointer(current, m.Pointer)) == rules.Compact(v) {
				continue
			}
			rules.SetPointer(variant, m.Pointer, v)
			resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: path, JSON: variant})
			if deletePath != "" {
				t.cleanupCreated(resp, deletePath)
			}
		}
	}
}
