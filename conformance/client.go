package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// Wire strings the runner sends or reads.
const (
	pathToken           = "/oauth/token"
	headerAuthorization = "Authorization"
	headerClientID      = "Client-ID"
	headerClientSecret  = "Client-Secret"
	headerContentType   = "Content-Type"
	headerRetryAfter    = "Retry-After"
	headerRLLimit       = "RateLimit-Limit"
	headerRLRemaining   = "RateLimit-Remaining"
	headerRLReset       = "RateLimit-Reset"
	mimeJSON            = "application/json"
	mimeForm            = "application/x-www-form-urlencoded"
)

// authMode says how a request authenticates.
type authMode int

const (
	// authDefault: a bearer token from the token endpoint; on interface A
	// with --legacy-auth, the Client-ID and Client-Secret headers instead.
	authDefault authMode = iota
	// authNone sends no credentials.
	authNone
	// authToken sends Request.Token as the bearer token, whatever it is.
	authToken
	// authLegacy sends the Client-ID and Client-Secret headers with the
	// configured credentials (interface A only, and only with --legacy-auth).
	authLegacy
	// authHeaders sends only Request.Header (a check that builds its own).
	authHeaders
)

// Request is one request a check sends.
type Request struct {
	Surface Surface
	Method  string
	// Path is relative to the surface's URL and starts with "/".
	Path  string
	Query url.Values
	// JSON, when not nil, is sent as an application/json body.
	JSON any
	// Body with ContentType is sent as is.
	Body        []byte
	ContentType string
	// Form is sent as an application/x-www-form-urlencoded body.
	Form   url.Values
	Header http.Header
	Auth   authMode
	Token  string
	// NoRetry returns a 429 to the check instead of waiting it out.
	NoRetry bool
	// Outside marks a request to an operation the contract may not have (a
	// list the runner tries for ids, a method the endpoint must refuse): when
	// the contract has no such operation, the answer is not a violation.
	Outside bool
}

// Response is what came back.
type Response struct {
	Status int
	Header http.Header
	Body   []byte

	ex        *report.Exchange
	wire      *rules.Exchange
	jsonOnce  sync.Once
	jsonValue any
	jsonErr   error
}

// JSON decodes the body once (numbers as json.Number).
func (r *Response) JSON() (any, error) {
	r.jsonOnce.Do(func() {
		dec := json.NewDecoder(bytes.NewReader(r.Body))
		dec.UseNumber()
		if err := dec.Decode(&r.jsonValue); err != nil {
			r.jsonErr = err
			return
		}
		if dec.More() {
			r.jsonErr = errors.New("trailing data after the JSON value")
		}
	})
	return r.jsonValue, r.jsonErr
}

// Object returns the body as a JSON object.
func (r *Response) Object() (map[string]any, error) {
	v, err := r.JSON()
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the body is %s, not an object", jsonKind(v))
	}
	return obj, nil
}

var (
	errBodyTooLarge = errors.New("response body exceeds the cap")
	errNoToken      = errors.New("no access token")
)

// transportError is a request that got no HTTP answer: the server could not
// be reached, or did not answer within --timeout.
type transportError struct {
	method, url string
	err         error
}

func (e *transportError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.method, e.url, e.err)
}

func (e *transportError) Unwrap() error { return e.err }

// newHTTPClient builds the one client every request goes through: bodies
// capped at maxBody bytes, redirects followed only to the same scheme and
// host (at most 5), a timeout per request.
func newHTTPClient(cfg *Config) *http.Client {
	base := cfg.Transport
	if base == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(cfg.Concurrency, 2)
		tr.ResponseHeaderTimeout = cfg.Timeout
		tr.MaxResponseHeaderBytes = 1 << 20
		base = tr
	}
	return &http.Client{
		Transport: &cappedTransport{next: base, max: cfg.MaxBodyBytes},
		Timeout:   cfg.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			first := via[0].URL
			if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
				return http.ErrUseLastResponse
			}
			if len(via) >= 5 {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// cappedTransport makes every response body fail after max bytes, so that no
// reader (ours or the oauth2 library's) can be made to hold more.
type cappedTransport struct {
	next http.RoundTripper
	max  int64
}

func (c *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: c.max}
	return resp, nil
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One more byte tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// tokenSource hands out the run's access token, fetched with the client
// credentials grant (golang.org/x/oauth2/clientcredentials, which caches it
// and fetches a new one when it expires). A failure is remembered, so that a
// broken token endpoint is asked once, not once per check.
type tokenSource struct {
	mu  sync.Mutex
	ts  oauth2.TokenSource
	err error
	red *report.Redactor
}

func newTokenSource(ctx context.Context, clientID, clientSecret string, client *http.Client, tokenURL string, red *report.Redactor) *tokenSource {
	cc := &clientcredentials.Config{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		TokenURL:     tokenURL,
		// The spec sends the credentials as form fields (Authentication, 1).
		AuthStyle: oauth2.AuthStyleInParams,
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	return &tokenSource{ts: cc.TokenSource(ctx), red: red}
}

func (s *tokenSource) token() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return "", s.err
	}
	tok, err := s.ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil {
			// One line, and short: this error names the cause of an
			// incomplete run, and an HTML error page helps nobody whole.
			body := strings.Join(strings.Fields(s.red.Redact(string(re.Body))), " ")
			s.err = fmt.Errorf("%w: the token endpoint answered %d %s", errNoToken, re.Response.StatusCode, excerpt(body, 120))
		} else {
			s.err = fmt.Errorf("%w: %s", errNoToken, s.red.Redact(err.Error()))
		}
		return "", s.err
	}
	s.red.AddToken(tok.AccessToken)
	return tok.AccessToken, nil
}

// url builds the absolute URL of a request.
func (e *env) url(req *Request) (string, error) {
	base, ok := e.urls[req.Surface]
	if !ok {
		return "", fmt.Errorf("%s is not configured (%s)", req.Surface, flagOf(req.Surface))
	}
	u := *base
	u.Path = strings.TrimSuffix(u.Path, "/") + req.Path
	u.RawPath = ""
	if len(req.Query) > 0 {
		u.RawQuery = req.Query.Encode()
	}
	return u.String(), nil
}

// do sends one request: credentials as the request asks, the body, a
// timeout; it reads the body within the cap, waits out a 429 when the server
// says how long (up to the bound), records the exchange and validates the
// response against the contract.
func (e *env) do(ctx context.Context, check string, req Request) (*Response, error) {
	target, err := e.url(&req)
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	maps.Copy(header, req.Header)
	var body []byte
	switch {
	case req.JSON != nil:
		if body, err = json.Marshal(req.JSON); err != nil {
			return nil, fmt.Errorf("internal: encode request body: %w", err)
		}
		header.Set(headerContentType, mimeJSON)
	case req.Form != nil:
		body = []byte(req.Form.Encode())
		header.Set(headerContentType, mimeForm)
	case req.Body != nil:
		body = req.Body
		if req.ContentType != "" {
			header.Set(headerContentType, req.ContentType)
		}
	}
	switch req.Auth {
	case authDefault:
		if req.Surface == SurfaceA && e.cfg.LegacyAuth {
			if e.cfg.ClientID == "" || e.cfg.ClientSecret == "" {
				return nil, fmt.Errorf("%w: no client credentials (--client-id, --client-secret or SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET)", errNoToken)
			}
			header.Set(headerClientID, e.cfg.ClientID)
			header.Set(headerClientSecret, e.cfg.ClientSecret)
			break
		}
		tok, err := e.token()
		if err != nil {
			return nil, err
		}
		header.Set(headerAuthorization, "Bearer "+tok)
	case authToken:
		header.Set(headerAuthorization, "Bearer "+req.Token)
	case authLegacy:
		header.Set(headerClientID, e.cfg.ClientID)
		header.Set(headerClientSecret, e.cfg.ClientSecret)
	}
	if err := e.guardSecret(&req, target, header, body); err != nil {
		return nil, err
	}
	if header.Get("Accept") == "" {
		header.Set("Accept", mimeJSON)
	}
	header.Set("User-Agent", "skolkit-conformance")
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		wire := &rules.Exchange{Surface: req.Surface, Method: req.Method, Path: req.Path, Query: req.Query, URL: target,
			RequestHeader: header, RequestBody: body}
		if wire.Query == nil {
			wire.Query = url.Values{}
		}
		if e.judge != nil {
			e.judge.Begin(wire)
		}
		// Start and Duration bracket the whole round trip (rules order
		// exchanges by them): taken here, after Begin may have waited.
		wire.Start = time.Now()
		resp, _, err := e.send(ctx, req.Method, target, header, body)
		elapsed := time.Since(wire.Start)
		if err != nil && !errors.Is(err, errBodyTooLarge) {
			wire.Duration, wire.Err = elapsed, err.Error()
			e.observe(check, wire, nil)
			return nil, &transportError{method: req.Method, url: e.red.Redact(target), err: errors.New(e.red.Redact(err.Error()))}
		}
		wire.Duration = elapsed
		wire.Status, wire.ResponseHeader, wire.ResponseBody = resp.Status, resp.Header, resp.Body
		resp.wire, resp.ex = wire, e.red.Excerpt(wire)
		if err != nil {
			wire.ResponseTruncated = true
			e.observe(check, wire, nil)
			return resp, err
		}
		e.observe(check, resp.wire, resp.ex)
		if resp.Status == http.StatusTooManyRequests && !req.NoRetry && attempt < 2 {
			if d, basis, ok := e.retryWait(resp.Header); ok {
				e.noteWait(check, e.red.Redact(target), d, basis)
				if err := sleep(ctx, d); err != nil {
					return nil, err
				}
				waited += d
				continue
			}
		}
		resp.ex.Waited = waited
		if resp.Status/100 == 2 && (req.Auth == authDefault || req.Auth == authLegacy || (req.Auth == authToken && req.Surface != SurfaceAuth)) {
			e.noteEvidence(req.Surface)
		}
		return resp, nil
	}
}

// send performs one HTTP round trip and reads the body within the cap. It
// returns how long the answer took.
func (e *env) send(ctx context.Context, method, target string, header http.Header, body []byte) (*Response, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	start := time.Now()
	hreq, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, 0, err
	}
	hreq.Header = header.Clone()
	hresp, err := e.http.Do(hreq)
	if err != nil {
		return nil, time.Since(start), err
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(hresp.Body)
	resp := &Response{Status: hresp.StatusCode, Header: hresp.Header, Body: data}
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			return resp, time.Since(start), errBodyTooLarge
		}
		return nil, time.Since(start), err
	}
	return resp, time.Since(start), nil
}

// retryWait reads how long a 429 asks to wait: Retry-After (seconds or an
// HTTP date), else RateLimit-Reset (epoch milliseconds). It refuses waits
// above the bound.
func (e *env) retryWait(h http.Header) (time.Duration, string, bool) {
	var d time.Duration
	var basis string
	if v := strings.TrimSpace(h.Get(headerRetryAfter)); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			d, basis = time.Duration(n)*time.Second, "Retry-After: "+v
		} else if t, err := http.ParseTime(v); err == nil {
			d, basis = time.Until(t), "Retry-After: "+v
		}
	}
	if basis == "" {
		if ms, err := strconv.ParseInt(strings.TrimSpace(h.Get(headerRLReset)), 10, 64); err == nil {
			d, basis = time.Until(time.UnixMilli(ms)), "RateLimit-Reset: "+h.Get(headerRLReset)
		}
	}
	if basis == "" || d > e.cfg.MaxRateLimitWait {
		return 0, "", false
	}
	return max(d, 100*time.Millisecond), basis, true
}

func (e *env) noteWait(check, target string, d time.Duration, basis string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.waits = append(e.waits, report.Wait{Check: check, URL: target, Duration: d, Basis: basis})
}

func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// guardSecret refuses to send the client secret anywhere but the token
// endpoint, and, with --legacy-auth, interface A's Client-Secret header.
func (e *env) guardSecret(req *Request, target string, header http.Header, body []byte) error {
	if req.Surface == SurfaceAuth {
		return nil
	}
	if l := e.cfg.LimitedClientSecret; l != "" && (strings.Contains(target, l) || bytes.Contains(body, []byte(l))) {
		return fmt.Errorf("internal: refusing to send the limited client's secret to %s (%s)", req.Surface, flagOf(req.Surface))
	}
	secret := e.cfg.ClientSecret
	if secret == "" {
		return nil
	}
	leak := strings.Contains(target, secret) || bytes.Contains(body, []byte(secret))
	for k, vs := range header {
		if req.Surface == SurfaceA && e.cfg.LegacyAuth && http.CanonicalHeaderKey(k) == headerClientSecret {
			continue
		}
		for _, v := range vs {
			if strings.Contains(v, secret) {
				leak = true
			}
		}
	}
	if leak {
		return fmt.Errorf("internal: refusing to send the client secret to %s (%s)", req.Surface, flagOf(req.Surface))
	}
	return nil
}

// excerpt cuts s to n bytes on a rune boundary.
func excerpt(s string, n int) string { return rules.Excerpt(s, n) }
