package conformance

import (
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Sentences of the spec's Authentication section and the RFCs it builds on.
var (
	specTokenRequest = SpecRef{Section: "Authentication", Quote: "Token request: POST {auth_url}/oauth/token with content type `application/x-www-form-urlencoded` and form fields `grant_type` (value `client_credentials`), `client_id`, `client_secret`."}
	specTokenResp    = SpecRef{Section: "Authentication", Quote: "Token response: JSON with `access_token` (string), `token_type` (`Bearer`), `expires_in` (integer, lifetime in seconds)."}
	specNoRefresh    = SpecRef{Section: "Authentication", Quote: "No refresh token is issued. When the token expires, the client requests a new one with the same credentials."}
	specFlowA        = SpecRef{Section: "Authentication", Quote: "Interface A and the data export interface use this flow. In interface A, the older method of sending a client identifier and a client secret in request headers is still accepted alongside bearer tokens."}
	specA401         = SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 401: authentication required"}
	// specStdBearer is what the SS 12000 document says of authentication:
	// a global security requirement, and 403 on every operation.
	specStdBearer   = &SpecRef{Section: "SS 12000 2.1.0: security, components.securitySchemes", Quote: "security: - BearerAuth: [] … BearerAuth: type: http, scheme: bearer, bearerFormat: JWT … 403: Åtkomst nekad."}
	specB401        = SpecRef{Section: "Endpoints (interface B)", Quote: "Interface B (base {register_url}); every operation sends the bearer header", Decision: "interface-b-errors"}
	specBToken      = SpecRef{Section: "Authentication", Quote: "Whether interface B accepts the token issued at the token endpoint: not shown. It is documented with the same bearer header form.", Decision: "interface-b-authentication"}
	specLifetime    = SpecRef{Section: "Limits", Quote: "Access token lifetime is given by `expires_in` in each token response."}
	specTokenErrors = SpecRef{Section: "RFC 6749 §5.2", Quote: "invalid_client: Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).", Decision: "token-errors"}
	specNoStore     = SpecRef{Section: "RFC 6749 §5.1", Quote: "The authorization server MUST include the HTTP \"Cache-Control\" response header field with a value of \"no-store\" in any response containing tokens, credentials, or other sensitive information, as well as the \"Pragma\" response header field with a value of \"no-cache\".", Decision: "token-request"}
	specBasic       = SpecRef{Section: "RFC 6749 §2.3.1", Quote: "The authorization server MUST support the HTTP Basic authentication scheme for authenticating clients that were issued a client password.", Decision: "token-request"}
)

// Values the auth checks send that must never work.
const (
	garbageToken   = "skolkit-conformance-garbage-token"
	unknownClient  = "skolkit-conformance-unknown-client"
	wrongSecretStr = "skolkit-conformance-wrong-secret"
)

// wrongSecret is a secret that is certainly not the client's, and not
// derived from it (a failure report shows it in full).
func (e *env) wrongSecret() string {
	if e.cfg.ClientSecret == wrongSecretStr {
		return wrongSecretStr + "-2"
	}
	return wrongSecretStr
}

func authChecks() []*Check {
	auth := []Surface{SurfaceAuth}
	return []*Check{
		{ID: "auth.token.success", Title: "the token endpoint issues a bearer token of the documented shape", Area: "auth", Severity: MUST, Needs: auth, Spec: specTokenResp, Run: checkTokenSuccess},
		{ID: "auth.token.form-request", Title: "the form-encoded client-credentials request of the spec is answered 200", Area: "auth", Severity: MUST, Needs: auth, Spec: specTokenRequest, Run: checkTokenForm},
		{ID: "auth.token.no-refresh-token", Title: "no refresh token is issued (SHOULD under --profile ss12000: RFC 6749 §4.4.3 says a refresh token SHOULD NOT be included)", Area: "auth", Severity: MUST, Standard: SHOULD, Needs: auth, Spec: specNoRefresh, Run: checkTokenNoRefresh},
		{ID: "auth.token.lifetime", Title: "expires_in is a positive whole number of seconds (SHOULD under --profile ss12000: RFC 6749 §5.1 makes it RECOMMENDED)", Area: "auth", Severity: MUST, Standard: SHOULD, Needs: auth, Spec: specLifetime, Run: checkTokenLifetime},
		{ID: "auth.token.form-charset", Title: "a token request sent as application/x-www-form-urlencoded; charset=UTF-8 is answered like one without the parameter", Area: "auth", Severity: MUST, Needs: auth,
			Spec: SpecRef{Section: "RFC 9110 §8.3.1", Quote: "The type/subtype MAY be followed by semicolon-delimited parameters (Section 5.6.6) in the form of name/value pairs."}, Run: checkTokenFormCharset},
		{ID: "auth.token.method", Title: "the token endpoint issues no token to a GET", Area: "auth", Severity: MUST, Needs: auth,
			Spec: SpecRef{Section: "RFC 6749 §3.2", Quote: "The client MUST use the HTTP \"POST\" method when making access token requests."}, Run: checkTokenMethod},
		{ID: "auth.token.no-store", Title: "token responses carry Cache-Control: no-store", Area: "auth", Severity: MUST, Needs: auth, Spec: specNoStore, Run: checkTokenNoStore},
		{ID: "auth.token.pragma-no-cache", Title: "token responses carry Pragma: no-cache", Area: "auth", Severity: SHOULD, Needs: auth, Spec: specNoStore, Run: checkTokenPragma},
		{ID: "auth.token.wrong-secret", Title: "a wrong client secret is 401 (or 400) invalid_client", Area: "auth", Severity: MUST, Needs: auth, Spec: specTokenErrors, Run: checkTokenWrongSecret},
		{ID: "auth.token.unknown-client", Title: "an unknown client id is 401 (or 400) invalid_client", Area: "auth", Severity: MUST, Needs: auth, Spec: specTokenErrors, Run: checkTokenUnknownClient},
		{ID: "auth.token.unsupported-grant", Title: "a grant other than client_credentials is 400 unsupported_grant_type", Area: "auth", Severity: MUST, Needs: auth,
			Spec: SpecRef{Section: "RFC 6749 §5.2", Quote: "unsupported_grant_type: The authorization grant type is not supported by the authorization server.", Decision: "token-errors"}, Run: checkTokenUnsupportedGrant},
		{ID: "auth.token.missing-grant", Title: "a token request without grant_type is 400 invalid_request", Area: "auth", Severity: SHOULD, Needs: auth,
			Spec: SpecRef{Section: "RFC 6749 §5.2", Quote: "invalid_request: The request is missing a required parameter, includes an unsupported parameter value (other than grant type), repeats a parameter, includes multiple credentials, utilizes more than one mechanism for authenticating the client, or is otherwise malformed.", Decision: "token-errors"}, Run: checkTokenMissingGrant},
		{ID: "auth.token.basic-client-auth", Title: "HTTP Basic client authentication is accepted too", Area: "auth", Severity: SHOULD, Needs: auth, Spec: specBasic, Run: checkTokenBasic},
		{ID: "auth.token.reissue", Title: "a new token can be requested with the same credentials, and both tokens are answered 2xx", Area: "auth", Severity: MUST, Needs: auth, Spec: specNoRefresh, Run: checkTokenReissue,
			Evidence: "two tokens from the token endpoint, each answered 2xx by an interface (the first of B, A, export given)"},

		{ID: "auth.B.token-accepted", Title: "interface B accepts a token from the token endpoint", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceAuth, SurfaceB}, Spec: specBToken, Run: tokenAccepted(SurfaceB)},
		{ID: "auth.B.no-token", Title: "interface B answers 401 without a bearer token (after the same request with a token answered 200; under --profile ss12000 401 or 403)", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceB}, Spec: specB401, StandardSpec: specStdBearer, Run: noCredentials(SurfaceB)},
		{ID: "auth.B.garbage-token", Title: "interface B answers 401 to a token it never issued (after a good token answered 200; under --profile ss12000 401 or 403)", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceB}, Spec: specB401, StandardSpec: specStdBearer, Run: garbageTokenRejected(SurfaceB)},
		{ID: "auth.B.expired-token", Title: "interface B answers 401 to an expired token (after a good token answered 200; under --profile ss12000 401 or 403)", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceAuth, SurfaceB}, Spec: specNoRefresh, StandardSpec: specStdBearer, Run: expiredTokenRejected(SurfaceB)},
		{ID: "auth.B.www-authenticate", Title: "interface B's 401 carries a Bearer WWW-Authenticate challenge", Area: "auth", Severity: SHOULD, Needs: []Surface{SurfaceB},
			Spec: SpecRef{Section: "RFC 6750 §3", Quote: "If the protected resource request does not include authentication credentials or does not contain an access token that enables access to the protected resource, the resource server MUST include the HTTP \"WWW-Authenticate\" response header field", Decision: "interface-b-errors"}, Run: checkWWWAuthenticate},

		{ID: "auth.A.token-accepted", Title: "interface A accepts a token from the token endpoint", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceAuth, SurfaceA}, Spec: specFlowA, Run: tokenAccepted(SurfaceA)},
		{ID: "auth.A.no-credentials", Title: "interface A answers 401 without credentials", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceA}, Spec: specA401, Run: noCredentials(SurfaceA)},
		{ID: "auth.A.garbage-token", Title: "interface A answers 401 to a token it never issued", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceA}, Spec: specA401, Run: garbageTokenRejected(SurfaceA)},
		{ID: "auth.A.expired-token", Title: "interface A answers 401 to an expired token", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceAuth, SurfaceA}, Spec: specNoRefresh, Run: expiredTokenRejected(SurfaceA)},
		{ID: "auth.A.legacy-headers", Title: "interface A accepts the Client-ID and Client-Secret headers", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceA},
			Spec: SpecRef{Section: "Authentication", Quote: specFlowA.Quote, Decision: "interface-a-authentication"}, Run: checkLegacyHeaders},
		{ID: "auth.A.legacy-wrong-secret", Title: "interface A answers 401 to the legacy headers with a wrong secret", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceA},
			Spec: SpecRef{Section: "Errors", Quote: specA401.Quote, Decision: "interface-a-authentication"}, Run: checkLegacyWrongSecret},
		{ID: "auth.A.legacy-id-only", Title: "interface A answers 401 to Client-ID without Client-Secret", Area: "auth", Severity: SHOULD, Needs: []Surface{SurfaceA},
			Spec: SpecRef{Section: "Errors", Quote: specA401.Quote, Decision: "interface-a-authentication"}, Run: checkLegacyIDOnly},

		{ID: "auth.export.token-accepted", Title: "the data export accepts a token from the token endpoint", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceAuth, SurfaceExport}, Spec: specFlowA, Run: tokenAccepted(SurfaceExport)},
		{ID: "auth.export.no-credentials", Title: "the data export answers 401 without credentials", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceExport},
			Spec: SpecRef{Section: "Authentication", Quote: specFlowA.Quote, Decision: "export-conventions"}, Run: noCredentials(SurfaceExport)},
		{ID: "auth.export.garbage-token", Title: "the data export answers 401 to a token it never issued", Area: "auth", Severity: MUST, Needs: []Surface{SurfaceExport},
			Spec: SpecRef{Section: "Authentication", Quote: specFlowA.Quote, Decision: "export-conventions"}, Run: garbageTokenRejected(SurfaceExport)},
	}
}

// requireCredentials skips a check that needs the client credentials.
func (t *T) requireCredentials() {
	if t.env.cfg.ClientID == "" || t.env.cfg.ClientSecret == "" {
		t.Skipf("no client credentials (--client-id, --client-secret or SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET)")
	}
}

// tokenForm is the spec's token request.
func (e *env) tokenForm() url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {e.cfg.ClientID}, "client_secret": {e.cfg.ClientSecret}}
}

// requestToken sends a raw token request (the checks need to see the token
// endpoint's own answer, so this does not go through the oauth2 library).
func (t *T) requestToken(form url.Values, header http.Header) *Response {
	auth := authNone
	if header != nil {
		auth = authHeaders
	}
	return t.Do(Request{Surface: SurfaceAuth, Method: http.MethodPost, Path: pathToken, Form: form, Header: header, Auth: auth})
}

// goodToken requests a token with the configured credentials and returns
// the response and its decoded body; it ends the check unless the answer is
// a 200 with a JSON object.
func (t *T) goodToken() (*Response, map[string]any) {
	t.requireCredentials()
	resp := t.requestToken(t.env.tokenForm(), nil)
	t.RequireStatus(resp, http.StatusOK)
	body := t.RequireObject(resp)
	if tok := str(body, "access_token"); tok != "" {
		t.env.red.AddToken(tok)
		// The excerpt was recorded before the token was known.
		resp.ex.ResponseBody = t.env.red.Redact(resp.ex.ResponseBody)
	}
	return resp, body
}

func mediaType(h http.Header) string {
	mt, _, _ := mime.ParseMediaType(h.Get(headerContentType))
	return mt
}

func checkTokenSuccess(t *T) {
	resp, body := t.goodToken()
	if mt := mediaType(resp.Header); mt != mimeJSON {
		t.Failf(resp, "Content-Type: application/json", "the token response has content type %q", resp.Header.Get(headerContentType))
	}
	if tok, ok := body["access_token"].(string); !ok || tok == "" {
		t.Failf(resp, "access_token: a non-empty string", "access_token is %s", compact(body["access_token"]))
	}
	switch tt := str(body, "token_type"); {
	case tt == "Bearer":
	case strings.EqualFold(tt, "Bearer"):
		t.Notef("token_type is %q: RFC 6749 §7.1 compares it case-insensitively, the spec writes Bearer", tt)
	default:
		t.Failf(resp, "token_type: Bearer", "token_type is %s", compact(body["token_type"]))
	}
	if _, ok := intOf(body["expires_in"]); !ok {
		if _, present := body["expires_in"]; !present && t.standard() {
			t.Notef("no expires_in: RFC 6749 §5.1 makes it RECOMMENDED, not required")
			return
		}
		t.Failf(resp, "expires_in: an integer", "expires_in is %s", compact(body["expires_in"]))
	}
}

func checkTokenFormCharset(t *T) {
	t.goodToken() // evidence: the plain form is answered 200
	resp := t.Do(Request{Surface: SurfaceAuth, Method: http.MethodPost, Path: pathToken, Body: []byte(t.env.tokenForm().Encode()), ContentType: mimeForm + "; charset=UTF-8", Auth: authNone})
	t.RequireStatus(resp, http.StatusOK)
	if tok := str(t.RequireObject(resp), "access_token"); tok == "" {
		t.Failf(resp, "an access_token", "no access_token in the answer")
	} else {
		t.env.red.AddToken(tok)
		resp.ex.ResponseBody = t.env.red.Redact(resp.ex.ResponseBody)
	}
}

func checkTokenMethod(t *T) {
	t.goodToken() // evidence: the endpoint issues tokens to the POST of the spec
	cred := url.QueryEscape(t.env.cfg.ClientID) + ":" + url.QueryEscape(t.env.cfg.ClientSecret)
	h := http.Header{headerAuthorization: {"Basic " + base64.StdEncoding.EncodeToString([]byte(cred))}}
	resp := t.Do(Request{Surface: SurfaceAuth, Method: http.MethodGet, Path: pathToken, Query: url.Values{"grant_type": {"client_credentials"}}, Header: h, Auth: authHeaders, Outside: true})
	if resp.Status/100 == 2 {
		t.Failf(resp, "a 4xx (405 with Allow: POST is usual), and no token", "GET %s answered %d", pathToken, resp.Status)
	} else if resp.Status/100 != 4 {
		t.Failf(resp, "a 4xx (405 with Allow: POST is usual)", "GET %s answered %d", pathToken, resp.Status)
	}
	if body, err := resp.Object(); err == nil {
		if tok := str(body, "access_token"); tok != "" {
			t.env.red.AddToken(tok)
			t.Failf(resp, "no access_token", "GET %s issued a token", pathToken)
		}
	}
}

func checkTokenForm(t *T) {
	resp, _ := t.goodToken()
	t.Notef("POST %s with grant_type, client_id and client_secret answered %d", pathToken, resp.Status)
}

func checkTokenNoRefresh(t *T) {
	resp, body := t.goodToken()
	if _, ok := body["refresh_token"]; ok {
		t.Failf(resp, "no refresh_token member", "the token response carries a refresh_token")
	}
}

func checkTokenLifetime(t *T) {
	resp, body := t.goodToken()
	n, ok := intOf(body["expires_in"])
	if !ok || n <= 0 {
		t.Fatalf(resp, "expires_in: a positive integer (seconds)", "expires_in is %s", compact(body["expires_in"]))
	}
	if n > 366*24*3600 {
		t.Failf(resp, "a lifetime in seconds", "expires_in is %d, more than a year: milliseconds?", n)
	}
	t.Notef("tokens live %s", time.Duration(n)*time.Second)
}

func checkTokenNoStore(t *T) {
	resp, _ := t.goodToken()
	if !hasDirective(resp.Header.Values("Cache-Control"), "no-store") {
		t.Failf(resp, "Cache-Control: no-store", "Cache-Control is %q", resp.Header.Get("Cache-Control"))
	}
}

func checkTokenPragma(t *T) {
	resp, _ := t.goodToken()
	if !hasDirective(resp.Header.Values("Pragma"), "no-cache") {
		t.Failf(resp, "Pragma: no-cache", "Pragma is %q", resp.Header.Get("Pragma"))
	}
}

// hasDirective reports whether a comma-separated header holds a directive.
func hasDirective(values []string, want string) bool {
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), want) {
				return true
			}
		}
	}
	return false
}

// expectOAuthError checks a token-endpoint error: the status and the §5.2
// error code. invalid_client may be 400 or 401 (RFC 6749 §5.2: 401 is
// required only when the client authenticated with the Authorization
// header; these requests send the credentials in the form).
func (t *T) expectOAuthError(resp *Response, status int, code string) {
	want := []int{status}
	if code == "invalid_client" {
		want = []int{http.StatusUnauthorized, http.StatusBadRequest}
	}
	if !t.ExpectStatus(resp, want...) {
		return
	}
	body, err := resp.Object()
	if err != nil {
		t.Failf(resp, fmt.Sprintf(`{"error": %q}`, code), "the error body is not a JSON object: %v", err)
		return
	}
	if got := str(body, "error"); got != code {
		t.Failf(resp, fmt.Sprintf(`{"error": %q}`, code), "error is %s", compact(body["error"]))
	}
}

// The refusal checks first prove that the endpoint issues a token to the
// right request (goodToken): an endpoint that refuses everything proves
// nothing by refusing a wrong one.

func checkTokenWrongSecret(t *T) {
	t.goodToken()
	form := t.env.tokenForm()
	form.Set("client_secret", t.env.wrongSecret())
	t.expectOAuthError(t.requestToken(form, nil), http.StatusUnauthorized, "invalid_client")
}

func checkTokenUnknownClient(t *T) {
	t.goodToken()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {unknownClient}, "client_secret": {t.env.wrongSecret()}}
	t.expectOAuthError(t.requestToken(form, nil), http.StatusUnauthorized, "invalid_client")
}

func checkTokenUnsupportedGrant(t *T) {
	t.goodToken()
	form := t.env.tokenForm()
	// A grant no server supports: "password" could be unauthorized_client
	// for a server that supports it for other clients (RFC 6749 §5.2).
	form.Set("grant_type", "urn:skolkit:conformance:no-such-grant")
	t.expectOAuthError(t.requestToken(form, nil), http.StatusBadRequest, "unsupported_grant_type")
}

func checkTokenMissingGrant(t *T) {
	t.goodToken()
	form := t.env.tokenForm()
	form.Del("grant_type")
	t.expectOAuthError(t.requestToken(form, nil), http.StatusBadRequest, "invalid_request")
}

func checkTokenBasic(t *T) {
	t.requireCredentials()
	cred := url.QueryEscape(t.env.cfg.ClientID) + ":" + url.QueryEscape(t.env.cfg.ClientSecret)
	h := http.Header{headerAuthorization: {"Basic " + base64.StdEncoding.EncodeToString([]byte(cred))}}
	resp := t.requestToken(url.Values{"grant_type": {"client_credentials"}}, h)
	t.RequireStatus(resp, http.StatusOK)
	body := t.RequireObject(resp)
	if tok := str(body, "access_token"); tok == "" {
		t.Failf(resp, "an access_token", "no access_token in the answer")
	} else {
		t.env.red.AddToken(tok)
	}
}

// probe is a cheap authenticated read on a surface.
func probe(s Surface) (string, url.Values) {
	switch s {
	case SurfaceA:
		return "/school", url.Values{"limit": {"1"}}
	case SurfaceExport:
		return "/attendance", url.Values{"limit": {"1"}}
	default:
		return "/placements", url.Values{"limit": {"1"}}
	}
}

func checkTokenReissue(t *T) {
	var s Surface
	for _, c := range []Surface{SurfaceB, SurfaceA, SurfaceExport} {
		if t.env.has(c) {
			s = c
			break
		}
	}
	if s == "" {
		t.Skipf("no interface configured to use the tokens on (--register-url, --base-url or --export-url)")
	}
	_, first := t.goodToken()
	_, second := t.goodToken()
	for i, tok := range []string{str(first, "access_token"), str(second, "access_token")} {
		path, resp := t.offeredProbe(s, Request{Auth: authToken, Token: tok})
		if resp.Status/100 != 2 {
			t.Failf(resp, "status 200", "token %d of two requested with the same credentials: %s %s answered %d", i+1, http.MethodGet, path, resp.Status)
		}
	}
}

// requireProbe proves that a probe request of a surface answers 2xx with
// the run's credentials: a 401 to the same request without them (or with a
// bad token) then says something about authentication, not about a route
// that does not exist or a server that refuses everything. It returns the
// request, or skips the check when there is none. Interface B tries
// /placements, then /organisations and /persons: the standard makes no
// resource mandatory, and a server that does not offer (or fails)
// placements must still be checked for refusing requests without a token.
func (t *T) requireProbe(s Surface) (string, url.Values) {
	path, q := probe(s)
	resp := t.Get(s, path, q)
	if resp.Status/100 == 2 {
		return path, q
	}
	tried := fmt.Sprintf("GET %s answered %d", path, resp.Status)
	if s == SurfaceB {
		for _, alt := range []string{"/organisations", "/persons"} {
			r := t.Get(s, alt, q)
			if r.Status/100 == 2 {
				return alt, q
			}
			tried += fmt.Sprintf(", GET %s %d", alt, r.Status)
		}
	}
	t.Skipf("%s with the run's credentials, so a refusal without them proves nothing (see auth.%s.token-accepted)", tried, s)
	return "", nil
}

// expectRefused expects 401 (under --profile ss12000 also 403: the
// standard documents 403 for a refused request and no 401).
func (t *T) expectRefused(resp *Response) {
	if t.standard() {
		t.ExpectStatus(resp, http.StatusUnauthorized, http.StatusForbidden)
		return
	}
	t.ExpectStatus(resp, http.StatusUnauthorized)
}

func tokenAccepted(s Surface) func(*T) {
	return func(t *T) {
		t.requireCredentials()
		if s == SurfaceA && t.env.cfg.LegacyAuth {
			tok, err := t.env.token()
			if err != nil {
				t.Skipf("%v", err)
			}
			path, q := probe(s)
			t.ExpectStatus(t.Do(Request{Surface: s, Method: http.MethodGet, Path: path, Query: q, Auth: authToken, Token: tok}), http.StatusOK)
			return
		}
		_, resp := t.offeredProbe(s, Request{})
		t.ExpectStatus(resp, http.StatusOK)
	}
}

// offeredProbe sends the probe request of a surface with the given
// authentication (auth and token of req). Under --profile ss12000, when
// interface B answers that it does not offer /placements (404, 405, 501:
// the standard makes no resource mandatory), it tries /organisations and
// /persons, and returns the first answer that is not such a refusal.
func (t *T) offeredProbe(s Surface, req Request) (string, *Response) {
	path, q := probe(s)
	paths := []string{path}
	if s == SurfaceB && t.standard() {
		paths = append(paths, "/organisations", "/persons")
	}
	var resp *Response
	for _, p := range paths {
		r := req
		r.Surface, r.Method, r.Path, r.Query = s, http.MethodGet, p, q
		resp = t.Do(r)
		if !notOffered(&r, resp.Status) {
			return p, resp
		}
	}
	return paths[len(paths)-1], resp
}

func noCredentials(s Surface) func(*T) {
	return func(t *T) {
		path, q := t.requireProbe(s)
		t.expectRefused(t.Do(Request{Surface: s, Method: http.MethodGet, Path: path, Query: q, Auth: authNone}))
	}
}

func garbageTokenRejected(s Surface) func(*T) {
	return func(t *T) {
		path, q := t.requireProbe(s)
		t.expectRefused(t.Do(Request{Surface: s, Method: http.MethodGet, Path: path, Query: q, Auth: authToken, Token: garbageToken}))
	}
}

// expiredToken is a token that has outlived its expires_in, or why none
// could be had.
type expiredToken struct {
	token string
	skip  string
}

// expiredTokenFor gets a fresh token and waits until it has expired, when
// its lifetime is short enough (MaxTokenWait); it is shared by the
// expired-token checks.
func (t *T) expiredTokenFor() string {
	t.requireCredentials()
	et := t.env.data.expired.get(func() expiredToken {
		resp, err := t.env.do(t.ctx, t.check.ID, Request{Surface: SurfaceAuth, Method: http.MethodPost, Path: pathToken, Form: t.env.tokenForm(), Auth: authNone})
		if err != nil {
			return expiredToken{skip: "no token: " + err.Error()}
		}
		body, err := resp.Object()
		if resp.Status != http.StatusOK || err != nil {
			return expiredToken{skip: fmt.Sprintf("the token request answered %d", resp.Status)}
		}
		tok := str(body, "access_token")
		t.env.red.AddToken(tok)
		n, ok := intOf(body["expires_in"])
		if !ok || n <= 0 {
			return expiredToken{skip: "the token response has no usable expires_in"}
		}
		life := time.Duration(n) * time.Second
		if life > t.env.cfg.MaxTokenWait {
			return expiredToken{skip: fmt.Sprintf("tokens live %s; the runner waits at most %s for one to expire (a server with short-lived tokens can be tested)", life, t.env.cfg.MaxTokenWait)}
		}
		if err := sleep(t.ctx, life+time.Second); err != nil {
			return expiredToken{skip: "cancelled while waiting for the token to expire"}
		}
		return expiredToken{token: tok}
	})
	if et.skip != "" {
		t.Skipf("%s", et.skip)
	}
	return et.token
}

func expiredTokenRejected(s Surface) func(*T) {
	return func(t *T) {
		tok := t.expiredTokenFor()
		path, q := t.requireProbe(s)
		t.expectRefused(t.Do(Request{Surface: s, Method: http.MethodGet, Path: path, Query: q, Auth: authToken, Token: tok}))
	}
}

func checkWWWAuthenticate(t *T) {
	path, q := t.requireProbe(SurfaceB)
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodGet, Path: path, Query: q, Auth: authNone})
	t.RequireStatus(resp, http.StatusUnauthorized)
	if ch := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(strings.ToLower(ch), "bearer") {
		t.Failf(resp, `WWW-Authenticate: Bearer realm="..."`, "WWW-Authenticate is %q", ch)
	}
}

func checkLegacyHeaders(t *T) {
	if !t.env.cfg.LegacyAuth {
		t.Skipf("sends the client secret to interface A in the Client-Secret header: run with --legacy-auth to allow it")
	}
	t.requireCredentials()
	path, q := probe(SurfaceA)
	t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodGet, Path: path, Query: q, Auth: authLegacy}), http.StatusOK)
}

func checkLegacyWrongSecret(t *T) {
	id := t.env.cfg.ClientID
	if id == "" {
		id = unknownClient
	}
	path, q := probe(SurfaceA)
	h := http.Header{headerClientID: {id}, headerClientSecret: {t.env.wrongSecret()}}
	t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodGet, Path: path, Query: q, Header: h, Auth: authHeaders}), http.StatusUnauthorized)
}

func checkLegacyIDOnly(t *T) {
	id := t.env.cfg.ClientID
	if id == "" {
		id = unknownClient
	}
	path, q := probe(SurfaceA)
	h := http.Header{headerClientID: {id}}
	t.ExpectStatus(t.Do(Request{Surface: SurfaceA, Method: http.MethodGet, Path: path, Query: q, Header: h, Auth: authHeaders}), http.StatusUnauthorized)
}
