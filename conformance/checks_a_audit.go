package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

// Checks of the vendor document's own parts: the audit trail, units and the
// form of identity numbers. The vendor document is the reference of
// interface A's wire format (docs/decisions.md#vendor-field-table).

var (
	specVendorAudit = SpecRef{Section: "Interface A (vendor document)", Quote: "AuditEvent {id, meta, timestamp, resource, resourceID, type}: one event is recorded when a Group, Guardian, Employee, EmployeePlacement, Student or StudentPlacement is deleted", Decision: "audit-events"}
	specVendorUnit  = SpecRef{Section: "Interface A (vendor document)", Quote: "School.unitID: string(uuid)?, the Unit the school belongs to", Decision: "units-are-forvaltning"}
	specVendorID    = SpecRef{Section: "Interface A (vendor document)", Quote: "identityNumber: the personal identity number in the format YYYYMMDD-NNNN", Decision: "identity-number-form"}
)

// identityForm is the vendor's form of identityNumber (a temporary number
// may have letters in the two places after the hyphen).
var identityForm = regexp.MustCompile(`^[0-9]{8}-[0-9A-Za-z]{2}[0-9]{2}$`)

func aVendorChecks() []*Check {
	a := []Surface{SurfaceA}
	w := LevelWrite
	cs := []*Check{
		{ID: "A.audit.delete-recorded", Title: "deleting a Group the runner made records exactly one AuditEvent (resource Group, its id, type Delete, a timestamp after its creation)", Area: "A.audit", Level: w, Severity: MUST, Needs: a, Spec: specVendorAudit, Run: checkAuditRecorded},
		{ID: "A.school.unit-reference", Title: "every School's unitID names a Unit that GET /unit/{id} returns", Area: "A.records", Severity: MUST, Needs: a, Spec: specVendorUnit, Run: checkUnitReferences},
	}
	for _, p := range []string{"/student", "/employee", "/guardian"} {
		cs = append(cs, &Check{ID: "A." + p[1:] + ".identity-number-form", Title: "every " + p[1:] + "'s identityNumber has the form YYYYMMDD-NNNN", Area: "A.records", Severity: MUST, Needs: a, Spec: specVendorID, Run: checkIdentityForm(p)})
	}
	return cs
}

func checkAuditRecorded(t *T) {
	t.requireAuth(SurfaceA)
	rec, _ := t.create("/group", func() map[string]any { return groupKind.body(t) })
	id := str(rec, "id")
	// The server's clock, not the runner's, dates the event: it is not
	// before the group's own meta.createdAt.
	created := parseTime(str(obj(rec, "meta"), "createdAt"))
	resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: "/group/" + id})
	t.RequireStatus(resp, http.StatusNoContent)
	search := t.Do(Request{Surface: SurfaceA, Method: http.MethodPost, Path: "/audit-event/_search",
		JSON: map[string]any{"filter": map[string]any{"equals": map[string]any{"resourceID": id}, "orCondition": false}}})
	t.RequireStatus(search, http.StatusOK)
	items, _, total, err := listPage(search)
	if err != nil {
		t.Fatalf(search, "a list", "%v", err)
	}
	if total != 1 || len(items) != 1 {
		t.Fatalf(search, "exactly one AuditEvent for the deleted group", "%d events (total %d) have resourceID %s", len(items), total, id)
	}
	e := items[0]
	if str(e, "resource") != "Group" || str(e, "type") != "Delete" {
		t.Failf(search, "resource Group, type Delete", "resource %s, type %s", str(e, "resource"), str(e, "type"))
	}
	if ts := parseTime(str(e, "timestamp")); ts.IsZero() || ts.Before(created) {
		t.Failf(search, fmt.Sprintf("a timestamp at or after the group's createdAt %s", created.Format(time.RFC3339Nano)), "timestamp %s", str(e, "timestamp"))
	}
	// The event by id: the rules compare it with the search's
	// (representation.same-everywhere) and require it readable.
	t.ExpectStatus(t.Get(SurfaceA, "/audit-event/"+str(e, "id"), nil), http.StatusOK)
}

func checkUnitReferences(t *T) {
	w := t.requireAList("/school")
	n := 0
	for _, s := range w.items {
		u := str(s, "unitID")
		if u == "" {
			continue
		}
		n++
		if get := t.Get(SurfaceA, "/unit/"+u, nil); get.Status != http.StatusOK {
			t.Fatalf(get, "200 with the Unit", "school %s has unitID %s, and GET /unit/%s answered %d", str(s, "id"), u, u, get.Status)
		}
		if n == 20 {
			break
		}
	}
	if n == 0 {
		t.Skipf("no School has a unitID")
	}
	t.Notef("%d unit references resolved", n)
}

func checkIdentityForm(path string) func(*T) {
	return func(t *T) {
		t.requireAuth(SurfaceA)
		resp := t.Get(SurfaceA, path, url.Values{"limit": {"50"}})
		t.RequireStatus(resp, http.StatusOK)
		items, _, _, err := listPage(resp)
		if err != nil {
			t.Fatalf(resp, "a list", "%v", err)
		}
		if len(items) == 0 {
			t.Skipf("no %s records exist", path[1:])
		}
		for _, p := range items {
			if v := str(p, "identityNumber"); !identityForm.MatchString(v) {
				t.Fatalf(resp, "YYYYMMDD-NNNN", "%s %s has identityNumber %q", path[1:], str(p, "id"), v)
			}
		}
		t.Notef("%d identity numbers read", len(items))
	}
}
