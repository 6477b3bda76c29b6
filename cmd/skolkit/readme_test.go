package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	markRuns   = "<!-- README test: runs -->"
	markNotRun = "<!-- README test: not run ("
)

type shBlock struct {
	line int
	runs bool
	code string
}

// readmeShellBlocks returns README.md's ```sh blocks; each must be marked,
// on the line before it, as run by the README test or not run (with why).
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
		b := shBlock{line: n, runs: prev == markRuns}
		if !b.runs && !strings.HasPrefix(prev, markNotRun) {
			t.Errorf("README.md:%d: a ```sh block needs %q or %q...) on the line before it", n, markRuns, markNotRun)
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

// TestREADMEBlocksRunVerbatim runs the README's walkthrough: every shell
// block marked as run, in order, in one shell, against `skolkit serve`
// started as the README starts it (on a free port instead of 8080: the one
// change made to the blocks), with `skolkit` on the PATH. A block that fails
// (curl -f fails on an HTTP error) fails the test. It also holds the
// README's copy of what serve prints to what it prints.
func TestREADMEBlocksRunVerbatim(t *testing.T) {
	bash, err := exec.LookPath("bash")
	require.NoError(t, err, "the README test needs bash")
	_, err = exec.LookPath("curl")
	require.NoError(t, err, "the README test needs curl, as the walkthrough does")
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(data)

	p := startServe(t, "--addr", "127.0.0.1:0")
	addr := strings.TrimPrefix(p.base, "http://")

	// What serve prints.
	_, after, ok := strings.Cut(readme, "`skolkit serve` prints the URLs and the client credentials to use:\n\n```\n")
	require.True(t, ok, "README.md shows what serve prints")
	banner, _, _ := strings.Cut(after, "```\n")
	p.waitFor(t, "admin ")
	out := p.output()
	out = strings.TrimPrefix(out, "stdout:\n")
	assert.True(t, strings.HasPrefix(out, strings.ReplaceAll(banner, "127.0.0.1:8080", addr)),
		"README.md's copy of serve's output differs from it:\n%s", out)

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	runs := 0
	for _, b := range readmeShellBlocks(t, readme) {
		if b.runs {
			fmt.Fprintf(&script, "echo '== README.md:%d'\n%s", b.line, strings.ReplaceAll(b.code, "127.0.0.1:8080", addr))
			runs++
		}
	}
	require.GreaterOrEqual(t, runs, 5, "the walkthrough's blocks are marked to run")

	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	self, err := os.Executable()
	require.NoError(t, err)
	shim := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", envRunMain, self)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "skolkit"), []byte(shim), 0o755))
	work := filepath.Join(dir, "work")
	require.NoError(t, os.Mkdir(work, 0o755))

	cmd := exec.Command(bash, "-c", script.String())
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "SKOLKIT_CLIENT_SECRET=", "SKOLKIT_ADMIN_TOKEN=")
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "the README's blocks failed:\n%s\n\nscript:\n%s", output, script.String())
	text := string(output)
	assert.Contains(t, text, `"pageToken":"`)
	assert.Regexp(t, `(?i)\nratelimit-limit: \d+`, text)
	assert.Contains(t, text, `"assignmentRoles"`)
	assert.FileExists(t, filepath.Join(work, "report.html"))
	assert.FileExists(t, filepath.Join(work, "data", "syllabuses.json"))
}
