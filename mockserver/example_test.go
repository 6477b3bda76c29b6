package mockserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/scenarios"
)

// TestNewTestServerExample is the example of README.md ("Use it from Go
// tests"): a client under test talks to a mock started inside the test.
func TestNewTestServerExample(t *testing.T) {
	ts := mockserver.NewTestServer(t, mockserver.WithScenario("edge-cases"))

	// The client under test: OAuth 2 client credentials against the mock.
	cfg := clientcredentials.Config{ClientID: ts.ClientID, ClientSecret: ts.ClientSecret, TokenURL: ts.TokenURL}
	client := cfg.Client(context.Background())

	resp, err := client.Get(ts.RegisterURL + "/placements?limit=5")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	assert.Len(t, page.Data, 5)

	// Assert what the client called, from the request journal.
	calls := ts.Server.Requests(mockserver.RequestFilter{Method: http.MethodGet, PathPrefix: "/api/v1/placements"})
	require.Len(t, calls, 1)
	assert.Equal(t, ts.ClientID, calls[0].ClientID)

	// Make the service fail once, and see the client cope.
	ts.Server.AddRules(scenarios.Behaviours{Faults: []scenarios.FaultRule{{
		Route: scenarios.Route{Method: http.MethodGet, Path: "/api/v1/placements*"}, Status: http.StatusServiceUnavailable, FirstN: 1,
	}}})
	resp, err = client.Get(ts.RegisterURL + "/placements?limit=5")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
}
