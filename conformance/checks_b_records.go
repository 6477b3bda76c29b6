package conformance

import (
	"context"
	"encoding/json"
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
	// noStandardNames: the standard does not declare expandReferenceNames
	// on the by-id operation (attendance and absence records), so the
	// reference-name check is not part of --profile ss12000.
	noStandardNames bool
}

var bRecords = []bRecord{
	{kind: "placement", path: "/placements", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /placements/{id} | path id (uuid); query `expand`, `expandReferenceNames` | 200, Placement"}},
	{kind: "group", path: "/groups", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /groups/{id} | path id (uuid, required); query `expand` (array of enum, value `assignmentRoles`), `expandReferenceNames` (boolean) | 200, Group"}, refs: []string{"organisation"}},
	{kind: "syllabus", path: "/syllabuses", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /syllabuses/{id} | path id (uuid, required); query `expandReferenceNames` (boolean) | 200, Syllabus"}},
	{kind: "attendance", path: "/attendances", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /attendances/{id} | path id (uuid, required); query `expandReferenceNames` (boolean) | 200, Attendance record"}, refs: []string{"calendarEvent", "student", "reporter"}, personRefs: []string{"student", "reporter"}, noStandardNames: true},
	{kind: "absence", path: "/absences", spec: SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /absences/{id} | path id (uuid, required); query `expandReferenceNames` (boolean) | 200, Absence record"}, refs: []string{"student", "organisation", "registeredBy"}, personRefs: []string{"student", "registeredBy"}, noStandardNames: true},
}

var specLookup = SpecRef{Section: "Endpoints (interface B)", Quote: "POST | /groups/lookup | JSON body `ids` (array of uuid); query `expand`, `expandReferenceNames` as for /groups/{id} | 200, array of Group", Decision: "lookup-limits"}

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
			&Check{ID: "B." + res + ".malformed-id", Title: "GET " + r.path + "/{id} with an id that is not a UUID is 400 (after a known id answered 200)", Area: area, Severity: MUST, Needs: b, Spec: specBIDFormat, StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: GET " + r.path + "/{id}", Quote: "400: Felaktigt id."}, Run: checkRecordStatus(r, malformedID, http.StatusBadRequest)},
			&Check{ID: "B." + res + ".unknown-id", Title: "GET " + r.path + "/{id} with an unknown id is 404 (after a known id answered 200)", Area: area, Severity: MUST, Needs: b, Spec: specBErrors, StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: GET " + r.path + "/{id}", Quote: "404: Posten hittades inte."}, Run: checkRecordStatus(r, unknownID, http.StatusNotFound)},
		)
		if len(r.refs) > 0 {
			c := &Check{ID: "B." + res + ".reference-names", Title: "GET " + r.path + "/{id}: displayName on references exactly when expandReferenceNames=true", Area: area, Severity: MUST, Needs: b, Spec: specRefNames, Run: checkRecordRefNames(r)}
			if r.noStandardNames {
				c.Spec = r.spec
				c.Standard = Off
			}
			cs = append(cs, c)
		}
		if len(r.personRefs) > 0 {
			cs = append(cs, &Check{ID: "B." + res + ".security-marking", Title: "person references of " + res + " carry an allowed securityMarking (under --profile ss12000: when they carry one)", Area: area, Severity: MUST, Needs: b, Spec: specPersonRefMarking, Run: checkRecordSecurityMarking(r)})
		}
	}
	area := "B.records"
	cs = append(cs,
		&Check{ID: "B.groups.membership-security-marking", Title: "group membership person references carry an allowed securityMarking (under --profile ss12000: when they carry one)", Area: area, Severity: MUST, Needs: b, Spec: specPersonRefMarking, Run: checkGroupMembershipMarking},
		&Check{ID: "B.groups.expand-assignment-roles", Title: "expand=assignmentRoles embeds the roles, and nothing is embedded without it", Area: area, Severity: SHOULD, Needs: b, Spec: bRecords[1].spec, Run: checkGroupExpand},
		&Check{ID: "B.groups.lookup", Title: "POST /groups/lookup returns exactly the existing groups among the ids asked for", Area: area, Severity: MUST, Needs: b, Spec: specLookup, Run: checkGroupLookup},
		&Check{ID: "B.groups.lookup-charset", Title: "a lookup body sent as application/json; charset=utf-8 is accepted like application/json", Area: area, Severity: MUST, Needs: b,
			Spec: SpecRef{Section: "RFC 8259 §11, RFC 9110 §8.3.1", Quote: "The type/subtype MAY be followed by semicolon-delimited parameters (Section 5.6.6) in the form of name/value pairs."}, Run: checkGroupLookupCharset},
		&Check{ID: "B.groups.lookup-invalid", Title: "a lookup body without ids, or with an id that is not a UUID, is 400 (under --profile ss12000: a malformed id is a 4xx)", Area: area, Severity: SHOULD, Needs: b, Spec: specLookup,
			Choice: "skolkit requires ids and answers 400 (docs/decisions.md#lookup-limits); the standard's IdLookup requires no field and documents no 400", Run: checkGroupLookupInvalid},
		&Check{ID: "B.groups.lookup-too-many", Title: "a lookup of more than the documented 500 ids is 400 (under --profile ss12000: 200, 400, 413 or 503, never a 5xx other than 503)", Area: area, Severity: SHOULD, Needs: b,
			Spec:   SpecRef{Section: "Limits", Quote: "Numeric rate quota, upper bound of `limit`, and maximum size of `ids` in group lookup: not shown.", Decision: "lookup-limits"},
			Choice: "skolkit's cap of 500 ids (docs/decisions.md#lookup-limits); the standard sets no cap and answers a lookup too large for the server with 503", Run: checkGroupLookupTooMany},
	)
	return cs
}

// recordIDs returns ids to test a record kind with: those given with --id,
// those the resource's own list returns (GET /syllabuses?limit=n and so on:
// the standard has a list for every resource), and for groups those the
// placements refer to.
func (t *T) recordIDs(r bRecord, n int) []string {
	ids := slices.Clone(t.env.cfg.IDs[r.kind])
	if len(ids) < n && r.kind != "placement" {
		for _, id := range t.env.listedIDs(t.ctx, r.path) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
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
		how := fmt.Sprintf("neither --id nor GET %s (the standard's list) gave one; pass --id %s=<uuid>", r.path, r.kind)
		if r.kind == "group" {
			how = "neither GET /groups nor the placements' group references gave one; pass --id group=<uuid>"
		}
		t.Skipf("no %s id to test with: %s", r.kind, how)
	}
	return first(ids, n)
}

// listedIDs returns the ids of the first page of a resource's list (at
// most 10), or none when the server has no such list; fetched once per run.
func (e *env) listedIDs(ctx context.Context, path string) []string {
	return e.data.listed.get(path, func() []string {
		resp, err := e.do(ctx, "B"+path+" (ids from the list)", Request{Surface: SurfaceB, Method: http.MethodGet, Path: path, Query: url.Values{"limit": {"10"}}, Outside: true})
		if err != nil || resp.Status != http.StatusOK {
			return nil
		}
		body, err := resp.Object()
		if err != nil {
			return nil
		}
		var out []string
		for _, o := range objects(arr(body, "data")) {
			if id := str(o, "id"); isUUID(id) {
				out = append(out, id)
			}
		}
		return out
	})
}

// requireRoute proves that the by-id route of a record kind exists: a known
// id answers 2xx. A check about ids that do not exist proves nothing
// against a route that does not exist at all.
func (t *T) requireRoute(r bRecord) {
	id := t.recordIDs(r, 1)[0]
	resp := t.Get(SurfaceB, r.path+"/"+id, nil)
	if resp.Status/100 != 2 {
		t.Skipf("GET %s/%s, a known id, answered %d, so the route's answer to other ids proves nothing (see B.%s.by-id)", r.path, id, resp.Status, strings.TrimPrefix(r.path, "/"))
	}
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
		t.requireRoute(r)
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
		judged := 0
		for _, id := range t.recordIDs(r, 5) {
			resp := t.Get(SurfaceB, r.path+"/"+id, nil)
			t.RequireStatus(resp, http.StatusOK)
			rec := t.RequireObject(resp)
			for _, k := range r.personRefs {
				if ref := obj(rec, k); ref != nil && t.expectMarking(resp, ref, fmt.Sprintf("%s %s: %s", r.kind, id, k)) {
					judged++
				}
			}
		}
		t.skipUnjudged(judged, "person reference of the "+r.kind+" records tested")
	}
}

func checkGroupMembershipMarking(t *T) {
	t.requireAuth(SurfaceB)
	seen := 0
	for _, id := range t.recordIDs(bRecords[1], 5) {
		resp := t.Get(SurfaceB, "/groups/"+id, nil)
		t.RequireStatus(resp, http.StatusOK)
		for i, gm := range objects(arr(t.RequireObject(resp), "groupMemberships")) {
			if t.expectMarking(resp, obj(gm, "person"), fmt.Sprintf("group %s: groupMemberships[%d].person", id, i)) {
				seen++
			}
		}
	}
	t.skipUnjudged(seen, "group membership person reference of the groups tested")
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

// requireLookup proves the lookup route works: a lookup of a known group
// answers 200.
func (t *T) requireLookup() {
	t.requireAuth(SurfaceB)
	known := t.recordIDs(bRecords[1], 1)
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", JSON: map[string]any{"ids": known}})
	if resp.Status != http.StatusOK {
		t.Skipf("POST /groups/lookup of a known group answered %d, so its answer to a bad body proves nothing (see B.groups.lookup)", resp.Status)
	}
}

func checkGroupLookupInvalid(t *T) {
	t.requireLookup()
	bodies := []any{map[string]any{}, map[string]any{"ids": []string{malformedID}}}
	if t.standard() {
		bodies = bodies[1:]
	}
	for _, body := range bodies {
		resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", JSON: body})
		if t.standard() {
			t.expect4xx(resp)
			continue
		}
		t.ExpectStatus(resp, http.StatusBadRequest)
	}
}

func checkGroupLookupTooMany(t *T) {
	t.requireLookup()
	ids := make([]string, 501)
	for i := range ids {
		ids[i] = fmt.Sprintf("00000000-5c01-4c17-8000-%012x", i)
	}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", JSON: map[string]any{"ids": ids}})
	if !t.standard() {
		t.ExpectStatus(resp, http.StatusBadRequest)
		return
	}
	if t.ExpectStatus(resp, http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable) && resp.Status == http.StatusOK {
		if v, err := resp.JSON(); err != nil || len(objects(asArray(v))) != 0 {
			t.Failf(resp, "an empty array (none of the ids exists)", "the lookup of 501 unknown ids returned %s", excerpt(string(resp.Body), 200))
		}
	}
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

func checkGroupLookupCharset(t *T) {
	t.requireAuth(SurfaceB)
	known := t.recordIDs(bRecords[1], 3)
	body, _ := json.Marshal(map[string]any{"ids": known})
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/groups/lookup", Body: body, ContentType: "application/json; charset=utf-8"})
	t.RequireStatus(resp, http.StatusOK)
	v, err := resp.JSON()
	if err != nil {
		t.Fatalf(resp, "a JSON array of groups", "the body is not JSON: %v", err)
	}
	if n := len(objects(asArray(v))); n != len(known) {
		t.Failf(resp, fmt.Sprintf("the %d groups asked for", len(known)), "the lookup returned %d groups", n)
	}
}

// expect4xx records a failure unless resp is a client error.
func (t *T) expect4xx(resp *Response) bool {
	if resp.Status/100 == 4 {
		if resp.Status != http.StatusBadRequest {
			t.Notef("%s %s answered %d (a client error; 400 is the usual status)", resp.ex.Method, resp.ex.URL, resp.Status)
		}
		return true
	}
	t.Failf(resp, "a 4xx status", "%s %s answered %d", resp.ex.Method, resp.ex.URL, resp.Status)
	return false
}

// expectMarking checks a person reference's securityMarking: under
// --profile service it must be there (the spec: "Person references also
// carry securityMarking"), under --profile ss12000 only a value that is
// there must be allowed (the standard's PersonReference does not require
// it).
// It reports whether there was anything to judge.
func (t *T) expectMarking(resp *Response, ref map[string]any, where string) bool {
	v, ok := ref["securityMarking"]
	if !ok && t.standard() {
		return false
	}
	if m, _ := v.(string); !slices.Contains(securityMarkings, m) {
		t.Failf(resp, "securityMarking one of "+strings.Join(securityMarkings, ", "), "%s.securityMarking is %s", where, compact(v))
	}
	return true
}

// skipUnjudged skips a marking check that found nothing to judge.
func (t *T) skipUnjudged(judged int, what string) {
	if judged == 0 && !t.Failed() {
		t.Skipf("no %s carries a securityMarking to judge (under --profile ss12000 it is optional)", what)
	}
}
