package conformance

import (
	"net/http"
	"net/url"
)

// What the placement filters select is judged by the filters rules over
// the walks of the rules' traffic (traffic.go): every filter the contract
// declares, at values the records have, so that inclusive and exclusive
// bounds are told apart. What is left here is the answer to a filter value
// that is not a date.

func bFilterChecks() []*Check {
	var cs []*Check
	cs = append(cs, &Check{ID: "B.placements.filter.invalid-date", Title: "a filter date that is not a date is 400 (under --profile ss12000: a 4xx)", Area: "B.filters", Severity: SHOULD, Needs: []Surface{SurfaceB},
		Choice: "the status 400 (docs/decisions.md#interface-b-errors); the standard declares the format but no answer to a value outside it",
		Spec:   SpecRef{Section: "Resources: Conventions", Quote: "Date fields: string, format date (RFC 3339 full-date). Start and end dates are inclusive.", Decision: "interface-b-errors"}, Run: checkFilterInvalidDate})
	return cs
}

func checkFilterInvalidDate(t *T) {
	t.requirePlacements()
	for _, param := range []string{"startDate.onOrBefore", "endDate.onOrAfter"} {
		resp := t.Get(SurfaceB, "/placements", url.Values{param: {"2024-13-45"}})
		if t.standard() {
			t.expect4xx(resp)
			continue
		}
		t.ExpectStatus(resp, http.StatusBadRequest)
	}
}
