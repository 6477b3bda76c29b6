package rules

import (
	"net/http"
	"strconv"
	"time"
)

// The ratelimit family (client side): after a 429, a client waits until
// the reset the answer announced.

var (
	specRateReset = SpecRef{Section: "Limits; RFC 6585 §4; RFC 9110 §10.2.3",
		Quote: "Exceeding the rate limit yields 429. … `RateLimit-Reset`: string, the time the window resets, as UTC epoch milliseconds. … The response representations SHOULD include details explaining the condition, and MAY include a Retry-After header indicating how long to wait before making a new request. … Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request."}
	specRateResetStandard = SpecRef{Section: "RFC 6585 §4; RFC 9110 §10.2.3",
		Quote: "The response representations SHOULD include details explaining the condition, and MAY include a Retry-After header indicating how long to wait before making a new request. … Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request."}
)

// resetTolerance is how much earlier than an announced reset a request may
// start: clocks and the rounding of headers.
const resetTolerance = 50 * time.Millisecond

// clientRateLimitRules returns the client rate-limit rule.
func clientRateLimitRules() []*Rule {
	return []*Rule{{ID: "client.ratelimit-before-reset", Family: FamilyRateLimit, Side: SideClient,
		Title: "after a 429, a client sends no request to that surface before the reset the answer announced (Retry-After, RateLimit-Reset)",
		Spec:  specRateReset, StandardSpec: &specRateResetStandard,
		Severity: SHOULD, Standard: SHOULD,
		NewState: func() any { return map[string][]*refusal{} },
		Check:    checkRateReset}}
}

// refusal is a 429 and the time, in the driver's clock, before which the
// client was asked not to come back.
type refusal struct {
	ex    *Exchange
	until time.Time
}

// announcedReset reads when a 429 asks the client to come back, in the
// driver's clock, taking the earlier of Retry-After and RateLimit-Reset
// and reading both leniently: Retry-After counts from the request's start,
// RateLimit-Reset (epoch milliseconds, or seconds) from the answer's Date,
// which has whole seconds, less one second.
func announcedReset(ex *Exchange) (time.Time, bool) {
	var until time.Time
	take := func(t time.Time) {
		if until.IsZero() || t.Before(until) {
			until = t
		}
	}
	h := ex.ResponseHeader
	date, dateErr := http.ParseTime(h.Get("Date"))
	if v := h.Get("Retry-After"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			take(ex.Start.Add(time.Duration(n) * time.Second))
		} else if t, err := http.ParseTime(v); err == nil && dateErr == nil {
			take(ex.Start.Add(t.Sub(date) - time.Second))
		}
	}
	if v := h.Get("RateLimit-Reset"); v != "" && dateErr == nil {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			reset := time.UnixMilli(n)
			if n < 1e11 { // seconds, as some servers send
				reset = time.Unix(n, 0)
			}
			if d := reset.Sub(date) - time.Second; d > -time.Second && d < 24*time.Hour {
				take(ex.Start.Add(d))
			}
		}
	}
	return until, !until.IsZero()
}

func checkRateReset(c *Context, o *Observation) {
	if o.Surface == SurfaceAuth {
		return
	}
	state := c.State().(map[string][]*refusal)
	key := o.Client + " " + string(o.Surface)
	var keep []*refusal
	for _, r := range state[key] {
		if !sentAfter(o, r.ex) {
			keep = append(keep, r) // sent before the 429 was read
			continue
		}
		c.Judged(o)
		if o.Start.Before(r.until.Add(-resetTolerance)) {
			// A refusal is reported once, by the first request that did
			// not wait for it, and then forgotten: a client that ignores
			// every 429 would otherwise make each request weigh all the
			// refusals of the window.
			c.FailRelated(o, []*Exchange{r.ex}, "no request before "+r.until.Format(time.RFC3339Nano),
				"%s was sent %s before the reset the 429 at %s announced (%s)", o.Label(), r.until.Sub(o.Start).Round(time.Millisecond),
				r.ex.Start.Format(time.RFC3339Nano), resetHeaders(r.ex))
		}
	}
	state[key] = keep
	if o.Status == http.StatusTooManyRequests {
		until, ok := announcedReset(o.Exchange)
		if !ok {
			c.Undecided(o, "a 429 that announces no reset (no Retry-After, no RateLimit-Reset with a Date)")
			return
		}
		state[key] = append(state[key], &refusal{ex: o.Exchange, until: until})
	}
}

// sentAfter reports whether a request was sent after the client had read
// an earlier answer: it started after that exchange ended, or it is the
// same request again (a retry is sent after its answer was read, though the
// driver may record the answer's end later than the client read it).
func sentAfter(o *Observation, earlier *Exchange) bool {
	if o.Start.After(earlier.End()) {
		return true
	}
	return o.Start.After(earlier.Start) && o.Method == earlier.Method && o.Path == earlier.Path &&
		o.Query.Encode() == earlier.Query.Encode() && string(o.RequestBody) == string(earlier.RequestBody)
}

func resetHeaders(ex *Exchange) string {
	s := ""
	for _, h := range []string{"Retry-After", "RateLimit-Reset", "Date"} {
		if v := ex.ResponseHeader.Get(h); v != "" {
			if s != "" {
				s += ", "
			}
			s += h + ": " + v
		}
	}
	return s
}
