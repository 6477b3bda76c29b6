package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// The retries family (client side): after a 5xx a client backs off instead
// of sending the same request again at once, again and again; and a write
// whose outcome it does not know is not repeated before the client has
// looked whether it was applied.

var (
	specRetryStorm = SpecRef{Section: "Errors; RFC 9110 §15.6.4 and §10.2.3",
		Quote:    "500 | unexpected server error … The server MAY send a Retry-After header field to suggest an appropriate amount of time for the client to wait before retrying the request. … Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request.",
		Decision: "client-retry-storm"}
	specRetryStormStandard = SpecRef{Section: "RFC 9110 §15.6.4 and §10.2.3",
		Quote:    "The server MAY send a Retry-After header field to suggest an appropriate amount of time for the client to wait before retrying the request. … Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request.",
		Decision: "client-retry-storm"}
	specWriteRepeat = SpecRef{Section: "RFC 9110 §9.2.2",
		Quote: "A user agent SHOULD NOT automatically retry a request with a non-idempotent method unless it has some means to know that the request semantics are actually idempotent, regardless of the method, or some means to detect that the original request was never applied."}
)

// A retry storm: stormRepeats repeats in a row of a request that failed
// with a 5xx, each sent less than stormGap after the answer before it
// (decisions.md#client-retry-storm).
const (
	stormGap     = 100 * time.Millisecond
	stormRepeats = 3
)

// clientRetryRules returns the rules over how a client repeats failed requests.
func clientRetryRules() []*Rule {
	return []*Rule{
		{ID: "client.retry-storm", Family: FamilyRetries, Side: SideClient,
			Title: "after a 5xx a client waits before sending the request again (as Retry-After says, when it says), instead of repeating it at once, again and again",
			Spec:  specRetryStorm, StandardSpec: &specRetryStormStandard,
			Severity: SHOULD, Standard: SHOULD,
			NewState: func() any { return map[string]*failing{} },
			Check:    checkRetryStorm},
		{ID: "client.write-repeated-unchecked", Family: FamilyRetries, Side: SideClient,
			Title: "a create whose outcome the client does not know (no answer, 408, 500, 502, 504) is not sent again before the client has read whether it was applied",
			Spec:  specWriteRepeat, StandardSpec: &specWriteRepeat,
			Severity: SHOULD, Standard: SHOULD,
			NewState: func() any { return map[string]*unknownWrite{} },
			Check:    checkWriteRepeat},
	}
}

// requestKey identifies a request for the retry rules: the client, the
// method, the path, the query and the body.
func requestKey(o *Observation) string {
	sum := sha256.Sum256(o.RequestBody)
	return o.Client + " " + o.Method + " " + string(o.Surface) + o.Path + "?" + o.Query.Encode() + " " + hex.EncodeToString(sum[:8])
}

// failing is the last 5xx answer to a request and how many immediate
// repeats of it came in a row.
type failing struct {
	last      *Exchange
	immediate int
	reported  bool
}

func checkRetryStorm(c *Context, o *Observation) {
	state := c.State().(map[string]*failing)
	k := requestKey(o)
	f := state[k]
	if f != nil && o.Start.After(f.last.Start) {
		c.Judged(o)
		gap := max(o.Start.Sub(f.last.End()), 0)
		if ra, ok := retryAfterOf(f.last); ok && o.Start.Before(f.last.Start.Add(ra).Add(-resetTolerance)) {
			if !f.reported {
				f.reported = true
				c.FailRelated(o, []*Exchange{f.last}, "the request again no sooner than Retry-After says",
					"%s was sent again %s after a %d that asked for %s (Retry-After: %s)", o.Label(), gap.Round(time.Millisecond), f.last.Status, ra, f.last.ResponseHeader.Get("Retry-After"))
			}
		} else if gap < stormGap {
			f.immediate++
			if f.immediate >= stormRepeats && !f.reported {
				f.reported = true
				c.FailRelated(o, []*Exchange{f.last}, "a back-off between retries (decisions.md#client-retry-storm)",
					"%s was sent %d times in a row each less than %s after a %d answer to it", o.Label(), f.immediate, stormGap, f.last.Status)
			}
		} else {
			f.immediate = 0
		}
	}
	switch {
	case o.Status >= 500:
		if f == nil {
			f = &failing{}
			state[k] = f
		}
		f.last = o.Exchange
	case f != nil && o.Start.After(f.last.Start):
		delete(state, k)
	}
}

// retryAfterOf reads a 5xx's Retry-After in seconds.
func retryAfterOf(ex *Exchange) (time.Duration, bool) {
	n, err := strconv.Atoi(ex.ResponseHeader.Get("Retry-After"))
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// unknownWrite is a create whose outcome the client could not know.
type unknownWrite struct {
	ex       *Exchange
	resource string
	surface  Surface
}

// outcomeUnknown reports whether an answer leaves a write's outcome
// unknown: no answer, a timeout, or a server error that may have come
// after the write was applied.
func outcomeUnknown(status int) bool {
	switch status {
	case 0, http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	}
	return false
}

func checkWriteRepeat(c *Context, o *Observation) {
	state := c.State().(map[string]*unknownWrite)
	if o.Op == nil {
		return
	}
	switch o.Op.Kind {
	case KindList, KindGet, KindLookup, KindSearch:
		// A read of the resource is the check.
		for k, w := range state {
			if w.surface == o.Surface && w.resource == o.Op.Resource && o.Start.After(w.ex.End()) {
				delete(state, k)
			}
		}
		return
	case KindCreate:
	default:
		return
	}
	k := requestKey(o)
	if w := state[k]; w != nil && o.Start.After(w.ex.Start) {
		c.Judged(o)
		c.FailRelated(o, []*Exchange{w.ex}, "a read of "+o.Op.Resource+" to see whether the first one was applied, before sending it again",
			"%s was sent again after its first attempt got %s, without reading whether that one was applied", o.Label(), statusText(w.ex))
		delete(state, k)
	}
	if outcomeUnknown(o.Status) {
		state[k] = &unknownWrite{ex: o.Exchange, resource: o.Op.Resource, surface: o.Surface}
	}
}

func statusText(ex *Exchange) string {
	if ex.Status == 0 {
		return "no answer (" + ex.Err + ")"
	}
	return strconv.Itoa(ex.Status)
}
