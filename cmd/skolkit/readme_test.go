package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	markInstalls = "<!-- README test: installs -->"
	markRuns     = "<!-- README test: runs -->"
	markNotRun   = "<!-- README test: not run ("
)

type shBlock struct {
	line     int
	installs bool // run in the clone's root, before the mock starts
	runs     bool // the walkthrough, against the started mock
	code     string
}

// readmeShellBlocks returns README.md's ```sh blocks; each must be marked,
// on the line before it, as the install, as run by the README test or as
// not run (with why).
func readmeShellBlocks(t *testing.T, readme string) []shBlock {
	t.Helper()
	var blocks []shBlock
	sc := bufio.NewScanner(strings.NewReader(readme))
	prev, n := "", 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line != "```sh" {
			if strings.TrimSpace(line) != "" {
				prev = line
			}
			continue
		}
		b := shBlock{line: n, runs: prev == markRuns, installs: prev == markInstalls}
		if !b.runs && !b.installs && !strings.HasPrefix(prev, markNotRun) {
			t.Errorf("README.md:%d: a ```sh block needs %q, %q or %q...) on the line before it", n, markInstalls, markRuns, markNotRun)
		}
		var code strings.Builder
		for sc.Scan() {
			n++
			if sc.Text() == "```" {
				break
			}
			code.WriteString(sc.Text() + "\n")
		}
		b.code = code.String()
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks
}

// TestREADMEBlocksRunVerbatim runs the README as a newcomer reads it, in
// shells whose PATH holds only the Go toolchain and the system's tools
// (bash, curl, sed): the install blocks in the clone's root, with GOBIN a
// temporary directory on that PATH (go install builds from the build cache,
// with no network); then `skolkit serve` as installed (on a free port
// instead of 8080: the one change made to the blocks); then every block of
// the walkthrough, in order, in one shell, in a directory of its own, twice
// in a row against the one mock: the walkthrough can be run again. A block
// that fails (curl --fail-with-body fails on an HTTP error) fails the test.
// It also holds the README's copy of what serve prints to what it prints.
func TestREADMEBlocksRunVerbatim(t *testing.T) {
	bash, err := exec.LookPath("bash")
	require.NoError(t, err, "the README test needs bash")
	_, err = exec.LookPath("curl")
	require.NoError(t, err, "the README test needs curl, as the walkthrough does")
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the README test needs the go command, as a newcomer does")
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(data)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)

	var install, walk strings.Builder
	install.WriteString("set -euo pipefail\n")
	walk.WriteString("set -euo pipefail\n")
	runs := 0
	blocks := readmeShellBlocks(t, readme)
	for _, b := range blocks {
		switch {
		case b.installs:
			fmt.Fprintf(&install, "echo '== README.md:%d'\n%s", b.line, b.code)
		case b.runs:
			fmt.Fprintf(&walk, "echo '== README.md:%d'\n%s", b.line, b.code)
			runs++
		}
	}
	require.GreaterOrEqual(t, runs, 5, "the walkthrough's blocks are marked to run")
	require.Contains(t, install.String(), "go install ./cmd/skolkit", "the README installs skolkit before the walkthrough")

	// A newcomer's environment: the Go toolchain and the system's tools on
	// PATH, skolkit nowhere until the README installs it.
	dir := t.TempDir()
	gobin := filepath.Join(dir, "gobin")
	work := filepath.Join(dir, "work")
	require.NoError(t, os.Mkdir(work, 0o755))
	goEnv := func(name string) string {
		out, err := exec.Command(goTool, "env", name).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}
	env := []string{
		"PATH=" + strings.Join([]string{gobin, filepath.Dir(goTool), "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		"HOME=" + os.Getenv("HOME"), "GOBIN=" + gobin,
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"),
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=",
	}
	shell := func(script, in string) string {
		t.Helper()
		cmd := exec.Command(bash, "--noprofile", "--norc", "-c", script)
		cmd.Dir, cmd.Env = in, env
		output, err := cmd.CombinedOutput()
		if err != nil {
			tail := output[max(0, len(output)-4000):] // where it failed
			require.NoError(t, err, "README.md's blocks failed; the end of their output:\n…%s\n\nscript:\n%s", tail, script)
		}
		return string(output)
	}

	out := shell(install.String(), root)
	require.FileExists(t, filepath.Join(gobin, "skolkit"), "the install block put skolkit in GOBIN:\n%s", out)
	assert.Contains(t, out, "skolkit", "skolkit version")

	serve := exec.Command(filepath.Join(gobin, "skolkit"), "serve", "--addr", "127.0.0.1:0")
	serve.Env = env
	p := startServeCommand(t, serve)
	addr := strings.TrimPrefix(p.base, "http://")

	// What serve prints.
	_, after, ok := strings.Cut(readme, "`skolkit serve` prints the URLs and the client credentials to use:\n\n```\n")
	require.True(t, ok, "README.md shows what serve prints")
	banner, _, _ := strings.Cut(after, "```\n")
	p.waitFor(t, "profile ")
	printed := strings.TrimPrefix(p.output(), "stdout:\n")
	assert.True(t, strings.HasPrefix(printed, strings.ReplaceAll(banner, "127.0.0.1:8080", addr)),
		"README.md's copy of serve's output differs from it:\n%s", printed)

	script := strings.ReplaceAll(walk.String(), "127.0.0.1:8080", addr)
	created := regexp.MustCompile(`\{"id":"([0-9a-f-]{36})"[^\n]*"identityNumber":"20150317-2388"`)
	for run := 1; run <= 2; run++ {
		text := shell(script, work)
		has := func(what, s string) {
			t.Helper()
			assert.True(t, strings.Contains(text, s), "run %d: %s (%q)", run, what, s)
		}
		has("a page with a pageToken", `"pageToken":"`)
		has("the group's assignment roles", `"assignmentRoles"`)
		assert.Regexp(t, `(?i)\nratelimit-limit: \d+`, text, "run %d: interface A's rate-limit headers", run)
		m := created.FindStringSubmatch(text)
		if assert.NotNil(t, m, "run %d: the student was created", run) {
			has("the student's deletion among the audit events", `"resource":"Student","resourceID":"`+m[1]+`"`)
		}
		assert.FileExists(t, filepath.Join(work, "report.html"))
		assert.FileExists(t, filepath.Join(work, "data", "syllabuses.json"))
	}
}
