package mockserver

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPathRoutesChooseWhatMuxChooses: the interface-B route table answers
// exactly the paths mux would route to one of B's routes, with the same
// route and path variables. mux is given B's routes as routes registers
// them when the table is off (literal paths first); the server's own mux
// then has none of them, as the table answers for B.
func TestPathRoutesChooseWhatMuxChooses(t *testing.T) {
	srv, err := New(Options{SelfCheck: true})
	require.NoError(t, err)
	require.False(t, srv.bRoutes.off, "interface B's templates are all of the form <prefix>/{name}")
	eps, err := srv.endpoints()
	require.NoError(t, err)
	router := mux.NewRouter()
	router.UseEncodedPath()
	router.SkipClean(true)
	var bPaths []string
	for _, e := range eps {
		if strings.HasPrefix(e.Path, PrefixB+"/") && !slices.Contains(bPaths, e.Path) {
			bPaths = append(bPaths, e.Path)
		}
	}
	slices.SortStableFunc(bPaths, func(a, b string) int { return strings.Count(a, "{") - strings.Count(b, "{") })
	for _, p := range bPaths {
		router.Path(p).Handler(http.NotFoundHandler())
	}
	ids := []string{"7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61", "lookup", "openapi.json", "a%2Fb", "a%2fb", "%7Bid%7D", "{id}", "x%20y", "%", "%zz",
		"..", ".", "%2E%2E", "%C3%A4", "ä", "a;b", "a:b", "a=b", "~", "%00", "%0A", "A"}
	var paths []string
	for _, e := range eps {
		paths = append(paths, e.Path, e.Path+"/", strings.ToUpper(e.Path), strings.Replace(e.Path, "/v1/", "//v1/", 1),
			strings.Replace(e.Path, "/v1/", "/v1%2F", 1), strings.Replace(e.Path, "/api/", "/%61pi/", 1))
		for _, id := range ids {
			p := strings.ReplaceAll(e.Path, "{id}", id)
			paths = append(paths, p, p+"/", p+"/x", p+"%2F", strings.ReplaceAll(e.Path, "/{id}", id))
		}
	}
	paths = append(paths, "/api/v1/", "/api/v1", "/api/v1/x", "/api/v1//", "/api/v1/placements//", "/api/v1/groups/lookup/x", "/api/v1/groups/look%75p")
	fast := 0
	for _, p := range paths {
		r, err := http.ReadRequest(bufioReader("GET " + p + " HTTP/1.1\r\nHost: x\r\n\r\n"))
		if err != nil {
			continue
		}
		_, template, vars, ok := srv.bRoutes.match(r)
		var m mux.RouteMatch
		matched := router.Match(r, &m)
		var own mux.RouteMatch
		if srv.router.Match(r, &own) && own.Route != nil {
			ownTemplate, err := own.Route.GetPathTemplate()
			require.NoError(t, err)
			assert.False(t, strings.HasPrefix(ownTemplate, PrefixB+"/"), "%s: the server's mux has B's route %s", p, ownTemplate)
		}
		require.Equal(t, matched, ok, "%s: the table and mux disagree on whether B routes it", p)
		if !ok {
			continue
		}
		fast++
		want, err := m.Route.GetPathTemplate()
		require.NoError(t, err)
		assert.Equal(t, want, template, p)
		if len(m.Vars) == 0 {
			assert.Empty(t, vars, p)
		} else {
			assert.Equal(t, m.Vars, vars, p)
		}
	}
	assert.Greater(t, fast, 100)
}

// TestPathRoutesServeThroughServeHTTP: a request the table routes gets the
// answer mux's route would give (the handler reads its id from mux.Vars).
func TestPathRoutesServeThroughServeHTTP(t *testing.T) {
	h := newHarness(t)
	res := h.get(PrefixB + "/placements/7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61")
	assert.Equal(t, http.StatusNotFound, res.status, res)
	assert.Contains(t, string(res.body), "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61")
	rec := httptest.NewRecorder()
	h.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, PrefixB+"/placements", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, http.MethodGet, rec.Header().Get(surface.HeaderAllow))
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }
