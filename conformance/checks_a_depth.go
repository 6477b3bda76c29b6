package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Depth checks of interface A: what a write sends is read back
// field by field through every view (by id, the list, the search, and
// interface B where the record is shared); fields a PATCH omits are kept;
// the archive and restore transitions run in both directions and twice;
// deletes are final; unique fields conflict; every enum value the vendor's
// field table names is accepted and rendered.

var (
	specReadBack      = SpecRef{Section: "Endpoints (interface A)", Quote: "POST | /group | Group body (required) | 201, the created Group"}
	specShared        = SpecRef{Section: "Person (interface B, embedded in placements)", Quote: "id | uuid | one identifier shared by all systems"}
	specKeep          = SpecRef{Section: "Endpoints (interface A)", Quote: "PATCH | /group/{id} | path id (uuid, required); update body (required) | 200, the updated Group", Decision: "patch-merges"}
	specArchive       = SpecRef{Section: "States and transitions", Quote: "Other transitions of placements, and the restore operation itself: not shown.", Decision: "archive-restore"}
	specDelete2       = SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 404: resource does not exist"}
	specConflict      = SpecRef{Section: "Errors", Quote: "409 | request conflicts with the current state", Decision: "interface-a-statuses"}
	specTitleConflict = SpecRef{Section: "Errors", Quote: "409 | request conflicts with the current state", Decision: "interface-a-conflicts"}
	specEnums         = SpecRef{Section: "Interface A (vendor document)", Quote: "enum GroupType: Class, Childcare, Mentor (and likewise GroupCategory, Gender, EmployeePlacementRole, StudentPlacementSchoolType)", Decision: "vendor-field-table"}
)

// depthKind is a resource whose writes the depth checks read back.
type depthKind struct {
	name string // "student"
	path string // "/student"
	// make creates a record of the runner's own and returns what was sent
	// and what the 201 returned.
	make func(t *T) (sent, rec map[string]any)
	// optional is a set of optional members make sets, which a PATCH that
	// leaves them out must keep.
	optional []string
	// patch is an update of a required member.
	patch func(t *T) map[string]any
	// bPath is the interface B collection that shows the same record ("" if
	// none), and bFields maps interface A members to B members that must agree.
	bPath   string
	bFields map[string]string
}

func personBody(extra map[string]any) map[string]any {
	body := map[string]any{"identityNumber": identityNumber(), "firstName": "Skolkit", "lastName": conformanceName(),
		"emailAddress1": "skolkit.a@example.org", "phoneNumber1": "+46701234567"}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

func makePerson(path string, extra map[string]any) func(t *T) (map[string]any, map[string]any) {
	return func(t *T) (map[string]any, map[string]any) {
		var sent map[string]any
		rec, _ := t.create(path, func() map[string]any { sent = personBody(extra); return sent })
		return sent, rec
	}
}

func makePlacement(kind string, extra map[string]any) func(t *T) (map[string]any, map[string]any) {
	return func(t *T) (map[string]any, map[string]any) {
		school := t.aSchool()
		person := t.createPerson("/"+kind, nil)
		body := map[string]any{kind + "ID": str(person, "id"), "schoolID": str(school, "id"), "startDate": t.date(-60)}
		if kind == "student" {
			body["schoolType"] = "GR"
		}
		for k, v := range extra {
			body[k] = v
		}
		rec, _ := t.create("/"+kind+"-placement", func() map[string]any { return body })
		return body, rec
	}
}

var depthKinds = []depthKind{
	{name: "student", path: "/student", make: makePerson("/student", map[string]any{"gender": "Female", "dateOfBirth": "1990-01-01"}),
		optional: []string{"gender", "dateOfBirth", "emailAddress1", "phoneNumber1"},
		patch:    func(t *T) map[string]any { return map[string]any{"firstName": "Skolkit2"} },
		bPath:    "/persons", bFields: map[string]string{"firstName": "givenName", "lastName": "familyName"}},
	{name: "employee", path: "/employee", make: makePerson("/employee", map[string]any{"gender": "Male"}),
		optional: []string{"gender", "emailAddress1", "phoneNumber1"},
		patch:    func(t *T) map[string]any { return map[string]any{"firstName": "Skolkit2"} },
		bPath:    "/persons", bFields: map[string]string{"firstName": "givenName", "lastName": "familyName"}},
	{name: "guardian", path: "/guardian", make: makePerson("/guardian", nil),
		optional: []string{"emailAddress1", "phoneNumber1"},
		patch:    func(t *T) map[string]any { return map[string]any{"firstName": "Skolkit2"} },
		bPath:    "/persons", bFields: map[string]string{"firstName": "givenName", "lastName": "familyName"}},
	{name: "group", path: "/group", make: func(t *T) (map[string]any, map[string]any) {
		var sent map[string]any
		rec, _ := t.create("/group", func() map[string]any { sent = groupKind.body(t); return sent })
		return sent, rec
	},
		optional: []string{"types"},
		patch:    func(t *T) map[string]any { return map[string]any{"title": conformanceName()} },
		bPath:    "/groups", bFields: map[string]string{"title": "displayName"}},
	{name: "student placement", path: "/student-placement", make: makePlacement("student", map[string]any{"schoolYear": "3", "motherTongue": "fin", "hasChildcare": true}),
		optional: []string{"schoolYear", "motherTongue", "hasChildcare"},
		patch:    func(t *T) map[string]any { return map[string]any{"startDate": t.date(-30)} }},
	{name: "employee placement", path: "/employee-placement", make: makePlacement("employee", map[string]any{"title": "skolkit", "roles": []any{"Teacher"}, "employmentPercent": 50}),
		optional: []string{"title", "roles", "employmentPercent"},
		patch:    func(t *T) map[string]any { return map[string]any{"startDate": t.date(-30)} }},
}

func aDepthChecks() []*Check {
	a := []Surface{SurfaceA}
	w := LevelWrite
	var out []*Check
	for _, k := range depthKinds {
		slug := strings.ReplaceAll(k.name, " ", "-")
		out = append(out,
			&Check{ID: "A." + slug + ".read-back", Title: fmt.Sprintf("a created %s reads back field by field by id, in the list and by _search", k.name), Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specReadBack, Run: checkReadBack(k)},
			&Check{ID: "A." + slug + ".update-keeps-omitted", Title: fmt.Sprintf("PATCH of a %s with only the required members keeps the optional ones set at create", k.name), Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specKeep, Run: checkKeepsOmitted(k)},
		)
		if k.bPath != "" {
			out = append(out, &Check{ID: "A." + slug + ".read-back-b", Title: fmt.Sprintf("a %s created in interface A is the same record in interface B (%s/{id})", k.name, k.bPath), Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specShared, Run: checkReadBackB(k)})
		}
	}
	out = append(out,
		&Check{ID: "A.student-placement.archive-restore", Title: "archive and restore of a student placement work in both directions and twice (idempotent)", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specArchive, Run: checkArchiveRestore("student")},
		&Check{ID: "A.employee-placement.archive-restore", Title: "archive and restore of an employee placement work in both directions and twice (idempotent)", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specArchive, Run: checkArchiveRestore("employee")},
		&Check{ID: "A.student.delete-twice", Title: "DELETE /student/{id} is 204, then GET and a second DELETE are 404", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specDelete2, Run: checkDeleteTwice("/student")},
		&Check{ID: "A.employee.delete-twice", Title: "DELETE /employee/{id} is 204, then GET and a second DELETE are 404", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specDelete2, Run: checkDeleteTwice("/employee")},
		&Check{ID: "A.student-placement.delete-twice", Title: "DELETE /student-placement/{id} is 204, then GET and a second DELETE are 404", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specDelete2, Run: checkDeleteTwice("/student-placement")},
		&Check{ID: "A.employee-placement.delete-twice", Title: "DELETE /employee-placement/{id} is 204, then GET and a second DELETE are 404", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specDelete2, Run: checkDeleteTwice("/employee-placement")},
		&Check{ID: "A.guardian.delete-twice", Title: "DELETE /guardian/{id} is 204, then GET and a second DELETE are 404", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specDelete2, Run: checkDeleteTwice("/guardian")},
		&Check{ID: "A.student.identity-conflict", Title: "a second Student with an identityNumber already in use is 409 and creates nothing", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specConflict, Run: checkIdentityConflict("/student")},
		&Check{ID: "A.group.title-conflict", Title: "a second group with the title of another at the same school (in other letter case) is 409, by POST and by PATCH", Area: "A.depth", Level: w, Severity: SHOULD, Needs: a, Spec: specTitleConflict, Run: checkTitleConflict},
		&Check{ID: "A.employee.identity-conflict", Title: "a second Employee with an identityNumber already in use is 409 and creates nothing", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specConflict, Run: checkIdentityConflict("/employee")},
	)
	for _, e := range []struct{ slug, enums string }{
		{"group", "GroupType and GroupCategory"}, {"student", "Gender"},
		{"employee-placement", "EmployeePlacementRole"}, {"student-placement", "StudentPlacementSchoolType"},
	} {
		out = append(out, &Check{ID: "A." + e.slug + ".enum-values", Title: "every value of " + e.enums + " is accepted on write and rendered on read", Area: "A.depth", Level: w, Severity: MUST, Needs: a, Spec: specEnums, Run: checkEnums(e.slug)})
	}
	return out
}

// readBackProblems compares what was sent with one view of the record.
// The sent body is put through JSON first, so that Go numbers compare with
// decoded ones.
func readBackProblems(sent, got map[string]any) []string {
	var norm map[string]any
	if b, err := json.Marshal(sent); err == nil && json.Unmarshal(b, &norm) == nil {
		sent = norm
	}
	return storedProblems(sent, got)
}

func checkReadBack(k depthKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		sent, rec := k.make(t)
		id := str(rec, "id")
		get := t.Get(SurfaceA, k.path+"/"+id, nil)
		t.RequireStatus(get, http.StatusOK)
		if p := readBackProblems(sent, t.RequireObject(get)); len(p) > 0 {
			t.Failf(get, "every field as sent", "GET %s/{id} differs from what was sent: %s", k.path, strings.Join(p, "; "))
		}
		list := t.env.walkOffsets(t.doer(), SurfaceA, http.MethodGet, k.path, nil, aListPageSize)
		if list.problem != "" {
			t.Fatalf(list.problemResp, "200 with a list", "the list %s: %s", k.path, list.problem)
		}
		if it := byID(list.items, id); it == nil {
			t.Failf(list.first, "the created record in the list", "the list %s (%d items walked) has no %s %s", k.path, len(list.items), k.name, id)
		} else if p := readBackProblems(sent, it); len(p) > 0 {
			t.Failf(list.first, "every field as sent", "the list item differs from what was sent: %s", strings.Join(p, "; "))
		}
		found := t.searchAll(aResource{name: k.name, path: k.path}, map[string]any{"equals": map[string]any{"id": id}, "orCondition": false})
		if it := byID(found.items, id); it == nil || len(found.items) != 1 {
			t.Failf(found.first, "exactly the created record", "_search with equals id=%s found %d records", id, len(found.items))
		} else if p := readBackProblems(sent, it); len(p) > 0 {
			t.Failf(found.first, "every field as sent", "the _search item differs from what was sent: %s", strings.Join(p, "; "))
		}
	}
}

func byID(items []map[string]any, id string) map[string]any {
	for _, it := range items {
		if str(it, "id") == id {
			return it
		}
	}
	return nil
}

func checkReadBackB(k depthKind) func(*T) {
	return func(t *T) {
		if !t.env.has(SurfaceB) {
			t.Skipf("no interface B URL (--register-url): the shared view cannot be read")
		}
		t.requireAuth(SurfaceA)
		t.requireAuth(SurfaceB)
		sent, rec := k.make(t)
		id := str(rec, "id")
		get := t.Get(SurfaceB, k.bPath+"/"+id, nil)
		t.RequireStatus(get, http.StatusOK)
		b := t.RequireObject(get)
		for _, af := range sortedKeys(k.bFields) {
			bf := k.bFields[af]
			if !jsonEqual(sent[af], b[bf]) {
				t.Failf(get, fmt.Sprintf("%s %s (the %s sent in interface A)", bf, compact(sent[af]), af), "%s is %s", bf, compact(b[bf]))
			}
		}
		// A person's identityNumber YYYYMMDD-NNNN is SS 12000's civicNo
		// without the hyphen (when B shows a civicNo at all: the standard
		// does not require it).
		if no, ok := sent["identityNumber"].(string); ok && k.bPath == "/persons" && obj(b, "civicNo") != nil {
			if got := str(obj(b, "civicNo"), "value"); got != strings.ReplaceAll(no, "-", "") {
				t.Failf(get, "civicNo.value "+strings.ReplaceAll(no, "-", "")+" (the identityNumber sent in interface A)", "civicNo.value is %q", got)
			}
		}
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func checkKeepsOmitted(k depthKind) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		_, rec := k.make(t)
		id := str(rec, "id")
		cur := t.current(k.path + "/" + id)
		if cur == nil {
			t.Fatalf(nil, "GET 200", "the created %s %s cannot be read back", k.name, id)
		}
		// Only the required members (from the current record) and the change.
		body := withRequired(k.path, cur, k.patch(t))
		for _, o := range k.optional {
			if slices.Contains(updateRequired()[k.path], o) {
				continue
			}
			delete(body, o)
		}
		resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: k.path + "/" + id, JSON: body})
		t.RequireStatus(resp, http.StatusOK)
		views := []*Response{resp, t.Get(SurfaceA, k.path+"/"+id, nil)}
		for _, v := range views {
			got, err := v.Object()
			if err != nil {
				t.Fatalf(v, "a JSON object", "%v", err)
			}
			for _, o := range k.optional {
				if _, sent := body[o]; sent {
					continue
				}
				if !jsonEqual(cur[o], got[o]) {
					t.Failf(v, fmt.Sprintf("%s kept as %s", o, compact(cur[o])), "%s is %s after a PATCH that did not send it", o, compact(got[o]))
				}
			}
		}
	}
}

func checkArchiveRestore(kind string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		_, rec := makePlacement(kind, nil)(t)
		base := "/" + kind + "-placement/" + str(rec, "id")
		step := func(action string, archived bool, keep any) any {
			resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: base + "/" + action})
			t.RequireStatus(resp, http.StatusOK)
			got := t.RequireObject(resp)["archivedAt"]
			switch {
			case archived && got == nil:
				t.Failf(resp, "archivedAt set", "PATCH …/%s left archivedAt null", action)
			case !archived && got != nil:
				t.Failf(resp, "archivedAt null", "PATCH …/%s left archivedAt %s", action, compact(got))
			case keep != nil && !jsonEqual(keep, got):
				t.Failf(resp, "archivedAt kept as "+compact(keep), "archiving an archived placement moved archivedAt to %s", compact(got))
			}
			g := t.Get(SurfaceA, base, nil)
			t.RequireStatus(g, http.StatusOK)
			if gv := t.RequireObject(g)["archivedAt"]; !jsonEqual(gv, got) {
				t.Failf(g, "archivedAt "+compact(got)+" (as the PATCH answered)", "GET shows archivedAt %s", compact(gv))
			}
			return got
		}
		step("restore", false, nil) // restoring an active placement: still active
		at := step("archive", true, nil)
		step("archive", true, at) // archiving an archived one keeps the first time
		step("restore", false, nil)
		step("restore", false, nil)
	}
}

func checkDeleteTwice(path string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		var rec map[string]any
		if kind, ok := strings.CutSuffix(strings.TrimPrefix(path, "/"), "-placement"); ok {
			_, rec = makePlacement(kind, nil)(t)
		} else {
			rec = t.createPerson(path, nil)
		}
		p := path + "/" + str(rec, "id")
		t.RequireStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: p}), http.StatusNoContent)
		t.ExpectStatus(t.Get(SurfaceA, p, nil), http.StatusNotFound)
		t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: p}), http.StatusNotFound)
	}
}

func checkIdentityConflict(path string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		first := t.createPerson(path, nil)
		body := personBody(nil)
		body["identityNumber"] = str(first, "identityNumber")
		resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: path, JSON: body})
		if resp.Status >= 200 && resp.Status < 300 {
			if o, err := resp.Object(); err == nil && isUUID(str(o, "id")) {
				t.adopt(path, str(o, "id"))
			}
		}
		t.ExpectStatus(resp, http.StatusConflict)
	}
}

// enumWrite is one enum value written into a member and read back.
type enumWrite struct {
	slug        string // the check: "group", "student", ...
	enum, value string
	make        func(t *T, v string) (path string, rec map[string]any)
	member      string
	list        bool // the member is an array of the enum
}

func enumWrites() []enumWrite {
	var out []enumWrite
	group := func(member string, list bool) func(t *T, v string) (string, map[string]any) {
		return func(t *T, v string) (string, map[string]any) {
			body := groupKind.body(t)
			if list {
				body[member] = []any{v}
			} else {
				body[member] = v
			}
			rec, _ := t.create("/group", func() map[string]any { return body })
			return "/group", rec
		}
	}
	for _, v := range []string{"Class", "Childcare", "Mentor"} {
		out = append(out, enumWrite{slug: "group", enum: "GroupType", value: v, make: group("types", true), member: "types", list: true})
	}
	for _, v := range []string{"Education", "Other"} {
		out = append(out, enumWrite{slug: "group", enum: "GroupCategory", value: v, make: group("category", false), member: "category"})
	}
	for _, v := range []string{"Female", "Male", "Other"} {
		out = append(out, enumWrite{slug: "student", enum: "Gender", value: v, member: "gender", make: func(t *T, v string) (string, map[string]any) {
			return "/student", t.createPerson("/student", map[string]any{"gender": v})
		}})
	}
	for _, v := range []string{"Admin", "CareTeam", "Manager", "MealPlanner", "OtherPersonnel", "Scheduler", "Teacher"} {
		out = append(out, enumWrite{slug: "employee-placement", enum: "EmployeePlacementRole", value: v, member: "roles", list: true, make: func(t *T, v string) (string, map[string]any) {
			_, rec := makePlacement("employee", map[string]any{"roles": []any{v}})(t)
			return "/employee-placement", rec
		}})
	}
	for _, v := range []string{"GR", "GRAN", "GY", "GYAN", "FS", "VUX", "VUXSFI"} {
		out = append(out, enumWrite{slug: "student-placement", enum: "StudentPlacementSchoolType", value: v, member: "schoolType", make: func(t *T, v string) (string, map[string]any) {
			_, rec := makePlacement("student", map[string]any{"schoolType": v})(t)
			return "/student-placement", rec
		}})
	}
	return out
}

func checkEnums(slug string) func(*T) {
	return func(t *T) {
		checkEnumsOf(t, slug)
	}
}

func checkEnumsOf(t *T, slug string) {
	t.requireAuth(SurfaceA)
	for _, e := range enumWrites() {
		if e.slug != slug {
			continue
		}
		path, rec := e.make(t, e.value)
		want := any(e.value)
		if e.list {
			want = []any{e.value}
		}
		get := t.Get(SurfaceA, path+"/"+str(rec, "id"), nil)
		t.RequireStatus(get, http.StatusOK)
		if got := t.RequireObject(get)[e.member]; !jsonEqual(got, want) {
			t.Failf(get, fmt.Sprintf("%s %s (%s)", e.member, compact(want), e.enum), "%s is %s", e.member, compact(got))
		}
		// Remove it now rather than at the end, to keep the records few.
		if path == "/group" || path == "/student" {
			t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: path + "/" + str(rec, "id")})
		}
	}
}

// checkTitleConflict follows skolkit's choice (a group title is unique
// within its school, compared case-insensitively:
// docs/decisions.md#interface-a-conflicts), hence SHOULD.
func checkTitleConflict(t *T) {
	t.requireAuth(SurfaceA)
	body := groupKind.body(t)
	first, _ := t.create("/group", func() map[string]any { return body })
	dup := groupKind.body(t)
	dup["schoolID"] = first["schoolID"]
	dup["title"] = strings.ToUpper(str(first, "title"))
	resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: "/group", JSON: dup})
	if resp.Status >= 200 && resp.Status < 300 {
		if o, err := resp.Object(); err == nil && isUUID(str(o, "id")) {
			t.adopt("/group", str(o, "id"))
		}
	}
	t.ExpectStatus(resp, http.StatusConflict)
	second, _ := t.create("/group", func() map[string]any { b := groupKind.body(t); b["schoolID"] = first["schoolID"]; return b })
	patch := t.Do(Request{Surface: SurfaceA, Method: http.MethodPatch, Path: "/group/" + str(second, "id"), JSON: withRequired("/group", second, map[string]any{"title": str(first, "title")})})
	t.ExpectStatus(patch, http.StatusConflict)
}
