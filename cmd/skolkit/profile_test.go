package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/report"
)

// TestConformanceSS12000ProfileAgainstMock: the mock under its ss12000
// profile passes the suite judged by the standard, and only checks of that
// profile are run; under its service profile the same judge fails it where
// the spec departs from the standard (the absence type, a schedule entry's
// endTime), and nowhere else.
func TestConformanceSS12000ProfileAgainstMock(t *testing.T) {
	t.Parallel()
	t.Run("the service profile is not the standard", func(t *testing.T) {
		t.Parallel()
		_, args := mockUnderTest(t, mockserver.Options{})
		code, out, rep := runConformance(t, append(args, "--profile", "ss12000", "--include", "contract.B.response", "--include", "B.absences.by-id")...)
		assert.Equal(t, 1, code, out)
		for _, r := range rep.Results {
			if r.ID != "contract.B.response" {
				assert.Equal(t, report.StatusPass, r.Status, "%s: %s", r.ID, r.Reason)
				continue
			}
			require.Equal(t, report.StatusFail, r.Status, out)
			// The rules' traffic reads every list, so both differences of
			// docs/decisions.md#interface-b-profiles that a read shows are
			// found: the absence type and a schedule entry's endTime.
			absences := false
			for _, f := range r.Failures {
				switch {
				case strings.Contains(f.Message, "GET /absences"):
					absences = true
					assert.Contains(t, f.Message, `/type: value is not one of the allowed values ["Beviljad ledighet","Anmäld frånvaro"]`)
				case strings.Contains(f.Message, "GET /attendanceSchedule"):
					places := regexp.MustCompile(`at (/\S+): `).FindAllStringSubmatch(f.Message, -1)
					assert.NotEmpty(t, places, f.Message)
					for _, p := range places {
						assert.Regexp(t, `/(scheduleDays|scheduleEntries)/\d+/endTime$`, p[1], "only endTime differs in schedules")
					}
				default:
					t.Errorf("only absences and attendance schedules differ: %s", f.Message)
				}
			}
			assert.True(t, absences, "the absence type differs: %s", out)
		}
	})
	srv, args := mockUnderTest(t, mockserver.Options{Profile: mockserver.ProfileSS12000})
	args = append(args, recordIDs(srv)...)
	code, out, rep := runConformance(t, append(args, "--profile", "ss12000")...)
	assertClean(t, rep, out)
	assert.Equal(t, 0, code)
	assert.Equal(t, conformance.ProfileSS12000, rep.Profile)
	for _, r := range rep.Results {
		sev, ok := conformance.SeverityOf(r.ID, conformance.ProfileSS12000)
		require.True(t, ok, r.ID)
		assert.NotEqual(t, conformance.Off, sev, "%s is not in the ss12000 profile", r.ID)
		assert.Equal(t, sev, r.Severity, r.ID)
	}
	assert.Greater(t, rep.Counts().Pass, 50)
}

// TestConformanceIncompleteRunsExit2: a run that could not test what it was
// given is exit 2 with a message saying what to fix, never a green run of
// skips.
func TestConformanceIncompleteRunsExit2(t *testing.T) {
	srv, err := mockserver.New(mockserver.Options{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id, secret := srv.Credentials()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" {
			http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(broken.Close)
	reg := hs.URL + "/api/v1"
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"missing credentials", []string{"--auth-url", hs.URL, "--register-url", reg},
			"the token endpoint and interface B were not tested: no client credentials were given: set --client-id and --client-secret"},
		{"a missing client id", []string{"--auth-url", hs.URL, "--register-url", reg, "--client-secret", secret},
			"the token endpoint and interface B were not tested: no client id was given (a client secret was): set --client-id (or SKOLKIT_CLIENT_ID)"},
		{"a missing client secret", []string{"--auth-url", hs.URL, "--register-url", reg, "--client-id", id},
			"the token endpoint and interface B were not tested: no client secret was given (a client id was): set --client-secret (or SKOLKIT_CLIENT_SECRET)"},
		{"missing token URL", []string{"--register-url", reg, "--client-id", id, "--client-secret", secret}, "no token endpoint was given: set --auth-url"},
		{"token endpoint that issues no token", []string{"--auth-url", broken.URL, "--register-url", broken.URL + "/api/v1", "--client-id", id, "--client-secret", secret},
			`the token endpoint and interface B were not tested: the token endpoint issued no token (no access token: the token endpoint answered 500 {"error":"server_error"}): check --auth-url and the credentials`},
		{"fewer decided checks than --min-checks", []string{"--auth-url", hs.URL, "--register-url", reg, "--client-id", id, "--client-secret", secret, "--include", "auth.token.success", "--min-checks", "5"}, "--min-checks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SKOLKIT_CLIENT_ID", "")
			t.Setenv("SKOLKIT_CLIENT_SECRET", "")
			var out, errOut bytes.Buffer
			code := conformanceCmd(append([]string{"-q"}, tc.args...), &out, &errOut)
			assert.Equal(t, 2, code, "%s\n%s", out.String(), errOut.String())
			assert.Equal(t, 1, strings.Count(out.String()+errOut.String(), tc.says), "the cause, once:\n%s\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String(), "INCOMPLETE: the run could not test what it was given (exit 2)")
			junit := filepath.Join(t.TempDir(), "r.xml")
			require.Equal(t, 2, conformanceCmd(append([]string{"-q", "--report", "junit=" + junit}, tc.args...), &bytes.Buffer{}, &bytes.Buffer{}))
			data, err := os.ReadFile(junit)
			require.NoError(t, err)
			assert.Contains(t, string(data), `type="incomplete"`, "the JUnit report shows the incomplete run as an error")
		})
	}
	t.Run("a URL flag given empty is exit 2 before any request", func(t *testing.T) {
		var hits atomic.Int64
		counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); srv.ServeHTTP(w, r) }))
		defer counting.Close()
		for _, empty := range []string{"--base-url", "--export-url", "--register-url"} {
			var out, errOut bytes.Buffer
			args := []string{"-q", "--auth-url", counting.URL, "--register-url", counting.URL + "/api/v1", "--client-id", id, "--client-secret", secret, empty, ""}
			code := conformanceCmd(args, &out, &errOut)
			assert.Equal(t, 2, code, empty)
			assert.Equal(t, "skolkit conformance: "+empty+" given empty (a variable or CI secret that did not load?): give the URL, or leave the flag out to skip that surface\n", errOut.String())
			assert.Empty(t, out.String())
		}
		assert.Zero(t, hits.Load(), "no request was sent")
	})
	t.Run("a server of HTML error pages: each cause once, the page once", func(t *testing.T) {
		page := "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: 501</p>\n        <p>Message: Unsupported method ('POST').</p>\n    </body>\n</html>\n"
		html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html;charset=utf-8")
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, page)
		}))
		defer html.Close()
		var out, errOut bytes.Buffer
		code := conformanceCmd([]string{"-q", "--auth-url", html.URL, "--register-url", html.URL + "/api/v1", "--client-id", "a", "--client-secret", "b"}, &out, &errOut)
		assert.Equal(t, 2, code, "%s\n%s", out.String(), errOut.String())
		all := out.String() + errOut.String()
		assert.Equal(t, 1, strings.Count(all, "were not tested: the token endpoint issued no token"), all)
		assert.Equal(t, 1, strings.Count(all, "Unsupported method"), "the page whole once, under the first failure:\n%s", all)
		assert.Contains(t, all, "bytes as shown under auth.token.success)", "the other failures name it")
		assert.NotContains(t, all, "\n    <body>", "no body is shown over several lines")
		assert.NotContains(t, all, " 0 errors")
	})
	t.Run("a wrong secret is exit 2 before any check", func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := conformanceCmd([]string{"-q", "--auth-url", hs.URL, "--register-url", reg, "--client-id", id, "--client-secret", "wrong"}, &out, &errOut)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut.String(), "rejected the client credentials")
	})
	t.Run("a report path that cannot be written is exit 2 before the first request", func(t *testing.T) {
		var hits atomic.Int64
		counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); srv.ServeHTTP(w, r) }))
		defer counting.Close()
		var out, errOut bytes.Buffer
		code := conformanceCmd([]string{"-q", "--register-url", counting.URL + "/api/v1", "--report", "json=" + filepath.Join(t.TempDir(), "no", "such", "dir", "r.json")}, &out, &errOut)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut.String(), "--report json=")
		assert.Zero(t, hits.Load(), "no request was sent")
	})
	t.Run("--wait-for waits out a gateway's 503", func(t *testing.T) {
		var heads atomic.Int64
		gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead && heads.Add(1) <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			srv.ServeHTTP(w, r)
		}))
		defer gateway.Close()
		var out, errOut bytes.Buffer
		code := conformanceCmd([]string{"-q", "--wait-for", "20s", "--auth-url", gateway.URL, "--register-url", gateway.URL + "/api/v1", "--client-id", id, "--client-secret", secret, "--include", "auth.B.token-accepted"}, &out, &errOut)
		assert.Equal(t, 0, code, "%s\n%s", out.String(), errOut.String())
		assert.Greater(t, heads.Load(), int64(2), "the runner asked again after the 503s")
	})
	t.Run("--wait-for waits for a server that comes up", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		l.Close()
		late := &http.Server{Addr: addr, Handler: srv}
		go func() {
			time.Sleep(700 * time.Millisecond)
			ln, err := net.Listen("tcp", addr)
			if err == nil {
				late.Serve(ln)
			}
		}()
		t.Cleanup(func() { late.Close() })
		var out, errOut bytes.Buffer
		code := conformanceCmd([]string{"-q", "--wait-for", "20s", "--auth-url", "http://" + addr, "--register-url", "http://" + addr + "/api/v1", "--client-id", id, "--client-secret", secret, "--include", "auth.B.token-accepted"}, &out, &errOut)
		assert.Equal(t, 0, code, "%s\n%s", out.String(), errOut.String())
	})
}

// TestConformanceLegacyAuthAgainstMock: the older authentication's positive
// path, which runs only with --legacy-auth (it sends the secret to
// interface A).
func TestConformanceLegacyAuthAgainstMock(t *testing.T) {
	t.Parallel()
	_, args := mockUnderTest(t, mockserver.Options{})
	code, out, rep := runConformance(t, append(args, "--legacy-auth", "--include", "auth.A", "--include", "A.school.list")...)
	assertClean(t, rep, out)
	assert.Equal(t, 0, code)
	for _, r := range rep.Results {
		if r.ID == "auth.A.legacy-headers" {
			assert.Equal(t, report.StatusPass, r.Status, r.Reason)
		}
	}
}

// TestConformanceFindsIDsItself: against the mock, which has a list for
// every resource, no interface B check skips for want of an id when no
// --id is given.
func TestConformanceFindsIDsItself(t *testing.T) {
	t.Parallel()
	_, args := mockUnderTest(t, mockserver.Options{})
	code, out, rep := runConformance(t, append(args, "--include", "B")...)
	assertClean(t, rep, out)
	assert.Equal(t, 0, code)
	for _, r := range rep.Results {
		assert.NotContains(t, r.Reason, "id to test with", "%s skipped for want of an id", r.ID)
		assert.NotContains(t, r.Reason, "does not offer this resource", "%s: the mock offers every resource of the standard", r.ID)
	}
}
