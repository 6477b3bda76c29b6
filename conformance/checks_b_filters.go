package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"time"
)

// A placement filter check: the runner picks a value from the unfiltered
// set, asks the server for the filtered set, evaluates the filter itself and
// compares. Values are chosen at the boundaries the spec names (a date that
// records have, a timestamp a record has), so inclusive and exclusive bounds
// are told apart.

const specFiltersUnnamed = "Filters without their parameter names: placements placed at an organisation element, placements in a group, placements of one child, placements with a given owner, created on or before (inclusive), created after (exclusive), modified on or before (inclusive), modified after (exclusive). Names of these parameters: not shown."

var specFilterParams = "Endpoints (interface B): placement list query parameters"

// filterCase is what a filter check asks and expects.
type filterCase struct {
	query url.Values
	keep  func(placement) bool
	show  func(placement) string
	skip  string
}

type bFilter struct {
	id, title string
	spec      SpecRef
	pick      func([]placement) filterCase
}

func bFilterChecks() []*Check {
	filters := []bFilter{
		{"startDate-onOrBefore", "startDate.onOrBefore keeps exactly the placements starting on or before the date", SpecRef{Section: specFilterParams, Quote: "`startDate.onOrBefore` | date | placements with `startDate` on or before the date"}, pickStartBefore},
		{"startDate-onOrAfter", "startDate.onOrAfter keeps exactly the placements starting on or after the date", SpecRef{Section: specFilterParams, Quote: "`startDate.onOrAfter` | date | placements with `startDate` on or after the date"}, pickStartAfter},
		{"endDate-onOrBefore", "endDate.onOrBefore keeps the placements ending on or before the date and every open-ended one", SpecRef{Section: specFilterParams, Quote: "`endDate.onOrBefore` | date | `endDate` on or before the date; records with no `endDate` are always included"}, pickEndBefore},
		{"endDate-onOrAfter", "endDate.onOrAfter keeps the placements ending on or after the date and every open-ended one", SpecRef{Section: specFilterParams, Quote: "`endDate.onOrAfter` | date | `endDate` on or after the date; records with no `endDate` are always included"}, pickEndAfter},
		{"endDate-keeps-open-ended", "endDate filters outside every endDate return exactly the open-ended placements", SpecRef{Section: specFilterParams, Quote: "`endDate.onOrBefore` | date | `endDate` on or before the date; records with no `endDate` are always included"}, nil},
		{"active-on-day", "startDate.onOrBefore=D&endDate.onOrAfter=D selects the placements active on D", SpecRef{Section: "Endpoints (interface B)", Quote: "The date filters can be combined to select active placements."}, pickActive},
		{"organisation", "organisation keeps exactly the placements placed at that organisation element", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "placement-parameter-names"}, pickRef("organisation", "placedAt", func(p placement) []string { return []string{p.PlacedAt} })},
		{"group", "group keeps exactly the placements in that group", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "placement-parameter-names"}, pickRef("group", "group", func(p placement) []string { return []string{p.Group} })},
		{"child", "child keeps exactly the placements of that child", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "placement-parameter-names"}, pickRef("child", "child", func(p placement) []string { return []string{p.Child} })},
		{"owner", "owner keeps exactly the placements with that owner", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "placement-parameter-names"}, pickRef("owner", "owners", func(p placement) []string { return p.Owners })},
		{"created-before", "meta.created.before is inclusive", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "filter-bounds"}, pickTime("meta.created.before", true, func(p placement) (time.Time, string) { return p.Created, p.CreatedRaw })},
		{"created-after", "meta.created.after is exclusive", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "filter-bounds"}, pickTime("meta.created.after", false, func(p placement) (time.Time, string) { return p.Created, p.CreatedRaw })},
		{"modified-before", "meta.modified.before is inclusive", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "filter-bounds"}, pickTime("meta.modified.before", true, func(p placement) (time.Time, string) { return p.Modified, p.ModifiedRaw })},
		{"modified-after", "meta.modified.after is exclusive", SpecRef{Section: "Endpoints (interface B)", Quote: specFiltersUnnamed, Decision: "filter-bounds"}, pickTime("meta.modified.after", false, func(p placement) (time.Time, string) { return p.Modified, p.ModifiedRaw })},
	}
	var cs []*Check
	for _, f := range filters {
		run := runFilter(f)
		if f.pick == nil {
			run = checkOpenEndedKept
		}
		cs = append(cs, &Check{ID: "B.placements.filter." + f.id, Title: f.title, Area: "B.filters", Severity: MUST, Needs: []Surface{SurfaceB}, Spec: f.spec, Run: run})
	}
	cs = append(cs, &Check{ID: "B.placements.filter.invalid-date", Title: "a filter date that is not a date is 400 (under --profile ss12000: a 4xx)", Area: "B.filters", Severity: SHOULD, Needs: []Surface{SurfaceB},
		Choice: "the status 400 (docs/decisions.md#interface-b-errors); the standard declares the format but no answer to a value outside it",
		Spec:   SpecRef{Section: "Resources: Conventions", Quote: "Date fields: string, format date (RFC 3339 full-date). Start and end dates are inclusive.", Decision: "interface-b-errors"}, Run: checkFilterInvalidDate})
	return cs
}

func runFilter(f bFilter) func(*T) {
	return func(t *T) {
		all := t.requirePlacements()
		fc := f.pick(all)
		if fc.skip != "" {
			t.Skipf("%s", fc.skip)
		}
		t.expectFiltered(all, fc)
	}
}

// expectFiltered walks the filtered list and compares it with the runner's
// own filtering of the unfiltered set.
func (t *T) expectFiltered(all []placement, fc filterCase) {
	w := t.env.walkPlacements(t.doer(), fc.query, 0)
	t.checkListWalk(w.listWalk)
	want := map[string]bool{}
	for _, p := range all {
		if fc.keep(p) {
			want[p.ID] = true
		}
	}
	t.comparePlacements(w.pages[0], "the runner's filtering of the unfiltered list", want, w, all, fc.show)
	q, _ := url.QueryUnescape(fc.query.Encode())
	t.Notef("%s: %d of %d placements match", q, len(want), len(all))
}

// median returns the middle of the sorted distinct values.
func median(values []string) string {
	slices.Sort(values)
	values = slices.Compact(values)
	return values[len(values)/2]
}

func startDates(all []placement) []string {
	var out []string
	for _, p := range all {
		out = append(out, p.StartDate)
	}
	return out
}

func endDates(all []placement) []string {
	var out []string
	for _, p := range all {
		if p.EndDate != "" {
			out = append(out, p.EndDate)
		}
	}
	return out
}

func showDates(p placement) string {
	end := p.EndDate
	if end == "" {
		end = "none"
	}
	return fmt.Sprintf("%s (startDate %s, endDate %s)", p.ID, p.StartDate, end)
}

func pickStartBefore(all []placement) filterCase {
	d := median(startDates(all))
	return filterCase{query: url.Values{"startDate.onOrBefore": {d}}, keep: func(p placement) bool { return p.StartDate <= d }, show: showDates}
}

func pickStartAfter(all []placement) filterCase {
	d := median(startDates(all))
	return filterCase{query: url.Values{"startDate.onOrAfter": {d}}, keep: func(p placement) bool { return p.StartDate >= d }, show: showDates}
}

func pickEndBefore(all []placement) filterCase {
	ends := endDates(all)
	if len(ends) == 0 {
		return filterCase{skip: "no placement has an endDate, so the bound cannot be tested"}
	}
	d := median(ends)
	return filterCase{query: url.Values{"endDate.onOrBefore": {d}}, keep: func(p placement) bool { return p.EndDate == "" || p.EndDate <= d }, show: showDates}
}

func pickEndAfter(all []placement) filterCase {
	ends := endDates(all)
	if len(ends) == 0 {
		return filterCase{skip: "no placement has an endDate, so the bound cannot be tested"}
	}
	d := median(ends)
	return filterCase{query: url.Values{"endDate.onOrAfter": {d}}, keep: func(p placement) bool { return p.EndDate == "" || p.EndDate >= d }, show: showDates}
}

func pickActive(all []placement) filterCase {
	d := median(startDates(all))
	return filterCase{
		query: url.Values{"startDate.onOrBefore": {d}, "endDate.onOrAfter": {d}},
		keep:  func(p placement) bool { return p.StartDate <= d && (p.EndDate == "" || p.EndDate >= d) },
		show:  showDates,
	}
}

// checkOpenEndedKept asks for end dates before the earliest and after the
// latest endDate: only open-ended placements can match.
func checkOpenEndedKept(t *T) {
	all := t.requirePlacements()
	ends := endDates(all)
	open := len(all) - len(ends)
	if open == 0 {
		t.Skipf("no placement is open-ended (every one has an endDate), so the rule cannot be tested")
	}
	if len(ends) == 0 {
		t.Skipf("no placement has an endDate, so a bound that excludes every dated placement cannot be told from no filtering")
	}
	slices.Sort(ends)
	before := shiftDate(ends[0], -1)
	after := shiftDate(ends[len(ends)-1], 1)
	onlyOpen := func(p placement) bool { return p.EndDate == "" }
	t.expectFiltered(all, filterCase{query: url.Values{"endDate.onOrBefore": {before}}, keep: onlyOpen, show: showDates})
	t.expectFiltered(all, filterCase{query: url.Values{"endDate.onOrAfter": {after}}, keep: onlyOpen, show: showDates})
}

func shiftDate(d string, days int) string {
	tm, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return tm.AddDate(0, 0, days).Format(time.DateOnly)
}

// pickRef filters by the most common referenced id (so that the filter
// keeps more than one record and leaves others out).
func pickRef(param, field string, ids func(placement) []string) func([]placement) filterCase {
	return func(all []placement) filterCase {
		count := map[string]int{}
		for _, p := range all {
			for _, id := range ids(p) {
				if id != "" {
					count[id]++
				}
			}
		}
		if len(count) == 0 {
			return filterCase{skip: fmt.Sprintf("no placement has a %s reference", field)}
		}
		var best string
		for id, n := range count {
			if best == "" || n > count[best] || (n == count[best] && id < best) {
				best = id
			}
		}
		return filterCase{
			query: url.Values{param: {best}},
			keep:  func(p placement) bool { return slices.Contains(ids(p), best) },
			show:  func(p placement) string { return fmt.Sprintf("%s (%s %v)", p.ID, field, ids(p)) },
		}
	}
}

// pickTime filters at the median timestamp a record has: "before" must keep
// that record (inclusive), "after" must leave it out (exclusive).
func pickTime(param string, inclusiveBefore bool, get func(placement) (time.Time, string)) func([]placement) filterCase {
	return func(all []placement) filterCase {
		var ps []placement
		for _, p := range all {
			if tm, _ := get(p); !tm.IsZero() {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			return filterCase{skip: "no placement has a parseable timestamp for " + param}
		}
		sort.SliceStable(ps, func(i, j int) bool {
			a, _ := get(ps[i])
			b, _ := get(ps[j])
			return a.Before(b)
		})
		bound, raw := get(ps[len(ps)/2])
		keep := func(p placement) bool {
			tm, _ := get(p)
			if tm.IsZero() {
				return false
			}
			if inclusiveBefore {
				return !tm.After(bound)
			}
			return tm.After(bound)
		}
		return filterCase{
			query: url.Values{param: {raw}},
			keep:  keep,
			show: func(p placement) string {
				_, r := get(p)
				return fmt.Sprintf("%s (%s)", p.ID, r)
			},
		}
	}
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
