package rules

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The headers family: rate-limit headers that are consistent over the
// sequence of answers, and content types that say JSON and UTF-8.

var (
	specRLValues = SpecRef{Section: "Limits", Quote: "`RateLimit-Limit`: integer, the maximum number of requests permitted per hour. `RateLimit-Remaining`: integer, requests left in the current window. `RateLimit-Reset`: string, the time the window resets, as UTC epoch milliseconds."}
	specRLWindow = SpecRef{Section: "Limits", Quote: "Rate limit: a maximum number of requests per hour. … `RateLimit-Remaining`: integer, requests left in the current window.", Decision: "rate-limit-headers"}
	specJSONUTF8 = SpecRef{Section: "RFC 8259 §8.1", Quote: "JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8."}
	specAccept   = SpecRef{Section: "RFC 9110 §12.5.1", Quote: "A request without any Accept header field implies that the user agent will accept any media type in response. … media-range = ( \"*/*\" / ( type \"/\" \"*\" ) / ( type \"/\" subtype ) ) parameters"}
)

const (
	headerRLLimit     = "RateLimit-Limit"
	headerRLRemaining = "RateLimit-Remaining"
	headerRLReset     = "RateLimit-Reset"
	// resetSlack allows for a server whose Date and window disagree by a
	// little (a second's resolution, clock steps).
	resetSlack = 5 * time.Minute
)

func rateLimited(op *Operation) bool { return op != nil && op.RateLimited }

// headerRules returns the headers family.
func headerRules() []*Rule {
	return []*Rule{
		{ID: "headers.ratelimit-values", Family: FamilyHeaders, Side: SideServer,
			Title:    "RateLimit-Limit and RateLimit-Remaining are integers with 0 ≤ Remaining ≤ Limit, and RateLimit-Reset is epoch milliseconds after the answer's Date and within the hour",
			Spec:     specRLValues,
			Severity: MUST, Standard: Off, Applies: rateLimited, Concurrent: true, Check: checkRateLimitValues},
		{ID: "headers.ratelimit-present", Family: FamilyHeaders, Side: SideServer,
			Title:    "every answer of an operation whose contract declares the RateLimit headers carries all three (the 204 of a deletion, errors and 429 included)",
			Spec:     SpecRef{Section: "Limits", Quote: "Rate limit: a maximum number of requests per hour. A 204 response of interface A carries three headers.", Decision: "rate-limit-headers"},
			Severity: MUST, Standard: Off, Applies: rateLimited, Concurrent: true, Check: checkRateLimitPresent},
		{ID: "headers.ratelimit-window", Family: FamilyHeaders, Side: SideServer,
			Title:    "over the sequence of answers to one client, RateLimit-Remaining never grows within a window, and RateLimit-Reset stays while Remaining falls (the window's end does not move)",
			Spec:     specRLWindow,
			Severity: MUST, Standard: Off, Applies: rateLimited, NewState: newRateLimitState, Check: checkRateLimitWindow},
		{ID: "headers.ratelimit-remaining-falls", Family: FamilyHeaders, Side: SideServer,
			Title:    "RateLimit-Remaining goes down with each successful request of a client in one window",
			Spec:     specRLWindow,
			Severity: SHOULD, Standard: Off, Applies: rateLimited, NewState: newRateLimitState, Check: checkRateLimitFalls},
		{ID: "headers.json-utf8", Family: FamilyHeaders, Side: SideServer,
			Title:    "every JSON answer is UTF-8: its Content-Type names no other charset and its body is valid UTF-8",
			Spec:     specJSONUTF8,
			Severity: MUST, Standard: MUST, Applies: func(op *Operation) bool { return op != nil }, Concurrent: true, Check: checkJSONUTF8},
		{ID: "headers.accept-parameters", Family: FamilyHeaders, Side: SideServer,
			Title:    "a request whose Accept admits JSON (with parameters such as charset, or among several media ranges) is never answered 406",
			Spec:     specAccept,
			Severity: MUST, Standard: MUST, Applies: func(op *Operation) bool { return op != nil }, Concurrent: true, Check: checkAcceptParameters},
	}
}

// rateLimit is what one answer says of its window.
type rateLimit struct {
	limit, remaining int64
	reset            int64 // epoch milliseconds
	ex               *Exchange
}

func readRateLimit(h http.Header) (rateLimit, bool) {
	var rl rateLimit
	var err1, err2, err3 error
	rl.limit, err1 = strconv.ParseInt(strings.TrimSpace(h.Get(headerRLLimit)), 10, 64)
	rl.remaining, err2 = strconv.ParseInt(strings.TrimSpace(h.Get(headerRLRemaining)), 10, 64)
	rl.reset, err3 = strconv.ParseInt(strings.TrimSpace(h.Get(headerRLReset)), 10, 64)
	return rl, err1 == nil && err2 == nil && err3 == nil
}

// RateLimitProblems checks the three headers of one answer against the
// server's clock (its Date).
func RateLimitProblems(h http.Header, now time.Time) []string {
	var out []string
	limit, remaining := int64(-1), int64(-1)
	if v := strings.TrimSpace(h.Get(headerRLLimit)); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 1 {
			out = append(out, fmt.Sprintf("%s %q is not a positive integer", headerRLLimit, v))
		} else {
			limit = n
		}
	}
	if v := strings.TrimSpace(h.Get(headerRLRemaining)); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 0 {
			out = append(out, fmt.Sprintf("%s %q is not a non-negative integer", headerRLRemaining, v))
		} else {
			remaining = n
		}
	}
	if limit >= 0 && remaining > limit {
		out = append(out, fmt.Sprintf("%s %d exceeds %s %d", headerRLRemaining, remaining, headerRLLimit, limit))
	}
	if v := strings.TrimSpace(h.Get(headerRLReset)); v != "" {
		out = append(out, ResetProblems(v, now)...)
	}
	return out
}

// ResetProblems checks RateLimit-Reset: UTC epoch milliseconds, within the
// hour after now (the server's Date).
func ResetProblems(v string, now time.Time) []string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return []string{fmt.Sprintf("%s %q is not an integer number of epoch milliseconds", headerRLReset, v)}
	}
	at := time.UnixMilli(n)
	// The window ends after the answer was made (Date has a second's
	// resolution), and within the hour.
	lo, hi := now.Add(-time.Second), now.Add(time.Hour+resetSlack)
	if at.Before(lo) || at.After(hi) {
		hint := ""
		if s := time.Unix(n, 0); !s.Before(lo) && !s.After(hi) {
			hint = " (read as seconds it would be " + s.UTC().Format(time.RFC3339) + ": epoch seconds instead of milliseconds?)"
		}
		return []string{fmt.Sprintf("%s %s is %s as epoch milliseconds, not within the hour after the answer's Date %s%s", headerRLReset, v, at.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339), hint)}
	}
	return nil
}

// serverNow is when the server made an answer: its Date, else when the
// driver received it.
func serverNow(o *Observation) time.Time {
	if at, err := http.ParseTime(o.ResponseHeader.Get("Date")); err == nil {
		return at
	}
	return o.End()
}

func checkRateLimitPresent(c *Context, o *Observation) {
	if o.Status == 0 {
		return
	}
	c.Judged(o)
	var missing []string
	for _, h := range []string{headerRLLimit, headerRLRemaining, headerRLReset} {
		if o.ResponseHeader.Get(h) == "" {
			missing = append(missing, h)
		}
	}
	if len(missing) > 0 {
		c.Fail(o, "RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset", "%s carries no %s", o.Label(), strings.Join(missing, ", "))
	}
}

func checkRateLimitValues(c *Context, o *Observation) {
	if o.Status == 0 || o.ResponseHeader.Get(headerRLRemaining) == "" && o.ResponseHeader.Get(headerRLReset) == "" {
		return
	}
	c.Judged(o)
	now := serverNow(o)
	if skew := o.End().Sub(now); skew > time.Minute || skew < -time.Minute {
		c.Note(o, "the server's Date is %s, %s from the driver's clock: RateLimit-Reset is judged by the server's clock", now.UTC().Format(time.RFC3339), skew.Round(time.Minute))
	}
	if p := RateLimitProblems(o.ResponseHeader, now); len(p) > 0 {
		c.Fail(o, "RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (epoch ms within the hour)", "%s: %s", o.Label(), strings.Join(p, "; "))
	}
}

// rateLimitState keeps the last answers of each client (by the credentials
// it sent).
type rateLimitState struct{ last map[string][]rateLimit }

func newRateLimitState() any { return &rateLimitState{last: map[string][]rateLimit{}} }

// bucket names whose quota an answer counts against: the bearer token or
// legacy client id the request carried.
func bucket(o *Observation) string {
	if a := o.RequestHeader.Get("Authorization"); a != "" {
		return a
	}
	return "client-id " + o.RequestHeader.Get("Client-ID")
}

// earlier returns, for an answer, the client's earlier answers that had
// ended before its request started (so that the server counted them
// first), and remembers the answer.
func (s *rateLimitState) earlier(o *Observation) (rateLimit, []rateLimit, bool) {
	rl, ok := readRateLimit(o.ResponseHeader)
	if !ok || o.Status == http.StatusUnauthorized || (o.RequestHeader.Get("Authorization") == "" && o.RequestHeader.Get("Client-ID") == "") {
		return rl, nil, false
	}
	rl.ex = o.Exchange
	key := bucket(o)
	var before []rateLimit
	for _, a := range s.last[key] {
		if a.ex.End().Before(o.Start) {
			before = append(before, a)
		}
	}
	list := append(s.last[key], rl)
	if len(list) > 8 {
		list = list[len(list)-8:]
	}
	if len(s.last) > 1024 {
		clear(s.last)
	}
	s.last[key] = list
	return rl, before, true
}

func checkRateLimitWindow(c *Context, o *Observation) {
	rl, before, ok := c.State().(*rateLimitState).earlier(o)
	if !ok || len(before) == 0 {
		return
	}
	c.Judged(o)
	for _, a := range before {
		switch {
		case a.reset == rl.reset && rl.remaining > a.remaining:
			c.FailRelated(o, []*Exchange{a.ex}, fmt.Sprintf("RateLimit-Remaining at most %d in the window ending %d", a.remaining, a.reset), "%s: RateLimit-Remaining grew from %d to %d within the window ending %d", o.Label(), a.remaining, rl.remaining, rl.reset)
			return
		case a.reset != rl.reset && rl.remaining < a.remaining && rl.limit == a.limit:
			c.FailRelated(o, []*Exchange{a.ex}, fmt.Sprintf("RateLimit-Reset %d while Remaining falls", a.reset), "%s: RateLimit-Reset moved from %d to %d while RateLimit-Remaining went on falling (%d, then %d): the window's end moves", o.Label(), a.reset, rl.reset, a.remaining, rl.remaining)
			return
		}
	}
}

func checkRateLimitFalls(c *Context, o *Observation) {
	rl, before, ok := c.State().(*rateLimitState).earlier(o)
	if !ok || !o.OK() || len(before) == 0 {
		return
	}
	a := before[len(before)-1]
	if a.reset != rl.reset || a.ex.Status/100 != 2 {
		return
	}
	c.Judged(o)
	if rl.remaining >= a.remaining && rl.remaining > 0 {
		c.FailRelated(o, []*Exchange{a.ex}, fmt.Sprintf("RateLimit-Remaining below %d", a.remaining), "%s: RateLimit-Remaining stayed at %d after another request in the same window", o.Label(), rl.remaining)
	}
}

func checkJSONUTF8(c *Context, o *Observation) {
	ct := o.ResponseHeader.Get("Content-Type")
	mt, params := MediaType(ct)
	if o.Status == 0 || len(o.ResponseBody) == 0 || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return
	}
	c.Judged(o)
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		c.Fail(o, "JSON in UTF-8", "%s answered Content-Type %q", o.Label(), ct)
		return
	}
	if !o.ResponseTruncated && !utf8.Valid(o.ResponseBody) {
		c.Fail(o, "JSON in UTF-8", "%s answered a body that is not valid UTF-8", o.Label())
	}
}

// admitsJSON reports whether an Accept header admits application/json.
func admitsJSON(accept string) bool {
	for _, r := range strings.Split(accept, ",") {
		mt, params := MediaType(strings.TrimSpace(r))
		if q, ok := params["q"]; ok && (q == "0" || q == "0.0" || q == "0.00" || q == "0.000") {
			continue
		}
		if mt == "application/json" || mt == "application/*" || mt == "*/*" {
			return true
		}
	}
	return false
}

func checkAcceptParameters(c *Context, o *Observation) {
	accept := o.RequestHeader.Get("Accept")
	if o.Status == 0 || accept == "" || !admitsJSON(accept) {
		return
	}
	c.Judged(o)
	if o.Status == http.StatusNotAcceptable {
		c.Fail(o, "a JSON answer", "%s answered 406 to Accept: %s, which admits application/json", o.Label(), accept)
	}
}
