package mockserver

// Fuzz targets for the parsers of the HTTP surfaces: the placement query,
// the pageToken, the token request, the group lookup and the interface-A
// bodies. Each builds one server (per fuzzing process) and drives it in
// process. The property is the same everywhere: no panic, never a 5xx, and
// every error has a documented status and the error body of its surface
// (answerProblems, sweep_test.go); some targets check more of a success.
// The search language and the scenario loader have their own targets
// (mockserver/internal/search, scenarios).
//
// Seed corpora are in testdata/fuzz/<Target>/. Run one target with
//
//	go test -run '^$' -fuzz '^FuzzPlacementQuery$' -fuzztime 30s ./mockserver/

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
)

// fuzzServer is one server for one fuzz target.
type fuzzServer struct {
	*inproc
	ops opIndex
}

func newFuzzServer(f *testing.F) *fuzzServer {
	p := newInproc(f, 1<<40)
	return &fuzzServer{inproc: p, ops: newOpIndex(p.srv.Contract())}
}

// check serves the request and fails on an answer that breaks the
// property; it returns the answer.
func (fs *fuzzServer) check(t *testing.T, req *http.Request, body []byte) *result {
	t.Helper()
	rec := fs.serve(req)
	res := &result{req: req, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	for _, pr := range answerProblems(req, fs.ops.find(req), rec.Code, rec.Header(), rec.Body.Bytes()) {
		if sweepKnownIssue(req, rec.Code, pr) {
			continue
		}
		t.Fatalf("%s -> %d %q: %s", sweepDescribe(req, body), rec.Code, sweepExcerpt(rec.Body.Bytes()), pr)
	}
	return res
}

// sweepKnownIssue tolerates the problems of sweepKnownIssues (reported, in
// others' code) so that fuzzing finds new ones.
func sweepKnownIssue(req *http.Request, status int, problem string) bool {
	for _, k := range sweepKnownIssues {
		if k.match("", req, status, problem) {
			return true
		}
	}
	return false
}

// FuzzPlacementQuery sends arbitrary raw query strings to GET
// /api/v1/placements. A page that is served has the Placements shape.
func FuzzPlacementQuery(f *testing.F) {
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		req := fs.request(http.MethodGet, PrefixB+"/placements", nil, "")
		req.URL.RawQuery = rawQuery
		req.RequestURI = req.URL.RequestURI()
		res := fs.check(t, req, nil)
		if res.status != http.StatusOK {
			return
		}
		var page struct {
			Data      []map[string]any `json:"data"`
			PageToken *string          `json:"pageToken"`
		}
		require.NoError(t, json.Unmarshal(res.body, &page), "%s", res)
		require.NotNil(t, page.Data, "%s", res)
		require.LessOrEqual(t, len(page.Data), maxPageSize, "%s", res)
	})
}

// FuzzPageToken sends arbitrary pageToken values and mutations of a real
// one. A token the server accepts must carry the state the server signed:
// any change to a token either is refused (400) or leaves its meaning as it
// was (base64 ignores the unused low bits of a last character).
func FuzzPageToken(f *testing.F) {
	fs := newFuzzServer(f)
	rec := fs.serve(fs.request(http.MethodGet, PrefixB+"/placements?limit=2&expand=child", nil, ""))
	require.Equal(f, http.StatusOK, rec.Code, rec.Body.String())
	var first struct {
		PageToken *string `json:"pageToken"`
	}
	require.NoError(f, json.Unmarshal(rec.Body.Bytes(), &first))
	require.NotNil(f, first.PageToken, "the default scenario has more than one page of placements")
	real := *first.PageToken
	realState, err := fs.srv.reg.DecodePageToken(real)
	require.NoError(f, err)

	f.Fuzz(func(t *testing.T, tok string, mode uint8, pos uint16, b byte) {
		switch mode % 5 {
		case 1: // change one byte of the real token
			buf := []byte(real)
			i := int(pos) % len(buf)
			if b == 0 || b == buf[i] {
				b = buf[i] ^ 0x01
			}
			buf[i] = b
			tok = string(buf)
		case 2: // cut it
			tok = real[:int(pos)%len(real)]
		case 3: // insert the fuzzed text into it
			i := int(pos) % (len(real) + 1)
			tok = real[:i] + tok + real[i:]
		case 4: // swap its payload and MAC, or pair the payload with fuzz
			payload, mac, _ := strings.Cut(real, ".")
			if b%2 == 0 {
				tok = mac + "." + payload
			} else {
				tok = payload + "." + tok
			}
		}
		q := url.Values{register.ParamPageToken: {tok}}
		if b%3 == 0 {
			q.Set(register.ParamLimit, "1")
		}
		req := fs.request(http.MethodGet, PrefixB+"/placements?"+q.Encode(), nil, "")
		res := fs.check(t, req, nil)
		if res.status/100 != 2 {
			require.Equal(t, http.StatusBadRequest, res.status, "a pageToken the server refuses is a 400: %s", res)
			return
		}
		st, err := fs.srv.reg.DecodePageToken(tok)
		require.NoError(t, err, "the server served a token it cannot decode: %q", tok)
		require.Equal(t, realState, st, "the server accepted token %q that carries a state it never signed", tok)
	})
}

// FuzzTokenForm sends arbitrary bodies, content types and Authorization
// headers to POST /oauth/token. A token is issued only to a request that
// carries the client's secret.
func FuzzTokenForm(f *testing.F) {
	fs := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, contentType, body, authorization string) {
		req := fs.request(http.MethodPost, PathToken, []byte(body), "")
		req.Header.Del("Authorization")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		res := fs.check(t, req, []byte(body))
		if res.status != http.StatusOK {
			return
		}
		var tr tokenResponse
		require.NoError(t, json.Unmarshal(res.body, &tr), "%s", res)
		require.NotEmpty(t, tr.AccessToken, "%s", res)
		secret := ""
		if _, s, ok := req.BasicAuth(); ok {
			secret, _ = url.QueryUnescape(s)
		} else if form, err := url.ParseQuery(body); err == nil {
			secret = form.Get("client_secret")
		}
		require.Equal(t, fs.secret, secret, "a token was issued without the client's secret: %s", sweepDescribe(req, []byte(body)))
	})
}

// FuzzLookupBody sends arbitrary bodies (and query strings) to POST
// /api/v1/groups/lookup. A result holds only groups that were asked for,
// and matches the contract.
func FuzzLookupBody(f *testing.F) {
	fs := newFuzzServer(f)
	contract := fs.srv.Contract()
	f.Fuzz(func(t *testing.T, body, rawQuery string) {
		req := fs.request(http.MethodPost, PrefixB+"/groups/lookup", []byte(body), surface.ContentTypeJSON)
		req.URL.RawQuery = rawQuery
		req.RequestURI = req.URL.RequestURI()
		res := fs.check(t, req, []byte(body))
		if res.status != http.StatusOK {
			return
		}
		checkResponse(t, contract, res, ProfileService)
		var asked struct {
			IDs []string `json:"ids"`
		}
		_ = json.NewDecoder(bytes.NewReader([]byte(body))).Decode(&asked)
		for i := range asked.IDs {
			asked.IDs[i] = strings.ToLower(asked.IDs[i])
		}
		var groups []struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(res.body, &groups), "%s", res)
		require.LessOrEqual(t, len(groups), maxLookupIDs)
		for _, g := range groups {
			require.Contains(t, asked.IDs, g.ID, "a group that was not asked for: %s", res)
		}
	})
}

// FuzzDirectoryBodies sends arbitrary bodies to every interface-A operation
// that takes one: the creates, the updates (of an existing record of each
// resource) and the searches. A success matches the contract.
func FuzzDirectoryBodies(f *testing.F) {
	fs := newFuzzServer(f)
	contract := fs.srv.Contract()
	var targets []struct{ method, path string }
	ops := sweepOps(contract)
	ids := sweepRealIDs(f, fs.inproc, ops)
	for _, o := range ops {
		if o.doc == openapi.NameDirectory && o.body != nil {
			targets = append(targets, struct{ method, path string }{o.method, sweepFill(o.tmpl, ids[o.tmpl])})
		}
	}
	require.NotEmpty(f, targets)
	f.Fuzz(func(t *testing.T, target uint8, body string) {
		tg := targets[int(target)%len(targets)]
		req := fs.request(tg.method, tg.path, []byte(body), surface.ContentTypeJSON)
		res := fs.check(t, req, []byte(body))
		if res.status/100 == 2 {
			checkResponse(t, contract, res, ProfileService)
		}
		if res.status == http.StatusUnprocessableEntity {
			var e surface.DirectoryError
			require.NoError(t, json.Unmarshal(res.body, &e))
			require.NotEmpty(t, e.Error.Details, "a 422 lists its violations: %s", res)
			require.True(t, slices.ContainsFunc(e.Error.Details, func(d surface.FieldProblem) bool { return d.Field == "" || d.Field[0] == '/' }),
				"a 422 names members by JSON Pointer: %s", res)
		}
	})
}
