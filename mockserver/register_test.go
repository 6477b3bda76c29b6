package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

const unknownID = "6f1e2d3c-4b5a-4978-8877-665544332211"

func TestGetByIDAnswers200For400And404(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	require.NotEmpty(t, ds.Placements)
	require.NotEmpty(t, ds.Syllabuses)
	require.NotEmpty(t, ds.Attendances)
	require.NotEmpty(t, ds.Absences)
	require.NotEmpty(t, ds.Groups)
	for _, tc := range []struct {
		resource, existing string
	}{
		{"placements", ds.Placements[0].ID},
		{"syllabuses", ds.Syllabuses[0].ID},
		{"attendances", ds.Attendances[0].ID},
		{"absences", ds.Absences[0].ID},
		{"groups", ds.Groups[0].ID},
	} {
		t.Run(tc.resource+" existing id", func(t *testing.T) {
			res := h.get(PrefixB + "/" + tc.resource + "/" + tc.existing)
			require.Equal(t, http.StatusOK, res.status, res)
			var body struct{ ID string }
			res.decode(&body)
			assert.Equal(t, tc.existing, body.ID)
		})
		t.Run(tc.resource+" upper-case id is the same id", func(t *testing.T) {
			res := h.get(PrefixB + "/" + tc.resource + "/" + strings.ToUpper(tc.existing))
			require.Equal(t, http.StatusOK, res.status, res)
		})
		for _, bad := range []string{"not-a-uuid", "12345", strings.TrimSuffix(tc.existing, "1") + "g", "%20"} {
			t.Run(tc.resource+" malformed id "+bad, func(t *testing.T) {
				res := h.get(PrefixB + "/" + tc.resource + "/" + bad)
				require.Equal(t, http.StatusBadRequest, res.status, res)
				assert.Equal(t, surface.CodeBadRequest, res.errorBody(t).Code)
			})
		}
		t.Run(tc.resource+" unknown id", func(t *testing.T) {
			res := h.get(PrefixB + "/" + tc.resource + "/" + unknownID)
			require.Equal(t, http.StatusNotFound, res.status, res)
			e := res.errorBody(t)
			assert.Equal(t, surface.CodeNotFound, e.Code)
			assert.Contains(t, e.Message, unknownID)
		})
	}
}

func TestWrongMethodsAndUnknownPaths(t *testing.T) {
	h := newHarness(t)
	id := h.srv.store.Export().Groups[0].ID
	// on is where the message says the method is not allowed: the path sent,
	// and the operation's template when a template matched it.
	for _, tc := range []struct{ method, path, allow, on string }{
		{http.MethodPost, "/placements", "GET", "on /api/v1/placements;"},
		{http.MethodDelete, "/groups/" + id, "GET", "on /api/v1/groups/" + id + " (/api/v1/groups/{id});"},
		{http.MethodGet, "/groups/lookup", "POST", "on /api/v1/groups/lookup;"},
		{http.MethodPut, "/absences/" + id, "GET", "on /api/v1/absences/" + id + " (/api/v1/absences/{id});"},
		{http.MethodPost, "/studyplans/lookup", "GET", "on /api/v1/studyplans/lookup (/api/v1/studyplans/{id});"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, h.ts.URL+PrefixB+tc.path, nil)
			req.Header.Set("Authorization", "Bearer "+h.token)
			res := h.do(req)
			require.Equal(t, http.StatusMethodNotAllowed, res.status, res)
			assert.Equal(t, tc.allow, res.header.Get("Allow"))
			e := res.errorBody(t)
			assert.Equal(t, surface.CodeMethodNotAllowed, e.Code)
			assert.Contains(t, e.Message, tc.on)
		})
	}
	res := h.get(PrefixB + "/pupils")
	require.Equal(t, http.StatusNotFound, res.status, res)
	assert.Equal(t, surface.CodeNotFound, res.errorBody(t).Code)
}

func TestGroupLookupReturnsTheExistingSubset(t *testing.T) {
	h := newHarness(t)
	groups := h.srv.store.Export().Groups
	require.GreaterOrEqual(t, len(groups), 3)
	a, b := groups[0].ID, groups[2].ID
	res := h.postJSON(PrefixB+"/groups/lookup", fmt.Sprintf(`{"ids":[%q,%q,%q,%q]}`, a, unknownID, b, a))
	require.Equal(t, http.StatusOK, res.status, res)
	var got []model.Group
	res.decode(&got)
	require.Len(t, got, 2, "unknown ids are left out and duplicates answered once")
	assert.Equal(t, a, got[0].ID)
	assert.Equal(t, b, got[1].ID)
	assert.Nil(t, got[0].Embedded, "no _embedded unless expand asks")

	res = h.postJSON(PrefixB+"/groups/lookup?expand=assignmentRoles&expandReferenceNames=true", fmt.Sprintf(`{"ids":[%q]}`, a))
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&got)
	require.Len(t, got, 1)
	require.NotNil(t, got[0].Embedded)
	assert.NotEmpty(t, got[0].Organisation.DisplayName)

	res = h.postJSON(PrefixB+"/groups/lookup", `{"ids":[]}`)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.JSONEq(t, `[]`, string(res.body))
}

func TestGroupLookupRejectsBadBodies(t *testing.T) {
	h := newHarness(t)
	tooMany := make([]string, maxLookupIDs+1)
	for i := range tooMany {
		tooMany[i] = uuid.NewString()
	}
	tooManyBody, _ := json.Marshal(map[string]any{"ids": tooMany})
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		mention                 string
	}{
		{"not JSON", surface.ContentTypeJSON, `{"ids": [`, 400, ""},
		{"ids missing", surface.ContentTypeJSON, `{}`, 400, "ids"},
		{"ids not an array", surface.ContentTypeJSON, `{"ids": "x"}`, 400, "ids"},
		{"malformed id", surface.ContentTypeJSON, `{"ids": ["not-a-uuid"]}`, 400, "uuid"},
		{"more ids than allowed", surface.ContentTypeJSON, string(tooManyBody), 400, "500"},
		{"empty body", surface.ContentTypeJSON, ``, 400, ""},
		{"form instead of JSON", surface.ContentTypeForm, `ids=1`, 415, surface.ContentTypeJSON},
		{"body too large", surface.ContentTypeJSON, `{"ids": ["` + strings.Repeat("a", maxBodyBytes) + `"]}`, 413, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, h.ts.URL+PrefixB+"/groups/lookup", strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+h.token)
			req.Header.Set("Content-Type", tc.contentType)
			res := h.do(req)
			require.Equal(t, tc.status, res.status, res)
			e := res.errorBody(t)
			assert.Contains(t, e.Message, tc.mention)
		})
	}
}

// walkRefs calls fn for every reference object (a map with "id" and no other
// record fields) found anywhere below v, with its JSON path.
func walkRefs(v any, path string, fn func(path string, ref map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["id"]; ok && !hasKey(x, "meta") {
			fn(path, x)
		}
		for k, c := range x {
			walkRefs(c, path+"."+k, fn)
		}
	case []any:
		for i, c := range x {
			walkRefs(c, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func TestReferencesCarryDisplayNameOnlyWhenAsked(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	paths := []string{
		"/placements?limit=50&expand=child&expand=owners",
		"/placements/" + ds.Placements[0].ID + "?expand=child",
		"/groups/" + ds.Groups[0].ID + "?expand=assignmentRoles",
		"/attendances/" + ds.Attendances[0].ID,
		"/absences/" + ds.Absences[0].ID,
	}
	for _, p := range paths {
		for _, names := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s names=%v", p, names), func(t *testing.T) {
				sep := "?"
				if strings.Contains(p, "?") {
					sep = "&"
				}
				res := h.get(PrefixB + p + sep + fmt.Sprintf("expandReferenceNames=%v", names))
				require.Equal(t, http.StatusOK, res.status, res)
				var body any
				res.decode(&body)
				n := 0
				walkRefs(body, "$", func(path string, ref map[string]any) {
					n++
					_, has := ref["displayName"]
					assert.Equal(t, names, has, "displayName at %s", path)
				})
				assert.Positive(t, n, "the response has references")
			})
		}
	}
}

func TestPersonReferencesAlwaysCarrySecurityMarking(t *testing.T) {
	h := newHarness(t)
	// Give one child a protected identity and find it through its placement.
	ds := h.srv.store.Export()
	p := ds.Placements[0]
	child, ok := h.srv.store.Read().Person(p.Child.ID)
	require.True(t, ok)
	protected := *child
	protected.SecurityMarking = model.SecurityMarkingProtected
	_, _, err := h.srv.store.PutPerson(protected)
	require.NoError(t, err)

	res := h.get(PrefixB + "/placements/" + p.ID + "?expand=owners")
	require.Equal(t, http.StatusOK, res.status, res)
	var got model.Placement
	res.decode(&got)
	assert.Equal(t, model.SecurityMarkingProtected, got.Child.SecurityMarking)
	for _, o := range got.Owners {
		assert.Contains(t, model.SecurityMarkings, o.SecurityMarking)
	}
	for _, o := range got.Embedded.Owners {
		for _, r := range o.Responsibles {
			assert.Contains(t, model.SecurityMarkings, r.Person.SecurityMarking)
		}
	}
}

func TestExpandEmbedsTheReferencedPersonsAndLeavesMetaAlone(t *testing.T) {
	h := newHarness(t)
	var withOwners model.Placement
	for _, p := range h.srv.store.Export().Placements {
		if len(p.Owners) > 0 {
			withOwners = p
			break
		}
	}
	require.NotEmpty(t, withOwners.ID, "the default scenario has a placement with owners")
	path := PrefixB + "/placements/" + withOwners.ID
	var plain, expanded model.Placement
	h.get(path).decode(&plain)
	h.clock.Advance(30 * time.Minute)
	res := h.get(path + "?expand=child&expand=owners&expandReferenceNames=true")
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&expanded)
	assert.Nil(t, plain.Embedded)
	require.NotNil(t, expanded.Embedded)
	require.NotNil(t, expanded.Embedded.Child)
	assert.Equal(t, expanded.Child.ID, expanded.Embedded.Child.ID)
	require.Len(t, expanded.Embedded.Owners, len(expanded.Owners))
	for i := range expanded.Owners {
		assert.Equal(t, expanded.Owners[i].ID, expanded.Embedded.Owners[i].ID)
	}
	assert.Equal(t, plain.Meta, expanded.Meta, "expand and expandReferenceNames do not move meta")
	var again model.Placement
	h.get(path).decode(&again)
	assert.Equal(t, plain.Meta, again.Meta)

	var ownersOnly model.Placement
	h.get(path + "?expand=owners").decode(&ownersOnly)
	require.NotNil(t, ownersOnly.Embedded)
	assert.Nil(t, ownersOnly.Embedded.Child, "only what expand names is embedded")
}

func TestPlacementsHaveOnlyPreschoolAndAfterSchoolTypes(t *testing.T) {
	h := newHarness(t)
	for _, p := range h.walk(t, "limit=1000") {
		assert.Contains(t, model.PlacementSchoolTypes, p.SchoolType)
	}
}

// The standard sets no upper bound on limit: a larger one is a full page and
// a pageToken, never a 400.
func TestLimitAboveThePageSizeIsAPage(t *testing.T) {
	h := newHarness(t)
	var page struct {
		Data      []model.Placement `json:"data"`
		PageToken *string           `json:"pageToken"`
	}
	r := h.get(PrefixB + "/placements?limit=100000")
	require.Equal(t, http.StatusOK, r.status, r)
	r.decode(&page)
	assert.LessOrEqual(t, len(page.Data), maxPageSize)
	assert.NotEmpty(t, page.Data)
}

func TestRequestsAreValidatedAgainstTheContract(t *testing.T) {
	h := newHarness(t)
	gid := h.srv.store.Export().Groups[0].ID
	for _, tc := range []struct {
		name, path string
		mentions   []string
	}{
		{"limit zero", "/placements?limit=0", []string{"limit"}},
		{"negative limit", "/placements?limit=-5", []string{"limit"}},
		{"non-numeric limit", "/placements?limit=ten", []string{"limit"}},
		{"malformed date", "/placements?startDate.onOrBefore=2026-13-01", []string{"startDate.onOrBefore"}},
		{"date-time where a date is due", "/placements?endDate.onOrAfter=2026-01-01T00:00:00Z", []string{"endDate.onOrAfter"}},
		{"malformed timestamp", "/placements?meta.created.before=yesterday", []string{"meta.created.before"}},
		{"malformed uuid filter", "/placements?organisation=abc", []string{"organisation"}},
		{"unknown sortkey", "/placements?sortkey=Random", []string{"sortkey"}},
		{"unknown expand", "/placements?expand=parents", []string{"expand"}},
		{"non-boolean expandReferenceNames", "/placements?expandReferenceNames=maybe", []string{"expandReferenceNames"}},
		{"every violation at once", "/placements?limit=0&sortkey=x&child=y", []string{"limit", "sortkey", "child"}},
		{"unknown parameter", "/placements?organization=" + gid, []string{"organization", "organisation"}},
		{"repeated single parameter", "/placements?limit=2&limit=3", []string{"limit"}},
		{"group expand on group", "/groups/" + gid + "?expand=members", []string{"expand"}},
		{"parameter the operation lacks", "/syllabuses/" + gid + "?expand=child", []string{"expand"}},
		{"injection in a filter", "/placements?child=%27%20OR%201%3D1--", []string{"child"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.get(PrefixB + tc.path)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			e := res.errorBody(t)
			assert.Equal(t, surface.CodeBadRequest, e.Code)
			for _, m := range tc.mentions {
				assert.Contains(t, e.Message, m)
			}
		})
	}
}
