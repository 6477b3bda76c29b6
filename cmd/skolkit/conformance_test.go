package main

// End-to-end runs of the conformance suite against the real mock. The
// conformance package itself never imports the mock (it must catch the
// mock's mistakes); these tests put the two together.

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/internal/reference"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/scenarios"
)

// mockUnderTest starts the mock and returns the conformance flags that point
// at it. Interface A and the export are added when the mock serves them.
func mockUnderTest(t *testing.T, opts mockserver.Options) (*mockserver.Server, []string) {
	t.Helper()
	srv, err := mockserver.New(opts)
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id, secret := srv.Credentials()
	// --timeout: a bound against a hang, never a speed target (a busy
	// machine may take long to answer).
	args := []string{"-q", "--timeout", "2m", "--auth-url", hs.URL, "--register-url", hs.URL + "/api/v1", "--client-id", id, "--client-secret", secret}
	if lid, lsecret, ok := srv.ReadOnlyClient(); ok {
		args = append(args, "--limited-client-id", lid, "--limited-client-secret", lsecret)
	}
	if serves(t, hs.URL+"/directory/v1/openapi.json") {
		args = append(args, "--base-url", hs.URL+"/directory/v1")
	}
	if serves(t, hs.URL+"/data-export/v1/openapi.json") {
		args = append(args, "--export-url", hs.URL+"/data-export/v1")
	}
	return srv, args
}

func serves(t *testing.T, url string) bool {
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// recordIDs passes one id of each record kind interface B cannot list.
func recordIDs(srv *mockserver.Server) []string {
	ds := srv.Export()
	var args []string
	if len(ds.Syllabuses) > 0 {
		args = append(args, "--id", "syllabus="+ds.Syllabuses[0].ID)
	}
	if len(ds.Attendances) > 0 {
		args = append(args, "--id", "attendance="+ds.Attendances[0].ID)
	}
	if len(ds.Absences) > 0 {
		args = append(args, "--id", "absence="+ds.Absences[0].ID)
	}
	return args
}

// runConformance runs the command and returns its exit code, its output and
// the JSON report.
func runConformance(t *testing.T, args ...string) (int, string, *report.Report) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.json")
	var out, errOut bytes.Buffer
	code := conformanceCmd(append(args, "--report", "json="+file), &out, &errOut)
	if errOut.Len() > 0 {
		t.Logf("stderr: %s", errOut.String())
	}
	f, err := os.Open(file)
	require.NoError(t, err, "no report written; output:\n%s", out.String())
	defer f.Close()
	rep, err := report.ReadJSON(f)
	require.NoError(t, err)
	return code, out.String(), rep
}

// knownMockFindings are checks the mock fails today, with the finding. A
// failure listed here is logged instead of failing the test; an entry whose
// check passes again is logged as stale, to be removed. Every entry is a
// mock bug or a part of the mock still being built (the conformance suite
// must not bend to the mock: see the conformance package's doc).
var knownMockFindings = map[string]string{}

// assertClean fails on every failed or errored check, with its failures,
// and on every skip without a reason.
func assertClean(t *testing.T, rep *report.Report, out string) {
	t.Helper()
	for _, r := range rep.Results {
		known, isKnown := knownMockFindings[r.ID]
		if isKnown && r.Status == report.StatusPass {
			t.Errorf("stale entry in knownMockFindings: %s passes now; remove it", r.ID)
		}
		if isKnown && r.Status == report.StatusFail {
			t.Logf("known mock finding %s: %s", r.ID, known)
			continue
		}
		switch r.Status {
		case report.StatusFail, report.StatusError:
			var b strings.Builder
			for _, f := range r.Failures {
				b.WriteString("\n  " + f.Message)
				if f.Exchange != nil {
					b.WriteString("\n    " + f.Exchange.Curl + "\n    → " + f.Exchange.ResponseBody)
				}
			}
			t.Errorf("%s %s: %s%s", r.Status, r.ID, r.Reason, b.String())
		case report.StatusSkip:
			assert.NotEmpty(t, r.Reason, "%s skipped without a reason", r.ID)
		}
	}
	if t.Failed() {
		t.Logf("console output:\n%s", out)
	}
}

// assertExit expects exit 0, or 1 when only known findings failed.
func assertExit(t *testing.T, rep *report.Report, code int) {
	t.Helper()
	want := 0
	for _, r := range rep.Results {
		if _, known := knownMockFindings[r.ID]; known && r.Status == report.StatusFail && r.Severity == conformance.MUST {
			want = 1
		}
	}
	assert.Equal(t, want, code, "exit code")
}

func TestConformanceAgainstMockReadLevel(t *testing.T) {
	t.Parallel()
	srv, args := mockUnderTest(t, mockserver.Options{})
	args = append(args, recordIDs(srv)...)
	start := time.Now()
	code, out, rep := runConformance(t, args...)
	assertClean(t, rep, out)
	assertExit(t, rep, code)
	assert.Len(t, rep.Results, len(conformance.Catalogue())+len(conformance.Rules(conformance.ProfileService)), "every check and rule is reported")
	c := rep.Counts()
	assert.Greater(t, c.Pass, 70, "passes")
	t.Logf("read level: %d passed, %d skipped in %s", c.Pass, c.Skip, time.Since(start))
	// The secret never appears in what the command prints or writes.
	_, secret := srv.Credentials()
	assert.NotContains(t, out, secret)
}

func TestConformanceAgainstMockWriteLevel(t *testing.T) {
	t.Parallel()
	srv, args := mockUnderTest(t, mockserver.Options{})
	if !strings.Contains(strings.Join(args, " "), "--base-url") {
		t.Skip("the mock does not serve interface A yet: the write checks need it")
	}
	args = append(args, recordIDs(srv)...)
	args = append(args, "--level", "write", "--include", "*",
		"--include", "A.school.create", "--include", "A.school.update", "--include", "A.school.create-invalid", "--include", "A.school.update-invalid",
		"--include", "B.absences.create", "--include", "A.ratelimit.sequence")
	code, out, rep := runConformance(t, args...)
	assertClean(t, rep, out)
	assertExit(t, rep, code)
	for _, l := range rep.Leftovers {
		assert.Contains(t, l, "/school/", "only schools may be left behind")
	}
}

// TestConformanceAgainstEveryBuiltinScenario: the mock passes its own suite
// (write level) whichever built-in scenario it serves, its clock standing
// still (edge-cases) or its data empty; large is run by hand
// (docs/performance.md).
func TestConformanceAgainstEveryBuiltinScenario(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		if name == "large" || name == "default" { // default: the tests above
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Builtin(name)
			require.NoError(t, err)
			srv, args := mockUnderTest(t, mockserver.Options{Scenario: sc})
			args = append(args, recordIDs(srv)...)
			code, out, rep := runConformance(t, append(args, "--level", "write")...)
			assertClean(t, rep, out)
			assertExit(t, rep, code)
			assert.Positive(t, rep.Counts().Pass, "passes")
		})
	}
}

func TestConformanceExpiredTokens(t *testing.T) {
	t.Parallel()
	_, args := mockUnderTest(t, mockserver.Options{TokenTTL: time.Second})
	code, out, rep := runConformance(t, append(args, "--include", "auth")...)
	assertClean(t, rep, out)
	assertExit(t, rep, code)
	for _, r := range rep.Results {
		if strings.HasSuffix(r.ID, ".expired-token") && (r.ID == "auth.B.expired-token" || strings.Contains(strings.Join(args, " "), "--base-url")) {
			assert.Equal(t, report.StatusPass, r.Status, "%s: %s", r.ID, r.Reason)
		}
	}
}

func TestConformanceCommandLine(t *testing.T) {
	t.Parallel()
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := conformanceCmd(args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	t.Run("list prints the catalogue", func(t *testing.T) {
		code, out, _ := run("--list")
		assert.Equal(t, 0, code)
		assert.Contains(t, out, "B.placements.pagetoken-with-filter")
	})
	t.Run("help exits 0 and names every flag", func(t *testing.T) {
		code, out, errOut := run("-h")
		assert.Equal(t, 0, code)
		assert.Empty(t, errOut, "help goes to stdout")
		for _, f := range []string{"base-url", "register-url", "auth-url", "export-url", "client-id", "client-secret", "legacy-auth", "level", "include", "exclude", "timeout", "concurrency", "max-pages", "max-walk-bytes", "spec", "report", "fail-on", "list", "profile", "min-checks", "wait-for", "callback-listen", "callback-url", "callback-wait"} {
			assert.Contains(t, out, "-"+f)
		}
	})
	for name, args := range map[string][]string{
		"no URL":              {},
		"bad level":           {"--register-url", "http://127.0.0.1:1/api/v1", "--level", "admin"},
		"bad fail-on":         {"--register-url", "http://127.0.0.1:1/api/v1", "--fail-on", "may"},
		"bad report":          {"--register-url", "http://127.0.0.1:1/api/v1", "--report", "pdf=x.pdf"},
		"bad pattern":         {"--register-url", "http://127.0.0.1:1/api/v1", "--include", "B.[x"},
		"bad id":              {"--register-url", "http://127.0.0.1:1/api/v1", "--id", "syllabus=nope"},
		"relative URL":        {"--register-url", "/api/v1"},
		"unreachable server":  {"--register-url", "http://127.0.0.1:1/api/v1", "--timeout", "2s"},
		"missing spec file":   {"--register-url", "http://127.0.0.1:1/api/v1", "--spec", "/nonexistent.yaml"},
		"stray argument":      {"--register-url", "http://127.0.0.1:1/api/v1", "extra"},
		"bad profile":         {"--register-url", "http://127.0.0.1:1/api/v1", "--profile", "ss12001"},
		"negative min-checks": {"--register-url", "http://127.0.0.1:1/api/v1", "--min-checks", "-1"},
		"zero max-walk-bytes": {"--register-url", "http://127.0.0.1:1/api/v1", "--max-walk-bytes", "0"},
	} {
		t.Run(name+" is exit 2", func(t *testing.T) {
			code, _, errOut := run(args...)
			assert.Equal(t, 2, code, errOut)
			assert.NotEmpty(t, errOut)
		})
	}
}

// The secret in the environment is read after parsing, so -h never shows it
// as a flag default.
func TestConformanceHelpHidesSecret(t *testing.T) {
	t.Setenv("SKOLKIT_CLIENT_SECRET", "env-secret-value")
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, conformanceCmd([]string{"-h"}, &out, &errOut))
	assert.NotContains(t, out.String()+errOut.String(), "env-secret-value")
}

// TestConformanceUserSpec validates the mock's interface B answers against
// the official SS 12000 document as well (--spec): every answer must conform
// to it. Package reference finds the document (the test skips without it,
// and fails in CI).
func TestConformanceUserSpec(t *testing.T) {
	t.Parallel()
	ss12000 := reference.Path(t, reference.SS12000)
	_, args := mockUnderTest(t, mockserver.Options{})
	_, out, rep := runConformance(t, append(args, "--spec", ss12000, "--include", "B.placements.walk", "--include", "B.groups.by-id", "--include", "all.user-spec")...)
	var found bool
	for _, r := range rep.Results {
		if r.ID != "all.user-spec" {
			continue
		}
		found = true
		var msgs []string
		for _, f := range r.Failures {
			msgs = append(msgs, f.Message)
		}
		assert.Equal(t, report.StatusPass, r.Status, "%s: %s\n%s\n%s", r.ID, r.Reason, strings.Join(msgs, "\n"), out)
		assert.NotEmpty(t, r.Notes, "the check says how many answers it validated")
	}
	assert.True(t, found, "all.user-spec ran\n%s", out)
}
