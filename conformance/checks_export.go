package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// The data export: the spec names only its path; its paging and shape are
// the vendor's (docs/decisions.md#data-export), so these checks are SHOULD.

var (
	specExport      = SpecRef{Section: "Endpoints (interface A)", Quote: "Endpoints for resources named only in the change history (…), and the shape of the data export interface whose attendance resource is at /data-export/v1/attendance: not shown.", Decision: "export-conventions"}
	specExportItems = SpecRef{Section: "Endpoints (interface A)", Quote: specExport.Quote, Decision: "export-attendance-items"}
)

func exportChecks() []*Check {
	x := []Surface{SurfaceExport}
	return []*Check{
		{ID: "export.attendance.defaults", Title: "GET /attendance pages with limit 50 and offset 0 by default", Area: "export", Severity: SHOULD, Needs: x, Spec: specExport, Run: checkExportDefaults},
		{ID: "export.attendance.invalid-params", Title: "limit=abc and offset=-1 are 400", Area: "export", Severity: SHOULD, Needs: x, Spec: specExport, Run: checkExportInvalid},
		{ID: "export.attendance.report-consistent", Title: "report.week is the ISO week of report.date, and absence minutes do not exceed the lesson", Area: "export", Severity: SHOULD, Needs: x, Spec: specExportItems, Run: checkExportReport},
	}
}

func (t *T) exportPage(q url.Values) (*Response, []map[string]any, int) {
	t.requireAuth(SurfaceExport)
	resp := t.Get(SurfaceExport, "/attendance", q)
	t.RequireStatus(resp, http.StatusOK)
	items, _, total, err := listPage(resp)
	if err != nil {
		t.Fatalf(resp, "a list with data and pagination", "%v", err)
	}
	return resp, items, total
}

func checkExportDefaults(t *T) {
	resp, items, total := t.exportPage(nil)
	offset, limit, _, ok := pagination(resp)
	if !ok || limit != 50 || offset != 0 {
		t.Failf(resp, "pagination.limit 50, pagination.offset 0", "pagination is %s", compact(obj(t.RequireObject(resp), "pagination")))
	}
	if want := min(50, total); len(items) != want {
		t.Failf(resp, fmt.Sprintf("%d items", want), "the first page holds %d items (total %d)", len(items), total)
	}
}

func checkExportInvalid(t *T) {
	t.requireAuth(SurfaceExport)
	for _, q := range []url.Values{{"limit": {"abc"}}, {"offset": {"-1"}}} {
		t.ExpectStatus(t.Get(SurfaceExport, "/attendance", q), http.StatusBadRequest)
	}
}

func checkExportReport(t *T) {
	resp, items, _ := t.exportPage(url.Values{"limit": {"50"}})
	if len(items) == 0 {
		t.Skipf("the export holds no items")
	}
	for _, it := range items {
		rep := obj(it, "report")
		d, err := time.Parse(time.DateOnly, str(rep, "date"))
		if err != nil {
			continue
		}
		_, wk := d.ISOWeek()
		if w, ok := intOf(rep["week"]); !ok || int(w) != wk {
			t.Failf(resp, fmt.Sprintf("week %d (ISO week of %s)", wk, str(rep, "date")), "report.week is %s", compact(rep["week"]))
			return
		}
		lesson, ok1 := intOf(rep["lessonDurationMinutes"])
		absent, ok2 := intOf(rep["absenceDurationMinutes"])
		if ok1 && ok2 && absent > lesson {
			t.Failf(resp, "absenceDurationMinutes ≤ lessonDurationMinutes", "absence %d minutes in a lesson of %d", absent, lesson)
			return
		}
	}
}
