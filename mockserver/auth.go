package mockserver

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/scenarios"
)

// expandScopes returns a client's scopes with the names that stand for
// several (scenarios.ScopeAll, scenarios.ScopeRead) replaced by those: every
// scope of the surfaces' operations (Server.scopes), or every one that only
// reads.
func (s *Server) expandScopes(scopes []string) []string {
	var out []string
	for _, sc := range scopes {
		switch sc {
		case scenarios.ScopeAll:
			out = append(out, s.scopes...)
		case scenarios.ScopeRead:
			for _, a := range s.scopes {
				if isReadScope(a) {
					out = append(out, a)
				}
			}
		default:
			out = append(out, sc)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isReadScope reports whether a scope only reads.
func isReadScope(scope string) bool { return strings.HasSuffix(scope, ":read") }

// ReadOnlyClient returns the first client of the scenario that holds at
// least one scope and no scope that writes: the less privileged client that
// a conformance run's --limited-client-id and --limited-client-secret take,
// every write answering it 403 (docs/decisions.md#read-only-client). ok is false when the
// scenario has none.
func (s *Server) ReadOnlyClient() (clientID, clientSecret string, ok bool) {
	s.ctl.mu.RLock()
	defer s.ctl.mu.RUnlock()
	for _, c := range s.scenario.Clients {
		cl := s.clients[c.ID]
		if len(cl.Scopes) > 0 && !slices.ContainsFunc(cl.Scopes, func(sc string) bool { return !isReadScope(sc) }) {
			return cl.ID, cl.Secret, true
		}
	}
	return "", "", false
}

const (
	grantClientCredentials = "client_credentials"
	tokenBodyLimit         = 64 << 10
	// maxLiveTokens bounds the token table; past it the tokens nearest their
	// expiry are dropped first.
	maxLiveTokens = 100_000
)

// client is a registered API client.
type client struct {
	ID     string
	Secret string
	Scopes []string
	// RateLimit is the client's quota of interface-A requests per hour.
	RateLimit int
}

// grant is what an access token stands for.
type grant = surface.Grant

// tokenTable holds the issued access tokens.
type tokenTable struct {
	mu     sync.Mutex
	tokens map[string]grant
}

func newTokenTable() *tokenTable { return &tokenTable{tokens: map[string]grant{}} }

// issue creates a token with 256 random bits for the grant.
func (t *tokenTable) issue(g grant, now time.Time) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // documented never to fail
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.tokens) >= maxLiveTokens {
		t.evict(now)
	}
	t.tokens[tok] = g
	return tok
}

// evict drops expired tokens, and if that is not enough, the tenth of the
// table nearest expiry.
func (t *tokenTable) evict(now time.Time) {
	for k, g := range t.tokens {
		if !now.Before(g.Expires) {
			delete(t.tokens, k)
		}
	}
	if len(t.tokens) < maxLiveTokens {
		return
	}
	type kv struct {
		k string
		e time.Time
	}
	all := make([]kv, 0, len(t.tokens))
	for k, g := range t.tokens {
		all = append(all, kv{k, g.Expires})
	}
	slices.SortFunc(all, func(a, b kv) int { return a.e.Compare(b.e) })
	for _, x := range all[:len(all)/10+1] {
		delete(t.tokens, x.k)
	}
}

// lookup returns the grant of a live token.
func (t *tokenTable) lookup(tok string, now time.Time) (grant, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g, ok := t.tokens[tok]
	if !ok {
		return grant{}, false
	}
	if !now.Before(g.Expires) {
		delete(t.tokens, tok)
		return grant{}, false
	}
	return g, true
}

// tokenResponse is the success body of the token endpoint.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// handleToken serves POST /oauth/token: the client-credentials grant of
// RFC 6749 §4.4 with client authentication by form fields or HTTP Basic
// (§2.3.1), errors per §5.2.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != surface.ContentTypeForm {
		surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, "the token request must have content type "+surface.ContentTypeForm)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, tokenBodyLimit)
	if err := r.ParseForm(); err != nil {
		if surface.IsTooLarge(err) {
			surface.WriteOAuthError(w, http.StatusRequestEntityTooLarge, surface.OAuthInvalidRequest, fmt.Sprintf("the token request body is larger than %d bytes", tokenBodyLimit))
			return
		}
		surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, "the request body is not valid form encoding")
		return
	}
	form := r.PostForm
	for k, v := range form {
		if len(v) > 1 {
			surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, fmt.Sprintf("parameter %q is repeated", k))
			return
		}
	}
	grantType := form.Get("grant_type")
	switch {
	case grantType == "":
		surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, "grant_type is required")
		return
	case grantType != grantClientCredentials:
		surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthUnsupportedGrantType, fmt.Sprintf("grant_type %q is not supported; use client_credentials", grantType))
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		if form.Has("client_id") || form.Has("client_secret") {
			surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, "use one client authentication method: HTTP Basic or the client_id and client_secret fields, not both")
			return
		}
		// RFC 6749 §2.3.1: the Basic credentials are form-urlencoded first.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, "the Basic credentials are not form-urlencoded")
			return
		}
	} else {
		if r.Header.Get("Authorization") != "" {
			surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, "the Authorization header of a token request must use the Basic scheme")
			return
		}
		id, secret = form.Get("client_id"), form.Get("client_secret")
		var missing []string
		if id == "" {
			missing = append(missing, "client_id")
		}
		if secret == "" {
			missing = append(missing, "client_secret")
		}
		if len(missing) > 0 {
			surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidRequest, strings.Join(missing, " and ")+" required (or HTTP Basic client authentication)")
			return
		}
	}
	client, ok := s.clients[id]
	if !ok || (!surface.SecretsEqual(secret, client.Secret) && !s.deviates(deviation.WrongSecretAccepted)) {
		// One answer for both cases, so the endpoint does not reveal which ids exist.
		surface.WriteOAuthError(w, http.StatusUnauthorized, surface.OAuthInvalidClient, "unknown client or wrong secret")
		return
	}
	scopes := client.Scopes
	if req := form.Get("scope"); req != "" {
		asked := strings.Fields(req)
		for _, sc := range asked {
			if !slices.Contains(client.Scopes, sc) {
				surface.WriteOAuthError(w, http.StatusBadRequest, surface.OAuthInvalidScope, fmt.Sprintf("scope %q is not granted to this client", sc))
				return
			}
		}
		scopes = asked
	}
	now := s.now()
	expires := now.Add(s.tokenTTL)
	if s.deviates(deviation.ExpiredTokenAccepted) {
		expires = now.AddDate(100, 0, 0)
	}
	tok := s.tokens.issue(grant{ClientID: id, Scopes: scopes, Expires: expires}, now)
	if !s.deviates(deviation.TokenCacheable) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
	}
	surface.WriteJSON(w, http.StatusOK, tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int(s.tokenTTL / time.Second)})
}

// bearer authenticates a request by its bearer token and checks the scope.
// It writes the 401 or 403 itself and reports whether to go on.
func (s *Server) bearer(w http.ResponseWriter, r *http.Request, scope string) (grant, bool) {
	h := r.Header.Get("Authorization")
	if h == "" && s.deviates(deviation.NoTokenAccepted) {
		return grant{ClientID: s.first.ID, Scopes: s.scopes}, true
	}
	if h == "" {
		w.Header().Set(surface.HeaderWWWAuth, `Bearer realm="skolkit"`)
		surface.WriteRegisterError(w, http.StatusUnauthorized, surface.CodeUnauthorized, "authentication required: send Authorization: Bearer <access token> (tokens come from POST /oauth/token)")
		return grant{}, false
	}
	scheme, tok, found := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" || strings.ContainsAny(tok, " \t") {
		w.Header().Set(surface.HeaderWWWAuth, `Bearer realm="skolkit", error="invalid_request", error_description="malformed Authorization header"`)
		surface.WriteRegisterError(w, http.StatusUnauthorized, surface.CodeUnauthorized, "the Authorization header must be 'Bearer <access token>'")
		return grant{}, false
	}
	g, ok := s.tokens.lookup(tok, s.now())
	if !ok {
		w.Header().Set(surface.HeaderWWWAuth, `Bearer realm="skolkit", error="invalid_token", error_description="the access token is unknown or expired"`)
		surface.WriteRegisterError(w, http.StatusUnauthorized, surface.CodeUnauthorized, "the access token is unknown or expired; request a new one from POST /oauth/token")
		return grant{}, false
	}
	if !slices.Contains(g.Scopes, scope) && !s.deviates(deviation.InsufficientScopeAccepted) {
		w.Header().Set(surface.HeaderWWWAuth, fmt.Sprintf(`Bearer realm="skolkit", error="insufficient_scope", scope=%q`, scope))
		surface.WriteRegisterError(w, http.StatusForbidden, surface.CodeForbidden, fmt.Sprintf("the client %q lacks the scope %q for this operation", g.ClientID, scope))
		return grant{}, false
	}
	return g, true
}

// clientOf names the client of a request without authenticating it: the
// holder of its bearer token (expired or not, while the server remembers
// it), its Client-ID header, or the client id of a token request (HTTP Basic
// user or client_id form field).
func (s *Server) clientOf(r *http.Request) string {
	if authz := r.Header.Get("Authorization"); authz != "" {
		scheme, cred, _ := strings.Cut(authz, " ")
		switch {
		case strings.EqualFold(scheme, "Bearer"):
			return s.tokens.holder(strings.TrimSpace(cred))
		case strings.EqualFold(scheme, "Basic"):
			if id, _, ok := r.BasicAuth(); ok {
				if un, err := url.QueryUnescape(id); err == nil {
					return un
				}
				return id
			}
		}
		return ""
	}
	if id := r.Header.Get(surface.HeaderClientID); id != "" {
		return id
	}
	if r.Method == http.MethodPost && r.URL.Path == PathToken && r.Body != nil {
		return peekFormClientID(r)
	}
	return ""
}

// peekFormClientID reads the client_id of a form-encoded token request and
// puts the body back for the handler.
func peekFormClientID(r *http.Request) string {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != surface.ContentTypeForm {
		return ""
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, tokenBodyLimit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
	if err != nil && !errors.Is(err, io.EOF) || len(buf) > tokenBodyLimit {
		return ""
	}
	form, err := url.ParseQuery(string(buf))
	if err != nil {
		return ""
	}
	return form.Get("client_id")
}

// holder returns the client a token was issued to, even when it has
// expired, while the table still holds it.
func (t *tokenTable) holder(tok string) string {
	if tok == "" {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tokens[tok].ClientID
}
