package mockserver

import (
	"context"
	"github.com/skolkit/skolkit/mockserver/internal/admin"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/scenarios"
)

// ruleList is the JSON of GET /__admin/faults as a client reads it.
type ruleList struct {
	Faults []struct {
		ID, Source, Route, Body string
		Status, Matched, Fired  int
	}
	Latency []struct {
		ID, Source, Route, Delay string
		Matched                  int
	}
}

func (h *harness) rules() ruleList {
	h.t.Helper()
	var l ruleList
	h.admin(http.MethodGet, "/faults", "").decode(&l)
	return l
}

// firedOn sends n requests to path and returns the 1-based numbers of those
// answered with status.
func firedOn(h *harness, path string, n, status int) []int {
	h.t.Helper()
	var fired []int
	for i := 1; i <= n; i++ {
		if h.raw(http.MethodGet, path, nil).StatusCode == status {
			fired = append(fired, i)
		}
	}
	return fired
}

func withFaults(t testing.TB, yaml string) func(*Options) {
	return smallScenario(t, "behaviours:\n"+yaml)
}

func TestFaultEveryNthFiresOnMultiplesOfN(t *testing.T) {
	h := newHarness(t, withFaults(t, `
  faults:
    - {route: GET /api/v1/syllabuses/*, status: 503, everyNth: 3}
`))
	assert.Equal(t, []int{3, 6, 9, 12}, firedOn(h, PrefixB+"/syllabuses/x", 13, http.StatusServiceUnavailable))
	assert.Empty(t, firedOn(h, PrefixB+"/groups/x", 6, http.StatusServiceUnavailable), "other routes are not counted")
	rules := h.rules()
	require.Len(t, rules.Faults, 1)
	f := rules.Faults[0]
	assert.Equal(t, []any{"f1", admin.RuleFromScenario, "GET /api/v1/syllabuses/*", 13, 4}, []any{f.ID, f.Source, f.Route, f.Matched, f.Fired})
	assert.Equal(t, 13, h.srv.Rules().Faults[0].Matched)
}

func TestFaultFirstNFiresExactlyNTimes(t *testing.T) {
	h := newHarness(t, withFaults(t, `
  faults:
    - {route: /api/v1/syllabuses/*, status: 500, firstN: 2}
`))
	assert.Equal(t, []int{1, 2}, firedOn(h, PrefixB+"/syllabuses/x", 8, http.StatusInternalServerError))
}

func TestFaultProbability(t *testing.T) {
	t.Run("0 never fires", func(t *testing.T) {
		h := newHarness(t, withFaults(t, "  faults:\n    - {route: /api/*, status: 503, probability: 0}\n"))
		assert.Empty(t, firedOn(h, PrefixB+"/syllabuses/x", 50, http.StatusServiceUnavailable))
	})
	t.Run("1 always fires", func(t *testing.T) {
		h := newHarness(t, withFaults(t, "  faults:\n    - {route: /api/*, status: 503, probability: 1}\n"))
		assert.Len(t, firedOn(h, PrefixB+"/syllabuses/x", 50, http.StatusServiceUnavailable), 50)
	})
	t.Run("a fixed seed gives the same sequence twice", func(t *testing.T) {
		sequence := func() []int {
			h := newHarness(t, withFaults(t, "  faults:\n    - {route: /api/*, status: 503, probability: 0.5}\n"))
			return firedOn(h, PrefixB+"/syllabuses/x", 60, http.StatusServiceUnavailable)
		}
		first := sequence()
		assert.NotEmpty(t, first)
		assert.Less(t, len(first), 60)
		assert.Equal(t, first, sequence())
	})
	t.Run("reset starts the sequence again", func(t *testing.T) {
		h := newHarness(t, withFaults(t, "  faults:\n    - {route: /api/*, status: 503, probability: 0.5}\n"))
		first := firedOn(h, PrefixB+"/syllabuses/x", 40, http.StatusServiceUnavailable)
		h.admin(http.MethodPost, "/reset", "").summary(t)
		assert.Equal(t, first, firedOn(h, PrefixB+"/syllabuses/x", 40, http.StatusServiceUnavailable))
	})
}

func TestFaultRulesAreTriedInOrder(t *testing.T) {
	h := newHarness(t, withFaults(t, `
  faults:
    - {route: GET /api/v1/*, status: 502, everyNth: 2}
    - {route: GET /api/v1/*, status: 503}
`))
	var statuses []int
	for range 4 {
		statuses = append(statuses, h.raw(http.MethodGet, PrefixB+"/syllabuses/x", nil).StatusCode)
	}
	assert.Equal(t, []int{503, 502, 503, 502}, statuses)
	rules := h.rules()
	assert.Equal(t, [2]int{4, 2}, [2]int{rules.Faults[0].Matched, rules.Faults[0].Fired})
	assert.Equal(t, [2]int{2, 2}, [2]int{rules.Faults[1].Matched, rules.Faults[1].Fired}, "a request the first rule answered is not counted by the second")
}

func TestFaultAnswer(t *testing.T) {
	h := newHarness(t, withFaults(t, `
  faults:
    - route: GET /api/v1/groups/*
      status: 503
      headers: {Retry-After: "2"}
      body: {code: ServiceUnavailable, message: try again later}
    - route: DELETE /api/v1/placements/*
      status: 500
      body: oops
    - route: GET /api/v1/syllabuses/*
      status: 429
      headers: {Content-Type: application/problem+json}
      body: '{"title": "slow down"}'
`))
	res := h.raw(http.MethodGet, PrefixB+"/groups/abc", nil)
	assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	assert.Equal(t, "2", res.Header.Get("Retry-After"))
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"code":"ServiceUnavailable","message":"try again later"}`, res.Body)

	res = h.raw(http.MethodDelete, PrefixB+"/placements/x", nil)
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
	assert.Equal(t, "text/plain; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Equal(t, "oops", res.Body)

	res = h.raw(http.MethodGet, PrefixB+"/syllabuses/x", nil)
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
	assert.Equal(t, `{"title": "slow down"}`, res.Body)

	res = h.raw(http.MethodGet, PrefixB+"/placements/x", nil)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "a request no rule matches is served")
}

func TestLatency(t *testing.T) {
	h := newHarness(t, withFaults(t, `
  latency:
    - {route: GET /api/v1/syllabuses/*, delay: 60ms}
    - {route: GET /api/v1/slow/*, delay: 10s}
    - {route: /api/*, delay: 0ms}
`))
	start := time.Now()
	h.raw(http.MethodGet, PrefixB+"/syllabuses/x", nil)
	assert.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond, "the first matching rule applies")

	t.Run("a client that gives up is not kept waiting", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.ts.URL+PrefixB+"/slow/x", nil)
		_, err := h.ts.Client().Do(req)
		require.Error(t, err)
		require.Eventually(t, func() bool {
			return len(h.srv.Requests(RequestFilter{Status: "499"})) == 1
		}, 5*time.Second, 10*time.Millisecond, "the journal records the abandoned request as 499")
	})

	rules := h.rules()
	require.Len(t, rules.Latency, 3)
	l := rules.Latency[0]
	assert.Equal(t, []any{"l1", admin.RuleFromScenario, "GET /api/v1/syllabuses/*", "60ms", 1}, []any{l.ID, l.Source, l.Route, l.Delay, l.Matched})
}

func TestAdminFaults(t *testing.T) {
	h := newHarness(t, withFaults(t, "  faults:\n    - {route: GET /api/v1/syllabuses/*, status: 503}\n"))

	res := h.admin(http.MethodPost, "/faults", `{"faults": [{"route": "GET /api/v1/syllabuses/*", "status": 418, "firstN": 1, "body": {"code": "Teapot"}}],
	  "latency": [{"route": "/api/*", "delay": "1ms"}]}`)
	require.Equal(t, http.StatusCreated, res.status, res)
	var added ruleList
	res.decode(&added)
	require.Len(t, added.Faults, 1)
	assert.Equal(t, "f2", added.Faults[0].ID)
	assert.Equal(t, admin.RuleFromAdmin, added.Faults[0].Source)
	assert.JSONEq(t, `{"code":"Teapot"}`, added.Faults[0].Body)
	assert.Equal(t, "l1", added.Latency[0].ID)

	assert.Equal(t, http.StatusTeapot, h.raw(http.MethodGet, PrefixB+"/syllabuses/x", nil).StatusCode, "new rules go first")
	assert.Equal(t, http.StatusServiceUnavailable, h.raw(http.MethodGet, PrefixB+"/syllabuses/x", nil).StatusCode)

	yaml := "faults:\n  - route: DELETE /directory/v1/*\n    status: 500\n"
	res = h.call(http.MethodPost, PrefixAdmin+"/faults", yaml, http.Header{"Content-Type": {"application/yaml"}})
	require.Equal(t, http.StatusCreated, res.status, res)

	var ids []string
	for _, f := range h.rules().Faults {
		ids = append(ids, f.ID)
	}
	assert.Equal(t, []string{"f3", "f2", "f1"}, ids)

	res = h.admin(http.MethodDelete, "/faults/f1", "")
	require.Equal(t, http.StatusOK, res.status, res)
	var removed ruleList
	res.decode(&removed)
	require.Len(t, removed.Faults, 1)
	assert.Equal(t, "f1", removed.Faults[0].ID)
	assert.NotEqual(t, http.StatusServiceUnavailable, h.raw(http.MethodGet, PrefixB+"/syllabuses/x", nil).StatusCode, "the scenario's rule is gone")
	res = h.admin(http.MethodDelete, "/faults/l1", "")
	require.Equal(t, http.StatusOK, res.status, res)
	res = h.admin(http.MethodDelete, "/faults/f1", "")
	require.Equal(t, http.StatusNotFound, res.status, res)
	assert.Equal(t, surface.AdminNotFound, res.adminError(t).Code)
}

func TestAdminFaultsRejectsBadRules(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	for _, tc := range []struct {
		name, body string
		want       []scenarios.Problem
	}{
		{"every problem with its place in the body", "{\"faults\": [\n  {\"route\": \"FETCH /x\", \"status\": 99}],\n \"latency\": [{\"route\": \"/x\", \"delay\": \"9ms-1ms\"}]}", []scenarios.Problem{
			{Line: 2, Column: 13, Path: "faults[0].route"},
			{Line: 2, Column: 35, Path: "faults[0].status"},
			{Line: 3, Column: 39, Path: "latency[0].delay"},
		}},
		{"an unknown key", `{"fault": []}`, []scenarios.Problem{{Line: 1, Column: 2, Path: "fault"}}},
		{"no rules", `{}`, []scenarios.Problem{{}}},
		{"empty", ` `, []scenarios.Problem{{}}},
		{"deviations", `{"deviations": ["x"]}`, []scenarios.Problem{{Line: 1, Column: 17, Path: "deviations[0]"}}},
		{"not a mapping", `[1]`, []scenarios.Problem{{Line: 1, Column: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.admin(http.MethodPost, "/faults", tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			e := res.adminError(t)
			require.Len(t, e.Problems, len(tc.want), res)
			for i, p := range e.Problems {
				assert.Equal(t, "request body", p.File)
				assert.NotEmpty(t, p.Message)
				p.File, p.Message = "", ""
				assert.Equal(t, tc.want[i], p, res)
			}
		})
	}
	rules := h.rules()
	assert.Empty(t, rules.Faults)
	assert.Empty(t, rules.Latency)
	res := h.call(http.MethodPost, PrefixAdmin+"/faults", `x`, http.Header{"Content-Type": {"text/plain"}})
	assert.Equal(t, http.StatusUnsupportedMediaType, res.status, res)
	assert.True(t, strings.Contains(res.adminError(t).Message, "application/yaml"))
}
