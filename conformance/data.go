package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// memo computes a value once per run, for every check that needs it.
type memo[V any] struct {
	once sync.Once
	v    V
}

func (m *memo[V]) get(f func() V) V {
	m.once.Do(func() { m.v = f() })
	return m.v
}

// keyed is a memo per key.
type keyed[V any] struct {
	mu sync.Mutex
	m  map[string]*memo[V]
}

func (k *keyed[V]) get(key string, f func() V) V {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*memo[V]{}
	}
	m, ok := k.m[key]
	if !ok {
		m = &memo[V]{}
		k.m[key] = m
	}
	k.mu.Unlock()
	return m.get(f)
}

// sharedData is what checks fetch once and share.
type sharedData struct {
	placements memo[*bWalk]       // GET /placements, all pages, no parameters
	listed     keyed[[]string]    // ids from the first page of an interface B list
	lists      keyed[*listWalk]   // GET /{resource} of the standard, all pages
	aLists     keyed[*offsetWalk] // GET /{resource}, all pages of 50
	expired    memo[expiredToken] // a token that has run out
}

// doer sends a request: t.Do inside a check, env.do for shared data.
type doer func(Request) (*Response, error)

func (t *T) doer() doer { return func(r Request) (*Response, error) { return t.Do(r), nil } }

func (e *env) doer(ctx context.Context, label string) doer {
	return func(r Request) (*Response, error) { return e.do(ctx, label, r) }
}

// placement is the part of a Placement the runner evaluates filters on.
type placement struct {
	ID, PlacedAt, Group, Child, SchoolType, StartDate, EndDate string
	Owners                                                     []string
	Created, Modified                                          time.Time
	CreatedRaw, ModifiedRaw                                    string
	raw                                                        map[string]any
	page                                                       int // index of the walk's page that held it
}

func parsePlacement(m map[string]any) placement {
	p := placement{
		ID: str(m, "id"), PlacedAt: refID(m, "placedAt"), Group: refID(m, "group"), Child: refID(m, "child"),
		SchoolType: str(m, "schoolType"), StartDate: str(m, "startDate"), EndDate: str(m, "endDate"), raw: m,
	}
	for _, o := range objects(arr(m, "owners")) {
		p.Owners = append(p.Owners, str(o, "id"))
	}
	meta := obj(m, "meta")
	p.CreatedRaw, p.ModifiedRaw = str(meta, "created"), str(meta, "modified")
	p.Created, _ = time.Parse(time.RFC3339Nano, p.CreatedRaw)
	p.Modified, _ = time.Parse(time.RFC3339Nano, p.ModifiedRaw)
	return p
}

// bWalk is a pageToken walk of GET /placements, its records parsed.
type bWalk struct {
	*listWalk
	items []placement // the walk's records, parsed; page is the page each came on
}

// walkPlacements is walkList over GET /placements.
func (e *env) walkPlacements(do doer, query url.Values, limit int) *bWalk {
	lw := e.walkList(do, "/placements", query, limit, nil)
	w := &bWalk{listWalk: lw, items: make([]placement, len(lw.items))}
	for i, o := range lw.items {
		w.items[i] = parsePlacement(o)
		w.items[i].page = lw.pageOf[i]
	}
	return w
}

// describeDoError words an error of env.do for a walk's problem.
func describeDoError(err error, maxBody int64) string {
	if errors.Is(err, errBodyTooLarge) {
		return fmt.Sprintf("a page is larger than the runner's cap of %d bytes", maxBody)
	}
	return err.Error()
}

// allPlacements is the unfiltered set: GET /placements without parameters,
// every page, fetched once per run.
func (e *env) allPlacements(ctx context.Context) *bWalk {
	return e.data.placements.get(func() *bWalk {
		return e.walkPlacements(e.doer(ctx, "B.placements (shared walk)"), nil, 0)
	})
}

// requirePlacements returns the unfiltered set or skips the check.
func (t *T) requirePlacements() []placement {
	t.requireAuth(SurfaceB)
	w := t.env.allPlacements(t.ctx)
	if w.problem != "" || !w.complete {
		t.Skipf("the unfiltered placement list could not be walked (%s); see B.placements.walk", w.problem)
	}
	if len(w.items) == 0 {
		t.Skipf("the server holds no placements, so there is nothing to compare")
	}
	return w.items
}

// requireAuth skips the check when requests to the surface cannot carry
// credentials: no access token can be had (or, for interface A with
// --legacy-auth, no client credentials were given).
func (t *T) requireAuth(s Surface) {
	if s == SurfaceA && t.env.cfg.LegacyAuth {
		if t.env.cfg.ClientID == "" || t.env.cfg.ClientSecret == "" {
			t.Skipf("no client credentials (--client-id, --client-secret or SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET)")
		}
		return
	}
	if _, err := t.env.token(); err != nil {
		t.Skipf("%v", err)
	}
}

// offsetWalk is an offset walk of an interface A or export list.
type offsetWalk struct {
	items       []map[string]any
	total       int
	shape       string // "data" or "data.resultArray"
	first       *Response
	pages       []*Response
	complete    bool
	problem     string
	problemResp *Response
	dups        []string
	totals      []int
	endless     bool // stopped by the bounds, not by an answer that was no page
}

// walkOffsets reads every page of a list: offset 0, limit, 2·limit, ...
// until offset reaches pagination.total. method POST with body walks a
// search.
func (e *env) walkOffsets(do doer, s Surface, method, path string, body any, limit int) *offsetWalk {
	w := e.walkOffsetsOnce(do, s, method, path, body, limit)
	e.walks.note(method+" "+path, w.complete, w.endless, w.problem, w.problemResp)
	return w
}

func (e *env) walkOffsetsOnce(do doer, s Surface, method, path string, body any, limit int) *offsetWalk {
	w := &offsetWalk{}
	seen := map[string]bool{}
	var bytes int64
	for offset, page := 0, 0; ; page++ {
		if page >= e.cfg.MaxPages {
			w.problem, w.endless = fmt.Sprintf("the walk did not end within --max-pages=%d pages", e.cfg.MaxPages), true
			return w
		}
		q := url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}}
		resp, err := do(Request{Surface: s, Method: method, Path: path, Query: q, JSON: body})
		if err != nil {
			w.problem, w.problemResp = describeDoError(err, e.cfg.MaxBodyBytes), resp
			return w
		}
		w.pages = append(w.pages, resp)
		if w.first == nil {
			w.first = resp
		}
		bytes += int64(len(resp.Body))
		if resp.Status != http.StatusOK {
			w.problem, w.problemResp = fmt.Sprintf("%s %s answered %d", method, path, resp.Status), resp
			return w
		}
		items, shape, total, err := listPage(resp)
		if err != nil {
			w.problem, w.problemResp = err.Error(), resp
			return w
		}
		if w.shape == "" {
			w.shape, w.total = shape, total
		}
		w.totals = append(w.totals, total)
		for _, it := range items {
			id := str(it, "id")
			if id != "" && seen[id] {
				w.dups = append(w.dups, id)
				continue
			}
			seen[id] = true
			w.items = append(w.items, it)
		}
		offset += limit
		if len(items) == 0 || offset >= w.total {
			w.complete = true
			return w
		}
		if bytes > e.cfg.MaxWalkBytes {
			w.problem, w.endless = fmt.Sprintf("the walk passed the runner's budget of %d bytes (--max-walk-bytes)", e.cfg.MaxWalkBytes), true
			return w
		}
	}
}

// listPage reads one page of an interface A or export list: its items
// (from data, or data.resultArray), which shape it used, and
// pagination.total.
func listPage(resp *Response) ([]map[string]any, string, int, error) {
	body, err := resp.Object()
	if err != nil {
		return nil, "", 0, fmt.Errorf("the list body is not a JSON object: %v", err)
	}
	var items []any
	shape := ""
	switch d := body["data"].(type) {
	case []any:
		items, shape = d, "data"
	case map[string]any:
		if ra, ok := d["resultArray"].([]any); ok {
			items, shape = ra, "data.resultArray"
		}
	}
	if shape == "" {
		return nil, "", 0, fmt.Errorf(`the list has neither a "data" array nor "data.resultArray"`)
	}
	pg := obj(body, "pagination")
	total, ok := intOf(pg["total"])
	if !ok {
		return nil, "", 0, fmt.Errorf(`the list has no integer "pagination.total"`)
	}
	return objects(items), shape, int(total), nil
}

// pagination returns a page's pagination object as integers.
func pagination(resp *Response) (offset, limit, total int64, ok bool) {
	body, err := resp.Object()
	if err != nil {
		return 0, 0, 0, false
	}
	pg := obj(body, "pagination")
	o, ok1 := intOf(pg["offset"])
	l, ok2 := intOf(pg["limit"])
	tt, ok3 := intOf(pg["total"])
	return o, l, tt, ok1 && ok2 && ok3
}

// aListPageSize is the page size of the shared interface A walks: the
// spec's default.
const aListPageSize = 50

// aList is the full list of an interface A resource, walked once per run.
func (e *env) aList(ctx context.Context, path string) *offsetWalk {
	return e.data.aLists.get(path, func() *offsetWalk {
		return e.walkOffsets(e.doer(ctx, "A"+path+" (shared walk)"), SurfaceA, http.MethodGet, path, nil, aListPageSize)
	})
}

// requireAList returns the full list of an interface A resource or skips.
func (t *T) requireAList(path string) *offsetWalk {
	t.requireAuth(SurfaceA)
	w := t.env.aList(t.ctx, path)
	if w.problem != "" || !w.complete {
		t.Skipf("the list %s could not be walked (%s)", path, w.problem)
	}
	return w
}
