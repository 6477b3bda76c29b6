package conformance

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
)

// Sentences of the spec about the placement list of interface B.
var (
	specPageToken        = SpecRef{Section: "Endpoints (interface B): placement list query parameters", Quote: "`pageToken` | string | opaque value from an earlier response; cannot be combined with other filters, but can be combined with `limit`", Decision: "interface-b-paging"}
	specPageTokenNull    = SpecRef{Section: "Endpoints (interface B)", Quote: "When the response `pageToken` is null, nothing more can be fetched.", Decision: "interface-b-paging"}
	specLimitB           = SpecRef{Section: "Limits", Quote: "Interface B placement list: `limit` is at least 1. Without `limit` the server chooses the page size.", Decision: "interface-b-paging"}
	specLimitParam       = SpecRef{Section: "Endpoints (interface B): placement list query parameters", Quote: "`limit` | integer, at least 1 | number of records; when omitted the server returns as many as it chooses, continued through `pageToken`", Decision: "interface-b-paging"}
	specSort             = SpecRef{Section: "Endpoints (interface B)", Quote: "Name of the sort parameter: not shown. Its allowed values are `StartDateAsc`, `StartDateDesc`, `EndDateAsc`, `EndDateDesc`, `ModifiedDesc`.", Decision: "placement-parameter-names"}
	specExpand           = SpecRef{Section: "Resources: Placement (interface B)", Quote: "_embedded | object | present when `expand` asks for it: `child` (Person) and `owners` (array of Person)"}
	specRefNames         = SpecRef{Section: "Resources: Conventions", Quote: "Reference objects carry `id`. They carry `displayName` only when the query parameter `expandReferenceNames` is `true`. Person references also carry `securityMarking`."}
	specPersonRefMarking = SpecRef{Section: "Resources: Conventions", Quote: "Person references also carry `securityMarking`. … `securityMarking` reflects the population register. Allowed values: `Ingen`, `Sekretessmarkering`, `Skyddad folkbokföring`."}
	specSecMarking       = SpecRef{Section: "Resources: Conventions", Quote: "`securityMarking` reflects the population register. Allowed values: `Ingen`, `Sekretessmarkering`, `Skyddad folkbokföring`."}
	specSchoolTypeP      = SpecRef{Section: "Resources: Placement (interface B)", Quote: "schoolType | enum | only `FS`, `FTH`, `OPPFTH`"}
	specModified         = SpecRef{Section: "Resources: Conventions", Quote: "Data that appears only through `expand` or `expandReferenceNames` does not affect `modified`."}
	specMetaModified     = SpecRef{Section: "Resources: Conventions", Quote: "`modified` is the last time an attribute directly belonging to the entity changed."}
	specBIDFormat        = SpecRef{Section: "Resources: Conventions", Quote: "`id`: string, format uuid.", Decision: "interface-b-errors"}
	specBErrors          = SpecRef{Section: "Errors", Quote: "Error statuses of interface B: not shown.", Decision: "interface-b-errors"}
)

var (
	placementSchoolTypes = []string{"FS", "FTH", "OPPFTH"}
)

func bPlacementChecks() []*Check {
	b := []Surface{SurfaceB}
	cs := []*Check{
		{ID: "B.placements.limit-below-one", Title: "limit=0 and limit=-1 are refused with a 4xx (400 expected)", Area: "B.placements", Severity: MUST, Standard: SHOULD, Needs: b, Spec: specLimitB,
			Choice: "the status (400, docs/decisions.md#interface-b-paging); the standard declares limit an integer of at least 1 but no answer to a smaller one", Run: badLimits("0", "-1")},
		{ID: "B.placements.limit-not-integer", Title: "limit=abc and limit=1.5 are refused with a 4xx (400 expected)", Area: "B.placements", Severity: MUST, Standard: SHOULD, Needs: b, Spec: specLimitParam,
			Choice: "the status (400, docs/decisions.md#interface-b-paging); the standard declares limit an integer but no answer to anything else", Run: badLimits("abc", "1.5")},
		{ID: "B.placements.limit-large", Title: "a limit larger than the server's page size is 200 with at most limit records and a pageToken that continues to the whole set", Area: "B.placements", Severity: MUST, Needs: b, Spec: specLimitParam, Run: checkPlacementLimitLarge},
		{ID: "B.placements.pagetoken-with-filter", Title: "pageToken combined with a filter is 400", Area: "B.placements", Severity: MUST, Needs: b, Spec: specPageToken, Run: checkPageTokenWithFilter},
		{ID: "B.placements.pagetoken-with-sortkey", Title: "pageToken combined with sortkey is 400 (MUST under --profile ss12000: the standard's 400 names sortkey)", Area: "B.placements", Severity: SHOULD, Standard: MUST, Needs: b, Spec: specPageToken, Run: checkPageTokenWithSortkey},
		{ID: "B.placements.pagetoken-with-limit", Title: "pageToken combined with limit is accepted and sizes the next page", Area: "B.placements", Severity: MUST, Needs: b, Spec: specPageToken, Run: checkPageTokenWithLimit},
		{ID: "B.placements.pagetoken-unknown", Title: "a pageToken the server never issued is 400 (under --profile ss12000: a 4xx)", Area: "B.placements", Severity: SHOULD, Needs: b, Spec: specPageToken,
			Choice: "the status 400 (docs/decisions.md#pagetoken-signed); the standard documents no answer to a token it never issued", Run: checkPageTokenUnknown},
	}
	cs = append(cs,
		&Check{ID: "B.placements.sort.open-ended-position", Title: "EndDateAsc puts open-ended placements last, EndDateDesc first", Area: "B.placements", Severity: SHOULD, Needs: b, Choice: "where open-ended placements go (docs/decisions.md#order-without-sortkey)",
			Spec: SpecRef{Section: specSort.Section, Quote: specSort.Quote, Decision: "interface-b-paging"}, Run: checkSortOpenEnded},
		&Check{ID: "B.placements.sort.invalid", Title: "an unknown sortkey is 400 (under --profile ss12000: a 4xx)", Area: "B.placements", Severity: SHOULD, Needs: b, Spec: specSort,
			Choice: "the status 400 (docs/decisions.md#interface-b-errors); the standard declares the sortkey values but no answer to others", Run: checkSortInvalid},
		&Check{ID: "B.placements.school-type", Title: "every placement's schoolType is FS, FTH or OPPFTH", Area: "B.placements", Severity: MUST, Standard: Off, Needs: b, Spec: specSchoolTypeP, Run: checkPlacementSchoolType},
	)
	return cs
}

func first[S ~[]E, E any](s S, n int) S {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func badLimits(values ...string) func(*T) {
	return func(t *T) {
		t.requirePlacements()
		for _, v := range values {
			t.expect4xx(t.Get(SurfaceB, "/placements", url.Values{"limit": {v}}))
		}
	}
}

// checkPlacementLimitLarge asks for far more records than any server's page
// size: the standard sets no maximum, so the answer is a page (never an
// error) of at most limit records, and when it holds fewer than all of
// them, a pageToken whose walk yields the rest.
func checkPlacementLimitLarge(t *T) {
	t.requirePlacements()
	const limit = 100000
	w := t.env.walkPlacements(t.doer(), nil, limit)
	t.checkListWalk(w.listWalk)
	t.Notef("limit=%d: %d pages of %v records (each page's size and the walk's records are judged by paging.page-within-limit and paging.walks-agree)", limit, len(w.pages), w.sizes)
}

// firstPageToken returns the pageToken of GET /placements?limit=1, or skips.
func (t *T) firstPageToken() (string, []placement) {
	all := t.requirePlacements()
	resp := t.Get(SurfaceB, "/placements", url.Values{"limit": {"1"}})
	t.RequireStatus(resp, http.StatusOK)
	tok := str(t.RequireObject(resp), "pageToken")
	if tok == "" {
		t.Skipf("GET /placements?limit=1 returned no pageToken (%d placements exist), so there is no token to combine", len(all))
	}
	return tok, all
}

func checkPageTokenWithFilter(t *T) {
	tok, all := t.firstPageToken()
	p := all[0]
	filters := []url.Values{
		{"startDate.onOrBefore": {"2100-01-01"}},
		{"endDate.onOrAfter": {"1900-01-01"}},
		{"organisation": {orDefault(p.PlacedAt, unknownID)}},
		{"child": {orDefault(p.Child, unknownID)}},
		{"meta.modified.after": {"2000-01-01T00:00:00Z"}},
	}
	for _, f := range filters {
		f.Set("pageToken", tok)
		t.ExpectStatus(t.Get(SurfaceB, "/placements", f), http.StatusBadRequest)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func checkPageTokenWithSortkey(t *T) {
	tok, _ := t.firstPageToken()
	t.ExpectStatus(t.Get(SurfaceB, "/placements", url.Values{"pageToken": {tok}, "sortkey": {"StartDateAsc"}}), http.StatusBadRequest)
}

func checkPageTokenWithLimit(t *T) {
	tok, all := t.firstPageToken()
	resp := t.Get(SurfaceB, "/placements", url.Values{"pageToken": {tok}, "limit": {"2"}})
	t.RequireStatus(resp, http.StatusOK)
	n := len(arr(t.RequireObject(resp), "data"))
	if n > 2 {
		t.Failf(resp, "at most 2 records", "pageToken with limit=2 returned %d records", n)
	}
	if n == 0 && len(all) > 1 {
		t.Failf(resp, "the next record", "the second page is empty though %d placements exist", len(all))
	}
}

func checkPageTokenUnknown(t *T) {
	t.requirePlacements()
	resp := t.Get(SurfaceB, "/placements", url.Values{"pageToken": {"skolkit-conformance-not-a-page-token"}})
	if t.standard() {
		t.expect4xx(resp)
		return
	}
	t.ExpectStatus(resp, http.StatusBadRequest)
}

// sortWalk walks the list with a sortkey, or ends the check.
func (t *T) sortWalk(key string) (*bWalk, []placement) {
	all := t.requirePlacements()
	w := t.env.walkPlacements(t.doer(), url.Values{"sortkey": {key}}, 0)
	t.checkListWalk(w.listWalk)
	return w, all
}

func checkSortOpenEnded(t *T) {
	all := t.requirePlacements()
	open, dated := 0, 0
	for _, p := range all {
		if p.EndDate == "" {
			open++
		} else {
			dated++
		}
	}
	if open == 0 || dated == 0 {
		t.Skipf("needs placements with and without endDate (%d open-ended, %d with endDate)", open, dated)
	}
	for _, key := range []string{"EndDateAsc", "EndDateDesc"} {
		w, _ := t.sortWalk(key)
		wantLast := key == "EndDateAsc"
		for i, p := range w.items {
			atOpenEnd := (wantLast && i >= len(w.items)-open) || (!wantLast && i < open)
			if (p.EndDate == "") != atOpenEnd {
				where := "last"
				if !wantLast {
					where = "first"
				}
				t.Failf(w.pages[p.page], "open-ended placements "+where, "with sortkey=%s, record %d (%s, endDate %q) is out of place", key, i+1, p.ID, p.EndDate)
				break
			}
		}
	}
}

func checkSortInvalid(t *T) {
	t.requirePlacements()
	resp := t.Get(SurfaceB, "/placements", url.Values{"sortkey": {"StartDateSideways"}})
	if t.standard() {
		t.expect4xx(resp)
		return
	}
	t.ExpectStatus(resp, http.StatusBadRequest)
}

func checkPlacementSchoolType(t *T) {
	all := t.requirePlacements()
	walk := t.env.allPlacements(t.ctx)
	for _, p := range all {
		if !slices.Contains(placementSchoolTypes, p.SchoolType) {
			t.Fatalf(walk.pages[p.page], "schoolType FS, FTH or OPPFTH", "placement %s has schoolType %q", p.ID, p.SchoolType)
		}
	}
}

// sampleIDs picks up to n placements spread over the list, plus --id
// placement=... ids.
func (t *T) samplePlacements(n int) []placement {
	all := t.requirePlacements()
	var out []placement
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[i*len(all)/min(n, len(all))])
	}
	return out
}

// diffKeys names the top-level members in which two objects differ.
func diffKeys(a, b map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if !jsonEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			out = append(out, k+" (only in the second)")
		}
	}
	return out
}
