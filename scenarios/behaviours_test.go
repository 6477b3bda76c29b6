package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/scenarios"
)

func routeOf(t *testing.T, route string) scenarios.Route {
	t.Helper()
	sc := parse(t, "name: t\nbehaviours:\n  latency: [{route: \""+route+"\", delay: 1ms}]\n")
	return sc.Behaviours.Latency[0].Route
}

func TestRouteMatchesMethodAndPathGlob(t *testing.T) {
	tests := []struct {
		name, route, method, path string
		want                      bool
	}{
		{"star matches the rest, slashes included", "GET /api/v1/placements*", "GET", "/api/v1/placements/123", true},
		{"star matches nothing", "GET /api/v1/placements*", "GET", "/api/v1/placements", true},
		{"another method does not match", "GET /api/v1/placements*", "POST", "/api/v1/placements", false},
		{"another path does not match", "GET /api/v1/placements*", "GET", "/api/v1/groups/1", false},
		{"no method matches every method", "/oauth/token", "POST", "/oauth/token", true},
		{"star method matches every method", "* /oauth/token", "DELETE", "/oauth/token", true},
		{"lower-case method is accepted", "get /x", "GET", "/x", true},
		{"a literal path matches only itself", "GET /x", "GET", "/x/y", false},
		{"star in the middle", "GET /api/*/groups/*", "GET", "/api/v1/groups/42", true},
		{"star in the middle needs the rest", "GET /api/*/groups/*", "GET", "/api/v1/placements/42", false},
		{"two stars backtrack", "GET /*a*b", "GET", "/xaxaxb", true},
		{"the query is not part of the path", "GET /x", "GET", "/x?limit=1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := routeOf(t, tt.route)
			assert.Equal(t, tt.want, r.Match(tt.method, tt.path))
			rule := scenarios.LatencyRule{Route: r}
			assert.Equal(t, tt.want, rule.Match(tt.method, tt.path))
		})
	}
	assert.Equal(t, "GET /api/v1/placements*", routeOf(t, "get  /api/v1/placements*").String())
	assert.Equal(t, "/x", routeOf(t, "* /x").String())
}

func TestDelayIsFixedOrDrawnFromItsRange(t *testing.T) {
	sc := parse(t, "name: t\nseed: 3\nbehaviours:\n  latency:\n    - {route: /a, delay: 200ms}\n    - {route: /b, delay: 50ms-300ms}\n")
	fixed, ranged := sc.Behaviours.Latency[0].Delay, sc.Behaviours.Latency[1].Delay
	assert.Equal(t, scenarios.Delay{Min: 200 * time.Millisecond, Max: 200 * time.Millisecond}, fixed)
	assert.Equal(t, "50ms-300ms", ranged.String())
	r := sc.Rand("latency")
	assert.Equal(t, 200*time.Millisecond, fixed.Pick(r))
	var draws []time.Duration
	for range 200 {
		d := ranged.Pick(r)
		require.GreaterOrEqual(t, d, 50*time.Millisecond)
		require.LessOrEqual(t, d, 300*time.Millisecond)
		draws = append(draws, d)
	}
	r2 := sc.Rand("latency")
	fixed.Pick(r2)
	for i := range draws {
		require.Equal(t, draws[i], ranged.Pick(r2), "the same seed must give the same draws")
	}
}

func TestFaultFiresEveryNthFirstNOrWithProbability(t *testing.T) {
	sc := parse(t, `name: t
seed: 1
behaviours:
  faults:
    - {route: /a, status: 500}
    - {route: /b, status: 500, everyNth: 3}
    - {route: /c, status: 500, firstN: 2}
    - {route: /d, status: 500, probability: 0.25}
    - {route: /e, status: 500, probability: 0}
`)
	f := sc.Behaviours.Faults
	r := sc.Rand("faults")
	var always, nth, first, prob, never []int
	for n := 1; n <= 400; n++ {
		if f[0].Fires(n, r) {
			always = append(always, n)
		}
		if f[1].Fires(n, r) {
			nth = append(nth, n)
		}
		if f[2].Fires(n, r) {
			first = append(first, n)
		}
		if f[3].Fires(n, r) {
			prob = append(prob, n)
		}
		if f[4].Fires(n, r) {
			never = append(never, n)
		}
	}
	assert.Len(t, always, 400)
	assert.Equal(t, []int{3, 6, 9}, nth[:3])
	assert.Len(t, nth, 133)
	assert.Equal(t, []int{1, 2}, first)
	assert.InDelta(t, 100, len(prob), 30, "a quarter of 400")
	assert.Empty(t, never)
	assert.True(t, f[1].Match("GET", "/b"))
}
