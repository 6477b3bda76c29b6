package conformance

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/report"
)

// What running the suite against real SS 12000 servers showed (docs/
// compatibility.md, "SS 12000 servers under the runner"): the standard
// requires a bearer token but defines no token endpoint, and a server need
// not offer every operation.

func TestABearerTokenFromElsewhereReplacesTheTokenEndpoint(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewServer(rc.wrap(newFake(deviations{})))
	defer srv.Close()
	rep, err := Run(context.Background(), Config{RegisterURL: srv.URL + "/api/v1", Token: fakeToken, Profile: ProfileSS12000, Timeout: testTimeout})
	require.NoError(t, err)
	assert.Empty(t, rep.Incomplete, "interface B was tested with the given token")
	for id, want := range map[string]report.Status{
		"all.walks-end":         report.StatusPass, // the token is sent and accepted
		"auth.B.no-token":       report.StatusPass, // the refusal without it is still checked
		"auth.B.garbage-token":  report.StatusPass,
		"auth.token.success":    report.StatusSkip, // no token endpoint to judge
		"auth.B.token-accepted": report.StatusSkip,
		"auth.B.expired-token":  report.StatusSkip,
	} {
		assert.Equal(t, want, resultOf(t, rep, id).Status, "%s: %s", id, resultOf(t, rep, id).Reason)
	}
	assert.Contains(t, resultOf(t, rep, "auth.token.success").Reason, "--auth-url")
	rc.mu.Lock()
	for _, r := range rc.reqs {
		assert.NotEqual(t, "/oauth/token", r.path, "no token is requested when one is given")
	}
	rc.mu.Unlock()
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, rep))
	report.WriteConsole(&b, rep)
	assert.NotContains(t, b.String(), fakeToken, "the given token is redacted like an issued one")
}

func TestABearerTokenThatIsRefusedMakesTheRunIncomplete(t *testing.T) {
	t.Parallel()
	srv := newFake(deviations{}).start(t)
	rep, err := Run(context.Background(), Config{RegisterURL: srv.URL + "/api/v1", Token: "not-a-token-the-fake-knows", Profile: ProfileSS12000, Timeout: testTimeout})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Incomplete)
	assert.Contains(t, rep.Incomplete[0], "--token")
	assert.Equal(t, 2, rep.ExitCode())
}

func TestATokenAndATokenEndpointAreAUsageError(t *testing.T) {
	t.Parallel()
	cfg := hostileConfig("http://127.0.0.1:1")
	cfg.Token = fakeToken
	_, err := Run(context.Background(), cfg)
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "%v", err)
	assert.Contains(t, err.Error(), "--token")
}

// A server that does not offer GET /subscriptions/{id} (405), or offers it
// but has no subscription to prove the route with, is not failed by
// B.subscriptions.unknown-id: like every unknown-id check it first needs a
// known id answering 2xx on the same route.
func TestSubscriptionUnknownIDNeedsAKnownSubscriptionFirst(t *testing.T) {
	t.Parallel()
	known := "0000000a-0000-4000-8000-000000000001"
	cases := []struct {
		name   string
		list   []map[string]any
		byID   func(w http.ResponseWriter, id string)
		want   report.Status
		reason string
	}{
		{name: "no GET /subscriptions/{id} at all (405)", list: []map[string]any{{"id": known}},
			byID: func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusMethodNotAllowed) }, want: report.StatusSkip, reason: "405"},
		{name: "no subscription to prove the route with", list: []map[string]any{},
			byID: func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusNotFound) }, want: report.StatusSkip, reason: "no subscription"},
		{name: "a known subscription is found, an unknown one is 404", list: []map[string]any{{"id": known}},
			byID: func(w http.ResponseWriter, id string) {
				if id == known {
					writeJSON(w, 200, map[string]any{"id": known})
					return
				}
				w.WriteHeader(http.StatusNotFound)
			}, want: report.StatusPass},
		{name: "a known subscription is found, an unknown one is 200", list: []map[string]any{{"id": known}},
			byID: func(w http.ResponseWriter, id string) { writeJSON(w, 200, map[string]any{"id": id}) }, want: report.StatusFail},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/api/v1/subscriptions":
					writeJSON(w, 200, map[string]any{"data": tc.list, "pageToken": nil})
				case len(r.URL.Path) > len("/api/v1/subscriptions/"):
					tc.byID(w, r.URL.Path[len("/api/v1/subscriptions/"):])
				default:
					w.WriteHeader(http.StatusNotFound)
				}
			}))
			defer srv.Close()
			for _, p := range Profiles {
				cfg := hostileConfig(srv.URL, "B.subscriptions.unknown-id")
				cfg.Profile = p
				rep, err := Run(context.Background(), cfg)
				require.NoError(t, err)
				r := resultOf(t, rep, "B.subscriptions.unknown-id")
				assert.Equal(t, tc.want, r.Status, "profile %s: %s %v", p, r.Reason, r.Failures)
				assert.Contains(t, r.Reason, tc.reason)
			}
		})
	}
}

// A server that fails (or does not offer) /placements but serves
// /organisations without any token is still caught by auth.B.no-token and
// auth.B.garbage-token: the probe falls back to another resource.
func TestRefusalChecksProbeAnotherResourceWhenPlacementsFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		placements int
		auth       bool
		want       report.Status
	}{
		{name: "placements 500, no authentication at all", placements: 500, want: report.StatusFail},
		{name: "placements 404, bearer token required", placements: 404, auth: true, want: report.StatusPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
				if tc.auth && r.Header.Get("Authorization") != "Bearer "+fakeToken {
					writeJSON(w, 401, map[string]any{"code": "Unauthorized", "message": "no token"})
					return
				}
				switch r.URL.Path {
				case "/api/v1/placements":
					w.WriteHeader(tc.placements)
				case "/api/v1/organisations":
					writeJSON(w, 200, map[string]any{"data": []any{}, "pageToken": nil})
				default:
					w.WriteHeader(http.StatusNotFound)
				}
			}))
			defer srv.Close()
			cfg := hostileConfig(srv.URL, "auth.B.no-token", "auth.B.garbage-token")
			cfg.Profile = ProfileSS12000
			rep, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			for _, id := range []string{"auth.B.no-token", "auth.B.garbage-token"} {
				r := resultOf(t, rep, id)
				assert.Equal(t, tc.want, r.Status, "%s: %s", id, r.Reason)
			}
		})
	}
}

// Under --profile ss12000 a report quotes the SS 12000 document where a
// check has its sentence, not the service's spec.
func TestStandardProfileQuotesTheDocument(t *testing.T) {
	t.Parallel()
	srv := newFake(deviations{}).start(t)
	for _, tc := range []struct {
		profile Profile
		id      string
		section string
	}{
		{ProfileSS12000, "auth.B.no-token", "SS 12000 2.1.0"},
		{ProfileSS12000, "B.placements.unknown-id", "SS 12000 2.1.0: GET /placements/{id}"},
		{ProfileSS12000, "B.placements.malformed-id", "SS 12000 2.1.0: GET /placements/{id}"},
		{ProfileService, "auth.B.no-token", "Endpoints (interface B)"},
		{ProfileService, "B.placements.unknown-id", "Errors"},
	} {
		cfg := hostileConfig(srv.URL, tc.id)
		cfg.Profile = tc.profile
		rep, err := Run(context.Background(), cfg)
		require.NoError(t, err)
		r := resultOf(t, rep, tc.id)
		assert.Equal(t, report.StatusPass, r.Status, "%s %s: %s", tc.profile, tc.id, r.Reason)
		assert.Contains(t, r.Spec.Section, tc.section, "%s under --profile %s", tc.id, tc.profile)
	}
}

// A 404 to GET of a collection the server does not have, or a 405/501,
// says that the server does not offer the operation: the checks skip it,
// and under --profile ss12000 contract.B.response does not judge that answer by the
// operation's responses either (fastapi-ss12000-server's {"detail": "Not
// Found"} for /attendances, which it serves as /attendance).
func TestContractDoesNotJudgeAnOperationTheServerDoesNotOffer(t *testing.T) {
	t.Parallel()
	fk := newFake(deviations{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/attendances", "/api/v1/absences":
			writeJSON(w, 404, map[string]any{"detail": "Not Found"})
		case "/api/v1/rooms":
			writeJSON(w, 405, map[string]any{"detail": "Method Not Allowed"})
		default:
			fk.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		profile Profile
		flagged bool
	}{{ProfileSS12000, false}, {ProfileService, true}} {
		cfg := hostileConfig(srv.URL, "B.attendances.by-id", "B.absences.by-id", "B.rooms.list.walk", "B.placements.walk", "contract.B.response")
		cfg.Profile = tc.profile
		rep, err := Run(context.Background(), cfg)
		require.NoError(t, err)
		r := resultOf(t, rep, "contract.B.response")
		var flagged bool
		for _, f := range r.Failures {
			if f.Exchange != nil && (bytes.Contains([]byte(f.Exchange.URL), []byte("/attendances")) || bytes.Contains([]byte(f.Exchange.URL), []byte("/rooms"))) {
				flagged = true
			}
		}
		assert.Equal(t, tc.flagged, flagged, "profile %s: %s %v", tc.profile, r.Status, r.Failures)
	}
}

// A list that cannot be walked is reported once, by the contract (an
// answer that is no page); the checks and rules that only need its records
// skip and point there, instead of failing again for a cause that is not
// theirs.
func TestAListThatCannotBeWalkedFailsOnlyItsWalk(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/persons":
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		case "/api/v1/organisations":
			writeJSON(w, 200, []any{map[string]any{"id": uuidN(9, 1), "name": "a bare array"}})
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	cfg := hostileConfig(srv.URL, "contract.B.response", "B.persons.lookup-civic-numbers", "paging.*")
	cfg.Profile = ProfileSS12000
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	for id, want := range map[string]report.Status{
		"contract.B.response":            report.StatusFail, // the 500 in text and the bare array
		"B.persons.lookup-civic-numbers": report.StatusSkip,
	} {
		assert.Equal(t, want, resultOf(t, rep, id).Status, "%s: %s", id, resultOf(t, rep, id).Reason)
	}
	for _, r := range rep.Results {
		if r.Area == "paging" {
			assert.NotEqual(t, report.StatusFail, r.Status, "%s fails again for the contract's cause: %v", r.ID, r.Failures)
		}
	}
	assert.Contains(t, resultOf(t, rep, "B.persons.lookup-civic-numbers").Reason, "see contract.B.response")
}

// Lists answered 404, 405 or 501 are not offered: under --profile ss12000
// the rules skip them, they do not fail.
func TestAListAnswered405Or501IsNotOffered(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented} {
		srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, status, map[string]any{"code": "NotOffered", "message": "no"})
		}))
		cfg := hostileConfig(srv.URL, "contract.B.response", "paging.*")
		cfg.Profile = ProfileSS12000
		rep, err := Run(context.Background(), cfg)
		srv.Close()
		require.NoError(t, err)
		for _, r := range rep.Results {
			assert.Equal(t, report.StatusSkip, r.Status, "%d %s: %s %v", status, r.ID, r.Reason, r.Failures)
		}
		assert.Contains(t, resultOf(t, rep, "contract.B.response").Reason, "does not offer", "%d", status)
	}
}

// Under --profile ss12000 a server with a token endpoint but no placements
// is not failed by auth.B.token-accepted or auth.token.reissue: the probe
// moves to a resource the server offers. Under --profile service the
// placements are the spec's own resource and stay the probe.
func TestTokenChecksProbeAnOfferedResource(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+fakeToken {
			writeJSON(w, 401, map[string]any{"code": "Unauthorized", "message": "no token"})
			return
		}
		switch r.URL.Path {
		case "/api/v1/organisations":
			writeJSON(w, 200, map[string]any{"data": []any{}, "pageToken": nil})
		default:
			writeJSON(w, 404, map[string]any{"code": "NotFound", "message": "no such resource"})
		}
	}))
	defer srv.Close()
	for p, want := range map[Profile]report.Status{ProfileSS12000: report.StatusPass, ProfileService: report.StatusFail} {
		cfg := hostileConfig(srv.URL, "auth.B.token-accepted", "auth.token.reissue")
		cfg.Profile = p
		rep, err := Run(context.Background(), cfg)
		require.NoError(t, err)
		for _, id := range []string{"auth.B.token-accepted", "auth.token.reissue"} {
			r := resultOf(t, rep, id)
			assert.Equal(t, want, r.Status, "%s under %s: %s %v", id, p, r.Reason, r.Failures)
		}
	}
}

// Every check of --profile ss12000 quotes the SS 12000 document or an RFC
// there, except those labelled as skolkit's choice (which say so) and
// all.user-spec (the user's own document).
func TestEveryStandardCheckQuotesTheDocumentOrAnRFC(t *testing.T) {
	for _, c := range Catalogue() {
		if c.SeverityIn(ProfileSS12000) == Off || c.Choice != "" || c.ID == "all.user-spec" {
			continue
		}
		s := c.SpecIn(ProfileSS12000)
		assert.True(t, strings.HasPrefix(s.Section, "SS 12000") || strings.HasPrefix(s.Section, "RFC"),
			"%s quotes %q (%s) under --profile ss12000: add the document's sentence to standardQuotes", c.ID, s.Quote, s.Section)
		assert.NotEmpty(t, s.Quote, c.ID)
	}
}
