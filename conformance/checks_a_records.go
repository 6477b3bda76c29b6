package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// Read checks of interface A resources the spec names only in its change
// history.

var (
	specEPPN   = SpecRef{Section: "Endpoints (interface A)", Quote: "It states that Student and Employee have an optional, nullable `eduPersonPrincipalName` (format local identifier, `@`, domain) that can be read, created and updated, and that Guardian does not have it.", Decision: "edu-person-principal-name"}
	specGrades = SpecRef{Section: "Endpoints (interface A)", Quote: "Grade fields stated: grade values `A`, `B`, `C`, `D`, `E`, `F`, `MISSING`; grade term values `HT`, `VT`. GradeElementary covers school years 6 to 9. GradeUpperSecondary covers years 1 to 3, with course extent values Normal, Extended, Reduced and course section values General, Program, Orientation, Specialization, Individual, Project, Elementary.", Decision: "vendor-field-table"}
)

func aRecordChecks() []*Check {
	a := []Surface{SurfaceA}
	return []*Check{
		{ID: "A.guardian.no-eppn", Title: "no Guardian carries eduPersonPrincipalName", Area: "A.records", Severity: MUST, Needs: a, Spec: specEPPN, Run: checkGuardianNoEPPN},
		{ID: "A.grade-elementary.values", Title: "GradeElementary grades, terms and school years are the stated values", Area: "A.records", Severity: MUST, Needs: a, Spec: specGrades,
			Run: checkGradeValues("/grade-elementary", map[string][]string{"grade": gradeValues, "term": {"HT", "VT"}, "schoolYear": {"6", "7", "8", "9"}})},
		{ID: "A.grade-upper-secondary.values", Title: "GradeUpperSecondary grades, years, extents and sections are the stated values", Area: "A.records", Severity: MUST, Needs: a, Spec: specGrades,
			Run: checkGradeValues("/grade-upper-secondary", map[string][]string{"grade": gradeValues, "schoolYear": {"1", "2", "3"}, "extent": {"Normal", "Extended", "Reduced"},
				"section": {"General", "Program", "Orientation", "Specialization", "Individual", "Project", "Elementary"}})},
	}
}

var gradeValues = []string{"A", "B", "C", "D", "E", "F", "MISSING"}

func checkGuardianNoEPPN(t *T) {
	t.requireAuth(SurfaceA)
	resp := t.Get(SurfaceA, "/guardian", url.Values{"limit": {"50"}})
	t.RequireStatus(resp, http.StatusOK)
	items, _, _, err := listPage(resp)
	if err != nil {
		t.Fatalf(resp, "a list", "%v", err)
	}
	if len(items) == 0 {
		t.Skipf("no Guardian records exist")
	}
	for _, g := range items {
		if _, ok := g["eduPersonPrincipalName"]; ok {
			t.Fatalf(resp, "no eduPersonPrincipalName member", "guardian %s carries eduPersonPrincipalName", str(g, "id"))
		}
	}
}

// checkGradeValues reads the first page of a grade list and checks the
// enumerated fields (null is allowed: the fields are nullable or absent).
func checkGradeValues(path string, allowed map[string][]string) func(*T) {
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
		for _, g := range items {
			for field, values := range allowed {
				v, ok := g[field]
				if !ok || v == nil {
					continue
				}
				s, _ := v.(string)
				if !slices.Contains(values, s) {
					t.Failf(resp, fmt.Sprintf("%s one of %v", field, values), "%s %s has %s %s", path[1:], str(g, "id"), field, compact(v))
				}
			}
		}
		t.Notef("%d records read", len(items))
	}
}
