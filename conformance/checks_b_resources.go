package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/skolkit/skolkit/openapi"
)

// Generic read checks of the SS 12000 resources beyond the spec's
// placements, groups, syllabuses, attendances and absences: each
// list is walked to its end, a record of the walk is fetched by id and
// looked up. Every answer is also validated against the contract by the
// runner. They judge by SS 12000 2.1.0, whose sentences they quote; a
// server that answers 404 to a list (the service's spec names only a slice
// of SS 12000) has the resource's checks skipped, not failed.

// bResource is an SS 12000 resource with a list.
type bResource struct {
	path string // "/organisations"
	// required are the query parameters SS 12000 requires on the list
	// (calendarEvents' startTime bounds), sent on every page.
	required url.Values
	// filters go with the first page only (the pageToken carries them).
	filters url.Values
	byID    bool
	lookup  bool
}

var bResources = []bResource{
	{path: "/organisations", byID: true, lookup: true},
	{path: "/persons", byID: true, lookup: true},
	{path: "/duties", byID: true, lookup: true},
	{path: "/groups", byID: false, lookup: false}, // by id and lookup: B.records
	{path: "/programmes", byID: true, lookup: true},
	{path: "/studyplans", byID: true},
	{path: "/syllabuses", lookup: true},
	{path: "/schoolUnitOfferings", byID: true, lookup: true},
	{path: "/activities", byID: true, lookup: true},
	{path: "/calendarEvents", byID: true, lookup: true, required: url.Values{
		"startTime.onOrAfter": {"1900-01-01T00:00:00Z"}, "startTime.onOrBefore": {"2200-01-01T00:00:00Z"},
	}},
	{path: "/attendances", lookup: true},
	{path: "/attendanceEvents", byID: true, lookup: true},
	{path: "/attendanceSchedule", byID: true, lookup: true},
	{path: "/grades", byID: true, lookup: true},
	{path: "/absences", lookup: true},
	{path: "/resources", byID: true, lookup: true},
	{path: "/rooms", byID: true, lookup: true},
	{path: "/aggregatedAttendance", required: url.Values{"startDate": {"1900-01-01"}, "endDate": {"2200-01-01"}}},
}

// Sentences of SS 12000 2.1.0 (the parameter and operation descriptions
// every list, by-id and lookup operation shares).
var (
	specSSPageToken = SpecRef{Section: "SS 12000 2.1.0: list operations, parameter pageToken",
		Quote: "Ett opakt värde som servern givit som svar på en tidigare ställd fråga. Kan inte komibineras med andra filter men väl med `limit`.", Decision: "resource-engine"}
	specSSByID   = SpecRef{Section: "SS 12000 2.1.0: GET /{resource}/{id}", Quote: "Hämta en organisation baserat på ID", Decision: "resource-engine"}
	specSSLookup = SpecRef{Section: "SS 12000 2.1.0: POST /{resource}/lookup",
		Quote: "Istället för att hämta organisationer en i taget med en loop av GET-anrop så finns det även möjlighet att hämta många organisationer på en gång genom att skicka ett anrop med en lista med önskade organisationer.", Decision: "lookups-by-other-keys"}
)

func bResourceChecks() []*Check {
	b := []Surface{SurfaceB}
	var cs []*Check
	for _, r := range bResources {
		if slices.ContainsFunc(openapi.StandardResources, func(sr openapi.StandardResource) bool { return sr.Path == r.path }) {
			continue // walked, fetched by id and looked up by the generic checks (checks_b_generic.go)
		}
		res := r.path[1:]
		area := "B.resources"
		cs = append(cs, &Check{ID: "B." + res + ".list-walk", Title: "the pageToken walk of GET " + r.path + " with limit=7 ends, each page within limit, without repeats",
			Area: area, Severity: MUST, Needs: b, Spec: specSSPageToken, Run: checkResourceWalk(r)})
		if r.byID {
			cs = append(cs, &Check{ID: "B." + res + ".list-by-id", Title: "GET " + r.path + "/{id} answers the record the list returned",
				Area: area, Severity: MUST, Needs: b, Spec: specSSByID, Run: checkResourceByID(r)})
		}
		if r.lookup {
			cs = append(cs, &Check{ID: "B." + res + ".lookup-ids", Title: "POST " + r.path + "/lookup returns exactly the existing records among the ids asked for",
				Area: area, Severity: MUST, Needs: b, Spec: specSSLookup, Run: checkResourceLookup(r)})
		}
	}
	cs = append(cs,
		&Check{ID: "B.persons.lookup-civic-numbers", Title: "POST /persons/lookup with civicNos returns exactly the persons with those civic numbers",
			Area: "B.resources", Severity: MUST, Needs: b, Spec: specSSLookup, Run: checkPersonsLookupByCivicNo},
		&Check{ID: "B.organisations.filter-type", Title: "GET /organisations?type=T returns exactly the organisations of type T",
			Area: "B.resources", Severity: MUST, Needs: b, Spec: SpecRef{Section: "SS 12000 2.1.0: GET /organisations, parameter type",
				Quote: "Begränsa urvalet till utpekade typ.", Decision: "interface-b-indexes"}, Run: checkOrganisationsFilterType},
	)
	return cs
}

func checkPersonsLookupByCivicNo(t *T) {
	// The unfiltered list is a precondition: when it cannot be walked the
	// check skips and B.persons.list.walk reports why.
	want := map[string]string{} // civic number → id
	for _, p := range t.requireList(standardResource("/persons")) {
		if c := str(obj(p, "civicNo"), "value"); c != "" && len(want) < 5 {
			want[c] = str(p, "id")
		}
	}
	if len(want) == 0 {
		t.Skipf("no person with a civic number to look up")
	}
	var civics, ids []string
	for c, id := range want {
		civics = append(civics, c)
		ids = append(ids, id)
	}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/persons/lookup", JSON: map[string]any{"civicNos": civics}})
	t.RequireStatus(resp, http.StatusOK)
	v, err := resp.JSON()
	list, ok := v.([]any)
	if err != nil || !ok {
		t.Fatalf(resp, "a JSON array", "the body is %s", jsonKind(v))
	}
	var got []string
	for _, o := range objects(list) {
		got = append(got, str(o, "id"))
	}
	slices.Sort(got)
	slices.Sort(ids)
	if !slices.Equal(got, ids) {
		t.Failf(resp, fmt.Sprintf("exactly the persons %v", ids), "the lookup by civic number returned %v", got)
	}
}

func checkOrganisationsFilterType(t *T) {
	all := t.requireList(standardResource("/organisations")) // a precondition, as in checkPersonsLookupByCivicNo
	byType := map[string][]string{}
	for _, o := range all {
		byType[str(o, "organisationType")] = append(byType[str(o, "organisationType")], str(o, "id"))
	}
	for typ, want := range byType {
		if typ == "" {
			continue
		}
		got := t.walkResource(bResource{path: "/organisations", filters: url.Values{"type": {typ}}})
		var ids []string
		for _, o := range got {
			ids = append(ids, str(o, "id"))
		}
		slices.Sort(ids)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Failf(t.last, fmt.Sprintf("the %d organisations of type %s", len(want), typ), "type=%s returned %d organisations", typ, len(ids))
		}
	}
}

// walkResource walks a list with limit 7 and returns its records; it fails
// on a page over the limit or a repeated id, and skips after 2,000 pages.
func (t *T) walkResource(r bResource) []map[string]any {
	var all []map[string]any
	seen := map[string]bool{}
	q := url.Values{"limit": {"7"}}
	for k, v := range r.required {
		q[k] = v
	}
	for k, v := range r.filters {
		q[k] = v
	}
	for pages := 0; ; pages++ {
		if pages == 2000 {
			t.Skipf("GET %s: the walk did not end within 2,000 pages of 7", r.path)
		}
		resp := t.Get(SurfaceB, r.path, q)
		if pages == 0 && (resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed || resp.Status == http.StatusNotImplemented) {
			// The standard makes no operation mandatory: a 404, 405 or 501
			// list is one the server does not offer, as for the generic
			// checks.
			t.Skipf("GET %s answered %d: the server does not serve this SS 12000 operation", r.path, resp.Status)
		}
		t.RequireStatus(resp, http.StatusOK)
		body := t.RequireObject(resp)
		data := objects(arr(body, "data"))
		if len(data) > 7 {
			t.Failf(resp, "at most 7 records", "limit=7 returned %d records", len(data))
		}
		for _, d := range data {
			id := str(d, "id")
			if id != "" && seen[id] {
				t.Fatalf(resp, "each record once", "record %s came twice in the walk", id)
			}
			seen[id] = true
			all = append(all, d)
		}
		tok := str(body, "pageToken")
		if tok == "" {
			return all
		}
		q = url.Values{"pageToken": {tok}}
		for k, v := range r.required {
			q[k] = v
		}
	}
}

func checkResourceWalk(r bResource) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		all := t.walkResource(r)
		t.Notef("%d records", len(all))
	}
}

func (t *T) resourceIDs(r bResource, n int) []string {
	var ids []string
	for _, d := range t.walkResource(r) {
		if id := str(d, "id"); id != "" && len(ids) < n {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Skipf("GET %s returned no record with an id to look at", r.path)
	}
	return ids
}

func checkResourceByID(r bResource) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		for _, id := range t.resourceIDs(r, 3) {
			resp := t.Get(SurfaceB, r.path+"/"+id, nil)
			if !t.ExpectStatus(resp, http.StatusOK) {
				continue
			}
			if got := str(t.RequireObject(resp), "id"); got != id {
				t.Failf(resp, "the record "+id, "GET %s/%s answered the record %q", r.path, id, got)
			}
		}
	}
}

func checkResourceLookup(r bResource) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		known := t.resourceIDs(r, 5)
		ask := append(slices.Clone(known), unknownID)
		resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: r.path + "/lookup", JSON: map[string]any{"ids": ask}})
		t.requireLookupOf(resp, known)
	}
}

// requireLookupOf requires a lookup's answer, asked for known plus
// unknownID, to be a 200 with exactly the known records.
func (t *T) requireLookupOf(resp *Response, known []string) {
	t.RequireStatus(resp, http.StatusOK)
	v, err := resp.JSON()
	list, ok := v.([]any)
	if err != nil || !ok {
		t.Fatalf(resp, "a JSON array of records", "the body is %s", jsonKind(v))
	}
	var got []string
	for _, o := range objects(list) {
		got = append(got, str(o, "id"))
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(known))
	if !slices.Equal(got, want) {
		t.Failf(resp, fmt.Sprintf("exactly the records %v (the unknown id %s left out)", want, unknownID), "the lookup returned %v", got)
	}
}
