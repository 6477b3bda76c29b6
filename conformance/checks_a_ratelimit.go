package conformance

import (
	"net/http"
	"net/url"
	"strconv"
)

var (
	specRL429 = SpecRef{Section: "Limits", Quote: "Exceeding the rate limit yields 429."}
)

func aRateLimitChecks() []*Check {
	a := []Surface{SurfaceA}
	return []*Check{
		{ID: "A.ratelimit.exhaust-429", Title: "requests beyond the quota are answered 429", Area: "A.ratelimit", Severity: MUST, Needs: a, Spec: specRL429,
			OptIn: "spends the client's whole hourly quota", Run: checkRL429, phase: phaseQuota},
	}
}

// rlProbe is one cheap request whose answer carries the headers.
func (t *T) rlProbe() *Response {
	t.requireAuth(SurfaceA)
	resp := t.Get(SurfaceA, "/school", url.Values{"limit": {"1"}})
	t.RequireStatus(resp, http.StatusOK)
	return resp
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
