package mockserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
)

// rateWindow is the rate-limit window.
const rateWindow = time.Hour

// directoryGate is in front of every interface-A and export path, answered or
// not: it gives the request an id, authenticates it (bearer token or the
// Client-ID and Client-Secret headers), counts it against the client's hourly
// quota (or the caller address's, when unauthenticated) and sets the three
// RateLimit headers, then answers 401 or 429 itself or calls next. An open
// path (a served contract) needs no credentials and is counted by caller
// address unless the caller authenticates.
func (s *Server) directoryGate(next http.Handler, open bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		rid := hex.EncodeToString(b[:])
		w.Header().Set(surface.HeaderRequestID, rid)
		ctx := surface.WithRequestID(r.Context(), rid)
		r = r.WithContext(ctx)

		g, authErr := s.authenticateDirectory(r)
		key, quota := "addr:"+remoteHost(r), defaultRateLimit
		if authErr == "" {
			key, quota = "client:"+g.ClientID, s.clients[g.ClientID].RateLimit
		}
		now := s.now()
		d := s.limiter.take(key, quota, now)
		if s.deviates(deviation.RateLimitResetSlides) {
			d.reset = now.Add(s.limiter.window)
		}
		d.setHeaders(w.Header(), now, s.deviates(deviation.RateLimitResetInSeconds))
		if authErr != "" && !open {
			w.Header().Set(surface.HeaderWWWAuth, `Bearer realm="skolkit"`)
			surface.WriteDirectoryError(w, r, http.StatusUnauthorized, surface.CodeUnauthorized, authErr)
			return
		}
		if !d.allowed {
			surface.WriteDirectoryError(w, r, http.StatusTooManyRequests, CodeRateLimited, fmt.Sprintf("the client %q has used its quota of %d requests per hour; the window resets at %s", g.ClientID, quota, d.reset.UTC().Format(time.RFC3339)))
			return
		}
		next.ServeHTTP(w, r.WithContext(surface.WithGrant(ctx, g)))
	})
}

func remoteHost(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return host
}

// authenticateDirectory returns the grant of the request, or why there is none.
func (s *Server) authenticateDirectory(r *http.Request) (grant, string) {
	id, secret := r.Header.Get(surface.HeaderClientID), r.Header.Get(surface.HeaderClientSecret)
	authz := r.Header.Get("Authorization")
	switch {
	case authz != "":
		scheme, tok, found := strings.Cut(authz, " ")
		tok = strings.TrimSpace(tok)
		if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
			return grant{}, "the Authorization header must be 'Bearer <access token>'"
		}
		g, ok := s.tokens.lookup(tok, s.now())
		if !ok {
			return grant{}, "the access token is unknown or expired; request a new one from POST /oauth/token"
		}
		return g, ""
	case id != "" || secret != "":
		if id == "" || secret == "" {
			return grant{}, "send both Client-ID and Client-Secret headers, or a bearer token"
		}
		c, ok := s.clients[id]
		if !ok || !surface.SecretsEqual(secret, c.Secret) {
			return grant{}, "unknown client or wrong secret"
		}
		return grant{ClientID: c.ID, Scopes: c.Scopes}, ""
	default:
		return grant{}, "authentication required: send Authorization: Bearer <access token> (from POST /oauth/token), or the Client-ID and Client-Secret headers"
	}
}

// requireScope answers 403 unless the request's grant has the scope.
func (s *Server) requireScope(w http.ResponseWriter, r *http.Request, scope string) bool {
	g, _ := surface.GrantOf(r)
	if slices.Contains(g.Scopes, scope) || s.deviates(deviation.InsufficientScopeAccepted) {
		return true
	}
	surface.WriteDirectoryError(w, r, http.StatusForbidden, surface.CodeForbidden, fmt.Sprintf("the client %q lacks the scope %q for this operation", g.ClientID, scope))
	return false
}

// validateDirectory writes a contract violation with the interface-A error
// body: 422 with every violation for a body that fails its schema, 400 (413,
// 415) for the rest.
func validateDirectory(v *validator) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		p := v.check(r)
		if p == nil {
			return true
		}
		switch {
		case p.bodySchema:
			surface.WriteDirectoryError(w, r, http.StatusUnprocessableEntity, surface.CodeUnprocessable, "the request body failed validation: "+p.message, p.details...)
		case p.status == http.StatusRequestEntityTooLarge:
			surface.WriteDirectoryError(w, r, p.status, surface.CodeBadRequest, p.message)
		default:
			surface.WriteDirectoryError(w, r, p.status, surface.CodeBadRequest, p.message, p.details...)
		}
		return false
	}
}
