package rules

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ex builds an exchange by hand: "GET /api/v1/placements?limit=2", the
// status and the answer's body (a value marshalled to JSON, or a string
// sent as is).
type exOpt func(*Exchange)

// clock gives each exchange a start a second after the one before; the
// concurrency test makes exchanges from several goroutines.
var (
	clockMu sync.Mutex
	clock   = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
)

func tick() time.Time {
	clockMu.Lock()
	defer clockMu.Unlock()
	clock = clock.Add(time.Second)
	return clock
}

func mkEx(t testing.TB, line string, status int, body any, opts ...exOpt) *Exchange {
	t.Helper()
	method, target, ok := strings.Cut(line, " ")
	require.True(t, ok, line)
	u, err := url.Parse(target)
	require.NoError(t, err)
	s, rel, ok := DefaultPrefixes().Classify(u.Path)
	require.True(t, ok, "no surface for %s", u.Path)
	start := tick()
	e := &Exchange{
		Surface: s, Method: method, Path: rel, Query: u.Query(), URL: "http://server.test" + target,
		RequestHeader:  http.Header{"Authorization": {"Bearer tok"}},
		Status:         status,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		Start:          start, Duration: 10 * time.Millisecond,
	}
	switch b := body.(type) {
	case nil:
	case string:
		e.ResponseBody = []byte(b)
	default:
		e.ResponseBody, err = json.Marshal(b)
		require.NoError(t, err)
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

func withRequestBody(ct string, body any) exOpt {
	return func(e *Exchange) {
		switch b := body.(type) {
		case string:
			e.RequestBody = []byte(b)
		default:
			e.RequestBody, _ = json.Marshal(b)
		}
		e.RequestHeader.Set("Content-Type", ct)
	}
}

func withRequestHeader(k, v string) exOpt {
	return func(e *Exchange) {
		if v == "" {
			e.RequestHeader.Del(k)
			return
		}
		e.RequestHeader.Set(k, v)
	}
}

func withResponseHeader(k, v string) exOpt {
	return func(e *Exchange) { e.ResponseHeader.Set(k, v) }
}

type obj = map[string]any

// placement is a valid interface B placement.
func placement(id string, mods ...func(obj)) obj {
	p := obj{
		"id":         id,
		"meta":       obj{"created": "2024-01-01T08:00:00Z", "modified": "2024-02-01T08:00:00Z"},
		"placedAt":   obj{"id": "10000000-0000-4000-8000-000000000001"},
		"child":      obj{"id": "20000000-0000-4000-8000-000000000001", "securityMarking": "Ingen"},
		"schoolType": "FS",
		"startDate":  "2024-01-01",
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func id(n int) string {
	return "6f000000-0000-4000-8000-" + strings.Repeat("0", 12-len(itoa(n))) + itoa(n)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// judge builds a judge of the named rules (all when none are named).
func judge(t testing.TB, p Profile, ids ...string) *Judge {
	t.Helper()
	var rs []*Rule
	for _, id := range ids {
		r := Lookup(id)
		require.NotNil(t, r, "no rule %s", id)
		rs = append(rs, r)
	}
	if len(ids) == 0 {
		rs = nil
	}
	j, err := NewJudge(Config{Profile: p, Rules: rs})
	require.NoError(t, err)
	return j
}

// findings returns the messages of a judge's findings of a rule.
func findingsOf(j *Judge, rule string) []string {
	var out []string
	for _, f := range j.Findings() {
		if f.Rule == rule {
			out = append(out, f.Message)
		}
	}
	return out
}

func coverageOf(j *Judge, rule string) RuleCoverage {
	for _, c := range j.Coverage().Rules {
		if c.Rule.ID == rule {
			return c
		}
	}
	return RuleCoverage{}
}
