package directory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/route"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
)

// The package's own tests serve interface A in process, without the root's
// gate and contract validation (package mockserver's tests go through
// those): each request gets a request id and the grant of one client, as the
// gate gives them, and goes to the endpoint's handler.

var testNow = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// harness is an API over an empty store, and the handler that serves it.
type harness struct {
	t testing.TB
	// elapsed is how far the clock has moved from testNow (advance).
	elapsed atomic.Int64
	core    *surface.Core
	api     *API
	handler http.Handler
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	contract, err := openapi.Shared()
	require.NoError(t, err)
	h := &harness{t: t}
	now := func() time.Time { return testNow.Add(time.Duration(h.elapsed.Load())) }
	st := store.New(now)
	core := &surface.Core{Store: st, Now: now, Log: slog.New(slog.DiscardHandler), Deviations: map[string]bool{}, ListShape: ListShapeData}
	api := New(core, contract)
	eps, err := api.Endpoints()
	require.NoError(t, err)
	r := route.New(http.NotFoundHandler())
	var seq atomic.Int64
	byPath := map[string]map[string]http.HandlerFunc{}
	for _, e := range eps {
		if byPath[e.Path] == nil {
			byPath[e.Path] = map[string]http.HandlerFunc{}
			methods := byPath[e.Path]
			require.NoError(t, r.Handle(e.Path, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				h, ok := methods[req.Method]
				if !ok {
					http.NotFound(w, req)
					return
				}
				ctx := surface.WithRequestID(req.Context(), fmt.Sprint(seq.Add(1)))
				ctx = surface.WithGrant(ctx, surface.Grant{ClientID: "directory-test"})
				h(w, req.WithContext(ctx))
			})))
		}
		byPath[e.Path][e.Method] = e.Handle
	}
	h.core, h.api, h.handler = core, api, r
	return h
}

// advance moves the clock on.
func (h *harness) advance(d time.Duration) { h.elapsed.Add(int64(d)) }

// decode decodes a JSON response body.
func decode(t testing.TB, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), v), rec.Body.String())
}

// send serves one request with a JSON body ("" for none).
func (h *harness) send(method, path, body string) *httptest.ResponseRecorder {
	h.t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	if body != "" {
		req.Header.Set("Content-Type", surface.ContentTypeJSON)
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	return rec
}

// mustCreate creates a record through interface A and returns its id.
func (h *harness) mustCreate(t testing.TB, path, body string) string {
	t.Helper()
	res := h.send(http.MethodPost, PrefixA+path, body)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	var created struct {
		ID string `json:"id"`
	}
	decode(t, res, &created)
	require.NotEmpty(t, created.ID, res.Body.String())
	return created.ID
}

var identitySeq atomic.Int64

// newIdentity returns a temporary civic number that no generated person has.
func newIdentity() string {
	n := identitySeq.Add(1)
	return fmt.Sprintf("2015%02d%02d-ZQ%02d", 1+n/28%12, 1+n%28, n%100)
}
