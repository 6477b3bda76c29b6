package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
		if res.ByID && !hand[res.Path] {
			cs = append(cs, mk("unknown-id", "GET "+res.Path+"/{id} with an unknown id is 404 and with a malformed id 400 (after a listed id answered 200)", SpecRef{Section: "SS 12000 2.1.0: GET " + res.Path + "/{id}", Quote: "400: Felaktigt id. … 404: Posten hittades inte."}, genericUnknownID(res)))
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
	// endless: the walk was stopped without an end (the bounds, a loop, no
	// progress), not by an answer that was no page.
	endless bool
}

// walkList follows pageToken from a first request with query (and limit,
// when positive) until pageToken is null, within the runner's bounds.
// required are the list's required parameters, sent beside a pageToken only
// when the token alone is answered 400. Every answer is validated against
// the contract when it has the operation (Request.Outside).
func (e *env) walkList(do doer, path string, query url.Values, limit int, required url.Values) *listWalk {
	w := e.walkListOnce(do, path, query, limit, required)
	e.walks.note("GET "+path, w.complete, w.endless, w.problem, w.problemResp)
	return w
}

func (e *env) walkListOnce(do doer, path string, query url.Values, limit int, required url.Values) *listWalk {
	w := &listWalk{}
	seenTok, seenID := map[string]bool{}, map[string]bool{}
	var bytes int64
	next := ""
	get := func(q url.Values) (*Response, error) {
		return do(Request{Surface: SurfaceB, Method: http.MethodGet, Path: path, Query: q, Outside: true})
	}
	for page := 0; ; page++ {
		if page >= e.cfg.MaxPages {
			w.problem, w.endless = fmt.Sprintf("the walk did not end within --max-pages=%d pages", e.cfg.MaxPages), true
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
			if id != "" && seenID[id] {
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
			w.problem, w.problemResp, w.endless = "a pageToken came back a second time: the walk loops", resp, true
			return w
		case len(data) > 0 && fresh == 0:
			w.problem, w.problemResp, w.endless = "a page held only records already walked: the walk makes no progress", resp, true
			return w
		case bytes > e.cfg.MaxWalkBytes:
			w.problem, w.endless = fmt.Sprintf("the walk passed the runner's budget of %d bytes (--max-walk-bytes)", e.cfg.MaxWalkBytes), true
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
		t.Skipf("the list %s could not be walked (%s); see contract.B.response and all.walks-end", path, w.problem)
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

// standardResource returns the table entry of a list path.
func standardResource(path string) openapi.StandardResource {
	for _, r := range openapi.StandardResources {
		if r.Path == path {
			return r
		}
	}
	return openapi.StandardResource{Path: path}
}
