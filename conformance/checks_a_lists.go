package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Sentences of the spec about interface A lists.
var (
	specAPaging   = SpecRef{Section: "Endpoints (interface A)", Quote: "Pagination on list and search: query `limit` (integer, default 50) and `offset` (integer, default 0); both optional."}
	specATotal    = SpecRef{Section: "Endpoints (interface A)", Quote: "A list response has the shape `data` plus `pagination`, where `pagination` holds integers `offset`, `limit`, `total`. `total` is the number of items that exist."}
	specAShape    = SpecRef{Section: "Endpoints (interface A)", Quote: "The nesting of the items inside `data` is stated in two ways (as an array in `data`, and as `data.resultArray`): not shown which one applies.", Decision: "list-data-flat"}
	specA400      = SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 400: request contains invalid parameters", Decision: "bad-request-or-unprocessable"}
	specA404      = SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 404: resource does not exist"}
	specAIDFormat = SpecRef{Section: "Endpoints (interface A)", Quote: "GET | /school/{id} | path id (uuid, required) | 200, the School", Decision: "bad-request-or-unprocessable"}
)

// aResource is an interface A resource the spec lists operations for.
type aResource struct {
	name string // "school"
	path string // "/school"
	// searchable fields the search checks filter on: an enum-like field, the
	// name field, and a reference field (may be "").
	enumField, nameField, refField string
	// nullable is a searchable field that may be null ("" if none).
	nullable string
	// listField is a searchable list field ("" if none): contains and
	// equals test its elements.
	listField string
}

var aResources = []aResource{
	{name: "school", path: "/school", enumField: "schoolType", nameField: "title", nullable: "unitCode"},
	{name: "group", path: "/group", enumField: "category", nameField: "title", refField: "schoolID", listField: "types"},
	{name: "unit", path: "/unit", nameField: "title", nullable: "description"},
}

func aListChecks() []*Check {
	a := []Surface{SurfaceA}
	var cs []*Check
	for _, r := range aResources {
		p := "A." + r.name
		cs = append(cs,
			&Check{ID: p + ".list.defaults", Title: "GET " + r.path + " without parameters pages with limit 50 and offset 0", Area: "A.lists", Severity: MUST, Needs: a, Spec: specAPaging, Run: checkListDefaults(r)},
			&Check{ID: p + ".list.limit", Title: "GET " + r.path + "?limit=2 returns two items and says so", Area: "A.lists", Severity: MUST, Needs: a, Spec: specAPaging, Run: checkListLimit(r)},
			&Check{ID: p + ".list.total", Title: "pagination.total equals the number of " + r.name + " records that exist", Area: "A.lists", Severity: MUST, Needs: a, Spec: specATotal, Run: checkListTotal(r)},
			&Check{ID: p + ".list.offset-walk", Title: "walking offset pages yields exactly total distinct items, each page full", Area: "A.lists", Severity: MUST, Needs: a, Spec: specAPaging, Run: checkListOffsetWalk(r)},
			&Check{ID: p + ".list.past-end", Title: "an offset at or past total gives an empty data", Area: "A.lists", Severity: MUST, Needs: a, Spec: specATotal, Run: checkListPastEnd(r)},
			&Check{ID: p + ".list.shape", Title: "the list nests its items in one of the two shapes the spec allows", Area: "A.lists", Severity: MUST, Needs: a, Spec: specAShape, Run: checkListShape(r)},
			&Check{ID: p + ".list.invalid-params", Title: "limit or offset that is not a non-negative integer is 400", Area: "A.lists", Severity: MUST, Needs: a, Spec: specA400, Run: checkListInvalid(r, "limit=abc", "offset=abc", "offset=-1")},
			&Check{ID: p + ".list.limit-zero", Title: "limit=0 is 400", Area: "A.lists", Severity: SHOULD, Needs: a, Spec: SpecRef{Section: specA400.Section, Quote: specA400.Quote, Decision: "interface-a-paging"}, Run: checkListInvalid(r, "limit=0")},
			&Check{ID: p + ".get.by-id", Title: "GET " + r.path + "/{id} returns the record the list returned", Area: "A.lists", Severity: MUST, Needs: a,
				Spec: SpecRef{Section: "Endpoints (interface A)", Quote: "GET | " + r.path + "/{id} | path id (uuid, required) | 200, the " + strings.ToUpper(r.name[:1]) + r.name[1:]}, Run: checkAGetByID(r)},
			&Check{ID: p + ".get.unknown-id", Title: "GET " + r.path + "/{id} with an unknown id is 404", Area: "A.lists", Severity: MUST, Needs: a, Spec: specA404, Run: checkAGetStatus(r, unknownID, http.StatusNotFound)},
			&Check{ID: p + ".get.malformed-id", Title: "GET " + r.path + "/{id} with an id that is not a UUID is 400", Area: "A.lists", Severity: MUST, Needs: a, Spec: specAIDFormat, Run: checkAGetStatus(r, malformedID, http.StatusBadRequest)},
		)
	}
	return cs
}

// firstListPage gets one page of a list.
func (t *T) firstListPage(r aResource, q url.Values) (*Response, []map[string]any, int) {
	t.requireAuth(SurfaceA)
	resp := t.Get(SurfaceA, r.path, q)
	t.RequireStatus(resp, http.StatusOK)
	items, _, total, err := listPage(resp)
	if err != nil {
		t.Fatalf(resp, "a list with data and pagination", "%v", err)
	}
	return resp, items, total
}

func checkListDefaults(r aResource) func(*T) {
	return func(t *T) {
		resp, items, total := t.firstListPage(r, nil)
		offset, limit, _, ok := pagination(resp)
		if !ok {
			t.Fatalf(resp, "pagination with integers offset, limit, total", "pagination is %s", compact(obj(t.RequireObject(resp), "pagination")))
		}
		if limit != 50 {
			t.Failf(resp, "pagination.limit 50", "pagination.limit is %d without a limit parameter", limit)
		}
		if offset != 0 {
			t.Failf(resp, "pagination.offset 0", "pagination.offset is %d without an offset parameter", offset)
		}
		if want := min(50, total); len(items) != want {
			t.Failf(resp, fmt.Sprintf("%d items (total %d, default limit 50)", want, total), "the first page holds %d items", len(items))
		}
	}
}

func checkListLimit(r aResource) func(*T) {
	return func(t *T) {
		resp, items, total := t.firstListPage(r, url.Values{"limit": {"2"}})
		if total == 0 {
			t.Skipf("no %s records exist, so a page size cannot be observed", r.name)
		}
		if _, limit, _, ok := pagination(resp); !ok || limit != 2 {
			t.Failf(resp, "pagination.limit 2", "pagination.limit is %d with limit=2", limit)
		}
		if want := min(2, total); len(items) != want {
			t.Failf(resp, fmt.Sprintf("%d items", want), "limit=2 returned %d items (total %d)", len(items), total)
		}
	}
}

func checkListTotal(r aResource) func(*T) {
	return func(t *T) {
		w := t.requireAList(r.path)
		for i, tt := range w.totals {
			if tt != w.total {
				t.Failf(w.pages[i], fmt.Sprintf("pagination.total %d on every page", w.total), "page %d says total %d, the first page %d", i+1, tt, w.total)
			}
		}
		if len(w.items) != w.total {
			t.Failf(w.first, fmt.Sprintf("total equal to the %d distinct items walked", len(w.items)), "pagination.total is %d, but walking offset pages of %d yields %d distinct items", w.total, aListPageSize, len(w.items))
		}
		t.Notef("%d %s records", len(w.items), r.name)
	}
}

func checkListOffsetWalk(r aResource) func(*T) {
	return func(t *T) {
		full := t.requireAList(r.path)
		if full.total == 0 {
			t.Skipf("no %s records exist", r.name)
		}
		k := offsetWalkPageSize(full.total)
		if full.total/k > t.env.cfg.MaxPages {
			t.Skipf("%d records would take more than --max-pages=%d pages", full.total, t.env.cfg.MaxPages)
		}
		w := t.env.walkOffsets(t.doer(), SurfaceA, http.MethodGet, r.path, nil, k)
		if w.problem != "" {
			t.Fatalf(w.problemResp, "every page 200", "%s", w.problem)
		}
		if len(w.dups) > 0 {
			t.Failf(w.first, "each item once", "%d items came back on more than one page, e.g. %s", len(w.dups), strings.Join(first(w.dups, 3), ", "))
		}
		for i, pg := range w.pages {
			items, _, total, _ := listPage(pg)
			if want := max(0, min(k, total-i*k)); len(items) != want {
				t.Failf(pg, fmt.Sprintf("%d items at offset %d", want, i*k), "the page at offset %d holds %d items", i*k, len(items))
			}
		}
		if len(w.items) != full.total {
			t.Failf(w.first, fmt.Sprintf("%d distinct items (pagination.total)", full.total), "walking pages of %d yields %d distinct items", k, len(w.items))
		}
		t.Notef("%d pages of %d", len(w.pages), k)
	}
}

// aMaxPageSize is the largest limit the offset walk asks for: the spec
// names no maximum, and the vendor's API rejects more than 500
// (docs/decisions.md#interface-a-paging), so a walk in larger pages would judge the list by a request a
// conforming server may refuse.
const aMaxPageSize = 500

// offsetWalkPageSize is the page size of the offset walk of a list of total
// items: about five pages, none larger than aMaxPageSize.
func offsetWalkPageSize(total int) int { return min(aMaxPageSize, max(1, total/5)) }

func checkListPastEnd(r aResource) func(*T) {
	return func(t *T) {
		_, _, total := t.firstListPage(r, url.Values{"limit": {"1"}})
		for _, off := range []int{total, total + 100} {
			resp, items, tt := t.firstListPage(r, url.Values{"offset": {strconv.Itoa(off)}})
			if len(items) != 0 {
				t.Failf(resp, "an empty data", "offset=%d (total %d) returned %d items", off, total, len(items))
			}
			if tt != total {
				t.Failf(resp, fmt.Sprintf("pagination.total %d", total), "pagination.total is %d at offset %d", tt, off)
			}
		}
	}
}

func checkListShape(r aResource) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		resp := t.Get(SurfaceA, r.path, url.Values{"limit": {"1"}})
		t.RequireStatus(resp, http.StatusOK)
		_, shape, _, err := listPage(resp)
		if err != nil {
			t.Fatalf(resp, `{"data": [...], "pagination": {...}} or {"data": {"resultArray": [...]}, "pagination": {...}}`, "%v", err)
		}
		t.Notef("the server nests list items as %s", shape)
	}
}

func checkListInvalid(r aResource, params ...string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		for _, p := range params {
			q, _ := url.ParseQuery(p)
			t.ExpectStatus(t.Get(SurfaceA, r.path, q), http.StatusBadRequest)
		}
	}
}

func checkAGetByID(r aResource) func(*T) {
	return func(t *T) {
		w := t.requireAList(r.path)
		if len(w.items) == 0 {
			t.Skipf("no %s records exist", r.name)
		}
		for i := 0; i < 3 && i < len(w.items); i++ {
			item := w.items[i*len(w.items)/min(3, len(w.items))]
			id := str(item, "id")
			resp := t.Get(SurfaceA, r.path+"/"+id, nil)
			if !t.ExpectStatus(resp, http.StatusOK) {
				continue
			}
			if diff := diffKeys(item, t.RequireObject(resp)); len(diff) > 0 {
				t.Failf(resp, "the record as the list returned it", "%s %s differs from the list in %s", r.name, id, strings.Join(diff, ", "))
			}
		}
	}
}

func checkAGetStatus(r aResource, id string, status int) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		t.ExpectStatus(t.Get(SurfaceA, r.path+"/"+id, nil), status)
	}
}
