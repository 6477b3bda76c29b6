package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

var (
	specRL204       = SpecRef{Section: "Endpoints (interface A)", Quote: "The 204 response of group deletion carries the headers `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (see Limits)."}
	specRLHeaders   = SpecRef{Section: "Limits", Quote: "Rate limit: a maximum number of requests per hour. A 204 response of interface A carries three headers.", Decision: "rate-limit-headers"}
	specRLValues    = SpecRef{Section: "Limits", Quote: "`RateLimit-Limit`: integer, the maximum number of requests permitted per hour. `RateLimit-Remaining`: integer, requests left in the current window."}
	specRLReset     = SpecRef{Section: "Limits", Quote: "`RateLimit-Reset`: string, the time the window resets, as UTC epoch milliseconds."}
	specRLRemaining = SpecRef{Section: "Limits", Quote: "`RateLimit-Remaining`: integer, requests left in the current window."}
	specRL429       = SpecRef{Section: "Limits", Quote: "Exceeding the rate limit yields 429."}
)

func aRateLimitChecks() []*Check {
	a := []Surface{SurfaceA}
	return []*Check{
		{ID: "A.ratelimit.headers", Title: "interface A answers carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset", Area: "A.ratelimit", Severity: SHOULD, Needs: a, Spec: specRLHeaders, Run: checkRLHeaders},
		{ID: "A.ratelimit.values", Title: "RateLimit-Limit and RateLimit-Remaining are integers with 0 ≤ Remaining ≤ Limit", Area: "A.ratelimit", Severity: MUST, Needs: a, Spec: specRLValues, Run: checkRLValues},
		{ID: "A.ratelimit.reset-epoch-ms", Title: "RateLimit-Reset is an epoch-millisecond time within the coming hour", Area: "A.ratelimit", Severity: MUST, Needs: a, Spec: specRLReset, Run: checkRLReset},
		{ID: "A.ratelimit.remaining-decreases", Title: "RateLimit-Remaining goes down as requests are made", Area: "A.ratelimit", Severity: SHOULD, Needs: a, Spec: specRLRemaining, Run: checkRLDecreases},
		{ID: "A.ratelimit.headers-on-204", Title: "the 204 of DELETE /group/{id} carries the three RateLimit headers with valid values", Area: "A.ratelimit", Level: LevelWrite, Severity: MUST, Needs: a, Spec: specRL204, Run: checkRL204},
		{ID: "A.ratelimit.exhaust-429", Title: "requests beyond the quota are answered 429", Area: "A.ratelimit", Severity: MUST, Needs: a, Spec: specRL429,
			OptIn: "spends the client's whole hourly quota", Run: checkRL429, phase: phaseQuota},
		rlSequenceCheck(),
	}
}

// resetSlack allows for clock differences between runner and server.
const resetSlack = 5 * time.Minute

// rateLimitProblems checks the three headers of one answer.
func rateLimitProblems(h http.Header, now time.Time) []string {
	var out []string
	get := func(name string) (string, bool) {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			out = append(out, name+" is missing")
			return "", false
		}
		return v, true
	}
	limit, remaining := int64(-1), int64(-1)
	if v, ok := get(headerRLLimit); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			out = append(out, fmt.Sprintf("%s %q is not a positive integer", headerRLLimit, v))
		} else {
			limit = n
		}
	}
	if v, ok := get(headerRLRemaining); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			out = append(out, fmt.Sprintf("%s %q is not a non-negative integer", headerRLRemaining, v))
		} else {
			remaining = n
		}
	}
	if limit >= 0 && remaining > limit {
		out = append(out, fmt.Sprintf("%s %d exceeds %s %d", headerRLRemaining, remaining, headerRLLimit, limit))
	}
	if v, ok := get(headerRLReset); ok {
		out = append(out, resetProblems(v, now)...)
	}
	return out
}

// resetProblems checks RateLimit-Reset: UTC epoch milliseconds, within the
// current hour's window.
func resetProblems(v string, now time.Time) []string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return []string{fmt.Sprintf("%s %q is not an integer number of epoch milliseconds", headerRLReset, v)}
	}
	at := time.UnixMilli(n)
	lo, hi := now.Add(-resetSlack), now.Add(time.Hour+resetSlack)
	if at.Before(lo) || at.After(hi) {
		hint := ""
		if s := time.Unix(n, 0); !s.Before(lo) && !s.After(hi) {
			hint = " (read as seconds it would be " + s.UTC().Format(time.RFC3339) + ": epoch seconds instead of milliseconds?)"
		}
		return []string{fmt.Sprintf("%s %s is %s as epoch milliseconds, not within the coming hour%s", headerRLReset, v, at.UTC().Format(time.RFC3339), hint)}
	}
	return nil
}

// serverNow is the instant an answer was made by the server's clock: its
// Date header (RFC 9110 §6.6.1), else the runner's clock. RateLimit-Reset is
// a time of the server's: a server whose clock differs from the runner's (a
// mock whose clock stands still, a host out of sync) is judged by its own,
// and the run says so.
func (t *T) serverNow(resp *Response) time.Time {
	at, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return time.Now()
	}
	if skew := time.Since(at); skew > time.Minute || skew < -time.Minute {
		t.Notef("the server's Date is %s, %s from this host's clock: RateLimit-Reset is judged by the server's clock",
			at.UTC().Format(time.RFC3339), skew.Round(time.Second))
	}
	return at
}

// rlProbe is one cheap request whose answer carries the headers.
func (t *T) rlProbe() *Response {
	t.requireAuth(SurfaceA)
	resp := t.Get(SurfaceA, "/school", url.Values{"limit": {"1"}})
	t.RequireStatus(resp, http.StatusOK)
	return resp
}

func hasAnyRL(h http.Header) bool {
	return h.Get(headerRLLimit) != "" || h.Get(headerRLRemaining) != "" || h.Get(headerRLReset) != ""
}

func checkRLHeaders(t *T) {
	resp := t.rlProbe()
	for _, name := range []string{headerRLLimit, headerRLRemaining, headerRLReset} {
		if resp.Header.Get(name) == "" {
			t.Failf(resp, name+" on the answer", "GET /school answered without %s", name)
		}
	}
}

func checkRLValues(t *T) {
	resp := t.rlProbe()
	if !hasAnyRL(resp.Header) {
		t.Skipf("the 200 of GET /school carries no RateLimit headers (the spec requires them on the 204 of a deletion: see A.ratelimit.headers-on-204)")
	}
	for _, p := range rateLimitProblems(resp.Header, t.serverNow(resp)) {
		if !strings.HasPrefix(p, headerRLReset) {
			t.Failf(resp, "integer RateLimit-Limit ≥ 1 and 0 ≤ RateLimit-Remaining ≤ RateLimit-Limit", "%s", p)
		}
	}
}

func checkRLReset(t *T) {
	resp := t.rlProbe()
	v := resp.Header.Get(headerRLReset)
	if v == "" {
		t.Skipf("the 200 of GET /school carries no RateLimit-Reset (the spec requires it on the 204 of a deletion: see A.ratelimit.headers-on-204)")
	}
	for _, p := range resetProblems(v, t.serverNow(resp)) {
		t.Failf(resp, "UTC epoch milliseconds within the coming hour", "%s", p)
	}
}

func checkRLDecreases(t *T) {
	var prev int64 = -1
	var prevReset string
	for i := 0; i < 3; i++ {
		resp := t.rlProbe()
		v := resp.Header.Get(headerRLRemaining)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Skipf("GET /school carries no integer RateLimit-Remaining (%q)", v)
		}
		reset := resp.Header.Get(headerRLReset)
		if prev >= 0 && reset == prevReset && n >= prev {
			t.Failf(resp, fmt.Sprintf("RateLimit-Remaining below %d", prev), "RateLimit-Remaining stayed at %d after another request in the same window", n)
		}
		prev, prevReset = n, reset
	}
}

func checkRL204(t *T) {
	t.requireAuth(SurfaceA)
	rec, _ := t.create("/group", func() map[string]any { return groupKind.body(t) })
	resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: "/group/" + str(rec, "id")})
	t.RequireStatus(resp, http.StatusNoContent)
	for _, p := range rateLimitProblems(resp.Header, t.serverNow(resp)) {
		t.Failf(resp, "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (epoch ms)", "%s", p)
	}
}

// maxQuotaRequests bounds the requests the 429 check spends.
const maxQuotaRequests = 20000

func checkRL429(t *T) {
	resp := t.rlProbe()
	remaining, err := strconv.ParseInt(resp.Header.Get(headerRLRemaining), 10, 64)
	if err != nil {
		t.Skipf("GET /school carries no integer RateLimit-Remaining, so the quota to spend is unknown")
	}
	budget := min(remaining+10, maxQuotaRequests)
	for i := int64(0); i < budget; i++ {
		if t.ctx.Err() != nil {
			t.Skipf("cancelled")
		}
		r := t.Do(Request{Surface: SurfaceA, Method: http.MethodGet, Path: "/school", Query: url.Values{"limit": {"1"}}, NoRetry: true})
		if r.Status == http.StatusTooManyRequests {
			if r.Header.Get(headerRetryAfter) == "" && r.Header.Get(headerRLReset) == "" {
				t.Failf(r, "Retry-After or RateLimit-Reset on the 429", "the 429 says neither when to retry nor when the window resets")
			}
			t.Notef("429 after %d requests (RateLimit-Remaining was %d)", i+1, remaining)
			return
		}
		if r.Status != http.StatusOK {
			t.Fatalf(r, "200, then 429 once the quota is spent", "request %d answered %d", i+1, r.Status)
		}
	}
	t.Failf(t.last, "429 once the quota is spent", "%d requests after RateLimit-Remaining said %d, none was answered 429", budget, remaining)
}
