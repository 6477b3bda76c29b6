package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/mockserver/mocktest"
	"github.com/skolkit/skolkit/scenarios"
)

func TestMyClient(t *testing.T) {
	ts := mocktest.NewTestServer(t, mocktest.WithScenario("edge-cases")) // or a *scenarios.Scenario
	cfg := clientcredentials.Config{ClientID: ts.ClientID, ClientSecret: ts.ClientSecret, TokenURL: ts.TokenURL}
	client := cfg.Client(context.Background()) // your client under test goes here

	resp, err := client.Get(ts.RegisterURL + "/placements?limit=5") // ts.DirectoryURL, ts.ExportURL for the others
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// What did the client call? The request journal knows.
	calls := ts.Server.Requests(mockserver.RequestFilter{Method: "GET", PathPrefix: "/api/v1/placements"})
	require.Len(t, calls, 1)
	require.Equal(t, ts.ClientID, calls[0].ClientID)

	// Make the service fail once, and check that the client copes.
	ts.Server.AddRules(scenarios.Behaviours{Faults: []scenarios.FaultRule{{
		Route: scenarios.Route{Method: "GET", Path: "/api/v1/placements*"}, Status: 503, FirstN: 1,
	}}})
	resp, err = client.Get(ts.RegisterURL + "/placements?limit=5")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
}
