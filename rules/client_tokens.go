package rules

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The tokens family (client side): a client keeps its access token until
// it expires or is refused, and asks for a new one then.

var (
	specTokenReuse = SpecRef{Section: "Authentication, item 4; Limits",
		Quote: "No refresh token is issued. When the token expires, the client requests a new one with the same credentials. … Access token lifetime is given by `expires_in` in each token response."}
	specTokenReuseStandard = SpecRef{Section: "RFC 6749 §5.1",
		Quote: "expires_in RECOMMENDED. The lifetime in seconds of the access token."}
	specTokenRefused = SpecRef{Section: "Authentication, item 4; RFC 6750 §3.1 (invalid_token)",
		Quote: "When the token expires, the client requests a new one with the same credentials. … The access token provided is expired, revoked, malformed, or invalid for other reasons. The resource SHOULD respond with the HTTP 401 (Unauthorized) status code. The client MAY request a new access token and retry the protected resource request."}
	specTokenRefusedStandard = SpecRef{Section: "RFC 6750 §3.1 (invalid_token)",
		Quote: "The access token provided is expired, revoked, malformed, or invalid for other reasons. The resource SHOULD respond with the HTTP 401 (Unauthorized) status code. The client MAY request a new access token and retry the protected resource request."}
)

// tokenStreak is how many tokens in a row a client may fetch while the one
// it holds is still good and has served at most one request, before it
// counts as fetching a token for every request.
const tokenStreak = 3

// tokenMargin is how close to its expiry a token may be renewed early.
const tokenMargin = time.Minute

// tokenUse is what is known of one access token of a client.
type tokenUse struct {
	issued  time.Time
	expires time.Time // zero: the answer gave no expires_in
	uses    int
	refused *Exchange // the 401 that refused it
}

// clientTokens are one client's tokens.
type clientTokens struct {
	tokens   map[string]*tokenUse
	order    []string // oldest first, at most maxTokens
	last     string
	streak   int
	reported bool
	// pending is a 401 answered since the client's last request; its next
	// request shows what it did about it.
	pending *Exchange
}

const maxTokens = 64

type tokensState map[string]*clientTokens

func (s tokensState) client(id string) *clientTokens {
	ct := s[id]
	if ct == nil {
		ct = &clientTokens{tokens: map[string]*tokenUse{}}
		s[id] = ct
	}
	return ct
}

func (ct *clientTokens) add(tok string, u *tokenUse) {
	if _, ok := ct.tokens[tok]; !ok {
		ct.order = append(ct.order, tok)
		if len(ct.order) > maxTokens {
			delete(ct.tokens, ct.order[0])
			ct.order = ct.order[1:]
		}
	}
	ct.tokens[tok] = u
	ct.last = tok
}

// clientTokenRules returns the rules over how a client uses its access tokens.
func clientTokenRules() []*Rule {
	return []*Rule{
		{ID: "client.token-per-request", Family: FamilyTokens, Side: SideClient,
			Title: "a client keeps its access token for as long as it is good, instead of asking for a new one for every request",
			Spec:  specTokenReuse, StandardSpec: &specTokenReuseStandard,
			Severity: NOTE, Standard: NOTE,
			NewState: func() any { return tokensState{} },
			Check:    checkTokenPerRequest},
		{ID: "client.token-after-refusal", Family: FamilyTokens, Side: SideClient,
			Title: "after a 401 refusing its access token, a client asks for a new token instead of sending the refused one again",
			Spec:  specTokenRefused, StandardSpec: &specTokenRefusedStandard,
			Severity: MUST, Standard: SHOULD,
			NewState: func() any { return tokensState{} },
			Check:    checkTokenAfterRefusal},
	}
}

// bearerOf returns the bearer token a request carries.
func bearerOf(h http.Header) string {
	scheme, tok, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// issuedToken reads a token endpoint's answer: the token and its lifetime.
func issuedToken(o *Observation) (string, time.Duration, bool) {
	if o.Surface != SurfaceAuth || !o.OK() {
		return "", 0, false
	}
	m := o.Object()
	tok, _ := m["access_token"].(string)
	if tok == "" {
		return "", 0, false
	}
	secs, _ := IntOf(m["expires_in"])
	return tok, time.Duration(secs) * time.Second, true
}

func checkTokenPerRequest(c *Context, o *Observation) {
	ct := c.State().(tokensState).client(o.Client)
	if tok := bearerOf(o.RequestHeader); tok != "" {
		if u := ct.tokens[tok]; u != nil {
			u.uses++
			if o.Status == http.StatusUnauthorized && u.refused == nil {
				u.refused = o.Exchange
			}
		}
		return
	}
	tok, ttl, ok := issuedToken(o)
	if !ok {
		return
	}
	if prev := ct.tokens[ct.last]; prev != nil {
		c.Judged(o)
		good := prev.refused == nil && (prev.expires.IsZero() || o.Start.Before(prev.expires.Add(-tokenMargin)))
		if good {
			if prev.uses <= 1 {
				ct.streak++
			} else {
				ct.streak = 0
			}
			if ct.streak >= tokenStreak && !ct.reported {
				ct.reported = true
				c.Fail(o, "one token for as long as expires_in says, a new one when it expires or is refused",
					"the client asked for %d new tokens in a row while the one it held was still good and had served at most one request (this one at %s)", ct.streak, o.Start.Format(time.RFC3339Nano))
			}
		} else {
			ct.streak = 0
		}
	}
	u := &tokenUse{issued: o.End()}
	if ttl > 0 {
		u.expires = o.End().Add(ttl)
	}
	ct.add(tok, u)
}

func checkTokenAfterRefusal(c *Context, o *Observation) {
	ct := c.State().(tokensState).client(o.Client)
	if tok, ttl, ok := issuedToken(o); ok {
		u := &tokenUse{issued: o.End()}
		if ttl > 0 {
			u.expires = o.End().Add(ttl)
		}
		ct.add(tok, u)
		if ct.pending != nil && o.Start.After(ct.pending.End()) {
			c.Judged(o) // a new token after the 401: what the rule asks
			ct.pending = nil
		}
		return
	}
	tok := bearerOf(o.RequestHeader)
	if tok == "" {
		return
	}
	u := ct.tokens[tok]
	if u == nil {
		u = &tokenUse{}
		ct.add(tok, u)
	}
	if u.refused != nil && sentAfter(o, u.refused) {
		c.Judged(o)
		c.FailRelated(o, []*Exchange{u.refused}, "a new token from the token endpoint after the 401",
			"%s was sent with the access token the server refused with 401 at %s%s", o.Label(), u.refused.End().Format(time.RFC3339Nano), challenge(u.refused))
	} else if ct.pending != nil && sentAfter(o, ct.pending) {
		c.Judged(o)
	}
	if ct.pending != nil && sentAfter(o, ct.pending) {
		ct.pending = nil
	}
	if o.Status == http.StatusUnauthorized && u.refused == nil {
		u.refused = o.Exchange
		ct.pending = o.Exchange
	}
}

// challenge quotes a 401's WWW-Authenticate header for a message.
func challenge(ex *Exchange) string {
	if v := ex.ResponseHeader.Get("WWW-Authenticate"); v != "" {
		return fmt.Sprintf(" (WWW-Authenticate: %s)", v)
	}
	return ""
}
