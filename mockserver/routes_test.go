package mockserver

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPathRoutesChooseWhatMuxChooses: wherever the interface-B route table
// answers, mux (which routes everything else) would have chosen the same
// route and path variables.
func TestPathRoutesChooseWhatMuxChooses(t *testing.T) {
	srv, err := New(Options{SelfCheck: true})
	require.NoError(t, err)
	require.False(t, srv.bRoutes.off, "interface B's templates are all of the form <prefix>/{name}")
	router := srv.router
	eps, err := srv.endpoints()
	require.NoError(t, err)
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
		if !ok {
			continue
		}
		fast++
		require.True(t, matched, "%s: the table routes what mux does not", p)
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
// same answer as before (the handler reads its id from mux.Vars).
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
