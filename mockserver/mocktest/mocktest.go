// Package mocktest starts a skolkit mock inside a Go test, as
// net/http/httptest does for an http.Handler: NewTestServer starts one on a
// loopback port and closes it when the test ends; NewUnstartedTestServer
// lets the test change its options first. It is a package of its own so that
// programs using package mockserver do not link package testing.
package mocktest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/scenarios"
)

// TestServer is a mock server running inside a Go test, on a loopback port
// picked by net/http/httptest. Create it with NewTestServer; it closes
// itself when the test ends.
//
//	ts := mocktest.NewTestServer(t, mocktest.WithScenario("edge-cases"))
//	cfg := clientcredentials.Config{ClientID: ts.ClientID, ClientSecret: ts.ClientSecret, TokenURL: ts.TokenURL}
//	client := cfg.Client(ctx)
//	resp, err := client.Get(ts.RegisterURL + "/placements")
type TestServer struct {
	// URL is the server's root, "http://127.0.0.1:PORT", with no trailing
	// slash. It is also the auth_url of the service.
	URL string
	// AuthURL is the auth_url of the service (the server's root); TokenURL
	// is the token endpoint under it, for clientcredentials.Config.
	AuthURL, TokenURL string
	// RegisterURL is interface B's base URL (…/api/v1).
	RegisterURL string
	// DirectoryURL is interface A's base URL (…/directory/v1).
	DirectoryURL string
	// ExportURL is the data export's base URL (…/data-export/v1).
	ExportURL string
	// AdminURL is the control plane (…/__admin).
	AdminURL string
	// ClientID and ClientSecret are the scenario's first client's
	// credentials (as of start: loading another scenario may change them).
	ClientID, ClientSecret string

	// Server is the mock, for direct access (Clock, Export, Reset,
	// LoadScenario, Requests, ...). Nil until the server is started.
	Server *mockserver.Server
	// Options are passed to New by Start. A test server made by
	// NewUnstartedTestServer may change them before starting.
	Options mockserver.Options
	// HTTP is the httptest server underneath. Before Start, its Config and
	// TLS may be changed as with httptest.NewUnstartedServer.
	HTTP *httptest.Server

	t     testing.TB
	clock time.Time // WithClock
}

// TestOption configures a TestServer.
type TestOption func(*TestServer)

// ScenarioRef is a built-in scenario's name or a scenario value.
type ScenarioRef interface {
	string | *scenarios.Scenario
}

// WithScenario serves a built-in scenario (by name: "edge-cases") or a
// scenario value (from scenarios.Parse). The default is "default".
func WithScenario[S ScenarioRef](sc S) TestOption {
	return func(ts *TestServer) {
		switch v := any(sc).(type) {
		case string:
			loaded, err := scenarios.Builtin(v)
			if err != nil {
				ts.t.Fatalf("mocktest.WithScenario: %v", err)
			}
			ts.Options.Scenario = loaded
		case *scenarios.Scenario:
			ts.Options.Scenario = v
		}
	}
}

// WithProfile serves interface B under a profile: mockserver.ProfileService
// (the service's spec, the default) or mockserver.ProfileSS12000 (the SS
// 12000 2.1.0 document alone, for a client generated from it). It replaces
// the scenario's profile.
func WithProfile(profile string) TestOption {
	return func(ts *TestServer) { ts.Options.Profile = profile }
}

// WithSeed replaces the scenario's seed.
func WithSeed(seed int64) TestOption {
	return func(ts *TestServer) { ts.Options.Seed = &seed }
}

// WithClock fixes the server's clock at t0: it stands still there (so
// timestamps and "today" are reproducible) until the test moves it with
// Server.Clock().Set or Advance, or through /__admin/clock. The scenario's
// data is generated as of t0.
func WithClock(t0 time.Time) TestOption {
	return func(ts *TestServer) { ts.clock = t0 }
}

// NewTestServer starts a mock server for the test and stops it when the
// test ends. It fails the test when the server cannot start.
func NewTestServer(t testing.TB, opts ...TestOption) *TestServer {
	t.Helper()
	ts := NewUnstartedTestServer(t, opts...)
	ts.Start()
	return ts
}

// NewUnstartedTestServer returns a test server that is not started, so
// that its Options (and HTTP's Config) can be changed first. Call Start or
// StartTLS; the server is closed when the test ends.
func NewUnstartedTestServer(t testing.TB, opts ...TestOption) *TestServer {
	t.Helper()
	ts := &TestServer{t: t}
	for _, o := range opts {
		o(ts)
	}
	ts.HTTP = httptest.NewUnstartedServer(http.HandlerFunc(ts.serve))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *TestServer) serve(w http.ResponseWriter, r *http.Request) {
	ts.Server.ServeHTTP(w, r)
}

// Start builds the mock from Options and starts serving over HTTP.
func (ts *TestServer) Start() {
	ts.t.Helper()
	ts.build()
	ts.HTTP.Start()
	ts.setURLs()
}

// StartTLS is Start over HTTPS; use HTTP.Client() (which trusts the test
// certificate) for requests.
func (ts *TestServer) StartTLS() {
	ts.t.Helper()
	ts.build()
	ts.HTTP.StartTLS()
	ts.setURLs()
}

func (ts *TestServer) build() {
	ts.t.Helper()
	if ts.Server != nil {
		ts.t.Fatal("mocktest: TestServer already started")
	}
	o := ts.Options
	if !ts.clock.IsZero() {
		sc := o.Scenario
		if sc == nil {
			var err error
			if sc, err = scenarios.Builtin("default"); err != nil {
				ts.t.Fatalf("mocktest.NewTestServer: %v", err)
			}
		}
		cp := *sc
		cp.Clock = scenarios.Clock{Now: ts.clock}
		o.Scenario = &cp
	}
	srv, err := mockserver.New(o)
	if err != nil {
		ts.t.Fatalf("mocktest.NewTestServer: %v", err)
	}
	ts.Server = srv
}

func (ts *TestServer) setURLs() {
	ts.URL = ts.HTTP.URL
	ts.AuthURL = ts.URL
	ts.TokenURL = ts.URL + mockserver.PathToken
	ts.RegisterURL = ts.URL + mockserver.PrefixB
	ts.DirectoryURL = ts.URL + mockserver.PrefixA
	ts.ExportURL = ts.URL + mockserver.PrefixExport
	ts.AdminURL = ts.URL + mockserver.PrefixAdmin
	ts.ClientID, ts.ClientSecret = ts.Server.Credentials()
}

// Client returns an HTTP client for the server (one that trusts its
// certificate after StartTLS).
func (ts *TestServer) Client() *http.Client { return ts.HTTP.Client() }

// Close stops the server and waits for the requests in flight and the
// callbacks under way. It is called when the test ends; calling it earlier
// is fine.
func (ts *TestServer) Close() {
	ts.HTTP.Close()
	if ts.Server != nil {
		ts.Server.Close()
	}
}
