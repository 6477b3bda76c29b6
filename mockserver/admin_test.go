package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// edgeCasesNow is the fixed clock of the built-in edge-cases scenario.
var edgeCasesNow = time.Date(2026, 11, 16, 7, 0, 0, 0, time.UTC)

// withBuiltin serves a built-in scenario.
func withBuiltin(t testing.TB, name string) func(*Options) {
	sc, err := scenarios.Builtin(name)
	require.NoError(t, err)
	return func(o *Options) { o.Scenario = sc }
}

// admin sends a control-plane request (JSON body when body is not empty).
func (h *harness) admin(method, path, body string) *result {
	h.t.Helper()
	return h.call(method, PrefixAdmin+path, body, nil)
}

// raw sends a request without checking the response against the
// contract (a fault's answer need not match it) and returns the response
// with its body read into Body.
func (h *harness) raw(method, path string, header http.Header) *rawResult {
	h.t.Helper()
	req, _ := http.NewRequest(method, h.ts.URL+path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.ts.Client().Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	return &rawResult{Response: resp, Body: string(body)}
}

type rawResult struct {
	*http.Response
	Body string
}

func (r *result) adminError(t testing.TB) surface.AdminErrorBody {
	t.Helper()
	var e surface.AdminError
	r.decode(&e)
	require.NotEmpty(t, e.Error.Code, r)
	require.NotEmpty(t, e.Error.Message, r)
	require.Equal(t, surface.ContentTypeJSON, r.header.Get("Content-Type"), r)
	return e.Error
}

func (r *result) summary(t testing.TB) Summary {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, r)
	var s Summary
	r.decode(&s)
	return s
}

// firstSchool returns the id of a school of interface A.
func (h *harness) firstSchool() string {
	h.t.Helper()
	res := h.call(http.MethodGet, PrefixA+"/school?limit=1", "", legacy(h.srv.Credentials()))
	require.Equal(h.t, http.StatusOK, res.status, res)
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	res.decode(&list)
	require.NotEmpty(h.t, list.Data, res)
	return list.Data[0].ID
}

// createGroup creates a group through interface A and returns its id and
// meta.created.
func (h *harness) createGroup(title string) (string, time.Time) {
	h.t.Helper()
	res := h.call(http.MethodPost, PrefixA+"/group", `{"schoolID":"`+h.firstSchool()+`","title":"`+title+`"}`, legacy(h.srv.Credentials()))
	require.Equal(h.t, http.StatusCreated, res.status, res)
	var g struct {
		ID   string `json:"id"`
		Meta struct {
			Created time.Time `json:"createdAt"`
		} `json:"meta"`
	}
	res.decode(&g)
	return g.ID, g.Meta.Created
}

func TestAdminOperationsAreTheContractsOperations(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	doc := h.srv.Contract().Doc(openapi.NameAdmin)
	var inContract, served []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inContract = append(inContract, method+" "+path)
		}
	}
	for _, e := range h.srv.plane.Endpoints() {
		served = append(served, e.Method+" "+e.Path)
	}
	slices.Sort(inContract)
	slices.Sort(served)
	assert.Equal(t, inContract, served)
	assert.Equal(t, "/__admin", doc.Servers[0].URL)

	res := h.admin(http.MethodGet, "/openapi.json", "")
	require.Equal(t, http.StatusOK, res.status, res)
	assert.JSONEq(t, string(h.srv.Contract().JSON(openapi.NameAdmin)), string(res.body))
}

func TestAdminUnknownPathMethodAndQuery(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	res := h.admin(http.MethodGet, "/nothing-here", "")
	require.Equal(t, http.StatusNotFound, res.status, res)
	assert.Equal(t, surface.AdminNotFound, res.adminError(t).Code)

	res = h.admin(http.MethodGet, "", "")
	require.Equal(t, http.StatusNotFound, res.status, res)

	res = h.admin(http.MethodPatch, "/clock", `{}`)
	require.Equal(t, http.StatusMethodNotAllowed, res.status, res)
	assert.Equal(t, surface.AdminMethodNotAllowed, res.adminError(t).Code)
	assert.Equal(t, "GET, PUT", res.header.Get("Allow"))

	res = h.admin(http.MethodGet, "/clock?verbose=1", "")
	require.Equal(t, http.StatusBadRequest, res.status, res)
	assert.Contains(t, res.adminError(t).Message, `"verbose"`)

	res = h.admin(http.MethodGet, "/requests?method=GET&method=POST", "")
	require.Equal(t, http.StatusBadRequest, res.status, res)
}

func TestAdminAccessWithToken(t *testing.T) {
	const token = "s3cret-admin"
	h := newHarness(t, withBuiltin(t, "empty"), func(o *Options) { o.AdminToken = token })
	for _, tc := range []struct {
		name   string
		authz  string
		status int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", http.StatusUnauthorized},
		{"a client's access token", "Bearer " + h.token, http.StatusUnauthorized},
		{"basic scheme", "Basic " + token, http.StatusUnauthorized},
		{"the admin token", "Bearer " + token, http.StatusOK},
		{"the scheme in lower case", "bearer " + token, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixAdmin+"/clock", nil)
			if tc.authz != "" {
				req.Header.Set("Authorization", tc.authz)
			}
			res := h.do(req)
			require.Equal(t, tc.status, res.status, res)
			if tc.status == http.StatusUnauthorized {
				assert.Equal(t, surface.AdminUnauthorized, res.adminError(t).Code)
				assert.Contains(t, res.header.Get("WWW-Authenticate"), "Bearer")
			}
		})
	}
	t.Run("the contract needs no token", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixAdmin+"/openapi.json", nil)
		assert.Equal(t, http.StatusOK, h.do(req).status)
	})
	t.Run("unknown paths need the token too", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixAdmin+"/nothing", nil)
		assert.Equal(t, http.StatusUnauthorized, h.do(req).status)
	})
	t.Run("a token bypasses the loopback rule", func(t *testing.T) {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, PrefixAdmin+"/clock", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 8080}))
		h.srv.ServeHTTP(w, req)
		assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
	})
}

func TestAdminAccessWithoutToken(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	serve := func(local net.Addr, mutate func(*http.Request)) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, PrefixAdmin+"/ratelimits/reset", nil)
		req.Host = "127.0.0.1:8080"
		if local != nil {
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		}
		if mutate != nil {
			mutate(req)
		}
		h.srv.ServeHTTP(w, req)
		return w
	}
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	for _, tc := range []struct {
		name   string
		local  net.Addr
		mutate func(*http.Request)
		status int
	}{
		{"loopback", loopback, nil, http.StatusOK},
		{"IPv6 loopback", &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, func(r *http.Request) { r.Host = "[::1]:8080" }, http.StatusOK},
		{"localhost by name", loopback, func(r *http.Request) { r.Host = "localhost:8080" }, http.StatusOK},
		{"same-origin page", loopback, func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:8080") }, http.StatusOK},
		{"non-loopback listener", &net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 8080}, nil, http.StatusForbidden},
		{"unknown listener", nil, nil, http.StatusForbidden},
		{"DNS rebinding", loopback, func(r *http.Request) { r.Host = "attacker.example:8080" }, http.StatusForbidden},
		{"cross-origin page", loopback, func(r *http.Request) { r.Header.Set("Origin", "https://attacker.example") }, http.StatusForbidden},
		{"cross-site fetch", loopback, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(tc.local, tc.mutate)
			require.Equal(t, tc.status, w.Code, w.Body.String())
			if tc.status == http.StatusForbidden {
				var e surface.AdminError
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
				assert.Equal(t, surface.AdminForbidden, e.Error.Code)
			}
		})
	}
}

func TestIsLoopbackListenAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.3.4.5:1": true, "[::1]:8080": true,
		"0.0.0.0:8080": false, "[::]:8080": false, "192.168.1.2:80": false, "localhost:80": false, "nonsense": false,
	} {
		assert.Equal(t, want, IsLoopbackListenAddr(addr), addr)
	}
}

func TestAdminResetRestoresTheScenario(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "edge-cases"))
	before := h.admin(http.MethodPost, "/reset", "").summary(t)
	assert.Equal(t, "edge-cases", before.Scenario)
	assert.Equal(t, ClockState{Now: edgeCasesNow, Fixed: true}, before.Clock)
	state := h.admin(http.MethodGet, "/state", "").body

	id, _ := h.createGroup("Temporary")
	h.admin(http.MethodPost, "/clock/advance", `{"by":"48h"}`)
	added := h.admin(http.MethodPost, "/faults", `{"faults":[{"route":"GET /nowhere","status":500}]}`)
	require.Equal(t, http.StatusCreated, added.status, added)

	after := h.admin(http.MethodPost, "/reset", "").summary(t)
	assert.Equal(t, before, after, "the same records, clock and rules as after start")
	assert.Equal(t, string(state), string(h.admin(http.MethodGet, "/state", "").body), "the same records, to the byte")
	res := h.call(http.MethodGet, PrefixA+"/group/"+id, "", nil)
	assert.Equal(t, http.StatusNotFound, res.status, "the group created before the reset is gone: %s", res)
	assert.Empty(t, h.rules().Faults, "run-time rules are dropped")
	assert.Equal(t, http.StatusOK, h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil).status, "tokens survive a reset")

	var journal JournalPage
	h.admin(http.MethodGet, "/requests", "").decode(&journal)
	require.Len(t, journal.Requests, 2, "the journal starts again at the reset")
	assert.Equal(t, PrefixA+"/group/"+id, journal.Requests[0].Path)
	assert.Equal(t, PrefixB+"/placements?limit=1", journal.Requests[1].Path)
}

func TestAdminLoadScenario(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	start := h.admin(http.MethodPost, "/reset", "").summary(t)
	assert.Zero(t, start.Records["organisations"])

	t.Run("a built-in by name", func(t *testing.T) {
		sum := h.admin(http.MethodPut, "/scenario", `{"builtin":"edge-cases"}`).summary(t)
		assert.Equal(t, "edge-cases", sum.Scenario)
		assert.Equal(t, ClockState{Now: edgeCasesNow, Fixed: true}, sum.Clock)
		assert.Positive(t, sum.Records["organisations"])
		// The clock has jumped two weeks, past the token's expiry: take a
		// new one, then load the scenario again.
		h.token = h.fetchToken(h.srv.Credentials())
		h.admin(http.MethodPut, "/scenario", `{"builtin":"edge-cases"}`).summary(t)
		assert.Equal(t, http.StatusOK, h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil).status,
			"a token survives when its client is in the new scenario with the same secret and scopes")
		res := h.admin(http.MethodPut, "/scenario", `{"builtin":"no-such"}`)
		require.Equal(t, http.StatusBadRequest, res.status, res)
		assert.Contains(t, res.adminError(t).Message, "edge-cases")
	})

	t.Run("a YAML file replaces clients, lifetime, list shape and rules", func(t *testing.T) {
		yaml := `name: custom
seed: 7
clock: {now: 2026-11-16T07:00:00Z}
tokenLifetime: 60
listShape: data.resultArray
clients:
  - {id: other-client, secret: other-secret, scopes: [all]}
generate: {profile: none, schoolUnits: 1}
behaviours:
  faults:
    - {route: GET /api/v1/syllabuses/*, status: 503, firstN: 1}
`
		res := h.call(http.MethodPut, PrefixAdmin+"/scenario", yaml, http.Header{"Content-Type": {"application/yaml"}})
		sum := res.summary(t)
		assert.Equal(t, Summary{Scenario: "custom", Profile: ProfileService, Seed: 7, Clock: ClockState{Now: edgeCasesNow, Fixed: true},
			Records: sum.Records, Faults: 1}, sum)

		old := h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil)
		assert.Equal(t, http.StatusUnauthorized, old.status, "the old client's token is revoked (the clock did not move): %s", old)
		id, secret := h.srv.Credentials()
		assert.Equal(t, "other-client", id)
		tok := h.postForm(PathToken, map[string][]string{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}, nil)
		require.Equal(t, http.StatusOK, tok.status, tok)
		var tr tokenResponse
		tok.decode(&tr)
		assert.Equal(t, 60, tr.ExpiresIn)
		h.token = tr.AccessToken
		// Sent around the harness: directory.yaml describes the default shape only.
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixA+"/school", nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		resp, err := h.ts.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var shaped struct {
			Data struct {
				ResultArray []json.RawMessage `json:"resultArray"`
			} `json:"data"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&shaped))
		assert.Len(t, shaped.Data.ResultArray, 1, "the scenario's list shape")
	})

	t.Run("a scenario no client can log in to is refused, with the fix", func(t *testing.T) {
		res := h.call(http.MethodPut, PrefixAdmin+"/scenario", "name: lockout\n", http.Header{"Content-Type": {"text/yaml"}})
		require.Equal(t, http.StatusBadRequest, res.status, res)
		e := res.adminError(t)
		require.Len(t, e.Problems, 1, res)
		assert.Equal(t, "clients", e.Problems[0].Path)
		assert.Contains(t, e.Problems[0].Message, "clients: [{id: my-client, secret: my-secret, scopes: [all]}]")
		assert.NotEqual(t, "lockout", h.admin(http.MethodPost, "/reset", "").summary(t).Scenario, "the scenario in force stays")
	})

	t.Run("a bad scenario changes nothing and names every problem", func(t *testing.T) {
		before := h.admin(http.MethodPost, "/reset", "").summary(t)
		bad := "name: broken\ncolck: real\nclients:\n  - {id: a, secret: ''}\nbehaviours:\n  latency:\n    - {route: GET /x, delay: 300ms-50ms}\n"
		res := h.call(http.MethodPut, PrefixAdmin+"/scenario", bad, http.Header{"Content-Type": {"text/yaml"}})
		require.Equal(t, http.StatusBadRequest, res.status, res)
		e := res.adminError(t)
		require.Len(t, e.Problems, 3, res)
		assert.Equal(t, scenarios.Problem{File: "request body", Line: 2, Column: 1, Path: "colck", Message: e.Problems[0].Message}, e.Problems[0])
		assert.Equal(t, 4, e.Problems[1].Line)
		assert.Equal(t, "behaviours.latency[0].delay", e.Problems[2].Path)
		assert.Equal(t, 7, e.Problems[2].Line)
		assert.Equal(t, before, h.admin(http.MethodPost, "/reset", "").summary(t))

		res = h.call(http.MethodPut, PrefixAdmin+"/scenario", `{"name": "x", "clients": 3}`, nil)
		require.Equal(t, http.StatusBadRequest, res.status, res)
		assert.NotEmpty(t, res.adminError(t).Problems)
	})

	t.Run("a body that is not YAML or JSON", func(t *testing.T) {
		res := h.call(http.MethodPut, PrefixAdmin+"/scenario", "name=x", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
		require.Equal(t, http.StatusUnsupportedMediaType, res.status, res)
		assert.Equal(t, surface.AdminUnsupportedMediaType, res.adminError(t).Code)
	})
}

func TestAdminStateRoundTripIsByteIdentical(t *testing.T) {
	a := newHarness(t, withBuiltin(t, "edge-cases"))
	a.createGroup("Round trip")
	first := a.admin(http.MethodGet, "/state", "")
	require.Equal(t, http.StatusOK, first.status, first)
	require.True(t, bytes.Contains(first.body, []byte(`"directory":`)), "the interface-A extensions are in the state")

	b := newHarness(t, withBuiltin(t, "empty"))
	sum := b.admin(http.MethodPut, "/state", string(first.body)).summary(t)
	assert.Equal(t, "empty", sum.Scenario, "importing state keeps the scenario")
	assert.Positive(t, sum.Records["groups"])
	second := b.admin(http.MethodGet, "/state", "")
	require.Equal(t, http.StatusOK, second.status, second)
	assert.Equal(t, string(first.body), string(second.body))
}

// stateOrg is an organisation as the state document holds it.
const stateOrg = `{"id": "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c03", "meta": {"created": "2026-01-01T00:00:00Z", "modified": "2026-01-01T00:00:00Z"}, "displayName": "X", "organisationType": "Huvudman"}`

func TestAdminStateImportErrorsChangeNothing(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "edge-cases"))
	before := h.admin(http.MethodGet, "/state", "").body
	for _, tc := range []struct{ name, body, want string }{
		{"not JSON", `{"format": "skolkit-state/1",`, "line 1"},
		{"no format", `{"groups": []}`, `"format" is missing`},
		{"another format", `{"format": "skolkit-state/9"}`, `skolkit-state/9`},
		{"unknown member", "{\"format\": \"skolkit-state/1\",\n  \"gruops\": []}", `line 2, column 3: unknown member "gruops"`},
		{"wrong type", `{"format": "skolkit-state/1", "groups": {}}`, "groups"},
		{"dangling reference", `{"format": "skolkit-state/1", "groups": [{"id": "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c01", "meta": {"created": "2026-01-01T00:00:00Z", "modified": "2026-01-01T00:00:00Z"}, "displayName": "X", "startDate": "2026-01-01", "groupType": "Klass", "organisation": {"id": "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c02"}}]}`, "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c02"},
		{"two records with one id", `{"format": "skolkit-state/1", "organisations": [` + stateOrg + `, ` + stateOrg + `]}`, "organisations[1]: duplicate id 5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c03"},
		{"a record without an id", `{"format": "skolkit-state/1", "organisations": [` + strings.Replace(stateOrg, `"id": "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c03"`, `"id": ""`, 1) + `]}`, "organisations[0]: record without id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.admin(http.MethodPut, "/state", tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Contains(t, res.adminError(t).Message, tc.want)
		})
	}
	// A lesson whose group, school or teacher is not its activity's, or
	// that names no activity (docs/decisions.md#calendar-events-follow-activity).
	var doc map[string]any
	require.NoError(t, json.Unmarshal(before, &doc))
	events := doc["calendarEvents"].([]any)
	require.NotEmpty(t, events)
	ev := events[0].(map[string]any)
	other := ""
	for _, g := range doc["groups"].([]any) {
		if id := g.(map[string]any)["id"].(string); id != ev["group"].(map[string]any)["id"] {
			other = id
			break
		}
	}
	for _, tc := range []struct {
		name, field string
		change      func(ev map[string]any)
	}{
		{"a lesson of another group than its activity's", "group.id", func(ev map[string]any) { ev["group"] = map[string]any{"id": other} }},
		{"a lesson without an activity", "activity.id", func(ev map[string]any) { delete(ev, "activity") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := maps.Clone(ev)
			defer func() { events[0] = saved }()
			changed := maps.Clone(ev)
			tc.change(changed)
			events[0] = changed
			body, err := json.Marshal(doc)
			require.NoError(t, err)
			res := h.admin(http.MethodPut, "/state", string(body))
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Contains(t, res.adminError(t).Message, tc.field)
			assert.Contains(t, res.adminError(t).Message, ev["id"].(string))
		})
	}
	assert.Equal(t, string(before), string(h.admin(http.MethodGet, "/state", "").body))
}

func TestAdminSnapshot(t *testing.T) {
	t.Run("without a state file", func(t *testing.T) {
		h := newHarness(t, withBuiltin(t, "empty"))
		res := h.admin(http.MethodPost, "/snapshot", "")
		require.Equal(t, http.StatusConflict, res.status, res)
		assert.Equal(t, surface.AdminConflict, res.adminError(t).Code)
	})
	t.Run("writes the state file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "state.json")
		h := newHarness(t, withBuiltin(t, "edge-cases"), func(o *Options) { o.StateFile = file })
		h.createGroup("Snapshot")
		res := h.admin(http.MethodPost, "/snapshot", "")
		require.Equal(t, http.StatusOK, res.status, res)
		var info SnapshotInfo
		res.decode(&info)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, SnapshotInfo{File: file, Bytes: int64(len(data)), Records: info.Records}, info)
		assert.Equal(t, string(h.admin(http.MethodGet, "/state", "").body), string(data))
		entries, err := os.ReadDir(filepath.Dir(file))
		require.NoError(t, err)
		assert.Len(t, entries, 1, "no temporary file is left behind")

		// A second server started with the file has the group.
		h2 := newHarness(t, withBuiltin(t, "edge-cases"), func(o *Options) { o.StateFile = file })
		assert.Equal(t, string(data), string(h2.admin(http.MethodGet, "/state", "").body))
	})
	t.Run("a corrupt state file stops the start", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "state.json")
		require.NoError(t, os.WriteFile(file, []byte(`{"format": "skolkit-state/1", "groups": [`), 0o600))
		_, err := New(Options{Scenario: mustBuiltin(t, "empty"), StateFile: file, SelfCheck: true})
		require.Error(t, err)
		assert.Contains(t, err.Error(), file)
	})
}

func mustBuiltin(t testing.TB, name string) *scenarios.Scenario {
	sc, err := scenarios.Builtin(name)
	require.NoError(t, err)
	return sc
}

// smallScenario is one school unit and a client with a quota of five
// requests an hour, plus what extra adds (YAML).
func smallScenario(t testing.TB, extra string) func(*Options) {
	sc, err := scenarios.Parse("small.yaml", []byte(`name: small
seed: 3
clients:
  - {id: skolkit-client, secret: skolkit-secret, scopes: [all], rateLimit: 5}
generate: {profile: none, schoolUnits: 1}
`+extra))
	require.NoError(t, err)
	return func(o *Options) { o.Scenario = sc }
}

func TestAdminClock(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	var c ClockState
	h.admin(http.MethodGet, "/clock", "").decode(&c)
	assert.Equal(t, ClockState{Now: testNow, Fixed: false}, c, "the empty scenario runs on the harness's clock")

	res := h.admin(http.MethodPut, "/clock", `{"now":"2027-02-03T04:05:06Z"}`)
	require.Equal(t, http.StatusOK, res.status, res)
	h.clock.Advance(time.Minute)
	h.admin(http.MethodGet, "/clock", "").decode(&c)
	assert.Equal(t, ClockState{Now: time.Date(2027, 2, 3, 4, 6, 6, 0, time.UTC), Fixed: false}, c, "a running clock runs on from the time set")

	h.admin(http.MethodPut, "/clock", `{"now":"2027-02-03T04:05:06+01:00","fixed":true}`).decode(&c)
	assert.True(t, c.Fixed)
	h.clock.Advance(time.Minute)
	h.admin(http.MethodPost, "/clock/advance", `{"by":"1h30m"}`).decode(&c)
	assert.True(t, c.Now.Equal(time.Date(2027, 2, 3, 4, 35, 6, 0, time.UTC)), c.Now)

	for _, tc := range []struct{ method, path, body, want string }{
		{http.MethodPut, "/clock", `{"now":"tomorrow"}`, "RFC 3339"},
		{http.MethodPut, "/clock", `{}`, `"now" is required`},
		{http.MethodPut, "/clock", `{"now":"2027-02-03T04:05:06Z","zone":"CET"}`, `unknown field "zone"`},
		{http.MethodPut, "/clock", `[]`, "JSON object"},
		{http.MethodPost, "/clock/advance", `{"by":"90 minutes"}`, "Go duration"},
		{http.MethodPost, "/clock/advance", `{"by":5400}`, "JSON object"},
	} {
		res := h.admin(tc.method, tc.path, tc.body)
		require.Equal(t, http.StatusBadRequest, res.status, res)
		assert.Contains(t, res.adminError(t).Message, tc.want)
	}
	res = h.call(http.MethodPut, PrefixAdmin+"/clock", `now=x`, http.Header{"Content-Type": {"text/plain"}})
	assert.Equal(t, http.StatusUnsupportedMediaType, res.status, res)
}

func TestClockAdvancePastTokenLifetimeExpiresTokens(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "edge-cases"))
	require.Equal(t, http.StatusOK, h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil).status)
	h.admin(http.MethodPost, "/clock/advance", `{"by":"59m59s"}`)
	require.Equal(t, http.StatusOK, h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil).status, "still valid a second before expiry")
	h.admin(http.MethodPost, "/clock/advance", `{"by":"1s"}`)
	res := h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", nil)
	require.Equal(t, http.StatusUnauthorized, res.status, res)
	assert.Contains(t, res.header.Get("WWW-Authenticate"), "invalid_token")
}

func TestClockAdvancePastAnHourResetsTheRateLimitWindow(t *testing.T) {
	h := newHarness(t, smallScenario(t, ""))
	legacyHeaders := legacy(h.srv.Credentials())
	for range 5 {
		require.Equal(t, http.StatusOK, h.call(http.MethodGet, PrefixA+"/school?limit=1", "", legacyHeaders).status)
	}
	res := h.call(http.MethodGet, PrefixA+"/school?limit=1", "", legacyHeaders)
	require.Equal(t, http.StatusTooManyRequests, res.status, res)

	h.admin(http.MethodPost, "/clock/advance", `{"by":"59m"}`)
	require.Equal(t, http.StatusTooManyRequests, h.call(http.MethodGet, PrefixA+"/school?limit=1", "", legacyHeaders).status)
	h.admin(http.MethodPost, "/clock/advance", `{"by":"1m"}`)
	res = h.call(http.MethodGet, PrefixA+"/school?limit=1", "", legacyHeaders)
	require.Equal(t, http.StatusOK, res.status, "a new window an hour after the first request: %s", res)
	assert.Equal(t, "4", res.header.Get(surface.HeaderRateRemaining))
}

func TestClockSetIsTheCreationTimeOfNewRecords(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "edge-cases"))
	res := h.admin(http.MethodPut, "/clock", `{"now":"2030-05-06T07:08:09.123Z"}`)
	require.Equal(t, http.StatusOK, res.status, res)
	_, created := h.createGroup("Later")
	assert.Equal(t, time.Date(2030, 5, 6, 7, 8, 9, 123e6, time.UTC), created)
}

func TestAdminRateLimitReset(t *testing.T) {
	h := newHarness(t, smallScenario(t, ""))
	hdr := legacy(h.srv.Credentials())
	for range 5 {
		h.call(http.MethodGet, PrefixA+"/school?limit=1", "", hdr)
	}
	require.Equal(t, http.StatusTooManyRequests, h.call(http.MethodGet, PrefixA+"/school?limit=1", "", hdr).status)
	res := h.admin(http.MethodPost, "/ratelimits/reset", "")
	require.Equal(t, http.StatusOK, res.status, res)
	var c surface.Cleared
	res.decode(&c)
	assert.Equal(t, 1, c.Cleared, "one client's counter")
	res = h.call(http.MethodGet, PrefixA+"/school?limit=1", "", hdr)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Equal(t, "4", res.header.Get(surface.HeaderRateRemaining))
}

func TestAdminRequestsAreNotJournalledAndSkipFaults(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	res := h.admin(http.MethodPost, "/faults", `{"faults":[{"route":"/*","status":503}]}`)
	require.Equal(t, http.StatusCreated, res.status, res)
	assert.Equal(t, http.StatusServiceUnavailable, h.raw(http.MethodGet, PrefixB+"/placements", nil).StatusCode)
	res = h.admin(http.MethodGet, "/requests", "")
	require.Equal(t, http.StatusOK, res.status, "a catch-all fault does not reach the control plane: %s", res)
	var page JournalPage
	res.decode(&page)
	require.Len(t, page.Requests, 2, "the harness's token request and the interface-B request: %s", res)
	assert.Equal(t, PathToken, page.Requests[0].Path)
	assert.Equal(t, http.StatusServiceUnavailable, page.Requests[1].Status)
}

// TestScenarioSwapUnderLoad swaps scenarios while requests run; with -race
// it proves that requests see one scenario at a time.
func TestScenarioSwapUnderLoad(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"))
	done := make(chan struct{})
	errs := make(chan string, 100)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixA+"/school?limit=1", nil)
				id, secret := h.srv.Credentials()
				req.Header.Set(surface.HeaderClientID, id)
				req.Header.Set(surface.HeaderClientSecret, secret)
				resp, err := h.ts.Client().Do(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnauthorized {
					errs <- resp.Status
				}
			}
		}()
	}
	for _, name := range []string{"edge-cases", "empty", "edge-cases"} {
		h.admin(http.MethodPut, "/scenario", `{"builtin":"`+name+`"}`).summary(t)
	}
	close(done)
	select {
	case e := <-errs:
		t.Fatal(e)
	default:
	}
	assert.Equal(t, "edge-cases", h.admin(http.MethodPost, "/reset", "").summary(t).Scenario)
}

func TestLoadScenarioReplacesDeviations(t *testing.T) {
	h := newHarness(t, withBuiltin(t, "empty"), func(o *Options) { o.Deviations = []string{deviation.LookupDropsFirst} })
	assert.True(t, h.srv.deviates(deviation.LookupDropsFirst))
	h.admin(http.MethodPost, "/reset", "").summary(t)
	assert.True(t, h.srv.deviates(deviation.LookupDropsFirst), "a reset keeps the start-up deviations")

	yaml := "name: deviant\nclients: [{id: c, secret: s, scopes: [all]}]\ngenerate: {profile: none}\nbehaviours:\n  deviations: [" + deviation.SortKeyIgnored + "]\n"
	h.call(http.MethodPut, PrefixAdmin+"/scenario", yaml, http.Header{"Content-Type": {"application/yaml"}}).summary(t)
	assert.False(t, h.srv.deviates(deviation.LookupDropsFirst))
	assert.True(t, h.srv.deviates(deviation.SortKeyIgnored))

	sc := mustBuiltin(t, "empty")
	sc.Behaviours.Deviations = []string{"no-such-deviation"}
	_, err := h.srv.LoadScenario(sc)
	require.Error(t, err)
	assert.True(t, h.srv.deviates(deviation.SortKeyIgnored), "nothing changes")
}

func TestBuiltinRequest(t *testing.T) {
	for body, want := range map[string]string{`{"builtin": "edge-cases"}`: "edge-cases", "builtin: empty\n": "empty", `{"builtin": 5}`: "5"} {
		name, ok := builtinRequest([]byte(body))
		assert.True(t, ok, body)
		assert.Equal(t, want, name, body)
	}
	for _, body := range []string{`{"builtin": "x", "seed": 1}`, "name: x\n", `[]`, `{`} {
		_, ok := builtinRequest([]byte(body))
		assert.False(t, ok, body)
	}
}
