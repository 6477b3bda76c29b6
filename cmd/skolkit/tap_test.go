package main

// End-to-end tests of skolkit tap with the real mock behind it. Package tap
// never imports the mock (nor do its tests): the two meet here.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
	"github.com/skolkit/skolkit/tap"
)

// tapped is a tap in front of a mock, in process.
type tapped struct {
	mock    *mockserver.Server
	tap     *tap.Tap
	judging *tap.Judging
	url     string // the tap's
	started time.Time
}

// tapInFrontOfMock starts the mock with opts and a tap judging by profile
// in front of it.
func tapInFrontOfMock(t *testing.T, opts mockserver.Options, profile rules.Profile) *tapped {
	t.Helper()
	srv, err := mockserver.New(opts)
	require.NoError(t, err)
	mock := httptest.NewServer(srv)
	t.Cleanup(mock.Close)
	target, _ := url.Parse(mock.URL)
	judging, err := tap.NewJudging(rules.Config{Profile: profile}, false)
	require.NoError(t, err)
	tp, err := tap.New(tap.Options{Target: target, Observer: judging, JudgeShare: 1})
	require.NoError(t, err)
	front := httptest.NewServer(tp)
	t.Cleanup(func() { front.Close(); tp.Close() })
	return &tapped{mock: srv, tap: tp, judging: judging, url: front.URL, started: time.Now()}
}

// conformanceArgs points the runner at the tap.
func (tt *tapped) conformanceArgs() []string {
	id, secret := tt.mock.Credentials()
	args := []string{"-q", "--auth-url", tt.url, "--register-url", tt.url + "/api/v1", "--base-url", tt.url + "/directory/v1",
		"--export-url", tt.url + "/data-export/v1", "--client-id", id, "--client-secret", secret}
	return append(args, recordIDs(tt.mock)...)
}

// report stops the tap (its queue judged, the traffic over) and returns
// its report.
func (tt *tapped) report() *report.Report {
	tt.tap.Close()
	tt.judging.Finish()
	return tt.judging.Report(tap.Run{Started: tt.started, Target: "mock", Listen: tt.url, Stats: tt.tap.Stats()})
}

// failed lists the ids of the failed results of a side ("" any side).
func failed(rep *report.Report, side rules.Side) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Status == report.StatusFail && (side == "" || r.Side == side) {
			out = append(out, r.ID)
		}
	}
	return out
}

// ruleIDs are the ids of the rules of a side.
func ruleIDs(side rules.Side) map[string]bool {
	ids := map[string]bool{}
	for _, r := range rules.Catalogue() {
		if r.Side == side {
			ids[r.ID] = true
		}
	}
	return ids
}

// tapSample are the deviations a quick run (go test ./...) puts behind
// the tap; .ci/run (SKOLKIT_KILL_MATRIX=full) puts every one.
var tapSample = []string{deviation.TokenCacheable, deviation.ErrorBodyWrongShape, deviation.SecurityMarkingMissing, deviation.RateLimitResetInSeconds}

// TestTheTapReportsTheServerFaultsTheTrafficShows sends the conformance
// suite through the tap to the mock with each deviation on. The tap judges
// the same traffic by the same server rules as the runner does, so every
// rule the runner's report fails, the tap's report fails too, as the
// server's fault; and a deviation that package deviation says a rule
// catches is caught by the tap. In a whole run (the full matrix) the two
// reports fail exactly the same server rules.
func TestTheTapReportsTheServerFaultsTheTrafficShows(t *testing.T) {
	serverRules := ruleIDs(rules.SideServer)
	caughtByRules := 0
	for _, d := range deviation.All() {
		byRules := slices.DeleteFunc(slices.Clone(d.CaughtBy), func(id string) bool { return !serverRules[id] })
		if len(byRules) > 0 {
			caughtByRules++
		}
		whole := fullMatrix && !raceEnabled
		if !whole && !slices.Contains(tapSample, d.Name) {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			setup := killSetup[d.Name]
			tt := tapInFrontOfMock(t, mockserver.Options{Deviations: []string{d.Name}, TokenTTL: setup.ttl}, rules.ProfileService)
			args := append(tt.conformanceArgs(), setup.args...)
			if whole {
				args = append(args, "--level", "write", "--include", "*", "--include", "A.school.create", "--include", "A.school.update")
			} else {
				args = append(args, "--level", "write")
				for _, id := range setup.include {
					args = append(args, "--include", id)
				}
			}
			for _, id := range d.CaughtBy {
				args = append(args, "--include", id)
			}
			_, out, runner := runConformance(t, args...)
			tapRep := tt.report()
			byRunner := slices.DeleteFunc(failed(runner, ""), func(id string) bool { return !serverRules[id] })
			byTap := failed(tapRep, rules.SideServer)
			for _, id := range byRunner {
				assert.Contains(t, byTap, id, "the runner failed rule %s over the traffic the tap saw; the tap did not", id)
			}
			if whole {
				assert.ElementsMatch(t, byRunner, byTap, "the same server rules over the same traffic")
			}
			if len(byRules) > 0 {
				assert.True(t, slices.ContainsFunc(byRules, func(id string) bool { return slices.Contains(byTap, id) }),
					"deviation %s: none of the rules %v that catch it failed in the tap's report (it failed %v)\n%s", d.Name, byRules, byTap, out)
			}
			for _, r := range tapRep.Results {
				if r.Status == report.StatusFail && r.Side == rules.SideServer {
					require.NotEmpty(t, r.Failures, r.ID)
					assert.NotNil(t, r.Failures[0].Exchange, "%s: a finding shows its exchange", r.ID)
				}
			}
		})
	}
	assert.GreaterOrEqual(t, caughtByRules, len(tapSample), "deviations the rules catch (package deviation's table)")
	for _, name := range tapSample {
		d, _ := deviation.Lookup(name)
		assert.True(t, slices.ContainsFunc(d.CaughtBy, func(id string) bool { return serverRules[id] }), "the sample deviation %s is caught by no rule", name)
	}
}

// TestTheTapIsTransparentAndAcceptsTheLegalVariants sends the whole suite
// (both levels) through the tap to the mock serving every legal variant at
// once under its ss12000 profile, judged by the standard: the runner passes
// as it does without the tap (the tap changes nothing on the wire; the
// runner's known false alarms with the variants aside), and the tap reports
// no server fault (a behaviour the standard allows is never a fault). The runner
// sends wrong requests on purpose; those are the client faults the tap
// reports, each one a request the server refused.
func TestTheTapIsTransparentAndAcceptsTheLegalVariants(t *testing.T) {
	t.Parallel()
	tt := tapInFrontOfMock(t, mockserver.Options{Variants: mockserver.Variants, Profile: mockserver.ProfileSS12000}, rules.ProfileSS12000)
	code, out, runner := runConformance(t, append(tt.conformanceArgs(), "--profile", "ss12000", "--fail-on", "should", "--level", "write")...)
	assertLegal(t, runner, out, code, mockserver.Variants)
	assert.Greater(t, runner.Counts().Pass, 50)
	tapRep := tt.report()
	assert.Empty(t, failed(tapRep, rules.SideServer), "no server fault in legal variants")
	for _, r := range tapRep.Results {
		if r.Status != report.StatusFail || r.Side != rules.SideClient || r.ID == "client.walk-abandoned" {
			continue
		}
		for _, f := range r.Failures {
			require.NotNil(t, f.Exchange, r.ID)
			assert.True(t, f.Exchange.Status >= 400 && f.Exchange.Status < 500, "%s: a client fault in a request the server took (%d %s %s): %s",
				r.ID, f.Exchange.Status, f.Exchange.Method, f.Exchange.URL, f.Message)
		}
	}
	st := tt.tap.Stats()
	assert.Positive(t, st.Judged)
	assert.Equal(t, st.Seen, st.Judged, "nothing dropped with the judge on a whole core")
	passed := 0
	for _, r := range tapRep.Results {
		if r.Side == rules.SideServer && r.Status == report.StatusPass {
			passed++
		}
		if r.Status == report.StatusSkip {
			assert.NotEmpty(t, r.Reason, "%s: nothing to look at says why", r.ID)
		}
	}
	assert.Positive(t, passed, "server rules passed on evidence")
}

// TestTheTapCommand runs skolkit tap itself: it prints where to point the
// client, forwards, serves the live report, stops after --duration, writes
// its reports and exits 1 when a MUST fault was seen.
func TestTheTapCommand(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.New(mockserver.Options{Deviations: []string{deviation.TokenCacheable}})
	require.NoError(t, err)
	mock := httptest.NewServer(srv)
	defer mock.Close()
	dir := t.TempDir()
	jsonFile, htmlFile, junitFile := filepath.Join(dir, "tap.json"), filepath.Join(dir, "tap.html"), filepath.Join(dir, "tap.xml")
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- tapCmd([]string{"--listen", "127.0.0.1:0", "--target", mock.URL, "--duration", "3s", "--mask-personal-data",
			"--report", "json=" + jsonFile, "--report", "html=" + htmlFile, "--report", "junit=" + junitFile}, &stdout, &stderr)
	}()
	var base string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(stdout.String(), "\n") {
			if f := strings.Fields(line); len(f) >= 4 && f[0] == "skolkit" && f[1] == "tap" && f[2] == "on" {
				base = strings.TrimSuffix(f[3], ",")
				return true
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond)
	id, secret := srv.Credentials()
	resp, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the token endpoint through the tap")
	resp, err = http.Get(base + tap.PathReport)
	require.NoError(t, err)
	live, err := report.ReadJSON(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, "skolkit tap", live.Tool)

	code := <-done
	assert.Equal(t, 1, code, "a MUST fault of the server (token-cacheable) was seen\n%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "contract.auth.response")
	assert.NotContains(t, stdout.String(), secret, "the client secret is never shown")
	f, err := os.Open(jsonFile)
	require.NoError(t, err)
	defer f.Close()
	rep, err := report.ReadJSON(f)
	require.NoError(t, err)
	assert.Contains(t, failed(rep, rules.SideServer), "contract.auth.response")
	for _, file := range []string{htmlFile, junitFile} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Contains(t, string(data), "contract.auth.response")
		assert.NotContains(t, string(data), secret)
	}
	raw, _ := os.ReadFile(jsonFile)
	assert.NotContains(t, string(raw), secret)
	assert.Contains(t, string(raw), "$CLIENT_SECRET")
}

func TestTheTapCommandCannotStart(t *testing.T) {
	t.Parallel()
	busy := httptest.NewServer(http.NotFoundHandler())
	defer busy.Close()
	for name, args := range map[string][]string{
		"no target":         {},
		"relative target":   {"--target", "sis.example.org"},
		"bad profile":       {"--target", "http://h", "--profile", "standard"},
		"bad prefix":        {"--target", "http://h", "--register-prefix", "api/v1"},
		"address in use":    {"--target", "http://h", "--listen", strings.TrimPrefix(busy.URL, "http://")},
		"unwritable report": {"--target", "http://h", "--report", "json=/no/such/dir/tap.json"},
		"bad judge share":   {"--target", "http://h", "--judge-share", "2"},
		"unknown flag":      {"--target", "http://h", "--no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		code := tapCmd(args, &stdout, &stderr)
		assert.Equal(t, 2, code, "%s: %s", name, stderr.String())
		assert.NotEmpty(t, stderr.String(), name)
	}
}

// syncBuffer is a buffer written by one goroutine and read by another.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// clientRow is a reference client of the exam in a scene of the exam.
type clientRow struct {
	defect refclient.Defect
	iface  string // A or B
	scene  string
	want   string // the client rule that must fail; "" for the correct client
}

// tapClientSample are the rows a quick run puts behind the tap; .ci/run
// (SKOLKIT_KILL_MATRIX=full) runs every defect the traffic shows, on both
// interfaces, and the correct clients in every scene of a legal server.
var tapClientSample = []clientRow{
	{refclient.Correct, "B", exam.ScenePlain, ""},
	{refclient.Correct, "A", exam.SceneTokenExpiry, ""},
	{refclient.PageTokenWithFilters, "B", exam.ScenePlain, "client.pagetoken-with-filters"},
	{refclient.FirstPageOnly, "A", exam.ScenePlain, "client.walk-abandoned"},
	{refclient.Ignores429, "B", exam.SceneRateLimit, "client.ratelimit-before-reset"},
	{refclient.NeverRenewsToken, "A", exam.SceneTokenExpiry, "client.token-after-refusal"},
}

func tapClientRows() []clientRow {
	if !fullMatrix || raceEnabled {
		return tapClientSample
	}
	var rows []clientRow
	for _, iface := range []string{"A", "B"} {
		for _, scene := range []string{exam.ScenePlain, exam.ScenePaging, exam.SceneTokenExpiry, exam.SceneRateLimit} {
			rows = append(rows, clientRow{refclient.Correct, iface, scene, ""})
		}
		rows = append(rows,
			clientRow{refclient.FirstPageOnly, iface, exam.ScenePlain, "client.walk-abandoned"},
			clientRow{refclient.Ignores429, iface, exam.SceneRateLimit, "client.ratelimit-before-reset"},
			clientRow{refclient.NeverRenewsToken, iface, exam.SceneTokenExpiry, "client.token-after-refusal"})
	}
	return append(rows, clientRow{refclient.PageTokenWithFilters, "B", exam.ScenePlain, "client.pagetoken-with-filters"})
}

// TestTheTapReportsTheClientFaultsTheTrafficShows puts the tap between the
// exam's reference clients and the exam's scenes (the mock, behaving as a
// server may: paging, expiring tokens, rate limits). The tap judges the
// same traffic by the same client rules as the exam, so every client rule
// the exam finds the client at fault by, the tap reports too, as the
// client's fault; a broken client's defect is caught; the correct client
// is never accused; and the scenes, legal behaviours of a server, earn the
// server no fault.
func TestTheTapReportsTheClientFaultsTheTrafficShows(t *testing.T) {
	clientRules := ruleIDs(rules.SideClient)
	for _, row := range tapClientRows() {
		name := fmt.Sprintf("%s, interface %s, %s", row.defect, row.iface, row.scene)
		if row.defect == refclient.Correct {
			name = fmt.Sprintf("correct, interface %s, %s", row.iface, row.scene)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scenes, err := exam.SelectScenes([]string{row.scene})
			require.NoError(t, err)
			judging, err := tap.NewJudging(rules.Config{Profile: rules.ProfileService}, false)
			require.NoError(t, err)
			var tp *tap.Tap
			var front *httptest.Server
			client := exam.Func(func(ctx context.Context, r exam.Round) error {
				if tp == nil { // the exam's URLs are the same for every round
					target, err := url.Parse(r.Env.AuthURL)
					if err != nil {
						return err
					}
					if tp, err = tap.New(tap.Options{Target: target, Observer: judging, JudgeShare: 1}); err != nil {
						return err
					}
					front = httptest.NewServer(tp)
				}
				cfg := refclient.Config{TokenURL: front.URL + "/oauth/token", RegisterURL: front.URL + "/api/v1", BaseURL: front.URL + "/directory/v1",
					ClientID: r.Env.ClientID, ClientSecret: r.Env.ClientSecret, Dir: r.Dir, Defect: row.defect}
				if row.iface == "A" {
					return refclient.SyncA(ctx, cfg)
				}
				return refclient.SyncB(ctx, cfg)
			})
			res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes, Profile: rules.ProfileService}, client)
			require.NoError(t, err)
			require.NotNil(t, tp, "the client ran")
			front.Close()
			tp.Close()
			judging.Finish()
			rep := judging.Report(tap.Run{Started: time.Now(), Stats: tp.Stats()})

			byExam := map[string]bool{}
			for _, f := range res.Findings() {
				if clientRules[f.ID] && f.Verdict == exam.VerdictFault {
					byExam[f.ID] = true
				}
			}
			byTap := failed(rep, rules.SideClient)
			t.Logf("the exam: %v; the tap: client %v, %d exchanges judged", slices.Sorted(maps.Keys(byExam)), byTap, tp.Stats().Judged)
			for id := range byExam {
				assert.Contains(t, byTap, id, "the exam found the client at fault by %s over the traffic the tap saw; the tap did not", id)
			}
			if row.want == "" {
				assert.Empty(t, byTap, "the correct client is never accused")
			} else {
				assert.Contains(t, byTap, row.want, "the defect %s", row.defect)
			}
			assert.Empty(t, failed(rep, rules.SideServer), "the scene %s is a server's legal behaviour", row.scene)
			assert.Equal(t, tp.Stats().Seen, tp.Stats().Judged, "nothing dropped")
		})
	}
}

// BenchmarkTapJudging measures the tap's judge (both sides' rules) over
// answers of the mock as a client reads them: one placement by id again and
// again (the validation of an answer met again is remembered), and a mix of
// 1,000 different by-id reads and list pages (each validated anew once the
// memo has forgotten it). Figures in docs/performance.md#the-tap.
func BenchmarkTapJudging(b *testing.B) {
	srv, err := mockserver.New(mockserver.Options{})
	require.NoError(b, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	id, secret := srv.Credentials()
	var captured []*rules.Exchange
	capture := rules.Capture(srv, rules.CaptureOptions{Sink: func(ex *rules.Exchange) { captured = append(captured, ex) }})
	do := func(req *http.Request) *http.Response {
		rec := httptest.NewRecorder()
		capture.ServeHTTP(rec, req)
		return rec.Result()
	}
	treq := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}.Encode()))
	treq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp := do(treq)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&tok))
	get := func(path string) []byte {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		body, _ := io.ReadAll(do(req).Body)
		return body
	}
	ids := regexp.MustCompile(`"id":"([0-9a-f-]{36})"`)
	for _, kind := range []string{"placements", "persons", "groups", "duties"} {
		page := get("/api/v1/" + kind + "?limit=250")
		for _, m := range ids.FindAllSubmatch(page, -1) {
			get("/api/v1/" + kind + "/" + string(m[1]))
		}
	}
	byID := captured[2] // the first placement read by id
	require.Contains(b, byID.Path, "/placements/")
	require.Equal(b, http.StatusOK, byID.Status, "%s", byID.ResponseBody)
	for name, exs := range map[string][]*rules.Exchange{"same by-id read": {byID}, "mixed reads": captured[1:]} {
		b.Run(name, func(b *testing.B) {
			judging, err := tap.NewJudging(rules.Config{}, false)
			require.NoError(b, err)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				ex := *exs[i%len(exs)]
				judging.Observe(&ex)
				i++
			}
			b.ReportMetric(float64(len(exs)), "exchanges")
		})
	}
}

// TestTheTapStopsOnASignal runs skolkit tap as a process: on SIGINT it
// stops forwarding, writes its report and exits 0 when no fault was seen.
func TestTheTapStopsOnASignal(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.New(mockserver.Options{})
	require.NoError(t, err)
	mock := httptest.NewServer(srv)
	defer mock.Close()
	file := filepath.Join(t.TempDir(), "tap.json")
	cmd := exec.Command(os.Args[0], "tap", "--listen", "127.0.0.1:0", "--target", mock.URL, "--report", "json="+file)
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()
	sc := bufio.NewScanner(out)
	require.True(t, sc.Scan(), "the tap prints where it listens: %s", stderr.String())
	f := strings.Fields(sc.Text())
	require.True(t, len(f) >= 4 && f[2] == "on", sc.Text())
	base := strings.TrimSuffix(f[3], ",")
	go func() { _, _ = io.Copy(io.Discard, out) }()

	id, secret := srv.Credentials()
	resp, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait(), "exit 0: no fault seen\n%s", stderr.String())
	data, err := os.ReadFile(file)
	require.NoError(t, err, "the report is written at the stop")
	rep, err := report.ReadJSON(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, "skolkit tap", rep.Tool)
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "1 exchanges judged")
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "1 operations seen (exchanges): auth POST /oauth/token (1)")
}
