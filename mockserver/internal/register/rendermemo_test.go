package register

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Package mockserver's tests build their servers with Options.SelfCheck (its
// newHarness does), so that every interface-B read they make checks the placement memo
// and the response cache: the whole suite doubles as a check that they
// change no byte. This test shows that the check is on only when asked for,
// and that it fails loudly.
func TestSelfCheckIsAnOptionAndPanicsOnADifference(t *testing.T) {
	plain, err := New(newCore(), Options{Scenario: &scenarios.Scenario{}})
	require.NoError(t, err)
	assert.False(t, plain.selfCheck(), "off unless asked for")
	checked, err := New(newCore(), Options{Scenario: &scenarios.Scenario{}, SelfCheck: true})
	require.NoError(t, err)
	assert.True(t, checked.selfCheck())

	r := httptest.NewRequest("GET", "/api/v1/placements", nil)
	assert.NotPanics(t, func() { checked.checkBody(r, []byte(`{"a":1}`), []byte(`{"a":1}`), []byte(`{"a":1}`), true) })
	assert.PanicsWithValue(t, "self-check: GET /api/v1/placements: memoised body differs from encoding/json's:\n{\"a\":1}\n{\"a\":2}",
		func() { checked.checkBody(r, []byte(`{"a":1}`), []byte(`{"a":2}`), nil, false) })
	assert.Panics(t, func() { checked.checkBody(r, []byte(`{"a":1}`), []byte(`{"a":1}`), []byte(`{"a":0}`), true) })
}

// newCore is a core with an empty store, the real clock and the default
// scenario's behaviours: enough for an API that serves no request.
func newCore() *surface.Core {
	return &surface.Core{Store: store.New(time.Now), Now: time.Now, Log: slog.New(slog.DiscardHandler)}
}
