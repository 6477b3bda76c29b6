package conformance

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skolkit/skolkit/openapi"
)

// Generic interface B checks: one set per resource of the SS 12000 standard
// that has a list (openapi.StandardResources), derived from the table
// instead of written out per resource. A server that does not offer a
// resource (its list answers 404, 405 or 501) has those checks skipped with
// the reason: the standard is modular, and a server implements the parts it
// declares.
//
// Under --profile service the checks are SHOULD: the service's spec names
// no list of these resources (it reads placements only), so the standard's
// behaviour is a recommendation there; under --profile ss12000 they are
// MUST. /placements is left out: its own checks (checks_b_placements.go)
// go deeper.

var specStandardList = SpecRef{Section: "SS 12000 2.1.0: list operations", Quote: "pageToken: Ett opakt värde som servern givit som svar på en tidigare ställd fråga. Kan inte kombineras med andra filter men väl med `limit`. … limit: Antal poster som ska visas i resultatet. … pageToken (in the answer): Om värdet är null finns inget mer att hämta."}

func bGenericChecks() []*Check {
	var cs []*Check
	b := []Surface{SurfaceB}
	hand := map[string]bool{}
	for _, r := range bRecords {
		hand[r.path] = true
	}
	for _, res := range openapi.StandardResources {
		if res.Path == "/placements" {
			continue
		}
		name := strings.TrimPrefix(res.Path, "/")
		mk := func(id, title string, spec SpecRef, run func(*T)) *Check {
			return &Check{ID: "B." + name + ".list." + id, Title: title, Area: "B.standard", Severity: SHOULD, Standard: MUST, Needs: b, Spec: spec, Run: run}
		}
		cs = append(cs, mk("walk", "GET "+res.Path+": the pageToken walk ends without repeats, and a walk with a small limit keeps every page within it and yields the same set", specStandardList, genericWalk(res)))
		if res.ByID {
			cs = append(cs, mk("by-id", "GET "+res.Path+"/{id} answers 200 with the record of each listed id", SpecRef{Section: "SS 12000 2.1.0: GET " + res.Path + "/{id}", Quote: "200: Anropet lyckades. … 404: Posten hittades inte."}, genericByID(res)))
			if !hand[res.Path] {
				cs = append(cs, mk("unknown-id", "GET "+res.Path+"/{id} with an unknown id is 404 and with a malformed id 400 (after a listed id answered 200)", SpecRef{Section: "SS 12000 2.1.0: GET " + res.Path + "/{id}", Quote: "400: Felaktigt id. … 404: Posten hittades inte."}, genericUnknownID(res)))
			}
		}
		if res.Lookup {
			cs = append(cs, mk("lookup", "POST "+res.Path+"/lookup returns exactly the listed records among the ids asked for", SpecRef{Section: "SS 12000 2.1.0: POST " + res.Path + "/lookup", Quote: "Istället för att hämta … en i taget med en loop av GET-anrop så finns det även möjlighet att hämta många … på en gång genom att skicka ett anrop med en lista med önskade …"}, genericLookup(res)))
		}
		cs = append(cs, mk("meta-modified", "meta.modified.before keeps a record modified at the bound, meta.modified.after leaves it out, as the runner's own filtering says", SpecRef{Section: "SS 12000 2.1.0: GET " + res.Path, Quote: "meta.modified.before: Endast poster modifierade på eller före detta timestamp … Inkluderande. meta.modified.after: Endast poster modifierade efter detta timestamp … Exkluderande."}, genericMetaModified(res)))
		if res.ModifiedDesc {
			cs = append(cs, mk("sort-modified", "sortkey=ModifiedDesc orders the whole walk by meta.modified, newest first, and keeps every record", SpecRef{Section: "SS 12000 2.1.0: GET " + res.Path, Quote: "sortkey: Anger hur resultatet ska sorteras. (ModifiedDesc)"}, genericSortModified(res)))
		}
		cs = append(cs, &Check{ID: "B." + name + ".list.references-resolve", Title: "references of listed records resolve: the record a reference points to answers 200, with the reference's displayName and, for persons, its securityMarking", Area: "B.standard", Severity: SHOULD, Standard: SHOULD, Needs: b,
			Spec:   SpecRef{Section: "SS 12000 2.1.0: ObjectReference", Quote: "displayName: Namn för visningsyfte för det refererade objektet."},
			Choice: "that a reference resolves on the same server and names its record as the record names itself; a server may refer to records a client cannot read", Run: genericRefsResolve(res)})
		if fs := multiFilters[res.Path]; len(fs) > 0 {
			cs = append(cs, mk("filter-values", "the array filters ("+filterNames(fs)+") keep exactly the records with one of the values asked for, one value or two", SpecRef{Section: "SS 12000 2.1.0: GET " + res.Path, Quote: "the filters " + filterNames(fs) + " are declared as arrays (type: array): several values select the records matching any of them"}, genericFilterValues(res, fs)))
		}
		if res.ListNames {
			cs = append(cs, mk("reference-names", "displayName on the references of listed records exactly when expandReferenceNames=true", SpecRef{Section: "SS 12000 2.1.0: ObjectReference", Quote: "displayName: Namn för visningsyfte för det refererade objektet. Skall endast returneras när query parametern `expandReferenceNames` är satt till \"true\"."}, genericRefNames(res)))
		}
	}
	return cs
}

// listWalk is a pageToken walk of any interface B list: every record once,
// in the order walked, and why the walk stopped.
type listWalk struct {
	items    []map[string]any
	pageOf   []int       // the page (index into pages) each item came on
	pages    []*Response // every answer, the failed last one included
	sizes    []int       // the records each successful page held
	complete bool        // the last page's pageToken was null
	absent   bool        // the first page answered 404, 405 or 501: no such list
	// problem says why the walk cannot be trusted: an error answer, a body
	// that is not a page, a repeated pageToken, a page with nothing new, more
	// pages than --max-pages, more bytes than the walk budget.
	problem     string
	problemResp *Response
	dups        []string
}

func (w *listWalk) ids() map[string]bool {
	out := make(map[string]bool, len(w.items))
	for _, it := range w.items {
		out[str(it, "id")] = true
	}
	return out
}

// walkList follows pageToken from a first request with query (and limit,
// when positive) until pageToken is null, within the runner's bounds.
// required are the list's required parameters, sent beside a pageToken only
// when the token alone is answered 400. Every answer is validated against
// the contract when it has the operation (Request.Outside).
func (e *env) walkList(do doer, path string, query url.Values, limit int, required url.Values) *listWalk {
	w := &listWalk{}
	seenTok, seenID := map[string]bool{}, map[string]bool{}
	var bytes int64
	next := ""
	get := func(q url.Values) (*Response, error) {
		return do(Request{Surface: SurfaceB, Method: http.MethodGet, Path: path, Query: q, Outside: true})
	}
	for page := 0; ; page++ {
		if page >= e.cfg.MaxPages {
			w.problem = fmt.Sprintf("the walk did not end within --max-pages=%d pages", e.cfg.MaxPages)
			return w
		}
		q := url.Values{}
		if next == "" {
			for k, v := range query {
				q[k] = v
			}
		} else {
			q.Set("pageToken", next)
		}
		if limit > 0 {
			q.Set("limit", strconv.Itoa(limit))
		}
		resp, err := get(q)
		if err == nil && next != "" && resp.Status == http.StatusBadRequest && len(required) > 0 {
			// The standard makes some parameters required and also says a
			// pageToken combines with no filter: a server may want the
			// required ones beside the token. Ask again with them.
			for k, v := range required {
				q[k] = v
			}
			resp, err = get(q)
		}
		if resp != nil {
			w.pages = append(w.pages, resp)
		}
		if err != nil {
			w.problem, w.problemResp = describeDoError(err, e.cfg.MaxBodyBytes), resp
			return w
		}
		bytes += int64(len(resp.Body))
		if resp.Status != http.StatusOK {
			w.absent = page == 0 && (resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed || resp.Status == http.StatusNotImplemented)
			w.problem, w.problemResp = fmt.Sprintf("GET %s answered %d", path, resp.Status), resp
			return w
		}
		body, err := resp.Object()
		if err != nil {
			w.problem, w.problemResp = "the page is not a JSON object: "+err.Error(), resp
			return w
		}
		data, ok := body["data"].([]any)
		if !ok {
			w.problem, w.problemResp = `the page has no "data" array`, resp
			return w
		}
		w.sizes = append(w.sizes, len(data))
		fresh := 0
		for _, o := range objects(data) {
			id := str(o, "id")
			if seenID[id] {
				w.dups = append(w.dups, id)
				continue
			}
			seenID[id] = true
			w.items = append(w.items, o)
			w.pageOf = append(w.pageOf, len(w.pages)-1)
			fresh++
		}
		tok, _ := body["pageToken"].(string)
		switch {
		case tok == "":
			w.complete = true
			return w
		case seenTok[tok]:
			w.problem, w.problemResp = "a pageToken came back a second time: the walk loops", resp
			return w
		case len(data) > 0 && fresh == 0:
			w.problem, w.problemResp = "a page held only records already walked: the walk makes no progress", resp
			return w
		case bytes > e.cfg.MaxWalkBytes:
			w.problem = fmt.Sprintf("the walk passed the runner's budget of %d bytes (--max-walk-bytes)", e.cfg.MaxWalkBytes)
			return w
		}
		seenTok[tok] = true
		next = tok
	}
}

// getStd is a GET of a standard operation our contract may not have.
func (t *T) getStd(path string, q url.Values) *Response {
	return t.Do(Request{Surface: SurfaceB, Method: http.MethodGet, Path: path, Query: q, Outside: true})
}

// baseQuery is what every first request to a list carries: its required
// parameters, with bounds wide enough to keep every record (the standard
// requires a time window on the calendar-event list).
func baseQuery(res openapi.StandardResource) url.Values {
	q := url.Values{}
	for _, name := range res.Required {
		switch {
		case strings.HasSuffix(name, ".onOrAfter"):
			q.Set(name, "1900-01-01T00:00:00Z")
		case strings.HasSuffix(name, ".onOrBefore"):
			q.Set(name, "2999-12-31T23:59:59Z")
		}
	}
	return q
}

// with returns the resource's base query with more parameters.
func with(res openapi.StandardResource, more url.Values) url.Values {
	q := baseQuery(res)
	for k, v := range more {
		q[k] = v
	}
	return q
}

// fullList is the unpaged walk of a list, once per run.
func (e *env) fullList(ctx context.Context, res openapi.StandardResource) *listWalk {
	return e.data.lists.get(res.Path, func() *listWalk {
		return e.walkList(e.doer(ctx, "B"+res.Path+" (shared walk)"), res.Path, baseQuery(res), 0, baseQuery(res))
	})
}

// requireList returns the records of a list or skips the check.
func (t *T) requireList(res openapi.StandardResource) []map[string]any {
	path := res.Path
	t.requireAuth(SurfaceB)
	w := t.env.fullList(t.ctx, res)
	switch {
	case w.absent:
		t.Skipf("GET %s answered %d: the server does not offer this resource", path, w.problemResp.Status)
	case w.problem != "" || !w.complete:
		t.Skipf("the list %s could not be walked (%s); see B.%s.list.walk", path, w.problem, strings.TrimPrefix(path, "/"))
	case len(w.items) == 0:
		t.Skipf("GET %s returned no records, so there is nothing to compare", path)
	}
	return w.items
}

// checkListWalk fails a walk that was cut short or repeated records.
func (t *T) checkListWalk(w *listWalk) {
	if len(w.dups) > 0 {
		t.Failf(w.pages[len(w.pages)-1], "each record exactly once", "the walk returned %d records more than once, e.g. %s", len(w.dups), strings.Join(first(w.dups, 3), ", "))
	}
	if w.problem != "" {
		resp := w.problemResp
		if resp == nil && len(w.pages) > 0 {
			resp = w.pages[len(w.pages)-1]
		}
		t.Fatalf(resp, "pageToken null on the last page", "%s", w.problem)
	}
}

// compareIDs fails when a walk's ids differ from want.
func (t *T) compareIDs(resp *Response, what string, want map[string]bool, got *listWalk) {
	walked := slices.Sorted(maps.Keys(got.ids()))
	self := func(id string) string { return id }
	compareSets(t, resp, what, want, walked, slices.Sorted(maps.Keys(want)), self, self)
}

func genericWalk(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceB)
		w := t.env.fullList(t.ctx, res)
		if w.absent {
			t.Skipf("GET %s answered %d: the server does not offer this resource", res.Path, w.problemResp.Status)
		}
		t.checkListWalk(w)
		if len(w.items) == 0 {
			t.Skipf("GET %s returned no records, so paging cannot be tested", res.Path)
		}
		k := max(1, len(w.items)/3)
		lw := t.env.walkList(t.doer(), res.Path, baseQuery(res), k, baseQuery(res))
		t.checkListWalk(lw)
		for i, n := range lw.sizes {
			if n > k {
				t.Failf(lw.pages[i], fmt.Sprintf("at most %d records", k), "page %d holds %d records with limit=%d", i+1, n, k)
			}
		}
		t.compareIDs(lw.pages[0], "the unpaged walk", w.ids(), lw)
		t.Notef("%d records; limit=%d: %d pages", len(w.items), k, len(lw.pages))
	}
}

func genericByID(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		items := t.requireList(res)
		for _, it := range first(items, 5) {
			id := str(it, "id")
			resp := t.getStd(res.Path+"/"+id, nil)
			if !t.ExpectStatus(resp, http.StatusOK) {
				continue
			}
			if got := str(t.RequireObject(resp), "id"); got != id {
				t.Failf(resp, "id "+id, "GET %s/%s returned the record with id %q", res.Path, id, got)
			}
			if diff := diffKeys(it, t.RequireObject(resp)); len(diff) > 0 {
				t.Notef("%s %s differs from the list in %s", res.Path, id, strings.Join(diff, ", "))
			}
		}
	}
}

func genericUnknownID(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		items := t.requireList(res)
		id := str(items[0], "id")
		if resp := t.getStd(res.Path+"/"+id, nil); resp.Status/100 != 2 {
			t.Skipf("GET %s/%s, a listed id, answered %d, so the route's answer to other ids proves nothing", res.Path, id, resp.Status)
		}
		t.ExpectStatus(t.getStd(res.Path+"/"+unknownID, nil), http.StatusNotFound)
		t.ExpectStatus(t.getStd(res.Path+"/"+malformedID, nil), http.StatusBadRequest)
	}
}

func genericLookup(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		items := t.requireList(res)
		var known []string
		for _, it := range first(items, 5) {
			known = append(known, str(it, "id"))
		}
		resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: res.Path + "/lookup", JSON: map[string]any{"ids": append(slices.Clone(known), unknownID)}, Outside: true})
		if resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed || resp.Status == http.StatusNotImplemented {
			t.Skipf("POST %s/lookup answered %d: the server does not offer the lookup", res.Path, resp.Status)
		}
		t.requireLookupOf(resp, known)
	}
}

// modifiedOf returns a record's meta.modified, parsed and raw.
func modifiedOf(it map[string]any) (time.Time, string) {
	raw := str(obj(it, "meta"), "modified")
	tm, _ := time.Parse(time.RFC3339Nano, raw)
	return tm, raw
}

func genericMetaModified(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		items := t.requireList(res)
		var dated []map[string]any
		for _, it := range items {
			if tm, _ := modifiedOf(it); !tm.IsZero() {
				dated = append(dated, it)
			}
		}
		if len(dated) == 0 {
			t.Skipf("no record of %s has a parseable meta.modified", res.Path)
		}
		sort.SliceStable(dated, func(i, j int) bool {
			a, _ := modifiedOf(dated[i])
			b, _ := modifiedOf(dated[j])
			return a.Before(b)
		})
		bound, raw := modifiedOf(dated[len(dated)/2])
		for _, tc := range []struct {
			param string
			keep  func(time.Time) bool
		}{
			{"meta.modified.before", func(tm time.Time) bool { return !tm.After(bound) }},
			{"meta.modified.after", func(tm time.Time) bool { return tm.After(bound) }},
		} {
			want := map[string]bool{}
			for _, it := range items {
				if tm, _ := modifiedOf(it); !tm.IsZero() && tc.keep(tm) {
					want[str(it, "id")] = true
				}
			}
			w := t.env.walkList(t.doer(), res.Path, with(res, url.Values{tc.param: {raw}}), 0, baseQuery(res))
			t.checkListWalk(w)
			t.compareIDs(w.pages[0], "the runner's filtering with "+tc.param+"="+raw, want, w)
		}
	}
}

func genericSortModified(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		items := t.requireList(res)
		w := t.env.walkList(t.doer(), res.Path, with(res, url.Values{"sortkey": {"ModifiedDesc"}}), 0, baseQuery(res))
		t.checkListWalk(w)
		want := map[string]bool{}
		for _, it := range items {
			want[str(it, "id")] = true
		}
		t.compareIDs(w.pages[0], "the unsorted walk", want, w)
		var prev time.Time
		for i, it := range w.items {
			tm, raw := modifiedOf(it)
			if tm.IsZero() {
				continue
			}
			if !prev.IsZero() && tm.After(prev) {
				t.Fatalf(w.pages[len(w.pages)-1], "records ordered by meta.modified, newest first", "record %d (%s, modified %s) comes after an older one (%s)", i+1, str(it, "id"), raw, prev.Format(time.RFC3339Nano))
			}
			prev = tm
		}
	}
}

// nestedRefs lists the reference-like objects nested in a record (outside
// _embedded): objects with an id and no meta. pure reports those with no
// members beyond id, displayName, securityMarking and extensions (x-...),
// which are certainly references.
func nestedRefs(rec map[string]any) (all, pure []map[string]any) {
	var walk func(v any, top bool)
	walk = func(v any, top bool) {
		switch x := v.(type) {
		case map[string]any:
			if !top {
				if _, ok := x["id"].(string); ok {
					if _, meta := x["meta"]; !meta {
						all = append(all, x)
						isPure := true
						for k := range x {
							if k != "id" && k != "displayName" && k != "securityMarking" && !strings.HasPrefix(k, "x-") {
								isPure = false
							}
						}
						if isPure {
							pure = append(pure, x)
						}
					}
				}
			}
			for k, c := range x {
				if k != "_embedded" {
					walk(c, false)
				}
			}
		case []any:
			for _, c := range x {
				walk(c, false)
			}
		}
	}
	walk(rec, true)
	return all, pure
}

// multiFilter is an array filter of a standard list and the record member
// it selects on (a dotted path).
type multiFilter struct{ param, field string }

// multiFilters are the standard's array filters whose member is plain to
// read from a record.
var multiFilters = map[string][]multiFilter{
	"/groups":        {{"groupType", "groupType"}, {"organisation", "organisation.id"}},
	"/organisations": {{"type", "organisationType"}, {"parent", "parentOrganisation.id"}},
	"/programmes":    {{"schoolType", "schoolType"}},
}

func filterNames(fs []multiFilter) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.param)
	}
	return strings.Join(out, ", ")
}

// fieldAt reads a dotted path of string members.
func fieldAt(rec map[string]any, path string) string {
	parts := strings.Split(path, ".")
	m := rec
	for _, p := range parts[:len(parts)-1] {
		if m = obj(m, p); m == nil {
			return ""
		}
	}
	return str(m, parts[len(parts)-1])
}

func genericFilterValues(res openapi.StandardResource, fs []multiFilter) func(*T) {
	return func(t *T) {
		items := t.requireList(res)
		tried := 0
		for _, f := range fs {
			count := map[string]int{}
			for _, it := range items {
				if v := fieldAt(it, f.field); v != "" {
					count[v]++
				}
			}
			values := slices.Collect(maps.Keys(count))
			sort.Slice(values, func(i, j int) bool {
				if count[values[i]] != count[values[j]] {
					return count[values[i]] > count[values[j]]
				}
				return values[i] < values[j]
			})
			if len(values) < 2 {
				continue
			}
			tried++
			for _, asked := range [][]string{values[:1], values[:2]} {
				want := map[string]bool{}
				for _, it := range items {
					if slices.Contains(asked, fieldAt(it, f.field)) {
						want[str(it, "id")] = true
					}
				}
				w := t.env.walkList(t.doer(), res.Path, with(res, url.Values{f.param: asked}), 0, baseQuery(res))
				t.checkListWalk(w)
				t.compareIDs(w.pages[0], fmt.Sprintf("the runner's filtering with %s=%s", f.param, strings.Join(asked, "&"+f.param+"=")), want, w)
			}
		}
		if tried == 0 {
			t.Skipf("the records of %s have fewer than two distinct values for each of %s", res.Path, filterNames(fs))
		}
	}
}

// refTargets maps the member names of references to the list of the
// resource they point to.
var refTargets = map[string]string{
	"organisation": "/organisations", "placedAt": "/organisations", "enroledAt": "/organisations", "parent": "/organisations",
	"student": "/persons", "child": "/persons", "person": "/persons", "owners": "/persons", "reporter": "/persons",
	"registeredBy": "/persons", "teacher": "/persons", "teachers": "/persons", "member": "/persons", "members": "/persons", "gradingTeacher": "/persons",
	"group": "/groups", "groups": "/groups", "calendarEvent": "/calendarEvents", "activity": "/activities",
	"placement": "/placements", "duty": "/duties", "programme": "/programmes", "syllabus": "/syllabuses",
}

// namedRefs lists the pure references of a record under the member names
// refTargets knows (outside _embedded), with the list they point to.
func namedRefs(rec map[string]any) []struct {
	target string
	ref    map[string]any
} {
	var out []struct {
		target string
		ref    map[string]any
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if target, ok := refTargets[key]; ok {
				if _, pure := nestedRefs(map[string]any{"r": x}); len(pure) == 1 {
					out = append(out, struct {
						target string
						ref    map[string]any
					}{target, x})
					return
				}
			}
			for k, c := range x {
				if k != "_embedded" {
					walk(k, c)
				}
			}
		case []any:
			for _, c := range x {
				walk(key, c)
			}
		}
	}
	walk("", rec)
	return out
}

func genericRefsResolve(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		t.requireList(res)
		resp := t.getStd(res.Path, with(res, url.Values{"expandReferenceNames": {"true"}, "limit": {"10"}}))
		t.RequireStatus(resp, http.StatusOK)
		seen := map[string]bool{}
		followed := 0
		for _, rec := range objects(arr(t.RequireObject(resp), "data")) {
			for _, r := range namedRefs(rec) {
				id := str(r.ref, "id")
				if !isUUID(id) || seen[r.target+"/"+id] || followed >= 15 {
					continue
				}
				seen[r.target+"/"+id] = true
				got := t.getStd(r.target+"/"+id, url.Values{"expandReferenceNames": {"true"}})
				if got.Status == http.StatusNotFound || got.Status == http.StatusMethodNotAllowed || got.Status == http.StatusNotImplemented {
					if w := t.env.fullList(t.ctx, standardResource(r.target)); w.absent {
						continue // the server does not offer the target resource
					}
				}
				if got.Status == http.StatusForbidden {
					t.Notef("GET %s/%s answered 403: the client may not read a record %s refers to", r.target, id, res.Path)
					continue
				}
				followed++
				if !t.ExpectStatus(got, http.StatusOK) {
					continue
				}
				target := t.RequireObject(got)
				if dn, ok := r.ref["displayName"].(string); ok && dn != "" {
					if own := ownName(target); own != "" && own != dn {
						t.Failf(got, "displayName "+own, "%s %s: the reference to %s%s has displayName %q, the record names itself %q", res.Path, str(rec, "id"), r.target, "/"+id, dn, own)
					}
				}
				if m, ok := r.ref["securityMarking"]; ok {
					if pm, ok := target["securityMarking"]; ok && !jsonEqual(m, pm) {
						t.Failf(got, "securityMarking "+compact(pm), "%s %s: the reference to person %s has securityMarking %s, the person %s", res.Path, str(rec, "id"), id, compact(m), compact(pm))
					}
				}
			}
		}
		if followed == 0 {
			t.Skipf("the first page of %s has no reference to a record the server offers", res.Path)
		}
		t.Notef("%d references followed", followed)
	}
}

// ownName is how a record names itself: displayName, or a person's given
// and family name.
func ownName(rec map[string]any) string {
	if dn := str(rec, "displayName"); dn != "" {
		return dn
	}
	return ""
}

// standardResource returns the table entry of a list path.
func standardResource(path string) openapi.StandardResource {
	for _, r := range openapi.StandardResources {
		if r.Path == path {
			return r
		}
	}
	return openapi.StandardResource{Path: path}
}

func genericRefNames(res openapi.StandardResource) func(*T) {
	return func(t *T) {
		t.requireList(res)
		page := func(q url.Values) (*Response, []map[string]any) {
			q = with(res, q)
			q.Set("limit", "20")
			resp := t.getStd(res.Path, q)
			t.RequireStatus(resp, http.StatusOK)
			return resp, objects(arr(t.RequireObject(resp), "data"))
		}
		resp, data := page(url.Values{"expandReferenceNames": {"true"}})
		seen := 0
		for _, rec := range data {
			_, pure := nestedRefs(rec)
			for _, ref := range pure {
				seen++
				if str(ref, "displayName") == "" {
					t.Failf(resp, "displayName on every reference", "%s %s: the reference to %s has no displayName with expandReferenceNames=true", res.Path, str(rec, "id"), str(ref, "id"))
					return
				}
			}
		}
		for _, q := range []url.Values{{}, {"expandReferenceNames": {"false"}}} {
			resp, data := page(q)
			for _, rec := range data {
				all, _ := nestedRefs(rec)
				for _, ref := range all {
					if _, ok := ref["displayName"]; ok {
						t.Failf(resp, "no displayName without expandReferenceNames=true", "%s %s: the reference to %s carries displayName (%s)", res.Path, str(rec, "id"), str(ref, "id"), q.Encode())
						return
					}
				}
			}
		}
		if seen == 0 {
			t.Skipf("the first page of %s has no references", res.Path)
		}
	}
}
