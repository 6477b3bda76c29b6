package mockserver

import (
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
)

// wireAnswer is an answer as a client sees it.
type wireAnswer struct {
	status int
	header http.Header
	body   []byte
}

func (a wireAnswer) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(a.body, &v), string(a.body))
	return v
}

// send sends an authenticated request with a body of the content type, and
// returns the answer unchecked.
func (h *harness) exchange(method, path, contentType, body string) wireAnswer {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+h.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := h.ts.Client().Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return wireAnswer{resp.StatusCode, resp.Header, b}
}

func devHarness(t *testing.T, name string) *harness {
	return newHarness(t, func(o *Options) { o.Deviations = []string{name} })
}

func pageIDs(t *testing.T, page map[string]any) []string {
	t.Helper()
	var out []string
	for _, r := range page["data"].([]any) {
		out = append(out, r.(map[string]any)["id"].(string))
	}
	return out
}

func TestLaterPageLimitIgnored(t *testing.T) {
	for _, tc := range []struct {
		list    string
		ignored bool
	}{{"/groups", true}, {"/persons", true}, {"/placements", false}} {
		h := devHarness(t, deviation.LaterPageLimitIgnored)
		first := h.exchange(http.MethodGet, PrefixB+tc.list+"?limit=6", "", "").json(t)
		next := h.exchange(http.MethodGet, PrefixB+tc.list+"?limit=2&pageToken="+url.QueryEscape(first["pageToken"].(string)), "", "").json(t)
		want := 2
		if tc.ignored {
			want = 6
		}
		assert.Len(t, next["data"], want, "%s: the page after a pageToken with limit=2", tc.list)
	}
}

func TestLaterPagesSkipFirst(t *testing.T) {
	plain, h := newHarness(t), devHarness(t, deviation.LaterPagesSkipFirst)
	for _, list := range []string{"/groups", "/placements"} {
		p1 := plain.exchange(http.MethodGet, PrefixB+list+"?limit=3", "", "").json(t)
		d1 := h.exchange(http.MethodGet, PrefixB+list+"?limit=3", "", "").json(t)
		assert.Equal(t, pageIDs(t, p1), pageIDs(t, d1), "%s: the first page is whole", list)
		p2 := plain.exchange(http.MethodGet, PrefixB+list+"?pageToken="+url.QueryEscape(p1["pageToken"].(string)), "", "").json(t)
		d2 := h.exchange(http.MethodGet, PrefixB+list+"?pageToken="+url.QueryEscape(d1["pageToken"].(string)), "", "").json(t)
		if list == "/placements" {
			assert.Equal(t, pageIDs(t, p2), pageIDs(t, d2), "placements are left alone")
		} else {
			assert.Equal(t, pageIDs(t, p2)[1:], pageIDs(t, d2), "%s: the later page lacks its first record", list)
		}
	}
}

func TestTotalOneShort(t *testing.T) {
	plain, h := newHarness(t), devHarness(t, deviation.TotalOneShort)
	total := func(h *harness, path string) float64 {
		return h.exchange(http.MethodGet, PrefixA+path, "", "").json(t)["pagination"].(map[string]any)["total"].(float64)
	}
	for _, path := range []string{"/student", "/employee", "/guardian", "/student-placement", "/employee-placement"} {
		assert.Equal(t, total(plain, path)-1, total(h, path), path)
	}
	assert.Equal(t, total(plain, "/school"), total(h, "/school"), "schools are left alone")
}

func TestSearchDeviations(t *testing.T) {
	plain := newHarness(t)
	count := func(h *harness, resource, body string) int {
		a := h.exchange(http.MethodPost, PrefixA+resource+"/_search?limit=500", "application/json", body)
		require.Equal(t, http.StatusOK, a.status, string(a.body))
		return len(a.json(t)["data"].([]any))
	}
	for _, resource := range []string{"/student", "/group"} {
		records := plain.exchange(http.MethodGet, PrefixA+resource+"?limit=500", "", "").json(t)["data"].([]any)
		r0, r1 := records[0].(map[string]any), records[1].(map[string]any)
		contains := fmt.Sprintf(`{"filter":{"contains":{"id":[%q,%q]},"orCondition":false}}`, r0["id"], r1["id"])
		notContains := fmt.Sprintf(`{"filter":{"notContains":{"id":[%q,%q]},"orCondition":false}}`, r0["id"], r1["id"])
		or := fmt.Sprintf(`{"filter":{"equals":{"id":%q},"orCondition":true,"nestedFilters":[{"equals":{"id":%q},"orCondition":false}]}}`, r0["id"], r1["id"])
		and := fmt.Sprintf(`{"filter":{"equals":{"id":%q},"notEquals":{"id":%q},"orCondition":false}}`, r0["id"], r0["id"])
		require.Equal(t, 2, count(plain, resource, contains))
		require.Equal(t, len(records)-2, count(plain, resource, notContains))
		require.Equal(t, 2, count(plain, resource, or))
		require.Equal(t, 0, count(plain, resource, and))

		first, last := devHarness(t, deviation.SearchContainsFirstOnly), devHarness(t, deviation.SearchDropsLastCondition)
		if resource == "/group" {
			assert.Equal(t, 2, count(first, resource, contains), "groups are left alone")
			assert.Equal(t, 0, count(last, resource, and), "groups are left alone")
			continue
		}
		assert.Equal(t, 1, count(first, resource, contains))
		assert.Equal(t, len(records)-1, count(first, resource, notContains))
		assert.Equal(t, 2, count(first, resource, or), "other operators are left alone")
		assert.Equal(t, 1, count(last, resource, or), "OR of two: the nested filter is dropped")
		assert.Equal(t, 1, count(last, resource, and), "AND of two: the notEquals is dropped")
		assert.Equal(t, 2, count(last, resource, contains), "one condition is left alone")
	}
}

func TestDateTimeBoundDeviations(t *testing.T) {
	plain := newHarness(t)
	rec := plain.exchange(http.MethodGet, PrefixB+"/groups?limit=1&sortkey=ModifiedDesc", "", "").json(t)["data"].([]any)[0].(map[string]any)
	modified, err := time.Parse(time.RFC3339Nano, rec["meta"].(map[string]any)["modified"].(string))
	require.NoError(t, err)
	has := func(h *harness, list, query string) bool {
		a := h.exchange(http.MethodGet, PrefixB+list+"?limit=1000&"+query, "", "")
		require.Equal(t, http.StatusOK, a.status, string(a.body))
		for _, id := range pageIDs(t, a.json(t)) {
			if id == rec["id"] {
				return true
			}
		}
		return false
	}
	before := "meta.modified.before=" + url.QueryEscape(modified.Format(time.RFC3339Nano))
	require.True(t, has(plain, "/groups", before))
	assert.False(t, has(devHarness(t, deviation.TimeBoundsExclusive), "/groups", before), "the inclusive bound excludes itself")

	// Half an hour before the record, written with +01:00: as text it reads
	// half an hour after it.
	after := "meta.modified.after=" + url.QueryEscape(modified.Add(-30*time.Minute).In(time.FixedZone("", 3600)).Format(time.RFC3339Nano))
	require.True(t, has(plain, "/groups", after))
	assert.False(t, has(devHarness(t, deviation.DateTimeBoundsComparedAsText), "/groups", after))
}

func TestRepresentationDeviations(t *testing.T) {
	h := devHarness(t, deviation.ListDropsContactDetails)
	var withEmails map[string]any
	for _, p := range h.exchange(http.MethodGet, PrefixB+"/persons?limit=500", "", "").json(t)["data"].([]any) {
		assert.NotContains(t, p, "emails", "the list shows no emails")
		if withEmails == nil {
			withEmails = p.(map[string]any)
		}
	}
	byID := h.exchange(http.MethodGet, PrefixB+"/persons/"+withEmails["id"].(string), "", "").json(t)
	assert.Contains(t, byID, "addresses", "by id shows them")

	h = devHarness(t, deviation.LookupIgnoresExpand)
	pl := h.exchange(http.MethodGet, PrefixB+"/placements?limit=1", "", "").json(t)["data"].([]any)[0].(map[string]any)
	byID = h.exchange(http.MethodGet, PrefixB+"/placements/"+pl["id"].(string)+"?expand=child&expandReferenceNames=true", "", "").json(t)
	assert.Contains(t, byID, "_embedded")
	lookup := h.exchange(http.MethodPost, PrefixB+"/placements/lookup?expand=child&expandReferenceNames=true", "application/json", fmt.Sprintf(`{"ids":[%q]}`, pl["id"]))
	require.Equal(t, http.StatusOK, lookup.status, string(lookup.body))
	var found []map[string]any
	require.NoError(t, json.Unmarshal(lookup.body, &found))
	require.Len(t, found, 1)
	got := found[0]
	assert.NotContains(t, got, "_embedded")
	assert.NotContains(t, got["placedAt"], "displayName")
}

func TestReferenceDeviations(t *testing.T) {
	h := devHarness(t, deviation.MembershipMarkingDiffers)
	persons := map[string]string{}
	for _, p := range h.exchange(http.MethodGet, PrefixB+"/persons?limit=1000", "", "").json(t)["data"].([]any) {
		m := p.(map[string]any)
		persons[m["id"].(string)], _ = m["securityMarking"].(string)
	}
	g := h.exchange(http.MethodGet, PrefixB+"/groups?limit=1", "", "").json(t)["data"].([]any)[0].(map[string]any)
	member := g["groupMemberships"].([]any)[0].(map[string]any)["person"].(map[string]any)
	assert.NotEqual(t, persons[member["id"].(string)], member["securityMarking"], "a membership's marking differs from the person's")
	pl := h.exchange(http.MethodGet, PrefixB+"/placements?limit=1", "", "").json(t)["data"].([]any)[0].(map[string]any)
	child := pl["child"].(map[string]any)
	assert.Equal(t, persons[child["id"].(string)], child["securityMarking"], "placements are left alone")

	h = devHarness(t, deviation.ReferenceNameDiffers)
	g = h.exchange(http.MethodGet, PrefixB+"/groups?limit=1&expandReferenceNames=true", "", "").json(t)["data"].([]any)[0].(map[string]any)
	org := g["organisation"].(map[string]any)
	named := h.exchange(http.MethodGet, PrefixB+"/organisations/"+org["id"].(string), "", "").json(t)
	assert.Equal(t, named["displayName"].(string)+" (tidigare namn)", org["displayName"])
	pl = h.exchange(http.MethodGet, PrefixB+"/placements?limit=1&expandReferenceNames=true", "", "").json(t)["data"].([]any)[0].(map[string]any)
	assert.NotContains(t, pl["placedAt"].(map[string]any)["displayName"], "tidigare", "placements are left alone")
}

func TestWriteDeviations(t *testing.T) {
	h := devHarness(t, deviation.BRareEnumRefused)
	ev := h.srv.store.Export().AttendanceEvents[0]
	body := func(eventType string) string {
		return fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":%q,"person":{"id":%q},"group":{"id":%q}}`, eventType, ev.Person.ID, ev.Group.ID)
	}
	assert.Equal(t, http.StatusOK, h.exchange(http.MethodPost, PrefixB+"/attendanceEvents", "application/json", body("In")).status)
	refused := h.exchange(http.MethodPost, PrefixB+"/attendanceEvents", "application/json", body("Ut"))
	assert.Equal(t, http.StatusBadRequest, refused.status)
	assert.Equal(t, surface.CodeBadRequest, refused.json(t)["code"])

	h = devHarness(t, deviation.AJSONCharsetRefused)
	search := `{"filter":{"orCondition":false}}`
	assert.Equal(t, http.StatusOK, h.exchange(http.MethodPost, PrefixA+"/school/_search", "application/json", search).status)
	a := h.exchange(http.MethodPost, PrefixA+"/school/_search", "application/json; charset=utf-8", search)
	assert.Equal(t, http.StatusUnsupportedMediaType, a.status)
	assert.Contains(t, a.json(t), "error", "interface A's error body")
	assert.Equal(t, http.StatusOK, h.exchange(http.MethodPost, PrefixB+"/groups/lookup", "application/json; charset=utf-8", `{"ids":[]}`).status, "interface B is left alone")
}

func TestHeaderDeviations(t *testing.T) {
	h := devHarness(t, deviation.RateLimitRemainingGrows)
	var remaining []int
	for range 6 {
		n, err := strconv.Atoi(h.exchange(http.MethodGet, PrefixA+"/student?limit=1", "", "").header.Get("RateLimit-Remaining"))
		require.NoError(t, err)
		remaining = append(remaining, n)
	}
	grew := false
	for i := 1; i < len(remaining); i++ {
		grew = grew || remaining[i] > remaining[i-1]
	}
	assert.True(t, grew, "Remaining grows within the window: %v", remaining)

	h = devHarness(t, deviation.RateLimitResetInPast)
	a := h.exchange(http.MethodGet, PrefixExport+"/attendance?limit=1", "", "")
	reset, err := strconv.ParseInt(a.header.Get("RateLimit-Reset"), 10, 64)
	require.NoError(t, err)
	date, err := http.ParseTime(a.header.Get("Date"))
	require.NoError(t, err)
	assert.Less(t, reset, date.UnixMilli(), "Reset lies before Date")
	school := h.exchange(http.MethodGet, PrefixA+"/school?limit=1", "", "")
	reset, _ = strconv.ParseInt(school.header.Get("RateLimit-Reset"), 10, 64)
	assert.Greater(t, reset, date.UnixMilli(), "schools are left alone")

	h = devHarness(t, deviation.ContentTypeLatin1)
	assert.Equal(t, "application/json; charset=iso-8859-1", h.exchange(http.MethodGet, PrefixExport+"/attendance?limit=1", "", "").header.Get("Content-Type"))
	assert.Equal(t, "application/json; charset=iso-8859-1", h.exchange(http.MethodPost, PrefixB+"/groups/lookup", "application/json", `{"ids":[]}`).header.Get("Content-Type"))
	assert.Equal(t, "application/json", h.exchange(http.MethodGet, PrefixB+"/groups?limit=1", "", "").header.Get("Content-Type"))
}

func TestDateTimeWithoutOffset(t *testing.T) {
	h := devHarness(t, deviation.DateTimeWithoutOffset)
	ab := h.exchange(http.MethodGet, PrefixB+"/absences?limit=1", "", "").json(t)["data"].([]any)[0].(map[string]any)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`, ab["startTime"])
	assert.Regexp(t, `Z$`, ab["meta"].(map[string]any)["created"], "other date-times are left alone")
}

func TestInsufficientScopeAccepted(t *testing.T) {
	for _, tc := range []struct {
		deviates bool
		want     int
	}{{false, http.StatusForbidden}, {true, http.StatusUnprocessableEntity}} {
		h := newHarness(t)
		if tc.deviates {
			h = devHarness(t, deviation.InsufficientScopeAccepted)
		}
		id, secret, ok := h.srv.ReadOnlyClient()
		require.True(t, ok, "the default scenario has a read-only client")
		h.token = h.fetchToken(id, secret)
		assert.Equal(t, http.StatusOK, h.exchange(http.MethodGet, PrefixB+"/groups?limit=1", "", "").status)
		assert.Equal(t, tc.want, h.exchange(http.MethodPost, PrefixA+"/student", "application/json", `{}`).status)
	}
}

func TestNameSortReversed(t *testing.T) {
	plain, h := newHarness(t), devHarness(t, deviation.NameSortReversed)
	for _, tc := range []struct {
		list, key, opposite string
	}{
		{"/persons", "FamilyNameAsc", "FamilyNameDesc"},
		{"/syllabuses", "SubjectCodeDesc", "SubjectCodeAsc"},
		{"/persons", "ModifiedDesc", "ModifiedDesc"},
		{"/organisations", "DisplayNameAsc", "DisplayNameAsc"},
	} {
		got := h.exchange(http.MethodGet, PrefixB+tc.list+"?limit=5&sortkey="+tc.key, "", "").json(t)
		want := plain.exchange(http.MethodGet, PrefixB+tc.list+"?limit=5&sortkey="+tc.opposite, "", "").json(t)
		assert.Equal(t, pageIDs(t, want), pageIDs(t, got), "%s?sortkey=%s answers as sortkey=%s", tc.list, tc.key, tc.opposite)
	}
}

func TestPersonFiltersLoose(t *testing.T) {
	plain, h := newHarness(t), devHarness(t, deviation.PersonFiltersLoose)
	for _, tc := range []struct{ query, as string }{
		{"nameContains=an&nameContains=zzzz", "nameContains=an"},
		{"eduPersonPrincipalName=nobody@example.test", ""},
		{"identifier.context=no-such-context", ""},
		{"nameContains=an", "nameContains=an"},
	} {
		got := h.exchange(http.MethodGet, PrefixB+"/persons?limit=50&"+tc.query, "", "").json(t)
		want := plain.exchange(http.MethodGet, PrefixB+"/persons?limit=50&"+tc.as, "", "").json(t)
		assert.NotEmpty(t, pageIDs(t, want), tc.as)
		assert.Equal(t, pageIDs(t, want), pageIDs(t, got), "persons?%s answers as persons?%s", tc.query, tc.as)
	}
}

func TestRelatedFiltersIgnored(t *testing.T) {
	plain, h := newHarness(t), devHarness(t, deviation.RelatedFiltersIgnored)
	unknown := "00000000-0000-4000-8000-000000000000"
	for _, tc := range []struct{ list, query, as string }{
		{"/activities", "member=" + unknown, ""},
		{"/activities", "teacher=" + unknown, ""},
		{"/attendanceSchedule", "group=" + unknown, ""},
		{"/groups", "organisation=" + unknown, "organisation=" + unknown},
	} {
		got := h.exchange(http.MethodGet, PrefixB+tc.list+"?limit=20&"+tc.query, "", "").json(t)
		want := plain.exchange(http.MethodGet, PrefixB+tc.list+"?limit=20&"+tc.as, "", "").json(t)
		assert.Equal(t, pageIDs(t, want), pageIDs(t, got), "%s?%s answers as %s?%s", tc.list, tc.query, tc.list, tc.as)
	}
	events := "/calendarEvents?limit=20&startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2999-01-01T00:00:00Z"
	got := h.exchange(http.MethodGet, PrefixB+events+"&group="+unknown, "", "").json(t)
	want := plain.exchange(http.MethodGet, PrefixB+events, "", "").json(t)
	assert.NotEmpty(t, pageIDs(t, want))
	assert.Equal(t, pageIDs(t, want), pageIDs(t, got), "calendarEvents?group= answers as without it")
}
