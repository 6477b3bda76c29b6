package conformance

import (
	"fmt"
	"net/http"
	"net/url"
)

// Sentences of the spec about interface A lists.
var (
	specAPaging   = SpecRef{Section: "Endpoints (interface A)", Quote: "Pagination on list and search: query `limit` (integer, default 50) and `offset` (integer, default 0); both optional."}
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
			&Check{ID: p + ".list.shape", Title: "the list nests its items in one of the two shapes the spec allows", Area: "A.lists", Severity: MUST, Needs: a, Spec: specAShape, Run: checkListShape(r)},
			&Check{ID: p + ".list.invalid-params", Title: "limit or offset that is not a non-negative integer is 400", Area: "A.lists", Severity: MUST, Needs: a, Spec: specA400, Run: checkListInvalid(r, "limit=abc", "offset=abc", "offset=-1")},
			&Check{ID: p + ".list.limit-zero", Title: "limit=0 is 400", Area: "A.lists", Severity: SHOULD, Needs: a, Spec: SpecRef{Section: specA400.Section, Quote: specA400.Quote, Decision: "interface-a-paging"}, Run: checkListInvalid(r, "limit=0")},
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

// aMaxPageSize is the largest limit the offset walk asks for: the spec
// names no maximum, and the vendor's API rejects more than 500
// (docs/decisions.md#interface-a-paging), so a walk in larger pages would judge the list by a request a
// conforming server may refuse.
const aMaxPageSize = 500

// offsetWalkPageSize is the page size of the offset walk of a list of total
// items: about five pages, none larger than aMaxPageSize.
func offsetWalkPageSize(total int) int { return min(aMaxPageSize, max(1, total/5)) }

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

func checkAGetStatus(r aResource, id string, status int) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		t.ExpectStatus(t.Get(SurfaceA, r.path+"/"+id, nil), status)
	}
}
