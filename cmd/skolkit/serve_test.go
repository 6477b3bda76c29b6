package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/skolkit/skolkit/exam/refclient"
)

// envRunMain makes the test binary run skolkit's main instead of the tests,
// so that tests can start the real command as a subprocess without building
// it (the test binary is already built, with -race when the tests are).
const envRunMain = "SKOLKIT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
	}
	if os.Getenv(refclient.EnvInterface) != "" {
		// The test binary as a reference client of skolkit exam.
		os.Exit(refclient.Main(os.Stderr))
	}
	os.Exit(m.Run())
}

// serveProcess is `skolkit serve` running as a subprocess.
type serveProcess struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	exited chan error
	done   bool // the exit has been received from exited
}

var reServing = regexp.MustCompile(`serving scenario "[^"]*" on (http://\S+)`)

// startServe starts `skolkit serve args...` and waits until it prints the
// address it listens on.
func startServe(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), envRunMain+"=1", "SKOLKIT_ADMIN_TOKEN=")
	return startServeCommand(t, cmd)
}

// startServeCommand starts a prepared `skolkit serve` command (a built
// binary, an environment of its own) and waits until it prints the address
// it listens on.
func startServeCommand(t *testing.T, cmd *exec.Cmd) *serveProcess {
	t.Helper()
	p := &serveProcess{exited: make(chan error, 1), cmd: cmd}
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() {
		if !p.done {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.stdout.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if m := reServing.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, out)
		p.exited <- p.cmd.Wait()
	}()
	select {
	case p.base = <-addr:
	case err := <-p.exited:
		p.exited <- err
		t.Fatalf("skolkit serve exited before serving (%v): %s", err, p.output())
	case <-time.After(60 * time.Second):
		t.Fatalf("skolkit serve did not start within a minute: %s", p.output())
	}
	return p
}

// waitFor waits until the output contains s.
func (p *serveProcess) waitFor(t *testing.T, s string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(p.output(), s) }, 10*time.Second, 10*time.Millisecond,
		"output does not show %q", s)
}

func (p *serveProcess) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "stdout:\n" + p.stdout.String() + "stderr:\n" + p.stderr.String()
}

// stop sends SIGTERM and returns the exit code.
func (p *serveProcess) stop(t *testing.T) int {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.exited:
		p.done = true
	case <-time.After(30 * time.Second):
		t.Fatalf("skolkit serve did not stop within 30 s of SIGTERM: %s", p.output())
	}
	return p.cmd.ProcessState.ExitCode()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// call sends a request with the legacy interface-A credentials of the
// built-in scenarios' client and decodes a JSON answer into v.
func call(t *testing.T, method, url, body string, header http.Header, v any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Client-ID", "skolkit-client")
	req.Header.Set("Client-Secret", "skolkit-secret")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if v != nil && resp.StatusCode < 300 {
		require.NoError(t, json.Unmarshal(data, v), "%s %s: %s", method, url, data)
	}
	return resp.StatusCode
}

func TestServeStateFileSurvivesASIGTERMRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--addr", "127.0.0.1:0", "--scenario", "edge-cases", "--state-file", file}

	first := startServe(t, append(args, "--admin-token", "admin-secret")...)
	first.waitFor(t, "state_file            "+file+" (new)")
	var schools struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.Equal(t, http.StatusOK, call(t, http.MethodGet, first.base+"/directory/v1/school", "", nil, &schools))
	require.NotEmpty(t, schools.Data)
	var group struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	status := call(t, http.MethodPost, first.base+"/directory/v1/group", fmt.Sprintf(`{"schoolID": %q, "title": "Restart"}`, schools.Data[0].ID), nil, &group)
	require.Equal(t, http.StatusCreated, status)

	// --admin-token: the control plane wants it, even on loopback.
	assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, first.base+"/__admin/clock", "", nil, nil))
	assert.Equal(t, http.StatusOK, call(t, http.MethodGet, first.base+"/__admin/clock", "", http.Header{"Authorization": {"Bearer admin-secret"}}, nil))

	require.Equal(t, 0, first.stop(t), first.output())
	first.waitFor(t, "state written to "+file)
	_, err := os.Stat(file)
	require.NoError(t, err, "the state file is written on shutdown")

	second := startServe(t, args...)
	second.waitFor(t, "state_file            "+file+" (loaded)")
	var again struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	require.Equal(t, http.StatusOK, call(t, http.MethodGet, second.base+"/directory/v1/group/"+group.ID, "", nil, &again), second.output())
	assert.Equal(t, "Restart", again.Title)
	assert.Equal(t, http.StatusOK, call(t, http.MethodGet, second.base+"/__admin/clock", "", nil, nil), "no token: open on loopback")
	require.Equal(t, 0, second.stop(t), second.output())
}

func TestServeRefusesANonLoopbackAddressWithoutAdminToken(t *testing.T) {
	t.Setenv("SKOLKIT_ADMIN_TOKEN", "")
	var stdout, stderr bytes.Buffer
	code := run([]string{"serve", "--addr", "0.0.0.0:0", "--scenario", "empty"}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "refusing to listen on ")
	assert.Contains(t, stderr.String(), "--admin-token")
	assert.Empty(t, stdout.String())
}

func TestServeHelpDoesNotPrintTheAdminToken(t *testing.T) {
	t.Setenv("SKOLKIT_ADMIN_TOKEN", "do-not-print-me")
	var stdout, stderr bytes.Buffer
	t.Setenv("SKOLKIT_CLIENT_SECRET", "nor-me")
	assert.Equal(t, 0, run([]string{"serve", "-h"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "-admin-token")
	assert.Contains(t, stdout.String(), "-state-file")
	assert.NotContains(t, stdout.String()+stderr.String(), "do-not-print-me")
	assert.NotContains(t, stdout.String()+stderr.String(), "nor-me")
}

// `skolkit serve` serves each contract document at its surface's
// openapi.json exactly as `skolkit spec -json` prints it: the rendering of the
// YAML source (the openapi package's tests hold the two together).
func TestServeServesTheContractAsSpecPrintsIt(t *testing.T) {
	p := startServe(t, "--addr", "127.0.0.1:0")
	for _, tc := range []struct{ name, path string }{
		{"register", "/api/v1/openapi.json"},
		{"directory", "/directory/v1/openapi.json"},
		{"export", "/data-export/v1/openapi.json"},
		{"admin", "/__admin/openapi.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec, errOut bytes.Buffer
			require.Equal(t, 0, run([]string{"spec", "-json", tc.name}, &spec, &errOut), errOut.String())
			resp, err := http.Get(p.base + tc.path)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assert.Equal(t, strings.TrimSuffix(spec.String(), "\n"), string(body))
		})
	}
}

// The banner says which profile serves and names the deviations and legal
// variants a scenario switches on; /healthz names the profile too.
func TestServeBannerNamesProfileDeviationsAndVariants(t *testing.T) {
	file := filepath.Join(t.TempDir(), "odd.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`name: odd
clients: [{id: c, secret: s, scopes: [all]}]
generate: {profile: none, schoolUnits: 1}
behaviours: {deviations: [endDate-filter-drops-open-ended], variants: [empty-404, clamped-limit]}
`), 0o644))
	for _, tc := range []struct {
		args    []string
		profile string
		lines   []string
	}{
		{nil, "service", []string{ // the default scenario, which has a read-only client
			"  limited_client_id     ", // the read-only client's lines in the column of the others
			"  limited_client_secret ",
		}},
		{[]string{"--scenario", file, "--profile", "ss12000"}, "ss12000", []string{
			"  deviations            endDate-filter-drops-open-ended ",
			"  variants              clamped-limit, empty-404 ",
		}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			p := startServe(t, append([]string{"--addr", "127.0.0.1:0"}, tc.args...)...)
			p.waitFor(t, "  profile               "+tc.profile+" ")
			assertBannerAligned(t, p.output())
			for _, l := range tc.lines {
				p.waitFor(t, l)
			}
			if tc.profile == "service" {
				assert.NotContains(t, p.output(), "deviations", "no deviations switched on, none named")
				assert.NotContains(t, p.output(), "variants ")
			}
			resp, err := http.Get(p.base + "/healthz")
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tc.profile, resp.Header.Get("Skolkit-Profile"))
			require.Equal(t, 0, p.stop(t), p.output())
		})
	}
	t.Run("an unknown profile", func(t *testing.T) {
		code, out, errOut := runCLI("serve", "--addr", "127.0.0.1:0", "--scenario", "empty", "--profile", "iso")
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, `unknown profile "iso"; known: service, ss12000`)
		assert.Empty(t, out)
	})
}

// assertBannerAligned asserts that every line of serve's banner (the
// indented lines of its standard output) has its value in one column, the
// read-only client's lines included.
func assertBannerAligned(t *testing.T, output string) {
	t.Helper()
	stdout, _, _ := strings.Cut(strings.TrimPrefix(output, "stdout:\n"), "stderr:\n")
	label := regexp.MustCompile(`^  (listening on|[a-z_]+) +`)
	column, lines := -1, 0
	for line := range strings.Lines(stdout) {
		m := label.FindString(line)
		if m == "" {
			continue
		}
		lines++
		if column < 0 {
			column = len(m)
		}
		assert.Equal(t, column, len(m), "the value of %q starts in another column than the others':\n%s", strings.TrimSpace(m), stdout)
	}
	assert.GreaterOrEqual(t, lines, 8, "the banner's lines:\n%s", stdout)
}

// `skolkit spec -profile ss12000 register` prints interface B's document as
// `skolkit serve --profile ss12000` serves it, as JSON byte for byte and as
// YAML that reads as the same document.
func TestSpecPrintsTheSS12000ProfileAsServed(t *testing.T) {
	p := startServe(t, "--addr", "127.0.0.1:0", "--profile", "ss12000")
	resp, err := http.Get(p.base + "/api/v1/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	served, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", served)

	var js, yml, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"spec", "-json", "-profile", "ss12000", "register"}, &js, &errOut), errOut.String())
	assert.Equal(t, string(served), strings.TrimSuffix(js.String(), "\n"))
	assert.Contains(t, js.String(), `"x-skolkit-profile":"ss12000"`)

	require.Equal(t, 0, run([]string{"spec", "--profile=ss12000", "register"}, &yml, &errOut), errOut.String())
	var fromYAML, fromJSON any
	require.NoError(t, yaml.Unmarshal(yml.Bytes(), &fromYAML))
	asJSON, err := json.Marshal(fromYAML) // numbers as JSON reads them
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(asJSON, &fromYAML))
	require.NoError(t, json.Unmarshal(served, &fromJSON))
	assert.Equal(t, fromJSON, fromYAML, "the YAML is the served document")

	errOut.Reset()
	assert.Equal(t, exitUsage, run([]string{"spec", "-profile", "nope", "register"}, &js, &errOut))
	assert.Contains(t, errOut.String(), `unknown profile "nope"`)
}
