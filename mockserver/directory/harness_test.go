package directory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/openapi"
)

// The package's own tests serve interface A in process, without the root's
// gate and contract validation (package mockserver's tests go through
// those): each request gets a request id and the grant of one client, as the
// gate gives them, and goes to the endpoint's handler.

var testNow = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// testClock is a clock that stands still until advanced.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness is an API over an empty store, and the handler that serves it.
type harness struct {
	t       testing.TB
	clock   *testClock
	core    *surface.Core
	api     *API
	handler http.Handler
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	contract, err := openapi.Shared()
	require.NoError(t, err)
	clock := &testClock{now: testNow}
	st := store.New(clock.Now)
	st.SetDeletionKinds(DeletionKinds)
	core := &surface.Core{Store: st, Now: clock.Now, Log: slog.New(slog.DiscardHandler), Deviations: map[string]bool{}, ListShape: ListShapeData}
	api := New(core, contract)
	eps, err := api.Endpoints()
	require.NoError(t, err)
	r := mux.NewRouter()
	r.UseEncodedPath()
	r.SkipClean(true)
	var seq atomic.Int64
	for _, e := range eps {
		h := e.Handle
		r.Methods(e.Method).Path(e.Path).HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			ctx := surface.WithRequestID(req.Context(), fmt.Sprint(seq.Add(1)))
			ctx = surface.WithGrant(ctx, surface.Grant{ClientID: "directory-test"})
			h(w, req.WithContext(ctx))
		})
	}
	return &harness{t: t, clock: clock, core: core, api: api, handler: r}
}

// result is a response of the handler.
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

// send serves one request with a JSON body ("" for none).
func (h *harness) send(method, path, body string) *result {
	h.t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	if body != "" {
		req.Header.Set("Content-Type", surface.ContentTypeJSON)
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	return &result{req: req, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// mustCreate creates a record through interface A and returns its id.
func (h *harness) mustCreate(t testing.TB, path, body string) string {
	t.Helper()
	res := h.send(http.MethodPost, PrefixA+path, body)
	require.Equal(t, http.StatusCreated, res.status, res)
	var created struct {
		ID string `json:"id"`
	}
	res.decode(&created)
	require.NotEmpty(t, created.ID, res)
	return created.ID
}

var identitySeq atomic.Int64

// newIdentity returns a temporary civic number that no generated person has.
func newIdentity() string {
	n := identitySeq.Add(1)
	return fmt.Sprintf("2015%02d%02d-ZQ%02d", 1+n/28%12, 1+n%28, n%100)
}
