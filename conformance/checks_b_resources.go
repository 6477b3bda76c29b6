package conformance

import (
	"fmt"
	"net/http"
	"slices"
)

// The lookup of persons by civic number. The walks, reads by id and
// lookups by id of every SS 12000 resource are the traffic of the rules
// (traffic.go); what they show is judged by the rules' families.

var (
	specSSLookup = SpecRef{Section: "SS 12000 2.1.0: POST /{resource}/lookup",
		Quote: "Istället för att hämta organisationer en i taget med en loop av GET-anrop så finns det även möjlighet att hämta många organisationer på en gång genom att skicka ett anrop med en lista med önskade organisationer.", Decision: "lookups-by-other-keys"}
)

func bResourceChecks() []*Check {
	b := []Surface{SurfaceB}
	return []*Check{
		{ID: "B.persons.lookup-civic-numbers", Title: "POST /persons/lookup with civicNos returns exactly the persons with those civic numbers",
			Area: "B.resources", Severity: MUST, Needs: b, Spec: specSSLookup, Run: checkPersonsLookupByCivicNo},
	}
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
