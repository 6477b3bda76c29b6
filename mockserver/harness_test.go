package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
)

// testNow is the instant the test clock starts at.
var testNow = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// fakeClock is a clock the tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// harness is a mock server behind httptest with a token of the default client.
type harness struct {
	t     testing.TB
	srv   *Server
	ts    *httptest.Server
	clock *fakeClock
	token string
}

func newHarness(t testing.TB, opts ...func(*Options)) *harness {
	t.Helper()
	clock := &fakeClock{t: testNow}
	o := Options{Now: clock.Now, SelfCheck: true}
	for _, f := range opts {
		f(&o)
	}
	srv, err := New(o)
	require.NoError(t, err)
	h := &harness{t: t, srv: srv, ts: httptest.NewServer(srv), clock: clock}
	t.Cleanup(h.ts.Close)
	id, secret := srv.Credentials()
	h.token = h.fetchToken(id, secret)
	return h
}

func (h *harness) fetchToken(id, secret string) string {
	h.t.Helper()
	res := h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}, nil)
	require.Equal(h.t, http.StatusOK, res.status, res)
	var tr tokenResponse
	res.decode(&tr)
	return tr.AccessToken
}

// result is a response as a user sees it.
type result struct {
	req    *http.Request
	status int
	header http.Header
	body   []byte
}

func (r *result) String() string {
	return r.req.Method + " " + r.req.URL.String() + " -> " + http.StatusText(r.status) + ": " + string(r.body)
}

func (r *result) decode(v any) {
	if err := json.Unmarshal(r.body, v); err != nil {
		panic("response is not JSON: " + err.Error() + ": " + string(r.body))
	}
}

// errorBody decodes the interface-B error body, requiring both fields.
func (r *result) errorBody(t testing.TB) surface.RegisterError {
	t.Helper()
	var e map[string]any
	require.NoError(t, json.Unmarshal(r.body, &e), r)
	require.Len(t, e, 2, "error body has exactly code and message: %s", r)
	code, ok1 := e["code"].(string)
	msg, ok2 := e["message"].(string)
	require.True(t, ok1 && ok2 && code != "" && msg != "", "error body fields are non-empty strings: %s", r)
	require.Equal(t, surface.ContentTypeJSON, r.header.Get("Content-Type"), r)
	return surface.RegisterError{Code: code, Message: msg}
}

// get sends an authenticated GET to the path (with query) and validates the response.
func (h *harness) get(path string) *result {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	return h.do(req)
}

// postJSON sends an authenticated POST with a JSON body.
func (h *harness) postJSON(path string, body string) *result {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", surface.ContentTypeJSON)
	return h.do(req)
}

func (h *harness) postForm(path string, form url.Values, header http.Header) *result {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", surface.ContentTypeForm)
	for k, v := range header {
		req.Header[k] = v
	}
	return h.do(req)
}

// do sends the request and checks the response against the contract: its
// status must be documented for the operation, and its headers and body must
// match. Requests to paths the contract does not have are not checked.
func (h *harness) do(req *http.Request) *result {
	h.t.Helper()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := h.ts.Client().Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	res := &result{req: req, status: resp.StatusCode, header: resp.Header, body: body}
	if req.Body != nil {
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	checkResponse(h.t, h.srv.Contract(), res, h.srv.Profile())
	return res
}

var contractRoutes struct {
	once   sync.Once
	routes []contractRoute
}

type contractRoute struct {
	re     *regexp.Regexp
	names  []string
	prefix string
	route  routers.Route
}

// findRoute matches a request against every operation of the contract.
func findRoute(c *openapi.Contract, method, path string) (*routers.Route, map[string]string) {
	contractRoutes.once.Do(func() {
		param := regexp.MustCompile(`\{([^}]+)\}`)
		for _, name := range c.Names() {
			doc := c.Doc(name)
			prefix := ""
			if len(doc.Servers) > 0 {
				u, _ := url.Parse(doc.Servers[0].URL)
				prefix = strings.TrimSuffix(u.Path, "/")
			}
			for tmpl, item := range doc.Paths.Map() {
				var names []string
				for _, m := range param.FindAllStringSubmatch(tmpl, -1) {
					names = append(names, m[1])
				}
				pattern := "^" + regexp.QuoteMeta(prefix)
				for _, part := range strings.Split(strings.TrimPrefix(tmpl, "/"), "/") {
					if strings.HasPrefix(part, "{") {
						pattern += "/([^/]+)"
					} else {
						pattern += "/" + regexp.QuoteMeta(part)
					}
				}
				re := regexp.MustCompile(pattern + "$")
				for m, op := range item.Operations() {
					contractRoutes.routes = append(contractRoutes.routes, contractRoute{re: re, names: names, prefix: prefix,
						route: routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: m, Operation: op}})
				}
			}
		}
	})
	for _, cr := range contractRoutes.routes {
		if cr.route.Method != method {
			continue
		}
		if m := cr.re.FindStringSubmatch(path); m != nil {
			params := map[string]string{}
			for i, n := range cr.names {
				params[n] = m[i+1]
			}
			r := cr.route
			return &r, params
		}
	}
	return nil, nil
}

// checkResponse validates an answer against the contract of the profile
// that served it (interface B's document is the profile's).
func checkResponse(t testing.TB, c *openapi.Contract, res *result, profile string) {
	t.Helper()
	route, params := findRoute(c, res.req.Method, res.req.URL.Path)
	if route == nil {
		return
	}
	if profile == ProfileSS12000 && route.Spec == c.Doc(openapi.NameRegister) {
		doc, _ := openapi.RegisterSS12000()
		item := doc.Paths.Value(route.Path)
		route = &routers.Route{Spec: doc, Path: route.Path, PathItem: item, Method: route.Method, Operation: item.GetOperation(route.Method)}
	}
	err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: res.req, PathParams: params, Route: route},
		Status:                 res.status,
		Header:                 res.header,
		Body:                   io.NopCloser(bytes.NewReader(res.body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus:   true,
			MultiError:              true,
			SchemaValidationOptions: openapi.SchemaOptions(),
		},
	})
	require.NoError(t, err, "response does not match the contract: %s", res)
}

func decodeBody(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
