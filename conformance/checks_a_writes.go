package conformance

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Write checks create their own records (names start with
// "skolkit-conformance"), change and delete only those, and remove them when
// they end, whatever the outcome. Schools cannot be deleted (the spec has no
// DELETE /school), so the checks that create one are opt-in and the report
// lists the schools left behind.

var (
	specACreate  = SpecRef{Section: "Endpoints (interface A)", Quote: "POST | /group | Group body (required) | 201, the created Group"}
	specAUpdate  = SpecRef{Section: "Endpoints (interface A)", Quote: "PATCH | /group/{id} | path id (uuid, required); update body (required) | 200, the updated Group", Decision: "patch-merges"}
	specADelete  = SpecRef{Section: "Endpoints (interface A)", Quote: "DELETE | /group/{id} | path id (uuid, required) | 204, no body"}
	specSCreate  = SpecRef{Section: "Endpoints (interface A)", Quote: "POST | /school | School body (required) | 201, the created School"}
	specSUpdate  = SpecRef{Section: "Endpoints (interface A)", Quote: "PATCH | /school/{id} | path id (uuid, required); update body (required) | 200, the updated School", Decision: "patch-merges"}
	specRestore  = SpecRef{Section: "States and transitions", Quote: "StudentPlacement archived | PATCH on the placement in interface A | `endDate` in the request is null or a future date | active | the placement is restored without a separate restore call", Decision: "archive-restore"}
	specRestoreE = SpecRef{Section: "States and transitions", Quote: "The same behaviour holds for EmployeePlacement.", Decision: "archive-restore"}
	specGradeOps = SpecRef{Section: "Endpoints (interface A)", Quote: "The change history states that GradeElementary and GradeUpperSecondary each support get, list, create (POST), update (PATCH) and delete.", Decision: "vendor-field-table"}
	specMeal     = SpecRef{Section: "Endpoints (interface A)", Quote: "EmployeePlacement has a role value `MealPlanner`.", Decision: "vendor-field-table"}
)

const (
	schoolOptIn = "creates a School, which the spec gives no way to delete"
	unitOptIn   = "creates a Unit, which the vendor's API gives no way to delete"
)

var unitKind = writeKind{
	path: "/unit",
	body: func(t *T) map[string]any {
		return map[string]any{"title": conformanceName(), "description": "skolkit conformance", "external": map[string]any{"sourceID": "skolkit"}}
	},
	patch: func(t *T) map[string]any { return map[string]any{"title": conformanceName()} },
	invalid: func(t *T) []map[string]any {
		return []map[string]any{{}, {"title": 42}}
	},
	badPatch: map[string]any{"title": 42},
}

func aWriteChecks() []*Check {
	a := []Surface{SurfaceA}
	w := LevelWrite
	return []*Check{
		{ID: "A.group.create", Title: "POST /group answers 201 with the stored record, and GET returns it", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specACreate, Run: checkCreate(groupKind)},
		{ID: "A.group.update", Title: "PATCH /group/{id} changes exactly what was sent and moves meta.updatedAt", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specAUpdate, Run: checkUpdate(groupKind)},
		{ID: "A.group.delete", Title: "DELETE /group/{id} answers 204 without a body, then the group is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specADelete, Run: checkDelete(groupKind)},
		{ID: "A.group.create-invalid", Title: "POST /group with an invalid body is 422 and creates nothing", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA422, Run: checkCreateInvalid(groupKind)},
		{ID: "A.group.update-invalid", Title: "PATCH /group/{id} with an invalid body is 422 and changes nothing", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA422, Run: checkUpdateInvalid(groupKind)},
		{ID: "A.group.update-unknown", Title: "PATCH /group/{id} with an unknown id is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA404, Run: checkWriteUnknown(http.MethodPatch, "/group/", map[string]any{"title": "skolkit-conformance"})},
		{ID: "A.group.delete-unknown", Title: "DELETE /group/{id} with an unknown id is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA404, Run: checkWriteUnknown(http.MethodDelete, "/group/", nil)},
		{ID: "A.school.create", Title: "POST /school answers 201 with the stored record, and GET returns it", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specSCreate, OptIn: schoolOptIn, Run: checkCreate(schoolKind)},
		{ID: "A.school.update", Title: "PATCH /school/{id} changes exactly what was sent and moves meta.updatedAt", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specSUpdate, OptIn: schoolOptIn, Run: checkUpdate(schoolKind)},
		{ID: "A.school.create-invalid", Title: "POST /school with an invalid body is 422", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA422, OptIn: "a server that wrongly accepts the body creates a School, which cannot be deleted", Run: checkCreateInvalid(schoolKind)},
		{ID: "A.school.update-invalid", Title: "PATCH /school/{id} with an invalid body is 422 and changes nothing", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA422, OptIn: schoolOptIn, Run: checkUpdateInvalid(schoolKind)},
		{ID: "A.unit.create", Title: "POST /unit answers 201 with the stored record, and GET returns it", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specVendorUnit, OptIn: unitOptIn, Run: checkCreate(unitKind)},
		{ID: "A.unit.update", Title: "PATCH /unit/{id} changes exactly what was sent and moves meta.updatedAt", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specVendorUnit, OptIn: unitOptIn, Run: checkUpdate(unitKind)},
		{ID: "A.grade-elementary.create", Title: "POST /grade-elementary with the codes of a listed grade answers 201 with the stored record, and GET returns it", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specGradeOps, Run: checkCreate(gradeKind("/grade-elementary"))},
		{ID: "A.grade-elementary.update", Title: "PATCH /grade-elementary/{id} changes exactly what was sent and moves meta.updatedAt", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specGradeOps, Run: checkUpdate(gradeKind("/grade-elementary"))},
		{ID: "A.grade-elementary.delete", Title: "DELETE /grade-elementary/{id} answers 204 without a body, then the grade is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specGradeOps, Run: checkDelete(gradeKind("/grade-elementary"))},
		{ID: "A.grade-upper-secondary.create", Title: "POST /grade-upper-secondary with the codes of a listed grade answers 201 with the stored record, and GET returns it", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specGradeOps, Run: checkCreate(gradeKind("/grade-upper-secondary"))},
		{ID: "A.grade-upper-secondary.update", Title: "PATCH /grade-upper-secondary/{id} changes exactly what was sent and moves meta.updatedAt", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specGradeOps, Run: checkUpdate(gradeKind("/grade-upper-secondary"))},
		{ID: "A.grade-upper-secondary.delete", Title: "DELETE /grade-upper-secondary/{id} answers 204 without a body, then the grade is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specGradeOps, Run: checkDelete(gradeKind("/grade-upper-secondary"))},
		{ID: "A.school.update-unknown", Title: "PATCH /school/{id} with an unknown id is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA404, Run: checkWriteUnknown(http.MethodPatch, "/school/", map[string]any{"title": "skolkit-conformance"})},
		{ID: "A.unit.update-unknown", Title: "PATCH /unit/{id} with an unknown id is 404", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specA404, Run: checkWriteUnknown(http.MethodPatch, "/unit/", map[string]any{"title": "skolkit-conformance"})},
		{ID: "A.student-placement.restore-null-enddate", Title: "PATCH /student-placements/{id} with endDate null restores an archived placement, as GET /student-placement/{id} and GET /student-placements/{id} show", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specRestore, Run: checkRestore("student", false)},
		{ID: "A.student-placement.restore-future-enddate", Title: "PATCH /student-placements/{id} with a future endDate restores an archived placement, as GET /student-placement/{id} and GET /student-placements/{id} show", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specRestore, Run: checkRestore("student", true)},
		{ID: "A.employee-placement.restore-null-enddate", Title: "PATCH /employee-placement/{id} with endDate null restores an archived placement", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specRestoreE, Run: checkRestore("employee", false)},
		{ID: "A.employee-placement.mealplanner-role", Title: "an EmployeePlacement can hold the role MealPlanner", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specMeal, Run: checkMealPlanner},
		{ID: "A.student.eppn", Title: "a Student's eduPersonPrincipalName can be created, read, updated and cleared", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specEPPN, Run: checkEPPN("/student")},
		{ID: "A.employee.eppn", Title: "an Employee's eduPersonPrincipalName can be created, read, updated and cleared", Area: "A.writes", Level: w, Severity: MUST, Needs: a, Spec: specEPPN, Run: checkEPPN("/employee")},
	}
}

// writeKind is a resource the create/update checks exercise.
type writeKind struct {
	path string
	body func(t *T) map[string]any // a valid create body
	// patch is a valid update of some fields.
	patch    func(t *T) map[string]any
	invalid  func(t *T) []map[string]any // create bodies that must be 422
	badPatch map[string]any
}

var groupKind = writeKind{
	path: "/group",
	body: func(t *T) map[string]any {
		return map[string]any{"schoolID": str(t.aSchool(), "id"), "title": conformanceName(), "category": "Education", "types": []any{"Mentor"}}
	},
	patch: func(t *T) map[string]any { return map[string]any{"title": conformanceName()} },
	invalid: func(t *T) []map[string]any {
		return []map[string]any{{}, {"schoolID": str(t.aSchool(), "id"), "title": 42}}
	},
	badPatch: map[string]any{"title": 42},
}

var schoolKind = writeKind{
	path: "/school",
	// The create body sets fields the patch leaves alone, so that a PATCH that
	// replaces instead of merging is caught.
	body: func(t *T) map[string]any {
		return map[string]any{"title": conformanceName(), "schoolType": "GR", "municipalityCode": "0180", "csnSchoolCode": "skolkit"}
	},
	patch: func(t *T) map[string]any { return map[string]any{"title": conformanceName(), "unitCode": "skolkit"} },
	invalid: func(t *T) []map[string]any {
		return []map[string]any{{}, {"title": 42, "schoolType": "GR"}}
	},
	badPatch: map[string]any{"title": 42},
}

// conformanceName names a record the runner makes.
func conformanceName() string { return fmt.Sprintf("skolkit-conformance %08x", rand.Uint32()) }

// aSchool returns an existing School to attach records to, or skips.
func (t *T) aSchool() map[string]any {
	w := t.requireAList("/school")
	if len(w.items) == 0 {
		t.Skipf("no School exists to attach the test records to")
	}
	return w.items[0]
}

// create POSTs a body (retrying a 409, for identity numbers that happen to
// be taken) and returns the stored record. The record is removed when the
// check ends; one the spec cannot delete is reported as left behind.
func (t *T) create(path string, body func() map[string]any) (map[string]any, *Response) {
	var resp *Response
	for attempt := 0; attempt < 3; attempt++ {
		resp = t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: path, JSON: body()})
		if resp.Status != http.StatusConflict {
			break
		}
	}
	if resp.Status >= 200 && resp.Status < 300 {
		if obj, err := resp.Object(); err == nil && isUUID(str(obj, "id")) {
			t.adopt(path, str(obj, "id"))
		}
	}
	t.RequireStatus(resp, http.StatusCreated)
	rec := t.RequireObject(resp)
	if !isUUID(str(rec, "id")) {
		t.Fatalf(resp, "the created record with its id", "the 201 body has no uuid id")
	}
	return rec, resp
}

// adopt takes a record the check made into the run's keeping: removed when
// the check ends (DELETE), or listed as left behind (schools).
func (t *T) adopt(path, id string) {
	rec := path + "/" + id
	t.env.track(rec, t.check.ID)
	if path == "/school" || path == "/unit" {
		return
	}
	t.Cleanup(func(ctx context.Context) {
		resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: rec})
		switch resp.Status {
		case http.StatusNoContent, http.StatusOK, http.StatusNotFound:
			t.env.untrack(rec)
		default:
			t.Failf(resp, "204", "cleanup: DELETE %s answered %d; the record is left behind", rec, resp.Status)
		}
	})
}

func (e *env) track(rec, check string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.created[rec] = check
}

func (e *env) untrack(rec string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.created, rec)
}

// listLeftovers lists what the write checks could not remove (their
// cleanups have already tried).
func (e *env) listLeftovers() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, rec := range slices.Sorted(maps.Keys(e.created)) {
		why := "DELETE failed"
		switch {
		case strings.HasPrefix(rec, "/school/"):
			why = "the spec has no DELETE /school"
		case strings.HasPrefix(rec, "/unit/"):
			why = "the vendor's API has no DELETE /unit"
		}
		e.leftover = append(e.leftover, fmt.Sprintf("%s%s (made by %s; %s)", e.urls[SurfaceA], rec, e.created[rec], why))
	}
}

// storedProblems compares what was sent with what the server returned.
func storedProblems(sent, got map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(sent)) {
		if k == "external" { // the vendor's request has sourceID only; the server sets source
			if !jsonEqual(obj(sent, k)["sourceID"], obj(got, k)["sourceID"]) {
				out = append(out, fmt.Sprintf("external.sourceID: sent %s, got %s", compact(sent[k]), compact(got[k])))
			}
			continue
		}
		if !jsonEqual(sent[k], got[k]) {
			out = append(out, fmt.Sprintf("%s: sent %s, got %s", k, compact(sent[k]), compact(got[k])))
		}
	}
	return out
}

func checkCreate(k writeKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		var sent map[string]any
		rec, resp := t.create(k.path, func() map[string]any { sent = k.body(t); return sent })
		if p := storedProblems(sent, rec); len(p) > 0 {
			t.Failf(resp, "the record as sent", "the 201 body differs from what was sent: %s", strings.Join(p, "; "))
		}
		if m := obj(rec, "meta"); m == nil || str(m, "createdAt") == "" {
			t.Failf(resp, "meta with createdAt (the vendor's Meta)", "the 201 body has no meta.createdAt")
		}
		get := t.Get(SurfaceA, k.path+"/"+str(rec, "id"), nil)
		t.RequireStatus(get, http.StatusOK)
		if d := diffKeys(rec, t.RequireObject(get)); len(d) > 0 {
			t.Failf(get, "the record the 201 returned", "GET differs from the created record in %s", strings.Join(d, ", "))
		}
	}
}

// waitTick waits until the server's clock has surely moved past a
// timestamp it wrote: a few milliseconds, or to the next second when it
// writes whole seconds.
func (t *T) waitTick(ts string) {
	d := 10 * time.Millisecond
	if !strings.Contains(ts, ".") {
		d = 1100 * time.Millisecond
	}
	_ = sleep(t.ctx, d)
}

func parseTime(s string) time.Time {
	tm, _ := time.Parse(time.RFC3339Nano, s)
	return tm
}

func checkUpdate(k writeKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		rec, _ := t.create(k.path, func() map[string]any { return k.body(t) })
		id := str(rec, "id")
		before := t.Get(SurfaceA, k.path+"/"+id, nil)
		t.RequireStatus(before, http.StatusOK)
		old := t.RequireObject(before)
		t.waitTick(str(obj(old, "meta"), "updatedAt"))
		patch := k.patch(t)
		resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: k.path + "/" + id, JSON: withRequired(k.path, old, patch)})
		t.RequireStatus(resp, http.StatusOK)
		upd := t.RequireObject(resp)
		if p := storedProblems(patch, upd); len(p) > 0 {
			t.Failf(resp, "the fields as sent", "the update did not take: %s", strings.Join(p, "; "))
		}
		for _, key := range slices.Sorted(maps.Keys(old)) {
			if _, sent := patch[key]; sent || key == "meta" {
				continue
			}
			if !jsonEqual(old[key], upd[key]) {
				t.Failf(resp, "fields not sent left as they were", "%s changed from %s to %s though the PATCH did not send it", key, compact(old[key]), compact(upd[key]))
			}
		}
		om, nm := obj(old, "meta"), obj(upd, "meta")
		if str(om, "createdAt") != str(nm, "createdAt") {
			t.Failf(resp, "meta.createdAt "+str(om, "createdAt"), "meta.createdAt changed to %s", str(nm, "createdAt"))
		}
		if !parseTime(str(nm, "updatedAt")).After(parseTime(str(om, "updatedAt"))) {
			t.Failf(resp, "meta.updatedAt after "+str(om, "updatedAt"), "meta.updatedAt is %s after the update", str(nm, "updatedAt"))
		}
		get := t.Get(SurfaceA, k.path+"/"+id, nil)
		t.RequireStatus(get, http.StatusOK)
		if d := diffKeys(upd, t.RequireObject(get)); len(d) > 0 {
			t.Failf(get, "the record the PATCH returned", "GET differs from the updated record in %s", strings.Join(d, ", "))
		}
	}
}

func checkDelete(k writeKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		rec, _ := t.create(k.path, func() map[string]any { return k.body(t) })
		path := k.path + "/" + str(rec, "id")
		resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: path})
		t.RequireStatus(resp, http.StatusNoContent)
		if len(resp.Body) > 0 {
			t.Failf(resp, "no body", "the 204 has a body of %d bytes", len(resp.Body))
		}
		t.ExpectStatus(t.Get(SurfaceA, path, nil), http.StatusNotFound)
		t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: path}), http.StatusNotFound)
	}
}

// gradeKind writes a grade with the student, school and subject or course
// code of the first grade the list shows (codes the server accepts), and
// changes its comment. The grade is deleted when the check ends.
func gradeKind(path string) writeKind {
	return writeKind{
		path: path,
		body: func(t *T) map[string]any {
			resp := t.Get(SurfaceA, path, map[string][]string{"limit": {"1"}})
			t.RequireStatus(resp, http.StatusOK)
			items, _, _, err := listPage(resp)
			if err != nil || len(items) == 0 {
				t.Skipf("%s lists no grade whose student, school and code a new grade could take", path)
			}
			body := map[string]any{}
			for _, name := range createMembers()[path] {
				if v, ok := items[0][name]; ok && v != nil && name != "external" {
					body[name] = v
				}
			}
			body[gradeComment(path)] = conformanceName()
			return body
		},
		patch: func(t *T) map[string]any { return map[string]any{gradeComment(path): conformanceName()} },
	}
}

// gradeComment is the comment member a grade's create body has
// (schoolComment, gradeComment).
func gradeComment(path string) string {
	for _, m := range []string{"schoolComment", "gradeComment"} {
		if slices.Contains(createMembers()[path], m) {
			return m
		}
	}
	return "schoolComment"
}

func checkCreateInvalid(k writeKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		for _, body := range k.invalid(t) {
			resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: k.path, JSON: body})
			if resp.Status >= 200 && resp.Status < 300 {
				if o, err := resp.Object(); err == nil && isUUID(str(o, "id")) {
					t.adopt(k.path, str(o, "id"))
				}
			}
			t.ExpectStatus(resp, http.StatusUnprocessableEntity)
		}
	}
}

func checkUpdateInvalid(k writeKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		rec, _ := t.create(k.path, func() map[string]any { return k.body(t) })
		path := k.path + "/" + str(rec, "id")
		t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: path, JSON: withRequired(k.path, rec, k.badPatch)}), http.StatusUnprocessableEntity)
		get := t.Get(SurfaceA, path, nil)
		t.RequireStatus(get, http.StatusOK)
		if d := diffKeys(rec, t.RequireObject(get)); len(d) > 0 {
			t.Failf(get, "the record unchanged", "a rejected PATCH changed %s", strings.Join(d, ", "))
		}
	}
}

func checkWriteUnknown(method, prefix string, body map[string]any) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		req := Request{Surface: SurfaceA, Method: method, Path: prefix + unknownID}
		if body != nil {
			req.JSON = body
		}
		t.ExpectStatus(t.Do(req), http.StatusNotFound)
	}
}

// today is the runner's date (UTC).
func (t *T) today() time.Time {
	y, m, d := t.env.cfg.Now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func (t *T) date(days int) string { return t.today().AddDate(0, 0, days).Format(time.DateOnly) }

// identityNumber makes a Swedish personal identity number in the vendor's
// form YYYYMMDD-NNNN (valid check digit) of a person born in the 1900s,
// unlikely to be taken.
func identityNumber() string {
	no := civicNumber()
	return no[:8] + "-" + no[8:]
}

// civicNumber is identityNumber without the hyphen (SS 12000's form).
func civicNumber() string {
	born := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rand.IntN(365*40))
	ten := born.Format("060102") + fmt.Sprintf("%03d", rand.IntN(1000))
	sum := 0
	for i, c := range ten {
		n := int(c-'0') * (2 - i%2)
		sum += n/10 + n%10
	}
	return born.Format("2006")[:2] + ten + fmt.Sprint((10-sum%10)%10)
}

// createPerson creates a Student or Employee of the runner's own.
func (t *T) createPerson(path string, extra map[string]any) map[string]any {
	rec, _ := t.create(path, func() map[string]any {
		body := map[string]any{"identityNumber": identityNumber(), "firstName": "Skolkit", "lastName": conformanceName()}
		for k, v := range extra {
			body[k] = v
		}
		return body
	})
	return rec
}

// newPlacement creates a person of the kind ("student", "employee") and a
// placement of theirs at an existing school.
func (t *T) newPlacement(kind string, extra map[string]any) map[string]any {
	school := t.aSchool()
	person := t.createPerson("/"+kind, nil)
	body := map[string]any{kind + "ID": str(person, "id"), "schoolID": str(school, "id"), "startDate": t.date(-60)}
	if kind == "student" {
		st := str(school, "schoolType")
		if !slices.Contains([]string{"GR", "GY", "FS"}, st) {
			st = "GR"
		}
		body["schoolType"] = st
	}
	for k, v := range extra {
		body[k] = v
	}
	rec, _ := t.create("/"+kind+"-placement", func() map[string]any { return body })
	return rec
}

// archivedPlacement makes a placement and archives it: with the vendor's
// PATCH …/{id}/archive, or else with a past endDate.
func (t *T) archivedPlacement(kind string) string {
	rec := t.newPlacement(kind, nil)
	id := str(rec, "id")
	base := "/" + kind + "-placement/" + id
	resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: base + "/archive"})
	if resp.Status == http.StatusOK {
		if o, err := resp.Object(); err == nil && o["archivedAt"] != nil {
			return id
		}
	}
	resp2 := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: base, JSON: withRequired("/"+kind+"-placement", rec, map[string]any{"endDate": t.date(-2)})})
	if resp2.Status == http.StatusOK {
		if o, err := resp2.Object(); err == nil && o["archivedAt"] != nil {
			return id
		}
	}
	t.Skipf("could not archive a placement to restore: PATCH %s/archive answered %d, and a past endDate answered %d without archivedAt", base, resp.Status, resp2.Status)
	return ""
}

func checkRestore(kind string, future bool) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		id := t.archivedPlacement(kind)
		// The spec names the plural path for StudentPlacement; for
		// EmployeePlacement it names none, so the vendor's path is used.
		path := "/employee-placement/" + id
		if kind == "student" {
			path = "/student-placements/" + id
		}
		var end any
		if future {
			end = t.date(60)
		}
		resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: path, JSON: withRequired("/"+kind+"-placement", t.current("/"+kind+"-placement/"+id), map[string]any{"endDate": end})})
		t.RequireStatus(resp, http.StatusOK)
		rec := t.RequireObject(resp)
		if rec["archivedAt"] != nil {
			t.Failf(resp, "archivedAt null (active again)", "after PATCH endDate=%s the placement is still archived (archivedAt %s)", compact(end), compact(rec["archivedAt"]))
		}
		if !jsonEqual(rec["endDate"], end) {
			t.Failf(resp, "endDate "+compact(end), "endDate is %s", compact(rec["endDate"]))
		}
		// Read back by id, and for a student placement through the
		// spec's path as well.
		reads := []string{"/" + kind + "-placement/" + id}
		if kind == "student" {
			reads = append(reads, path)
		}
		for _, p := range reads {
			get := t.Get(SurfaceA, p, nil)
			t.RequireStatus(get, http.StatusOK)
			if a := t.RequireObject(get)["archivedAt"]; a != nil {
				t.Failf(get, "archivedAt null", "GET %s shows the placement archived (archivedAt %s) after the restoring PATCH", p, compact(a))
			}
		}
	}
}

func checkMealPlanner(t *T) {
	t.requireAuth(SurfaceA)
	rec := t.newPlacement("employee", map[string]any{"roles": []any{"MealPlanner"}})
	get := t.Get(SurfaceA, "/employee-placement/"+str(rec, "id"), nil)
	t.RequireStatus(get, http.StatusOK)
	roles := arr(t.RequireObject(get), "roles")
	if !slices.ContainsFunc(roles, func(v any) bool { return v == "MealPlanner" }) {
		t.Failf(get, "roles holding MealPlanner", "roles are %s", compact(roles))
	}
}

func checkEPPN(path string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		first := fmt.Sprintf("skolkit.%08x@example.org", rand.Uint32())
		rec := t.createPerson(path, map[string]any{"eduPersonPrincipalName": first})
		id := str(rec, "id")
		expect := func(resp *Response, want any) {
			t.RequireStatus(resp, http.StatusOK)
			if got := t.RequireObject(resp)["eduPersonPrincipalName"]; !jsonEqual(got, want) {
				t.Failf(resp, "eduPersonPrincipalName "+compact(want), "eduPersonPrincipalName is %s", compact(got))
			}
		}
		expect(t.Get(SurfaceA, path+"/"+id, nil), first)
		second := fmt.Sprintf("skolkit.%08x@example.org", rand.Uint32())
		expect(t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: path + "/" + id, JSON: withRequired(path, rec, map[string]any{"eduPersonPrincipalName": second})}), second)
		expect(t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: path + "/" + id, JSON: withRequired(path, rec, map[string]any{"eduPersonPrincipalName": nil})}), nil)
		expect(t.Get(SurfaceA, path+"/"+id, nil), nil)
	}
}
