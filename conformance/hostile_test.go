package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/report"
)

// Hostile servers: each misbehaves in one way a runner must survive.

// tokenThen serves the token endpoint and hands every other request to h.
func tokenThen(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" {
			writeJSON(w, 200, map[string]any{"access_token": fakeToken, "token_type": "Bearer", "expires_in": 3600})
			return
		}
		h(w, r)
	}
}

func hostileConfig(url string, include ...string) Config {
	return Config{AuthURL: url, RegisterURL: url + "/api/v1", ClientID: fakeClient, ClientSecret: fakeSecret, Include: include, Timeout: 5 * time.Second}
}

func TestHugeBodyIsCutAtTheCap(t *testing.T) {
	t.Parallel()
	var written atomic.Int64
	srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data": [`)
		chunk := bytes.Repeat([]byte(`{"id": "x"},`), 1<<16)
		for written.Load() < 100<<20 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	cfg := hostileConfig(srv.URL, "B.placements.walk", "auth.B.token-accepted")
	cfg.MaxBodyBytes = 1 << 20
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	for _, r := range rep.Results {
		assert.Equal(t, report.StatusFail, r.Status, r.ID)
		require.NotEmpty(t, r.Failures, r.ID)
		assert.Contains(t, r.Failures[0].Message, "cap", r.ID)
	}
	// The runner stopped reading long before 100 MiB.
	assert.Less(t, written.Load(), int64(40<<20), "bytes the server managed to write")
}

func TestEndlessPageTokenChainIsBounded(t *testing.T) {
	t.Parallel()
	for name, fresh := range map[string]bool{"fresh records forever": true, "the same record forever": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var pages atomic.Int64
			srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
				n := pages.Add(1)
				id := uuidN(1, 0)
				if fresh {
					id = uuidN(1, int(n))
				}
				p := map[string]any{"id": id, "meta": fakeMeta(time.Now()), "placedAt": map[string]any{"id": uuidN(2, 0)},
					"child": map[string]any{"id": uuidN(4, 0), "securityMarking": "Ingen"}, "schoolType": "FS", "startDate": "2025-01-01"}
				writeJSON(w, 200, map[string]any{"data": []any{p}, "pageToken": fmt.Sprintf("token-%d", n)})
			}))
			defer srv.Close()
			cfg := hostileConfig(srv.URL, "all.walks-end", "B.placements.pagetoken-with-limit")
			cfg.MaxPages = 50
			rep, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			r := resultOf(t, rep, "all.walks-end")
			assert.Equal(t, report.StatusFail, r.Status, r.Reason)
			assert.LessOrEqual(t, pages.Load(), int64(52), "page requests")
			if fresh {
				assert.Contains(t, r.Failures[len(r.Failures)-1].Message, "--max-pages=50")
			} else {
				assert.Contains(t, r.Failures[len(r.Failures)-1].Message, "no progress")
			}
		})
	}
}

// recorder keeps every request a server received.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	path   string
	header http.Header
	url    string
	body   string
}

func (rc *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, recorded{path: r.URL.Path, header: r.Header.Clone(), url: r.URL.String(), body: string(body)})
		rc.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// leaks lists where the secret appears in a request, except in the headers
// named by allowed.
func (r recorded) leaks(secret string, allowed ...string) []string {
	var out []string
	if strings.Contains(r.url, secret) {
		out = append(out, "URL")
	}
	if strings.Contains(r.body, secret) {
		out = append(out, "body")
	}
	for k, vs := range r.header {
		if contains(allowed, k) {
			continue
		}
		for _, v := range vs {
			if strings.Contains(v, secret) {
				out = append(out, "header "+k)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if http.CanonicalHeaderKey(x) == http.CanonicalHeaderKey(s) {
			return true
		}
	}
	return false
}

func TestSecretOnlyGoesToTheTokenEndpoint(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy-auth=%v", legacy), func(t *testing.T) {
			t.Parallel()
			rc := &recorder{}
			srv := httptest.NewServer(rc.wrap(newFake(deviations{})))
			defer srv.Close()
			cfg := fakeConfig(srv.URL)
			cfg.ExportURL = srv.URL + "/data-export/v1"
			cfg.LegacyAuth = legacy
			rep, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.NotEmpty(t, rep.Results)
			tokenRequests, legacySent := 0, 0
			rc.mu.Lock()
			defer rc.mu.Unlock()
			for _, r := range rc.reqs {
				if r.path == "/oauth/token" {
					tokenRequests++
					continue
				}
				var allowed []string
				if legacy && strings.HasPrefix(r.path, "/directory/v1") {
					allowed = []string{headerClientSecret}
					if r.header.Get(headerClientSecret) == fakeSecret {
						legacySent++
					}
				}
				assert.Empty(t, r.leaks(fakeSecret, allowed...), "the secret reached %s", r.url)
			}
			assert.Positive(t, tokenRequests)
			if legacy {
				assert.Positive(t, legacySent, "with --legacy-auth interface A gets the header pair")
			}
			// Nothing the runner reports holds the secret or the token.
			var b bytes.Buffer
			require.NoError(t, report.WriteJSON(&b, rep))
			report.WriteConsole(&b, rep)
			assert.NotContains(t, b.String(), fakeSecret)
			assert.NotContains(t, b.String(), fakeToken)
		})
	}
}

func TestNoRedirectToOtherHosts(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		writeJSON(w, 200, map[string]any{"access_token": "stolen", "token_type": "Bearer", "expires_in": 3600})
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	cfg := hostileConfig(redirect.URL, "auth.token.success", "B.placements.walk", "auth.B.token-accepted")
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Zero(t, elsewhere.Load(), "requests that followed a redirect to another host")
	for _, r := range rep.Results {
		assert.NotEqual(t, report.StatusPass, r.Status, r.ID)
	}
}

func TestRateLimitedRequestIsRetriedAfterTheWait(t *testing.T) {
	t.Parallel()
	f := newFake(deviations{})
	var limited atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/placements" && r.URL.Query().Get("limit") == "1" && limited.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "1")
			bErr(w, http.StatusTooManyRequests, "slow down")
			return
		}
		f.ServeHTTP(w, r)
	}))
	defer srv.Close()
	rep, err := Run(context.Background(), fakeConfig(srv.URL, "B.placements.pagetoken-with-limit"))
	require.NoError(t, err)
	r := resultOf(t, rep, "B.placements.pagetoken-with-limit")
	assert.Equal(t, report.StatusPass, r.Status, "%s %v", r.Reason, r.Failures)
	require.Len(t, rep.Waits, 1)
	assert.Equal(t, "Retry-After: 1", rep.Waits[0].Basis)
	assert.GreaterOrEqual(t, rep.Waits[0].Duration, time.Second)
	var b bytes.Buffer
	report.WriteConsole(&b, rep)
	assert.Contains(t, b.String(), "RATE LIMITS: waited 1 times")
}

func TestRateLimitWaitAboveTheBoundSkips(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		bErr(w, http.StatusTooManyRequests, "come back in an hour")
	}))
	defer srv.Close()
	cfg := hostileConfig(srv.URL, "B.placements.limit-zero", "B.placements.limit-below-one")
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Empty(t, rep.Waits, "the runner did not wait the hour the server asked for")
	r := resultOf(t, rep, "B.placements.limit-below-one")
	assert.Equal(t, report.StatusSkip, r.Status)
	assert.Contains(t, r.Reason, "429")
}

func TestSlowServerIsAnErrorWithExitCode2(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			return
		}
		select {
		case <-time.After(time.Minute): // far beyond the runner's timeout, however busy the machine
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	cfg := hostileConfig(srv.URL, "auth.B.no-token")
	cfg.Timeout = 200 * time.Millisecond
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	r := resultOf(t, rep, "auth.B.no-token")
	assert.Equal(t, report.StatusError, r.Status)
	assert.Equal(t, 2, rep.ExitCode())
}

func TestUnreachableServerIsAConnectionError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := Run(context.Background(), Config{RegisterURL: url + "/api/v1", Timeout: 2 * time.Second})
	var ce *ConnectionError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, SurfaceB, ce.Surface)
}

func TestRejectedCredentialsAreAUsageError(t *testing.T) {
	t.Parallel()
	srv := newFake(deviations{}).start(t)
	cfg := fakeConfig(srv.URL)
	cfg.ClientSecret = "not-the-secret"
	_, err := Run(context.Background(), cfg)
	var ue *UsageError
	require.True(t, errors.As(err, &ue), "%v", err)
	assert.Contains(t, err.Error(), "invalid_client")
	assert.NotContains(t, err.Error(), "not-the-secret")
}

// TestWalkBudgetIsTheFlags: a walk whose pages pass the bytes budget stops
// there and says which flag raises it (--max-walk-bytes); with the default
// budget the same list walks to its end.
func TestWalkBudgetIsTheFlags(t *testing.T) {
	t.Parallel()
	srv := newFake(deviations{}).start(t)
	small := fakeConfig(srv.URL, "all.walks-end", "B.placements.pagetoken-with-limit")
	small.MaxWalkBytes = 2000
	rep, err := Run(context.Background(), small)
	require.NoError(t, err)
	r := resultOf(t, rep, "all.walks-end")
	require.Equal(t, report.StatusFail, r.Status, r.Reason)
	assert.Contains(t, r.Failures[len(r.Failures)-1].Message, "--max-walk-bytes")

	rep, err = Run(context.Background(), fakeConfig(srv.URL, "all.walks-end", "B.placements.pagetoken-with-limit"))
	require.NoError(t, err)
	r = resultOf(t, rep, "all.walks-end")
	assert.Equal(t, report.StatusPass, r.Status, r.Reason)
}

// TestRateLimitResetIsJudgedByTheServersClock: a server whose clock is days
// apart from the runner's (a mock whose clock stands still) is judged by its
// Date header, and the run says so; epoch seconds are still caught.
func TestRateLimitResetIsJudgedByTheServersClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		dev  deviations
		want report.Status
	}{
		{"milliseconds", deviations{}, report.StatusPass},
		{"seconds", deviations{deviation.RateLimitResetInSeconds: true}, report.StatusFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(tc.dev)
			f.skew = -10 * 24 * time.Hour
			srv := f.start(t)
			rep, err := Run(context.Background(), fakeConfig(srv.URL, "headers.ratelimit-values"))
			require.NoError(t, err)
			for _, id := range []string{"headers.ratelimit-values"} {
				r := resultOf(t, rep, id)
				assert.Equal(t, tc.want, r.Status, "%s: %s %v", id, r.Reason, r.Failures)
				assert.Contains(t, strings.Join(r.Notes, "\n"), "judged by the server's clock", id)
			}
		})
	}
}
