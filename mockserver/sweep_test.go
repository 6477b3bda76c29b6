package mockserver

// The bad-input sweep (TestBadInputSweep), the limits (TestRequestLimits),
// and the helpers the hardening tests share (fuzz_test.go,
// concurrency_test.go): an in-process server driven through ServeHTTP, the
// operations of the contract, and the check that an answer to a bad request
// has a documented status and the error body of its surface.

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"io"
	"maps"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// inproc is a mock server called in-process through ServeHTTP, with a bearer
// token of the scenario's first client.
type inproc struct {
	srv    *Server
	clock  *fakeClock
	token  string
	id     string
	secret string
}

// newInproc builds a server of the default scenario whose first client has
// the hourly quota given (so that thousands of requests are not refused with
// 429), on a clock that stands still at testNow.
func newInproc(tb testing.TB, quota int) *inproc {
	tb.Helper()
	sc, err := scenarios.Builtin("default")
	require.NoError(tb, err)
	sc.Clients = slices.Clone(sc.Clients)
	sc.Clients[0].RateLimit = quota
	clock := &fakeClock{t: testNow}
	srv, err := New(Options{Scenario: sc, Now: clock.Now, SelfCheck: true})
	require.NoError(tb, err)
	p := &inproc{srv: srv, clock: clock}
	p.id, p.secret = srv.Credentials()
	p.token = p.fetchToken(tb)
	return p
}

func (p *inproc) fetchToken(tb testing.TB) string {
	tb.Helper()
	form := url.Values{"grant_type": {grantClientCredentials}, "client_id": {p.id}, "client_secret": {p.secret}}
	req := httptest.NewRequest(http.MethodPost, PathToken, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", surface.ContentTypeForm)
	rec := p.serve(req)
	require.Equal(tb, http.StatusOK, rec.Code, rec.Body.String())
	var tr tokenResponse
	require.NoError(tb, json.Unmarshal(rec.Body.Bytes(), &tr))
	return tr.AccessToken
}

func (p *inproc) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	p.srv.ServeHTTP(rec, req)
	return rec
}

// request builds a request with the client's bearer token. target is the
// escaped path with an optional raw query; it is not parsed, so any bytes
// reach the server as a client could send them.
func (p *inproc) request(method, target string, body []byte, contentType string) *http.Request {
	path, rawQuery, _ := strings.Cut(target, "?")
	req := httptest.NewRequest(method, "/", nil)
	req.URL = &url.URL{Path: path, RawQuery: rawQuery}
	if un, err := url.PathUnescape(path); err == nil {
		req.URL.Path = un
		if un != path {
			req.URL.RawPath = path
		}
	}
	req.RequestURI = target
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	return req
}

// sweepErrorStatuses are the error statuses a bad request may get.
var sweepErrorStatuses = []int{400, 401, 403, 404, 405, 409, 413, 415, 422, 429}

// sweepDirectoryCodes is the interface-A error code of each status
// (docs/decisions.md#interface-a-error-body).
var sweepDirectoryCodes = map[int]string{
	400: surface.CodeBadRequest, 401: surface.CodeUnauthorized, 403: surface.CodeForbidden, 404: surface.CodeNotFound, 405: surface.CodeBadRequest,
	409: surface.CodeConflict, 413: surface.CodeBadRequest, 415: surface.CodeBadRequest, 422: surface.CodeUnprocessable, 429: CodeRateLimited,
}

// sweepOAuthCodes are the error codes of the token endpoint by status
// (docs/decisions.md#token-errors).
var sweepOAuthCodes = map[int][]string{
	400: {"invalid_request", "invalid_grant", "unsupported_grant_type", "invalid_scope", "unauthorized_client"},
	401: {"invalid_client"},
	405: {"invalid_request"},
	413: {"invalid_request"},
	429: {"temporarily_unavailable"},
}

type sweepSurface int

const (
	sweepB     sweepSurface = iota // interface B and unknown paths: {code, message}
	sweepA                         // interface A and the export: {"error": {code, message, requestID}}
	sweepToken                     // the token endpoint: {error, error_description?}
)

// sweepKindOf says which error body a request gets, by how the server routes it:
// the token endpoint's route, interface A's and the export's paths (their
// unknown paths too), else interface B's body (the server's 404).
func sweepKindOf(req *http.Request) sweepSurface {
	switch {
	case req.URL.EscapedPath() == PathToken:
		return sweepToken
	case strings.HasPrefix(req.URL.Path, PrefixA+"/") || strings.HasPrefix(req.URL.Path, PrefixExport+"/"):
		return sweepA
	}
	return sweepB
}

// answerProblems returns what is wrong with the answer to a request that
// may be bad: a 5xx, an undocumented status, a missing header, or an error
// body that is not its surface's. op, when not nil, is the contract's
// operation the request was sent to, whose documented statuses the answer
// must be among.
func answerProblems(req *http.Request, op *openapi3.Operation, status int, header http.Header, body []byte) []string {
	var probs []string
	add := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	if status >= 500 {
		add("server error %d", status)
		return probs
	}
	if status < 400 {
		if status >= 300 {
			add("status %d is not documented", status)
		}
		return probs
	}
	if !slices.Contains(sweepErrorStatuses, status) {
		add("status %d is not one of the documented error statuses", status)
	}
	if op != nil && op.Responses.Status(status) == nil && op.Responses.Default() == nil {
		add("status %d is not documented for this operation in the contract", status)
	}
	if mt, _, err := mime.ParseMediaType(header.Get("Content-Type")); err != nil || mt != surface.ContentTypeJSON {
		add("Content-Type %q is not application/json", header.Get("Content-Type"))
	}
	if status == http.StatusMethodNotAllowed && header.Get(surface.HeaderAllow) == "" {
		add("405 without Allow")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		add("error body is not a JSON object: %q", sweepExcerpt(body))
		return probs
	}
	kind := sweepKindOf(req)
	switch kind {
	case sweepB:
		if status == http.StatusUnauthorized && !strings.HasPrefix(header.Get(surface.HeaderWWWAuth), "Bearer") {
			add("401 without a Bearer challenge")
		}
		if len(obj) != 2 || !sweepNonEmpty(obj["code"]) || !sweepNonEmpty(obj["message"]) {
			add("interface-B error body is not exactly {code, message} with non-empty strings: %q", sweepExcerpt(body))
		}
	case sweepA:
		for _, h := range []string{surface.HeaderRateLimit, surface.HeaderRateRemaining, surface.HeaderRateReset} {
			if header.Get(h) == "" {
				add("no %s header", h)
			}
		}
		if status == http.StatusUnauthorized && !strings.HasPrefix(header.Get(surface.HeaderWWWAuth), "Bearer") {
			add("401 without a Bearer challenge")
		}
		var e struct {
			Error map[string]json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(body, &e)
		inner := e.Error
		if len(obj) != 1 || inner == nil || !sweepNonEmpty(inner["code"]) || !sweepNonEmpty(inner["message"]) || !sweepNonEmpty(inner["requestID"]) {
			add("interface-A error body is not {\"error\": {code, message, requestID}}: %q", sweepExcerpt(body))
			break
		}
		for k := range inner {
			if !slices.Contains([]string{"code", "message", "requestID", "details"}, k) {
				add("interface-A error body has an unknown member %q", k)
			}
		}
		var code, rid string
		_ = json.Unmarshal(inner["code"], &code)
		_ = json.Unmarshal(inner["requestID"], &rid)
		if want := sweepDirectoryCodes[status]; code != want {
			add("interface-A code %q for status %d, want %q", code, status, want)
		}
		if rid != header.Get(surface.HeaderRequestID) {
			add("requestID %q differs from X-Request-ID %q", rid, header.Get(surface.HeaderRequestID))
		}
	case sweepToken:
		if status == http.StatusUnauthorized && !strings.HasPrefix(header.Get(surface.HeaderWWWAuth), "Basic") {
			add("401 of the token endpoint without a Basic challenge")
		}
		var code string
		if !sweepNonEmpty(obj["error"]) {
			add("token endpoint error body has no error code: %q", sweepExcerpt(body))
			break
		}
		_ = json.Unmarshal(obj["error"], &code)
		if !slices.Contains(sweepOAuthCodes[status], code) {
			add("token endpoint error %q for status %d, want one of %v", code, status, sweepOAuthCodes[status])
		}
		for k, v := range obj {
			switch k {
			case "error":
			case "error_description", "error_uri":
				if !sweepNonEmpty(v) {
					add("%s is not a string", k)
				}
			default:
				add("token endpoint error body has an unknown member %q", k)
			}
		}
	}
	return probs
}

func sweepNonEmpty(raw json.RawMessage) bool {
	var s string
	return raw != nil && json.Unmarshal(raw, &s) == nil && s != ""
}

func sweepExcerpt(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// opIndex finds the contract's operation for a request by its path's
// segments, literal segments before parameters (so that /group/_search is
// not taken for /group/{id}).
type opIndex []opEntry

type opEntry struct {
	method string
	segs   []string // "" stands for a path parameter
	op     *openapi3.Operation
}

func newOpIndex(c *openapi.Contract) opIndex {
	var idx opIndex
	for _, name := range c.Names() {
		doc := c.Doc(name)
		prefix := ""
		if len(doc.Servers) > 0 {
			u, _ := url.Parse(doc.Servers[0].URL)
			prefix = strings.TrimSuffix(u.Path, "/")
		}
		for tmpl, item := range doc.Paths.Map() {
			segs := strings.Split(prefix+tmpl, "/")
			for i, sg := range segs {
				if strings.HasPrefix(sg, "{") {
					segs[i] = ""
				}
			}
			for m, op := range item.Operations() {
				idx = append(idx, opEntry{method: m, segs: segs, op: op})
			}
		}
	}
	params := func(e opEntry) int { return strings.Count(strings.Join(e.segs, "/")+"/", "//") }
	slices.SortStableFunc(idx, func(a, b opEntry) int { return params(a) - params(b) })
	return idx
}

// find returns the operation of the request, nil when the contract has none.
func (idx opIndex) find(req *http.Request) *openapi3.Operation {
	segs := strings.Split(req.URL.EscapedPath(), "/")
	for _, e := range idx {
		if e.method != req.Method || len(e.segs) != len(segs) {
			continue
		}
		match := true
		for i, sg := range e.segs {
			if sg == "" && segs[i] == "" && i > 0 || sg != "" && sg != segs[i] {
				match = false
				break
			}
		}
		if match {
			return e.op
		}
	}
	return nil
}

// sweepDescribe renders a request for a failure message, long values cut.
func sweepDescribe(req *http.Request, body []byte) string {
	target := req.RequestURI
	if target == "" {
		target = req.URL.RequestURI()
	}
	if len(target) > 200 {
		target = target[:200] + fmt.Sprintf("...(%d bytes)", len(target))
	}
	s := req.Method + " " + target
	if ct := req.Header.Get("Content-Type"); ct != "" {
		s += " [" + ct + "]"
	}
	if len(body) > 0 {
		b := body
		if len(b) > 200 {
			b = b[:200]
		}
		s += fmt.Sprintf(" body(%d bytes): %q", len(body), b)
	}
	return s
}

// sweepInjections are hostile strings sent wherever a client can put text.
var sweepInjections = []string{
	"' OR 1=1--",
	"\" OR \"\"=\"",
	"1; DROP TABLE placements;--",
	"<script>alert(1)</script>",
	"\"><img src=x onerror=alert(1)>",
	"../../etc/passwd",
	"..\\..\\windows\\win.ini",
	"%00",
	"\x00",
	"a\x00b",
	"%25%30%30",
	"${jndi:ldap://127.0.0.1/a}",
	"{{7*7}}",
	"$(id)",
	"`id`",
	"\r\nX-Injected: 1",
	"\u202e\u0645\u0631\u062d\u0628\u0627",
	"Åsa Öberg-Ääkkönen",
	"\U0001F600\U0001F4A9",
	"\ufeff",
	"\xff\xfe\xfd",
	"\ud7ff\ue000",
	strings.Repeat("A", 10_000),
	strings.Repeat("å", 5_000),
	strings.Repeat("%", 1_000),
	"null",
	"-1",
	"9999999999999999999999999",
}

// sweepOp is one operation of the contract.
type sweepOp struct {
	doc    openapi.Name
	method string
	tmpl   string // the full path template: /api/v1/placements/{id}
	op     *openapi3.Operation
	query  []*openapi3.Parameter
	hasID  bool
	body   *openapi3.Schema // the JSON request body's schema, nil when none
	form   bool             // the body is a form (the token endpoint)
	open   bool             // served without credentials
}

func (o sweepOp) String() string { return o.method + " " + o.tmpl }

// sweepOps derives every operation of interface B, interface A, the export
// and the token endpoint from the contract.
func sweepOps(c *openapi.Contract) []sweepOp {
	var ops []sweepOp
	for _, name := range []openapi.Name{openapi.NameAuth, openapi.NameRegister, openapi.NameDirectory, openapi.NameExport} {
		doc := c.Doc(name)
		prefix := ""
		if len(doc.Servers) > 0 {
			u, _ := url.Parse(doc.Servers[0].URL)
			prefix = strings.TrimSuffix(u.Path, "/")
		}
		for tmpl, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				o := sweepOp{doc: name, method: method, tmpl: prefix + tmpl, op: op, hasID: strings.Contains(tmpl, "{id}")}
				for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
					if p.Value.In == openapi3.ParameterInQuery {
						o.query = append(o.query, p.Value)
					}
				}
				if op.RequestBody != nil {
					if mt := op.RequestBody.Value.Content.Get(surface.ContentTypeJSON); mt != nil {
						o.body = mt.Schema.Value
					}
					o.form = op.RequestBody.Value.Content.Get(surface.ContentTypeForm) != nil
				}
				sec := doc.Security
				if op.Security != nil {
					sec = *op.Security
				}
				o.open = len(sec) == 0 || strings.HasSuffix(tmpl, "/openapi.json")
				for _, req := range sec {
					if len(req) == 0 {
						o.open = true
					}
				}
				ops = append(ops, o)
			}
		}
	}
	slices.SortFunc(ops, func(a, b sweepOp) int { return strings.Compare(a.String(), b.String()) })
	return ops
}

// sweepProps returns the properties of an object schema, allOf merged.
func sweepProps(s *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	for _, a := range s.AllOf {
		maps.Copy(out, sweepProps(a.Value))
	}
	for k, v := range s.Properties {
		out[k] = v.Value
	}
	return out
}

func sweepRequired(s *openapi3.Schema) []string {
	req := slices.Clone(s.Required)
	for _, a := range s.AllOf {
		req = append(req, sweepRequired(a.Value)...)
	}
	return req
}

func sweepClosed(s *openapi3.Schema) bool {
	if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
		return true
	}
	return slices.ContainsFunc(s.AllOf, func(a *openapi3.SchemaRef) bool { return sweepClosed(a.Value) })
}

// sweepExample makes a value that meets the schema's type, format and enum
// (objects get their required members).
func sweepExample(s *openapi3.Schema, depth int) any {
	if s == nil || depth > 6 {
		return nil
	}
	if s.Example != nil && !s.Type.Is(openapi3.TypeObject) {
		return s.Example
	}
	if len(s.AllOf) == 1 && len(s.Properties) == 0 {
		return sweepExample(s.AllOf[0].Value, depth+1)
	}
	if len(s.OneOf) > 0 {
		return sweepExample(s.OneOf[0].Value, depth+1)
	}
	if len(s.AnyOf) > 0 {
		return sweepExample(s.AnyOf[0].Value, depth+1)
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch {
	case s.Type.Is(openapi3.TypeObject) || len(s.Properties) > 0 || len(s.AllOf) > 0:
		props := sweepProps(s)
		m := map[string]any{}
		for _, name := range sweepRequired(s) {
			m[name] = sweepExample(props[name], depth+1)
		}
		return m
	case s.Type.Is(openapi3.TypeArray):
		if s.MinItems > 0 && s.Items != nil {
			return []any{sweepExample(s.Items.Value, depth+1)}
		}
		return []any{}
	case s.Type.Is(openapi3.TypeInteger), s.Type.Is(openapi3.TypeNumber):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is(openapi3.TypeBoolean):
		return false
	}
	switch s.Format {
	case "date":
		return "2026-11-02"
	case "date-time":
		return "2026-11-02T09:00:00Z"
	case "uuid":
		return unknownID
	case "email":
		return "a@example.com"
	}
	if s.MinLength > 1 {
		return strings.Repeat("1", int(s.MinLength))
	}
	return "x"
}

// sweepBadValues are values that a parameter or member of the schema's type
// must refuse (nil when its type takes any text).
func sweepBadValues(s *openapi3.Schema) []string {
	if s.Type.Is(openapi3.TypeArray) && s.Items != nil {
		return sweepBadValues(s.Items.Value)
	}
	switch {
	case len(s.Enum) > 0:
		first := fmt.Sprint(s.Enum[0])
		return []string{"Nope", strings.ToLower(first) + "x", first + " ", " " + first, strings.ToUpper(first) + "X"}
	case s.Type.Is(openapi3.TypeInteger):
		bad := []string{"abc", "1.5", "1e3", "0x10", "99999999999999999999", "+-1", " 1", "1 "}
		if s.Min != nil {
			bad = append(bad, fmt.Sprint(int64(*s.Min)-1), "-9223372036854775808")
		}
		if s.Max != nil {
			bad = append(bad, fmt.Sprint(int64(*s.Max)+1), "9223372036854775807")
		}
		return bad
	case s.Type.Is(openapi3.TypeBoolean):
		return []string{"yes", "2", "TRUEE", "on", "tru"}
	}
	switch s.Format {
	case "uuid":
		return []string{"not-a-uuid", "123", "046b6c7f0b8a43b9b35d6489e6daee91", "{046b6c7f-0b8a-43b9-b35d-6489e6daee91}",
			"046b6c7f-0b8a-43b9-b35d-6489e6daee9g", "urn:uuid:046b6c7f-0b8a-43b9-b35d-6489e6daee91", "046b6c7f-0b8a-43b9-b35d-6489e6daee9"}
	case "date":
		return []string{"2024-13-01", "2024-02-30", "2023-02-29", "2024-00-10", "2024-1-1", "20240101", "yesterday",
			"2024-01-01T00:00:00Z", "-2024-01-01", "+02024-01-01", "2024-01-32"}
	case "date-time":
		return []string{"2024-01-01", "2024-01-01T25:00:00Z", "2024-01-01T00:00:00", "2024-01-01 00:00:00Z", "now",
			"2024-02-30T00:00:00Z", "1700000000", "2024-01-01T00:00:00+25:00", "2024-01-01T00:60:00Z"}
	}
	return nil
}

// sweepKnownIssues are problems found by this sweep in code owned elsewhere,
// reported and tolerated so that the sweep keeps guarding everything else.
// Each is logged with its count and one example.
var sweepKnownIssues = []struct {
	label string
	match func(cat string, req *http.Request, status int, problem string) bool
}{}

type sweepKnownHit struct {
	count   int
	example string
}

// sweeper sends requests and tallies the answers.
type sweeper struct {
	p        *inproc
	c        *openapi.Contract
	ops      opIndex
	byStatus map[int]int
	byCat    map[string]int
	known    map[string]*sweepKnownHit
	problems []string
	total    int
	nProblem int
	sigs     map[string]int
	catTime  map[string]time.Duration
}

// send serves one request and checks the answer: no 5xx, a documented
// status and error body, and, when want is given, one of those statuses.
func (s *sweeper) send(cat string, req *http.Request, body []byte, want ...int) *httptest.ResponseRecorder {
	t0 := time.Now()
	rec := s.p.serve(req)
	s.catTime[cat] += time.Since(t0)
	s.total++
	s.byStatus[rec.Code]++
	s.byCat[cat]++
	var op *openapi3.Operation
	if cat != "method" { // a wrong method has no operation in the contract
		op = s.ops.find(req)
	}
	probs := answerProblems(req, op, rec.Code, rec.Header(), rec.Body.Bytes())
	if len(want) > 0 && !slices.Contains(want, rec.Code) {
		probs = append(probs, fmt.Sprintf("status %d, want %v", rec.Code, want))
	}
	for _, pr := range probs {
		known := ""
		for _, k := range sweepKnownIssues {
			if k.match(cat, req, rec.Code, pr) {
				known = k.label
				break
			}
		}
		msg := fmt.Sprintf("[%s] %s -> %d %q: %s", cat, sweepDescribe(req, body), rec.Code, sweepExcerpt(rec.Body.Bytes()), pr)
		if known != "" {
			h := s.known[known]
			if h == nil {
				h = &sweepKnownHit{example: msg}
				s.known[known] = h
			}
			h.count++
			continue
		}
		s.nProblem++
		// Up to two examples of each kind of problem.
		sig := cat + "|" + req.Method + "|" + strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, pr)
		if s.sigs[sig]++; s.sigs[sig] <= 2 && len(s.problems) < 60 {
			s.problems = append(s.problems, msg)
		}
	}
	return rec
}

// sweepFill puts the path's {id} in.
func sweepFill(tmpl, id string) string { return strings.ReplaceAll(tmpl, "{id}", id) }

// sweepRealIDs finds an existing record for every path with an {id}, through
// the lists of interface A and B and the store.
func sweepRealIDs(t testing.TB, p *inproc, ops []sweepOp) map[string]string {
	t.Helper()
	ids := map[string]string{}
	firstID := func(target string) string {
		rec := p.serve(p.request(http.MethodGet, target, nil, ""))
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", target, rec.Body.String())
		var body struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), target)
		if len(body.Data) == 0 {
			return ""
		}
		return body.Data[0].ID
	}
	// create makes a record of an interface-A resource the scenario has none
	// of, from its create schema with references to existing records.
	create := func(res string) string {
		var o *sweepOp
		for i := range ops {
			if ops[i].method == http.MethodPost && ops[i].tmpl == PrefixA+"/"+res {
				o = &ops[i]
			}
		}
		if o == nil || o.body == nil {
			return unknownID
		}
		body, _ := sweepExample(o.body, 0).(map[string]any)
		for name, v := range body {
			if v != unknownID {
				continue
			}
			for _, ref := range []string{"student", "school", "employee", "guardian", "group"} {
				if strings.HasPrefix(name, ref) {
					body[name] = firstID(PrefixA + "/" + ref + "?limit=1")
				}
			}
		}
		b, _ := json.Marshal(body)
		rec := p.serve(p.request(http.MethodPost, PrefixA+"/"+res, b, surface.ContentTypeJSON))
		var made struct {
			ID string `json:"id"`
		}
		if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &made) != nil {
			t.Logf("could not create a %s (%d %s): its operations answer 404", res, rec.Code, rec.Body.String())
			return unknownID
		}
		return made.ID
	}
	for _, o := range ops {
		if !o.hasID || ids[o.tmpl] != "" {
			continue
		}
		switch {
		case strings.HasPrefix(o.tmpl, PrefixA+"/"):
			res, _, _ := strings.Cut(strings.TrimPrefix(o.tmpl, PrefixA+"/"), "/")
			if res == "student-placements" {
				res = "student-placement"
			}
			if ids[o.tmpl] = firstID(PrefixA + "/" + res + "?limit=1"); ids[o.tmpl] == "" {
				ids[o.tmpl] = create(res)
			}
		case strings.HasPrefix(o.tmpl, PrefixB+"/subscriptions/"):
			// a subscription whose callbacks go nowhere (port 9, discard)
			sub, err := p.srv.Webhooks().Create(webhook.CreateSubscription{Name: "sweep", Target: "http://127.0.0.1:9/hook",
				ResourceTypes: []webhook.ResourceTypeRef{{Resource: model.ResourceSyllabus}}})
			require.NoError(t, err)
			ids[o.tmpl] = sub.ID
		case strings.HasPrefix(o.tmpl, PrefixB+"/"):
			res, _, _ := strings.Cut(strings.TrimPrefix(o.tmpl, PrefixB+"/"), "/")
			q := "?limit=1"
			if res == "calendarEvents" {
				q += "&startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2100-01-01T00:00:00Z"
			}
			ids[o.tmpl] = cmp.Or(firstID(PrefixB+"/"+res+q), unknownID)
		default:
			t.Fatalf("no way to find a record for %s", o.tmpl)
		}
	}
	return ids
}

// TestBadInputSweep sends more than 10,000 generated bad requests to every
// operation of interface B, interface A, the export and the token endpoint,
// and requires for each a documented status (never a 5xx) with the error
// body of its surface. It is deterministic: the cases are generated in a
// fixed order from a seeded generator.
func TestBadInputSweep(t *testing.T) {
	p := newInproc(t, 1<<30)
	s := &sweeper{p: p, c: p.srv.Contract(), ops: newOpIndex(p.srv.Contract()), byStatus: map[int]int{}, byCat: map[string]int{}, known: map[string]*sweepKnownHit{}, sigs: map[string]int{}, catTime: map[string]time.Duration{}}
	ops := sweepOps(s.c)
	require.NotEmpty(t, ops)
	ids := sweepRealIDs(t, p, ops)
	rng := rand.New(rand.NewPCG(6, 12000))
	start := time.Now()

	// target is the operation's path with its record's id, and a query.
	target := func(o sweepOp, query string) string {
		id := ids[o.tmpl]
		if o.method == http.MethodDelete {
			id = unknownID // a request the server takes would delete the record
		}
		t := sweepFill(o.tmpl, id)
		if query != "" {
			t += "?" + query
		}
		return t
	}
	// validBody is a body the operation's schema takes.
	validBody := func(o sweepOp) ([]byte, string) {
		switch {
		case o.form:
			return []byte(url.Values{"grant_type": {grantClientCredentials}, "client_id": {p.id}, "client_secret": {p.secret}}.Encode()), surface.ContentTypeForm
		case o.body != nil:
			b, _ := json.Marshal(sweepExample(o.body, 0))
			return b, surface.ContentTypeJSON
		}
		return nil, ""
	}
	// errStatus is the status of a body that fails its schema.
	errStatus := func(o sweepOp) int {
		if o.doc == openapi.NameDirectory {
			return http.StatusUnprocessableEntity
		}
		return http.StatusBadRequest
	}

	// 1. Wrong methods: 405 with the path's methods in Allow.
	allowed := map[string][]string{}
	for _, o := range ops {
		allowed[o.tmpl] = append(allowed[o.tmpl], o.method)
	}
	paths := slices.Sorted(maps.Keys(allowed))
	for _, tmpl := range paths {
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "get", "post", "X-EVIL"} {
			if slices.Contains(allowed[tmpl], m) {
				continue
			}
			req := p.request(m, sweepFill(tmpl, ids[tmpl]), nil, "")
			rec := s.send("method", req, nil, http.StatusMethodNotAllowed)
			got := strings.Split(rec.Header().Get(surface.HeaderAllow), ", ")
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(allowed[tmpl]))) {
				s.nProblem++
				s.problems = append(s.problems, fmt.Sprintf("[method] %s %s: Allow %q, the contract has %v", m, tmpl, rec.Header().Get(surface.HeaderAllow), allowed[tmpl]))
			}
		}
	}

	// 2. Bad ids in paths: 400; well-formed unknown ids: 404.
	badIDs := append(sweepBadValues(&openapi3.Schema{Format: "uuid"}), "", " ", "0", "-1", "null", "{id}", "%", "%2F", "..", ".")
	for _, inj := range sweepInjections {
		badIDs = append(badIDs, inj[:min(len(inj), 2048)]) // a long path, within any server's request-line limit
	}
	for _, o := range ops {
		if !o.hasID {
			continue
		}
		body, ct := validBody(o)
		real := ids[o.tmpl]
		cases := append(slices.Clone(badIDs), real+"x", real+" ", " "+real, real[:35], real+"/", strings.ReplaceAll(real, "-", ""))
		for _, id := range cases {
			esc := url.PathEscape(id)
			if esc == "" || esc == "." || esc == ".." {
				continue // a different path, swept below
			}
			want := []int{http.StatusBadRequest}
			if strings.HasSuffix(id, "/") {
				want = []int{http.StatusNotFound, http.StatusBadRequest}
			}
			s.send("path-id", p.request(o.method, sweepFill(o.tmpl, esc), body, ct), body, want...)
		}
		for _, id := range []string{unknownID, strings.ToUpper(unknownID), "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"} {
			s.send("path-id", p.request(o.method, sweepFill(o.tmpl, id), body, ct), body, http.StatusNotFound)
		}
	}

	// 3. Unescaped hostile paths and unknown paths: 404 with the body of the
	// surface the prefix names.
	for _, prefix := range []string{PrefixB, PrefixA, PrefixExport, PathToken, ""} {
		for _, rest := range []string{"/nope", "/placements/" + unknownID + "/x", "/school/" + unknownID + "/archive",
			"/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%00", "/%E2%80%AE", "/openapi.json/x", "/_search", "/group/_search/x",
			"/../../etc/passwd", "//placements", "/./placements", "/placements/.."} {
			for _, m := range []string{http.MethodGet, http.MethodPost} {
				s.send("unknown-path", p.request(m, prefix+rest, nil, ""), nil)
			}
		}
	}

	// 4. Query parameters: unknown, repeated, and bad values of every
	// declared parameter (and sweepInjections in each): 400.
	for _, o := range ops {
		body, ct := validBody(o)
		for _, name := range append([]string{"unknown", "LIMIT", "limit[]", "__proto__"}, sweepInjections[:12]...) {
			if slices.ContainsFunc(o.query, func(q *openapi3.Parameter) bool { return q.Name == name }) {
				continue
			}
			var want []int
			if !o.open { // the served contracts ignore query parameters
				want = []int{http.StatusBadRequest}
			}
			s.send("query", p.request(o.method, target(o, url.QueryEscape(name)+"=1"), body, ct), body, want...)
		}
		for _, q := range o.query {
			sch := q.Schema.Value
			values := sweepBadValues(sch)
			typed := values != nil
			if typed || q.Name == register.ParamPageToken {
				values = append(values, sweepInjections...)
				values = append(values, "")
			}
			for _, v := range values {
				if v == "" && q.Name != register.ParamPageToken {
					continue // an empty value is no value
				}
				s.send("query", p.request(o.method, target(o, url.QueryEscape(q.Name)+"="+url.QueryEscape(v)), body, ct), body, http.StatusBadRequest)
			}
			if !sch.Type.Is(openapi3.TypeArray) {
				good := fmt.Sprint(sweepExample(sch, 0))
				if q.Name == register.ParamLimit {
					good = "5"
				}
				qs := url.QueryEscape(q.Name) + "=" + url.QueryEscape(good)
				s.send("query", p.request(o.method, target(o, qs+"&"+qs), body, ct), body, http.StatusBadRequest)
			}
		}
		// Malformed query strings: any documented answer; those that do not
		// parse at all are a 400 (a client's typo must not widen a query).
		for _, raw := range []string{"=1", "&&&", "a=b=c", strings.Repeat("x=1&", 2000), "\x00=\x00", "limit=1%00"} {
			s.send("query-raw", p.request(o.method, target(o, raw), body, ct), body)
		}
		if !o.open && len(o.query) > 0 {
			for _, raw := range []string{"%", "%zz=1", "limit=%", "limit=0;x=1", "limit=5;offset=-1"} {
				s.send("query-unparsable", p.request(o.method, target(o, raw), body, ct), body, http.StatusBadRequest)
			}
		}
	}
	// A pageToken never goes with a filter; a forged one is refused.
	for _, extra := range []string{"organisation=" + unknownID, "sortkey=StartDateAsc", "startDate.onOrAfter=2026-01-01"} {
		s.send("query", p.request(http.MethodGet, PrefixB+"/placements?pageToken=x.y&"+extra, nil, ""), nil, http.StatusBadRequest)
	}

	// 5. Bodies: too large (413), not JSON (400), JSON of the wrong type,
	// wrong content types, and hostile or wrongly typed members.
	big := bytes.Repeat([]byte("a"), maxBodyBytes+1)
	for _, o := range ops {
		if o.body == nil && !o.form {
			if o.method != http.MethodGet {
				s.send("body-size", p.request(o.method, target(o, ""), big[:maxBodyBytes+1], surface.ContentTypeJSON), big[:maxBodyBytes+1])
			}
			continue
		}
		limit := maxBodyBytes
		if o.form {
			limit = tokenBodyLimit
		}
		_, ct := validBody(o)
		// A valid JSON object (or form) just over the limit, and garbage.
		var over []byte
		if o.form {
			over = []byte("grant_type=client_credentials&x=" + strings.Repeat("a", limit))
		} else {
			over = []byte(`{"x":"` + strings.Repeat("a", limit) + `"}`)
		}
		s.send("body-size", p.request(o.method, target(o, ""), over, ct), over, http.StatusRequestEntityTooLarge)
		req := p.request(o.method, target(o, ""), big[:limit+1], ct)
		req.ContentLength = -1 // chunked: no length announced
		s.send("body-size", req, big[:limit+1], http.StatusRequestEntityTooLarge)
		if o.form {
			continue
		}
		// Exactly at the limit is not too large (one operation of each
		// surface: a megabyte of JSON is slow under the race detector).
		if o.tmpl == PrefixB+"/groups/lookup" || o.tmpl == PrefixA+"/group" && o.method == http.MethodPost {
			at := []byte(`{"x":"` + strings.Repeat("a", limit-8) + `"}`)
			require.Len(t, at, limit)
			rec := s.send("body-size", p.request(o.method, target(o, ""), at, ct), at)
			if rec.Code == http.StatusRequestEntityTooLarge {
				s.nProblem++
				s.problems = append(s.problems, fmt.Sprintf("[body-size] %s: a body of exactly %d bytes is refused as too large", o, limit))
			}
		}

		for _, b := range []string{"", " ", "{", "}", "{]", `{"a":}`, `{'a':1}`, `{"a":1,}`, "\xef\xbb\xbf{}",
			`{"a":NaN}`, `{"a":Infinity}`, `{"a":"` + "\x01" + `"}`, "\x00", strings.Repeat("[", 100_000),
			strings.Repeat(`{"a":`, 20_000), `{"a":"\u"}`, `{"a"1}`, "<xml/>", "ids=1", "--boundary\r\n"} {
			s.send("bad-json", p.request(o.method, target(o, ""), []byte(b), ct), []byte(b), http.StatusBadRequest)
		}
		for _, b := range []string{"null", "[]", "1", `"x"`, "true", `[{}]`} {
			s.send("bad-json", p.request(o.method, target(o, ""), []byte(b), ct), []byte(b), http.StatusBadRequest, errStatus(o))
		}
		good, _ := validBody(o)
		// A valid body followed by more data is not one JSON value.
		for _, tail := range []string{" x", "{}", `{"a":1}`, "]", "\x00"} {
			b := append(slices.Clone(good), tail...)
			s.send("bad-trailing", p.request(o.method, target(o, ""), b, ct), b, http.StatusBadRequest)
		}
		wantCT := http.StatusUnsupportedMediaType
		if o.doc == openapi.NameDirectory {
			wantCT = http.StatusBadRequest // interface A answers 415 with the code BadRequest; 400 passes too (docs/decisions.md#interface-a-413-415)
		}
		for _, bad := range []string{"", "text/plain", "application/xml", "multipart/form-data; boundary=x", surface.ContentTypeForm,
			"application/jsonx", "json", "application/json;;", "application/*", "*/*", "text/json", "application/problem+json",
			"application/merge-patch+json", "application/json, text/plain", "\x00"} {
			req := p.request(o.method, target(o, ""), good, "")
			if bad != "" {
				req.Header.Set("Content-Type", bad)
			}
			s.send("content-type", req, good, wantCT, http.StatusUnsupportedMediaType)
		}
		// Members: hostile text, wrong types, unknown values.
		example, _ := sweepExample(o.body, 0).(map[string]any)
		props := sweepProps(o.body)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			sch := props[name]
			if sch.ReadOnly {
				continue
			}
			with := func(v any) []byte {
				m := maps.Clone(example)
				m[name] = v
				b, _ := json.Marshal(m)
				return b
			}
			// A seeded choice of hostile texts and wrong types for each member.
			wrong := []any{12345, -1, 1.5, true, nil, []any{}, map[string]any{}, "", []any{"' OR 1=1--"}, map[string]any{"$gt": ""}}
			for range 4 {
				b := with(sweepInjections[rng.IntN(len(sweepInjections))])
				s.send("body-member", p.request(o.method, target(o, ""), b, ct), b)
				b = with(wrong[rng.IntN(len(wrong))])
				s.send("body-member", p.request(o.method, target(o, ""), b, ct), b)
			}
			for _, v := range sweepBadValues(sch) {
				var val any = v
				if sch.Type.Is(openapi3.TypeArray) {
					val = []any{v}
				} else if sch.Type.Is(openapi3.TypeInteger) {
					if n, err := strconv.ParseInt(v, 10, 64); err == nil {
						val = n
					}
				}
				b := with(val)
				s.send("body-member", p.request(o.method, target(o, ""), b, ct), b, errStatus(o))
			}
		}
		if sweepClosed(o.body) && example != nil {
			for _, name := range append([]string{"colour", "__proto__", "constructor", "ID", "meta"}, sweepInjections[:10]...) {
				if _, ok := props[name]; ok {
					continue
				}
				m := maps.Clone(example)
				m[name] = "x"
				b, _ := json.Marshal(m)
				want := errStatus(o)
				if strings.ContainsRune(name, 0) {
					want = http.StatusBadRequest // text the mock would alter (decision text-in-requests)
				}
				s.send("body-member", p.request(o.method, target(o, ""), b, ct), b, want)
			}
		}
	}

	// 6. Searches with hostile values in every operator on every searchable
	// field: any documented answer.
	for _, o := range ops {
		if !strings.HasSuffix(o.tmpl, "/_search") {
			continue
		}
		// The equals filter of the search body the contract declares
		// (#/components/schemas/<Record>Search) names the fields.
		var fields []string
		doc := s.c.Doc(openapi.NameDirectory)
		if item := doc.Paths.Find(strings.TrimPrefix(o.tmpl, PrefixA)); item != nil && item.Post != nil && item.Post.RequestBody != nil {
			if mt := item.Post.RequestBody.Value.Content.Get(surface.ContentTypeJSON); mt != nil && mt.Schema != nil {
				record := strings.TrimSuffix(path.Base(mt.Schema.Ref), "Search")
				if schema := doc.Components.Schemas[record+"FilterEquals"]; schema != nil {
					fields = slices.Sorted(maps.Keys(schema.Value.Properties))
				}
			}
		}
		require.NotEmpty(t, fields, o.tmpl)
		for _, op := range []string{"equals", "notEquals", "contains", "like", "notLike", "greaterThan", "smallerOrEqual", "null"} {
			for i := range 6 {
				field := fields[rng.IntN(len(fields))]
				var v any = sweepInjections[rng.IntN(len(sweepInjections))]
				switch op {
				case "null":
					v = true
				case "like", "notLike":
					if i%2 == 0 {
						v = strings.Repeat("%_", 400) + "x"
					}
				}
				b, _ := json.Marshal(map[string]any{"filter": map[string]any{op: map[string]any{field: v}, "orCondition": i%3 == 0}})
				s.send("search", p.request(o.method, target(o, "limit=5"), b, surface.ContentTypeJSON), b)
			}
		}
		deep := `{"filter":{"orCondition":false}}`
		for range 12 {
			deep = `{"filter":{"orCondition":true,"nestedFilters":[` + strings.TrimSuffix(strings.TrimPrefix(deep, `{"filter":`), "}") + `]}}`
		}
		s.send("search", p.request(o.method, target(o, ""), []byte(deep), surface.ContentTypeJSON), []byte(deep), http.StatusBadRequest, http.StatusUnprocessableEntity)
	}

	// 7. Forged credentials: 401 (the contracts are served without any).
	forged := []string{"", "Bearer", "Bearer ", "Bearer  ", "Bearer x", "Bearer " + p.token + "x", "Bearer " + p.token[:len(p.token)-1],
		"Bearer " + strings.ToUpper(p.token), "Basic " + base64.StdEncoding.EncodeToString([]byte(p.id+":"+p.secret)),
		"Basic !!!", "Digest username=x", "Bearer a b", "Bearer " + strings.Repeat("A", 20_000),
		"Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJza29sa2l0LWNsaWVudCIsInNjb3BlIjoiYWxsIn0.", "Token " + p.token, p.token}
	for _, inj := range sweepInjections[:16] {
		forged = append(forged, "Bearer "+inj)
	}
	for range 8 {
		var b [32]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		forged = append(forged, "Bearer "+base64.RawURLEncoding.EncodeToString(b[:]))
	}
	for _, o := range ops {
		body, ct := validBody(o)
		want := []int{http.StatusUnauthorized}
		switch {
		case o.form:
			body = []byte("grant_type=client_credentials")
			want = []int{http.StatusBadRequest, http.StatusUnauthorized}
		case o.open:
			want = nil
		}
		for _, authz := range forged {
			req := p.request(o.method, target(o, ""), body, ct)
			req.Header.Del("Authorization")
			if authz != "" {
				req.Header.Set("Authorization", authz)
			}
			w := want
			if o.form && authz == "Basic "+base64.StdEncoding.EncodeToString([]byte(p.id+":"+p.secret)) {
				w = nil // the real client's Basic credentials
			}
			s.send("auth", req, body, w...)
		}
		if o.doc == openapi.NameDirectory || o.doc == openapi.NameExport {
			for _, cred := range [][2]string{{p.id, "wrong"}, {"nobody", p.secret}, {p.id, ""}, {"", p.secret}, {sweepInjections[0], sweepInjections[3]},
				{p.id, p.secret + "\x00"}, {strings.ToUpper(p.id), p.secret}, {p.id, strings.Repeat("s", 10_000)}} {
				req := p.request(o.method, target(o, ""), body, ct)
				req.Header.Del("Authorization")
				req.Header.Set(surface.HeaderClientID, cred[0])
				req.Header.Set(surface.HeaderClientSecret, cred[1])
				s.send("auth", req, body, want...)
			}
		}
	}

	// 8. Token requests: bad grants, repeated and hostile fields, both
	// client authentication methods: 400, 401 or 413.
	tokenForms := []string{"", "grant_type=", "grant_type=password", "grant_type=authorization_code&code=x", "grant_type=client_credentials",
		"grant_type=client_credentials&grant_type=client_credentials", "grant_type=client_credentials&client_id=" + p.id,
		"grant_type=client_credentials&client_id=" + p.id + "&client_secret=" + p.secret + "&scope=all",
		"grant_type=client_credentials&client_id=" + p.id + "&client_secret=" + p.secret + "&scope=placements:read%20nope",
		"grant_type=client_credentials&client_id=" + p.id + "&client_secret=" + p.secret + "&client_secret=" + p.secret,
		"%zz=1", "grant_type=%", "grant_type=client_credentials;client_id=x", "\x00", "{\"grant_type\":\"client_credentials\"}"}
	for _, inj := range sweepInjections {
		q := url.QueryEscape(inj)
		tokenForms = append(tokenForms, "grant_type="+q, "grant_type=client_credentials&client_id="+q+"&client_secret="+q,
			"grant_type=client_credentials&client_id="+p.id+"&client_secret="+q, "grant_type=client_credentials&client_id="+p.id+"&client_secret="+p.secret+"&scope="+q)
	}
	for _, form := range tokenForms {
		for _, ct := range []string{surface.ContentTypeForm, surface.ContentTypeForm + "; charset=utf-8", surface.ContentTypeJSON, "text/plain", ""} {
			req := p.request(http.MethodPost, PathToken, []byte(form), ct)
			req.Header.Del("Authorization")
			s.send("token", req, []byte(form), http.StatusBadRequest, http.StatusUnauthorized)
		}
		req := p.request(http.MethodPost, PathToken, []byte(form), surface.ContentTypeForm)
		req.Header.Del("Authorization")
		req.SetBasicAuth(url.QueryEscape(p.id), "wrong%")
		s.send("token", req, []byte(form), http.StatusBadRequest, http.StatusUnauthorized)
	}

	// 9. Lookups: too many, hostile and wrongly typed ids: 400.
	many := make([]string, maxLookupIDs+1)
	for i := range many {
		many[i] = unknownID
	}
	lookups := []any{map[string]any{"ids": many}, map[string]any{"ids": "x"}, map[string]any{"ids": nil}, map[string]any{},
		map[string]any{"ids": []any{1}}, map[string]any{"ids": []any{nil}}, map[string]any{"ids": []any{[]any{}}}, map[string]any{"IDS": []any{}}}
	for _, inj := range sweepInjections {
		lookups = append(lookups, map[string]any{"ids": []any{inj}}, map[string]any{"ids": []any{unknownID, inj}})
	}
	for _, l := range lookups {
		b, _ := json.Marshal(l)
		s.send("lookup", p.request(http.MethodPost, PrefixB+"/groups/lookup", b, surface.ContentTypeJSON), b, http.StatusBadRequest)
	}

	// 10. The quota spent: every interface-A and export operation answers
	// 429 with Retry-After (and the token endpoint and interface B, which
	// are not rate-limited, do not).
	c := p.srv.clients[p.id]
	c.RateLimit = 1
	p.srv.clients[p.id] = c
	for _, o := range ops {
		body, ct := validBody(o)
		rec := s.send("rate-limit", p.request(o.method, target(o, ""), body, ct), body)
		switch {
		case o.doc == openapi.NameDirectory || o.doc == openapi.NameExport:
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get(surface.HeaderRetryAfter) == "" {
				s.nProblem++
				s.problems = append(s.problems, fmt.Sprintf("[rate-limit] %s: %d (Retry-After %q), want 429 with Retry-After", o, rec.Code, rec.Header().Get(surface.HeaderRetryAfter)))
			}
		case rec.Code == http.StatusTooManyRequests:
			s.nProblem++
			s.problems = append(s.problems, fmt.Sprintf("[rate-limit] %s: 429, but only interface A and the export are rate-limited", o))
		}
	}

	elapsed := time.Since(start)
	t.Logf("bad-input sweep: %d requests to %d operations in %s", s.total, len(ops), elapsed.Round(time.Millisecond))
	for _, st := range slices.Sorted(maps.Keys(s.byStatus)) {
		t.Logf("  status %d: %d", st, s.byStatus[st])
	}
	for _, c := range slices.Sorted(maps.Keys(s.byCat)) {
		t.Logf("  category %-16s %5d  %s", c, s.byCat[c], s.catTime[c].Round(time.Millisecond))
	}
	for _, label := range slices.Sorted(maps.Keys(s.known)) {
		h := s.known[label]
		t.Logf("KNOWN ISSUE (%d answers): %s\n    e.g. %s", h.count, label, h.example)
	}
	assert.GreaterOrEqual(t, s.total, 10_000, "the sweep sends at least 10,000 requests")
	assert.Zero(t, s.byStatus[http.StatusInternalServerError], "no 500")
	if s.nProblem > 0 {
		t.Errorf("%d problems; the first %d:\n%s", s.nProblem, len(s.problems), strings.Join(s.problems, "\n"))
	}
}

// TestRequestLimits checks the documented limits on every operation they
// apply to (docs/decisions.md#limits): the request body (1 MiB, and 64 KiB
// for the token endpoint: one byte more is a 413 with the surface's error
// body, the limit itself is not), the page size of interface B (1..1000) and
// of interface A and the export (1..500), and the ids of one group lookup
// (500).
func TestRequestLimits(t *testing.T) {
	p := newInproc(t, 1<<30)
	c := p.srv.Contract()
	idx := newOpIndex(c)
	ops := sweepOps(c)
	ids := sweepRealIDs(t, p, ops)
	check := func(req *http.Request, body []byte, want int) *httptest.ResponseRecorder {
		t.Helper()
		rec := p.serve(req)
		assert.Equal(t, want, rec.Code, "%s: %s", sweepDescribe(req, body), sweepExcerpt(rec.Body.Bytes()))
		for _, pr := range answerProblems(req, idx.find(req), rec.Code, rec.Header(), rec.Body.Bytes()) {
			if !sweepKnownIssue(req, rec.Code, pr) {
				t.Errorf("%s -> %d: %s", sweepDescribe(req, body), rec.Code, pr)
			}
		}
		return rec
	}

	t.Run("body", func(t *testing.T) {
		for _, o := range ops {
			if o.body == nil && !o.form {
				continue
			}
			path := sweepFill(o.tmpl, ids[o.tmpl])
			if o.form {
				over := []byte("grant_type=client_credentials&x=" + strings.Repeat("a", tokenBodyLimit))
				req := p.request(o.method, path, over, surface.ContentTypeForm)
				req.Header.Del("Authorization")
				check(req, over, http.StatusRequestEntityTooLarge)
				at := []byte(url.Values{"grant_type": {grantClientCredentials}, "client_id": {p.id}, "client_secret": {p.secret}}.Encode() + "&x=")
				at = append(at, strings.Repeat("a", tokenBodyLimit-len(at))...)
				req = p.request(o.method, path, at, surface.ContentTypeForm)
				req.Header.Del("Authorization")
				check(req, at, http.StatusOK)
				continue
			}
			over := []byte(`{"x":"` + strings.Repeat("a", maxBodyBytes) + `"}`)
			rec := check(p.request(o.method, path, over, surface.ContentTypeJSON), over, http.StatusRequestEntityTooLarge)
			wantCode := surface.CodePayloadTooLarge
			if o.doc == openapi.NameDirectory {
				wantCode = surface.CodeBadRequest
			}
			assert.Contains(t, rec.Body.String(), `"code":"`+wantCode+`"`, "%s", o)
			assert.Contains(t, rec.Body.String(), strconv.Itoa(maxBodyBytes), "the message names the limit: %s", o)
		}
		// At the limit: a valid lookup padded with spaces to exactly 1 MiB.
		at := []byte(`{"ids":[]}`)
		at = append(at, bytes.Repeat([]byte(" "), maxBodyBytes-len(at))...)
		check(p.request(http.MethodPost, PrefixB+"/groups/lookup", at, surface.ContentTypeJSON), at, http.StatusOK)
		at = []byte(`{"title":"Ekskolan"}`)
		at = append(at, bytes.Repeat([]byte(" "), maxBodyBytes-len(at))...)
		check(p.request(http.MethodPatch, sweepFill(PrefixA+"/school/{id}", ids[PrefixA+"/school/{id}"]), at, surface.ContentTypeJSON), at, http.StatusOK)
	})

	t.Run("page size", func(t *testing.T) {
		check(p.request(http.MethodGet, PrefixB+"/placements?limit=1000", nil, ""), nil, http.StatusOK)
		check(p.request(http.MethodGet, PrefixB+"/placements?limit=0", nil, ""), nil, http.StatusBadRequest)
		// SS 12000's limit has no maximum: a larger one gets a full page
		// (docs/decisions.md#interface-b-paging).
		check(p.request(http.MethodGet, PrefixB+"/placements?limit=1001", nil, ""), nil, http.StatusOK)
		n := 0
		for _, o := range ops {
			if !slices.ContainsFunc(o.query, func(q *openapi3.Parameter) bool { return q.Name == register.ParamLimit }) || o.doc == openapi.NameRegister {
				continue
			}
			var body []byte
			if o.body != nil {
				body = []byte(`{"filter":{"orCondition":false}}`)
			}
			for l, want := range map[string]int{"500": http.StatusOK, "501": http.StatusBadRequest, "0": http.StatusBadRequest} {
				req := p.request(o.method, o.tmpl+"?limit="+l, body, "")
				if body != nil {
					req.Header.Set("Content-Type", surface.ContentTypeJSON)
				}
				rec := check(req, body, want)
				if want == http.StatusOK {
					var page struct {
						Pagination directory.Pagination `json:"pagination"`
					}
					require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
					assert.Equal(t, directory.DirectoryMaxLimit, page.Pagination.Limit, "%s", o)
				}
			}
			n++
		}
		assert.GreaterOrEqual(t, n, 17, "every list and search of interface A and the export")
	})

	t.Run("lookup ids", func(t *testing.T) {
		ds := p.srv.store.Export()
		lookup := func(n int) []byte {
			ids := make([]string, n)
			for i := range ids {
				ids[i] = ds.Groups[i%len(ds.Groups)].ID
			}
			b, _ := json.Marshal(map[string]any{"ids": ids})
			return b
		}
		rec := check(p.request(http.MethodPost, PrefixB+"/groups/lookup", lookup(maxLookupIDs), surface.ContentTypeJSON), nil, http.StatusOK)
		var groups []map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &groups))
		assert.Len(t, groups, min(maxLookupIDs, len(ds.Groups)), "each group once")
		rec = check(p.request(http.MethodPost, PrefixB+"/groups/lookup", lookup(maxLookupIDs+1), surface.ContentTypeJSON), nil, http.StatusBadRequest)
		assert.Contains(t, rec.Body.String(), "500", "the message names the maximum")
	})
}
