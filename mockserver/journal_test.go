package mockserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (h *harness) journal(query string) JournalPage {
	h.t.Helper()
	res := h.admin(http.MethodGet, "/requests"+query, "")
	require.Equal(h.t, http.StatusOK, res.status, res)
	var p JournalPage
	res.decode(&p)
	return p
}

func TestJournalRecordsWhoCalledWhat(t *testing.T) {
	h := newHarness(t, smallScenario(t, ""))
	id, secret := h.srv.Credentials()
	h.admin(http.MethodDelete, "/requests", "")

	h.call(http.MethodGet, PrefixB+"/placements?limit=2", "", nil)
	dir := h.call(http.MethodGet, PrefixA+"/school?limit=1", "", legacy(id, secret))
	h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}, nil)
	basic := http.Header{}
	basic.Set("Authorization", "Basic "+basicAuth(id, secret))
	h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}}, basic)
	h.raw(http.MethodGet, PrefixB+"/nowhere", nil)
	h.raw(http.MethodDelete, PrefixB+"/placements", nil)
	h.raw(http.MethodGet, PrefixB+"/placements", http.Header{"Authorization": {"Bearer unknown-token"}})

	page := h.journal("")
	assert.Equal(t, DefaultJournalSize, page.Capacity)
	assert.Zero(t, page.Dropped)
	type row struct {
		Client, Method, Path string
		Status               int
	}
	var rows []row
	for _, e := range page.Requests {
		rows = append(rows, row{e.ClientID, e.Method, e.Path, e.Status})
		assert.Equal(t, testNow, e.Time, "the time is the server's clock")
		assert.GreaterOrEqual(t, e.DurationMS, 0.0)
	}
	assert.Equal(t, []row{
		{id, "GET", PrefixB + "/placements?limit=2", 200},
		{id, "GET", PrefixA + "/school?limit=1", 200},
		{id, "POST", PathToken, 200},
		{id, "POST", PathToken, 200},
		{"", "GET", PrefixB + "/nowhere", 404},
		{"", "DELETE", PrefixB + "/placements", 405},
		{"", "GET", PrefixB + "/placements", 401},
	}, rows)
	assert.Equal(t, dir.header.Get(surface.HeaderRequestID), page.Requests[1].RequestID, "interface A's request id")
	assert.Empty(t, page.Requests[0].RequestID)
	for i := 1; i < len(page.Requests); i++ {
		assert.Equal(t, page.Requests[i-1].Seq+1, page.Requests[i].Seq)
	}
}

func basicAuth(id, secret string) string {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")
}

func TestJournalRecordsAPanicAs500(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	require.NoError(t, h.srv.router.Handle("/boom", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") })))
	res := h.raw(http.MethodGet, "/boom", nil)
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
	got := h.srv.Requests(RequestFilter{PathPrefix: "/boom"})
	require.Len(t, got, 1)
	assert.Equal(t, http.StatusInternalServerError, got[0].Status)

	// A handler that has already answered 200 when it panics is journalled as 500 too.
	require.NoError(t, h.srv.router.Handle("/late-boom", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		panic("late")
	})))
	h.raw(http.MethodGet, "/late-boom", nil)
	assert.Equal(t, http.StatusInternalServerError, h.srv.Requests(RequestFilter{PathPrefix: "/late-boom"})[0].Status)
}

func TestJournalFilters(t *testing.T) {
	h := newHarness(t, smallScenario(t, ""))
	id, secret := h.srv.Credentials()
	h.admin(http.MethodDelete, "/requests", "")
	h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil)
	h.call(http.MethodGet, PrefixB+"/placements/"+unknownID, "", nil)
	h.call(http.MethodGet, PrefixA+"/school", "", legacy(id, secret))
	h.call(http.MethodPost, PrefixA+"/school", `{"title":"Nya skolan","schoolType":"GR"}`, legacy(id, secret))
	h.raw(http.MethodGet, PrefixB+"/placements", nil)

	paths := func(query string) []string {
		var out []string
		for _, e := range h.journal(query).Requests {
			out = append(out, e.Method+" "+e.Path)
		}
		return out
	}
	assert.Equal(t, []string{"POST /directory/v1/school"}, paths("?method=post"))
	assert.Equal(t, []string{"GET /api/v1/placements?limit=1", "GET /api/v1/placements/" + unknownID, "GET /api/v1/placements"}, paths("?pathPrefix=/api/v1/placements"))
	assert.Equal(t, []string{"GET /api/v1/placements/" + unknownID}, paths("?status=404"))
	assert.Equal(t, []string{"GET /api/v1/placements/" + unknownID, "GET /api/v1/placements"}, paths("?status=4xx"))
	assert.Len(t, paths("?clientID="+id), 4)
	assert.Equal(t, []string{"GET /api/v1/placements?limit=1"}, paths("?method=GET&pathPrefix=/api/v1&status=2xx&clientID="+id))

	for _, bad := range []string{"?status=4x", "?status=600", "?status=abc", "?status=1000", "?since=3"} {
		res := h.admin(http.MethodGet, "/requests"+bad, "")
		assert.Equal(t, http.StatusBadRequest, res.status, res)
	}

	res := h.admin(http.MethodDelete, "/requests", "")
	require.Equal(t, http.StatusOK, res.status, res)
	var c surface.Cleared
	res.decode(&c)
	assert.Equal(t, 5, c.Cleared)
	assert.Empty(t, h.journal("").Requests)
}

func TestJournalIsABoundedRing(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"), func(o *Options) { o.JournalSize = 3 })
	h.admin(http.MethodDelete, "/requests", "")
	for i := range 5 {
		h.raw(http.MethodGet, fmt.Sprintf("/nowhere/%d", i), nil)
	}
	page := h.journal("")
	assert.Equal(t, 3, page.Capacity)
	assert.EqualValues(t, 2, page.Dropped)
	var paths []string
	for _, e := range page.Requests {
		paths = append(paths, e.Path)
	}
	assert.Equal(t, []string{"/nowhere/2", "/nowhere/3", "/nowhere/4"}, paths, "oldest first, the oldest pushed out")

	long := "/" + strings.Repeat("x", 5000)
	h.raw(http.MethodGet, long, nil)
	got := h.srv.Requests(RequestFilter{PathPrefix: "/xxx"})
	require.Len(t, got, 1)
	assert.Len(t, got[0].Path, 2048, "a long path is cut to the journal's cap")
}

func TestJournalCanBeSwitchedOff(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"), func(o *Options) { o.JournalSize = -1 })
	h.raw(http.MethodGet, "/nowhere", nil)
	page := h.journal("")
	assert.Zero(t, page.Capacity)
	assert.Empty(t, page.Requests)
}

func BenchmarkJournalledRequest(b *testing.B) {
	for _, size := range []int{DefaultJournalSize, -1} {
		name := "journal"
		if size < 0 {
			name = "no-journal"
		}
		b.Run(name, func(b *testing.B) {
			srv, err := New(Options{Scenario: mustBuiltin(b, "empty"), JournalSize: size})
			require.NoError(b, err)
			req := httptest.NewRequest(http.MethodGet, "/nowhere", nil)
			b.ReportAllocs()
			for b.Loop() {
				srv.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
