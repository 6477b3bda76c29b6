package conformance

import (
	"context"
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
	}
	area := "B.records"
	cs = append(cs,
		&Check{ID: "B.groups.expand-assignment-roles", Title: "expand=assignmentRoles embeds the roles, and nothing is embedded without it", Area: area, Severity: SHOULD, Needs: b, Spec: bRecords[1].spec, Run: checkGroupExpand},
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
