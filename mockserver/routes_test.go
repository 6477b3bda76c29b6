package mockserver

import (
	"bufio"
	"cmp"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/skolkit/skolkit/mockserver/internal/route"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTemplatesMatchAsMuxTemplatesDo: the router (package route) routes
// every path as mux's own regular-expression templates would, to the same
// route with the same variables: every operation of every surface, and
// paths made to trip them (escapes, empty segments, a segment too many or
// too few, case).
func TestTemplatesMatchAsMuxTemplatesDo(t *testing.T) {
	srv, err := New(Options{SelfCheck: true})
	require.NoError(t, err)
	eps, err := srv.endpoints()
	require.NoError(t, err)
	regexps := mux.NewRouter()
	regexps.UseEncodedPath()
	regexps.SkipClean(true)
	var templates []string
	for _, e := range eps {
		if !slices.Contains(templates, e.Path) {
			templates = append(templates, e.Path)
		}
	}
	for _, op := range srv.plane.Endpoints() {
		if !slices.Contains(templates, PrefixAdmin+op.Path) {
			templates = append(templates, PrefixAdmin+op.Path)
		}
	}
	// the order the server adds them in: B first, literal paths first
	rank := func(p string) int {
		if strings.HasPrefix(p, PrefixB+"/") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(templates, func(a, b string) int {
		return cmp.Or(rank(a)-rank(b), strings.Count(a, "{")-strings.Count(b, "{"))
	})
	segments := route.New(http.NotFoundHandler())
	for _, p := range templates {
		regexps.Path(p).Handler(http.NotFoundHandler())
		require.NoError(t, segments.Handle(p, http.NotFoundHandler()))
	}
	ids := []string{"7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61", "lookup", "openapi.json", "a%2Fb", "a%2fb", "%7Bid%7D", "{id}", "x%20y", "%", "%zz",
		"..", ".", "%2E%2E", "%C3%A4", "ä", "a;b", "a:b", "a=b", "~", "%00", "%0A", "A"}
	var paths []string
	for _, tmpl := range templates {
		paths = append(paths, tmpl, tmpl+"/", strings.ToUpper(tmpl), strings.Replace(tmpl, "/v1/", "//v1/", 1),
			strings.Replace(tmpl, "/v1/", "/v1%2F", 1), strings.Replace(tmpl, "/api/", "/%61pi/", 1))
		for _, id := range ids {
			p := strings.NewReplacer("{id}", id, "{table}", id).Replace(tmpl)
			paths = append(paths, p, p+"/", p+"/x", p+"%2F", strings.ReplaceAll(tmpl, "/{id}", id))
		}
	}
	paths = append(paths, "/api/v1/", "/api/v1", "/api/v1/x", "/api/v1//", "/api/v1/placements//", "/api/v1/groups/lookup/x", "/api/v1/groups/look%75p", "/", "//")
	routed := 0
	for _, p := range paths {
		r, err := http.ReadRequest(bufioReader("GET " + p + " HTTP/1.1\r\nHost: x\r\n\r\n"))
		if err != nil {
			continue
		}
		template, vars, ok := segments.Match(r)
		var m mux.RouteMatch
		matched := regexps.Match(r, &m)
		require.Equal(t, matched, ok, "%s: the router and mux's templates disagree on whether a route takes it", p)
		if !ok {
			continue
		}
		routed++
		want, err := m.Route.GetPathTemplate()
		require.NoError(t, err)
		assert.Equal(t, want, template, p)
		if len(m.Vars) == 0 {
			assert.Empty(t, vars, p)
		} else {
			assert.Equal(t, m.Vars, vars, p)
		}
	}
	assert.Greater(t, routed, 300)
}

// TestRoutesServeThroughServeHTTP: a routed request reaches its handler with
// its variables (the handler reads its id from Request.PathValue), and a method the
// path lacks is a 405 with Allow.
func TestRoutesServeThroughServeHTTP(t *testing.T) {
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
