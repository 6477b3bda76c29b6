package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// bRecord is an interface B record kind with a by-id operation.
type bRecord struct {
	kind, path string // "group", "/groups"
	spec       SpecRef
	// refs lists the reference members of the record ("student", "reporter").
	refs []string
	// personRefs are the references that are person references.
	personRefs []string
}

var bRecords = []bRecord{
	{kind: "placement", path: "/placements", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /placements/{id} | path id (uuid); query `expand`, `expandReferenceNames` | 200, Placement"}},
	{kind: "group", path: "/groups", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /groups/{id} | path id (uuid, required); query `expand` (array of enum, value `assignmentRoles`), `expandReferenceNames` (boolean) | 200, Group"}, refs: []string{"organisation"}},
	{kind: "syllabus", path: "/syllabuses", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /syllabuses/{id} | path id (uuid, required); query `expandReferenceNames` (boolean) | 200, Syllabus"}},
	{kind: "attendance", path: "/attendances", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /attendances/{id} | path id (uuid, required); query `expandReferenceNames` (boolean) | 200, Attendance record"}, refs: []string{"calendarEvent", "student", "reporter"}, personRefs: []string{"student", "reporter"}},
	{kind: "absence", path: "/absences", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /absences/{id} | path id (uuid, required); query `expandReferenceNames` (boolean) | 200, Absence record"}, refs: []string{"student", "organisation", "registeredBy"}, personRefs: []string{"student", "registeredBy"}},
}

var specLookup = SpecRef{Section: "Endpoints (interface B)", Quote: "POST | /groups/lookup | JSON body `ids` (array of uuid); query `expand`, `expandReferenceNames` as for /groups/{id} | 200, array of Group", Decision: "B6"}

func bRecordChecks() []*Check {
	b := []Surface{SurfaceB}
	var cs []*Check
	for _, r := range bRecords {
		area := "B.records"
		if r.kind == "placement" {
			area = "B.placements"
		}
		res := strings.TrimPrefix(r.path, "/")
		if r.kind != "placement" {
			cs = append(cs, &Check{ID: "B." + res + ".by-id", Title: "GET " + r.path + "/{id} answers 200 with the record of that id", Area: area, Severity: MUST, Needs: b, Spec: r.spec, Run: checkRecordByID(r)})
		}
		cs = append(cs,
			&Check{ID: "B." + res + ".malformed-id", Title: "GET " + r.path + "/{id} with an id that is not a UUID is 400", Area: area, Severity: MUST, Needs: b, Spec: specBIDFormat, Run: checkRecordStatus(r, malformedID, http.StatusBadRequest)},
			&Check{ID: "B." + res + ".unknown-id", Title: "GET " + r.path + "/{id} with an unknown id is 404", Area: area, Severity: MUST, Needs: b, Spec: specBErrors, Run: checkRecordStatus(r, unknownID, http.StatusNotFound)},
		)
		if len(r.refs) > 0 {
			cs = append(cs, &Check{ID: "B." + res + ".reference-names", Title: "GET " + r.path + "/{id}: displayName on references exactly when expandReferenceNames=true", Area: area, Severity: MUST, Needs: b, Spec: specRefNames, Run: checkRecordRefNames(r)})
		}
		if len(r.personRefs) > 0 {
			cs = append(cs, &Check{ID: "B." + res + ".security-marking", Title: "person references of " + res + " carry an allowed securityMarking", Area: area, Severity: MUST, Needs: b, Spec: specSecMarking, Run: checkRecordSecurityMarking(r)})
		}
	}
	area := "B.records"
	cs = append(cs,
		&Check{ID: "B.groups.membership-security-marking", Title: "group membership person references carry an allowed securityMarking", Area: area, Severity: MUST, Needs: b, Spec: specSecMarking, Run: checkGroupMembershipMarking},
		&Check{ID: "B.groups.expand-assignment-roles", Title: "expand=assignmentRoles embeds the roles, and nothing is embedded without it", Area: area, Severity: SHOULD, Needs: b, Spec: bRecords[1].spec, Run: checkGroupExpand},
		&Check{ID: "B.groups.lookup", Title: "POST /groups/lookup returns exactly the existing groups among the ids asked for", Area: area, Severity: MUST, Needs: b, Spec: specLookup, Run: checkGroupLookup},
		&Check{ID: "B.groups.lookup-invalid", Title: "a lookup body without ids, or with an id that is not a UUID, is 400", Area: area, Severity: SHOULD, Needs: b, Spec: specLookup, Run: checkGroupLookupInvalid},
		&Check{ID: "B.groups.lookup-too-many", Title: "a lookup of more than the documented 500 ids is 400", Area: area, Severity: SHOULD, Needs: b,
			Spec: SpecRef{Section: "Limits", Quote: "Numeric rate quota, upper bound of `limit`, and maximum size of `ids` in group lookup: not shown.", Decision: "B6"}, Run: checkGroupLookupTooMany},
	)
	return cs
}

// recordIDs returns ids to test a record kind with: those given with --id,
// and for groups those the placements refer to.
func (t *T) recordIDs(r bRecord, n int) []string {
	ids := slices.Clone(t.env.cfg.IDs[r.kind])
	switch r.kind {
	case "group":
		if w := t.env.allPlacements(t.ctx); w.problem == "" {
			for _, p := range w.items {
				if p.Group != "" && !slices.Contains(ids, p.Group) {
					ids = append(ids, p.Group)
				}
			}
		}
	case "placement":
		for _, p := range t.samplePlacements(n) {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		how := "interface B has no list of them; pass --id " + r.kind + "=<uuid>"
		if r.kind == "group" {
			how = "no placement refers to a group; pass --id group=<uuid>"
		}
		t.Skipf("no %s id to test with: %s", r.kind, how)
	}
	return first(ids, n)
}

func checkRecordByID(r bRecord) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		for _, id := range t.recordIDs(r, 5) {
			resp := t.Get(SurfaceB, r.path+"/"+id, nil)
			if !t.ExpectStatus(resp, http.StatusOK) {
				continue
			}
			if got := str(t.RequireObject(resp), "id"); got != id {
				t.Failf(resp, "id "+id, "GET %s/%s returned the record with id %q", r.path, id, got)
			}
		}
	}
}

func checkRecordStatus(r bRecord, id string, status int) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		t.ExpectStatus(t.Get(SurfaceB, r.path+"/"+id, nil), status)
	}
}

// refsOf lists the references a record carries (path → object), with the
// person references of group memberships.
func refsOf(r bRecord, m map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, k := range r.refs {
		if o := obj(m, k); o != nil {
			out[k] = o
		}
	}
	for i, gm := range objects(arr(m, "groupMemberships")) {
		if o := obj(gm, "person"); o != nil {
			out[fmt.Sprintf("groupMemberships[%d].person", i)] = o
		}
	}
	return out
}

func checkRecordRefNames(r bRecord) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		seen := 0
		for _, id := range t.recordIDs(r, 3) {
			resp := t.Get(SurfaceB, r.path+"/"+id, url.Values{"expandReferenceNames": {"true"}})
			t.RequireStatus(resp, http.StatusOK)
			for path, ref := range refsOf(r, t.RequireObject(resp)) {
				seen++
				if str(ref, "displayName") == "" {
					t.Failf(resp, "displayName on every reference", "%s %s: %s has no displayName with expandReferenceNames=true", r.kind, id, path)
				}
			}
			for _, q := range []url.Values{nil, {"expandReferenceNames": {"false"}}} {
				resp := t.Get(SurfaceB, r.path+"/"+id, q)
				t.RequireStatus(resp, http.StatusOK)
				for path, ref := range refsOf(r, t.RequireObject(resp)) {
					if _, ok := ref["displayName"]; ok {
						t.Failf(resp, "no displayName", "%s %s: %s carries displayName without expandReferenceNames=true", r.kind, id, path)
					}
				}
			}
		}
		if seen == 0 {
			t.Skipf("the %s records tested carry no references", r.kind)
		}
	}
}

func checkRecordSecurityMarking(r bRecord) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		for _, id := range t.recordIDs(r, 5) {
			resp := t.Get(SurfaceB, r.path+"/"+id, nil)
			t.RequireStatus(resp, http.StatusOK)
			rec := t.RequireObject(resp)
			for _, k := range r.personRefs {
				ref := obj(rec, k)
				if ref == nil {
					continue
				}
				if m := str(ref, "securityMarking"); !slices.Contains(securityMarkings, m) {
					t.Failf(resp, "securityMarking one of "+strings.Join(securityMarkings, ", "), "%s %s: %s.securityMarking is %s", r.kind, id, k, compact(ref["securityMarking"]))
				}
			}
		}
	}
}

func checkGroupMembershipMarking(t *T) {
	t.requireAuth(SurfaceB)
	seen := 0
	for _, id := range t.recordIDs(bRecords[1], 5) {
		resp := t.Get(SurfaceB, "/groups/"+id, nil)
		t.RequireStatus(resp, http.StatusOK)
		for i, gm := range objects(arr(t.RequireObject(resp), "groupMemberships")) {
			seen++
			if m := str(obj(gm, "person"), "securityMarking"); !slices.Contains(securityMarkings, m) {
				t.Failf(resp, "securityMarking one of "+strings.Join(securityMarkings, ", "), "group %s: groupMemberships[%d].person.securityMarking is %q", id, i, m)
			}
		}
	}
	if seen == 0 {
		t.Skipf("the groups tested have no members")
	}
}

func checkGroupExpand(t *T) {
	t.requireAuth(SurfaceB)
	embedded := 0
	for _, id := range t.recordIDs(bRecords[1], 5) {
		resp := t.Get(SurfaceB, "/groups/"+id, url.Values{"expand": {"assignmentRoles"}})
		t.RequireStatus(resp, http.StatusOK)
		if emb := obj(t.RequireObject(resp), "_embedded"); emb != nil {
			if _, ok := emb["assignmentRoles"].([]any); !ok {
				t.Failf(resp, "_embedded.assignmentRoles: an array", "group %s: _embedded has no assignmentRoles array", id)
			}
			embedded++
		}
		plain := t.Get(SurfaceB, "/groups/"+id, nil)
		t.RequireStatus(plain, http.StatusOK)
		if _, ok := t.RequireObject(plain)["_embedded"]; ok {
			t.Failf(plain, "no _embedded without expand", "group %s carries _embedded without expand", id)
		}
	}
	if embedded == 0 && !t.Failed() {
		t.Skipf("no group tested has assignment roles to embed")
	}
}

func checkGroupLookup(t *T) {
	t.requireAuth(SurfaceB)
	known := t.recordIDs(bRecords[1], 10)
	ask := append(slices.Clone(known), unknownID)
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", JSON: map[string]any{"ids": ask}})
	t.RequireStatus(resp, http.StatusOK)
	v, err := resp.JSON()
	list, ok := v.([]any)
	if err != nil || !ok {
		t.Fatalf(resp, "a JSON array of groups", "the body is %s", jsonKind(v))
	}
	var got []string
	for _, g := range objects(list) {
		got = append(got, str(g, "id"))
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(known))
	if !slices.Equal(got, want) {
		t.Failf(resp, fmt.Sprintf("exactly the groups %v (the unknown id %s left out)", want, unknownID), "the lookup returned %v", got)
	}
}

func checkGroupLookupInvalid(t *T) {
	t.requireAuth(SurfaceB)
	for _, body := range []any{map[string]any{}, map[string]any{"ids": []string{malformedID}}} {
		t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", JSON: body}), http.StatusBadRequest)
	}
}

func checkGroupLookupTooMany(t *T) {
	t.requireAuth(SurfaceB)
	ids := make([]string, 501)
	for i := range ids {
		ids[i] = fmt.Sprintf("00000000-5c01-4c17-8000-%012x", i)
	}
	t.ExpectStatus(t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", JSON: map[string]any{"ids": ids}}), http.StatusBadRequest)
}
