package mocktest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/scenarios"
)

// getJSON sends a GET with the test server's client and decodes the answer.
func getJSON(t *testing.T, ts *TestServer, url, bearer string, v any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if v != nil && resp.StatusCode == http.StatusOK {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
	}
	return resp.StatusCode
}

func TestNewTestServer(t *testing.T) {
	ts := NewTestServer(t, WithScenario("empty"), WithSeed(42))
	require.NotNil(t, ts.Server)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, ts.URL)
	assert.Equal(t, ts.URL, ts.AuthURL)
	assert.Equal(t, ts.URL+"/oauth/token", ts.TokenURL)
	assert.Equal(t, ts.URL+"/api/v1", ts.RegisterURL)
	assert.Equal(t, ts.URL+"/directory/v1", ts.DirectoryURL)
	assert.Equal(t, ts.URL+"/data-export/v1", ts.ExportURL)
	assert.Equal(t, ts.URL+"/__admin", ts.AdminURL)
	assert.Equal(t, "skolkit-client", ts.ClientID)
	assert.Equal(t, "skolkit-secret", ts.ClientSecret)
	summary, err := ts.Server.Reset()
	require.NoError(t, err)
	assert.Equal(t, "empty", summary.Scenario)
	assert.Equal(t, int64(42), summary.Seed)

	assert.Equal(t, http.StatusOK, getJSON(t, ts, ts.AdminURL+"/clock", "", nil))

	ts.Close()
	ts.Close() // idempotent; the cleanup closes it once more
	_, err = http.Get(ts.URL + "/api/v1/openapi.json")
	assert.Error(t, err, "closed")
}

func TestNewTestServerWithClockAndScenarioValue(t *testing.T) {
	sc, err := scenarios.Parse("one-school.yaml", []byte("name: one-school\nclients: [{id: c, secret: s, scopes: [all]}]\ngenerate: {profile: none, schoolUnits: 1}\n"))
	require.NoError(t, err)
	t0 := time.Date(2027, 8, 16, 8, 0, 0, 0, time.UTC)
	ts := NewTestServer(t, WithScenario(sc), WithClock(t0))
	assert.Equal(t, "c", ts.ClientID)
	var clock mockserver.ClockState
	require.Equal(t, http.StatusOK, getJSON(t, ts, ts.AdminURL+"/clock", "", &clock))
	assert.Equal(t, mockserver.ClockState{Now: t0, Fixed: true}, clock)
	assert.True(t, sc.Clock.Now.IsZero(), "the caller's scenario is not changed")

	ts.Server.Clock().Advance(time.Hour)
	assert.Equal(t, t0.Add(time.Hour), ts.Server.Clock().Now())
	summary, err := ts.Server.Reset()
	require.NoError(t, err)
	assert.Equal(t, t0, summary.Clock.Now, "reset returns to the test's instant")
}

func TestNewUnstartedTestServer(t *testing.T) {
	ts := NewUnstartedTestServer(t, WithScenario("empty"))
	assert.Nil(t, ts.Server)
	assert.Empty(t, ts.URL)
	ts.Options.AdminToken = "t0ken"
	ts.Options.JournalSize = 5
	ts.StartTLS()
	assert.Regexp(t, `^https://`, ts.URL)

	assert.Equal(t, http.StatusUnauthorized, getJSON(t, ts, ts.AdminURL+"/requests", "", nil))
	var page mockserver.JournalPage
	require.Equal(t, http.StatusOK, getJSON(t, ts, ts.AdminURL+"/requests", "t0ken", &page))
	assert.Equal(t, 5, page.Capacity)
}

func TestAnUnstartedTestServerClosesCleanly(t *testing.T) {
	ts := NewUnstartedTestServer(t)
	ts.Close() // and again at cleanup
	assert.Nil(t, ts.Server)
}

// TestWithProfile: a test server under the ss12000 profile answers an
// empty lookup, which the service profile refuses.
func TestWithProfile(t *testing.T) {
	for profile, want := range map[string]int{mockserver.ProfileService: http.StatusBadRequest, mockserver.ProfileSS12000: http.StatusOK} {
		ts := NewTestServer(t, WithScenario("empty"), WithProfile(profile))
		assert.Equal(t, profile, ts.Server.Profile())
		cfg := clientcredentials.Config{ClientID: ts.ClientID, ClientSecret: ts.ClientSecret, TokenURL: ts.TokenURL}
		resp, err := cfg.Client(context.Background()).Post(ts.RegisterURL+"/groups/lookup", "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, profile)
	}
}
