package main

import (
	"bytes"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// Every command's -h is written for people (a usage line, then prose and
// examples, then the flags), goes to stdout and exits 0; so do "skolkit
// help COMMAND" and "skolkit COMMAND --help".
func TestEveryCommandHasHelpForPeople(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {"help", name}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runCLI(args...)
				assert.Equal(t, 0, code)
				help := out
				assert.Empty(t, errOut)
				assert.Regexp(t, `(?m)^Usage:`, help)
				assert.Contains(t, help, "skolkit "+name)
				assert.Regexp(t, regexp.MustCompile(`(?m)^[A-Z][a-z]* [a-z]+ [A-Za-z]+ `), help, "a sentence that says what the command does")
				assert.NotContains(t, help, "Usage of ", "Go's bare flag usage")
			})
		}
	}
	// help itself, asked for help in every way, prints the usage.
	for _, args := range [][]string{{"help"}, {"help", "-h"}, {"help", "--help"}, {"help", "-help"}, {"help", "help"}, {"-h"}, {"--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(args...)
			assert.Equal(t, 0, code)
			assert.Empty(t, errOut)
			for name := range commands {
				assert.Contains(t, out, "skolkit "+name)
			}
		})
	}
}

// The same kind of error exits with the same code in every command: 2 for
// a command line or an input that keeps the command from starting.
func TestUsageErrorsExit2InEveryCommand(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nosuch.yaml")
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"serve", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--seed", "many"}, `invalid value "many" for flag -seed`},
		{[]string{"serve", "--scenario", missing}, missing + ": no such file"},
		{[]string{"serve", "--scenario", "no-such-scenario"}, `no built-in scenario "no-such-scenario"`},
		{[]string{"serve", "--state-file", filepath.Join(missing, "state.json")}, "--state-file: directory " + missing + ": no such file"},
		{[]string{"generate", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"generate", "--out", t.TempDir(), "--scenario", missing}, missing + ": no such file"},
		{[]string{"spec", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"spec", "nosuch"}, `no document "nosuch"`},
		{[]string{"scenarios", "validate", missing}, missing + ": no such file"},
		{[]string{"scenarios", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"conformance", "--bogus"}, "flag provided but not defined: -bogus"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tc.want)
			assert.Empty(t, out)
		})
	}
}

func TestServeReportsAnAddressInUseAsAUsageError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	code, _, errOut := runCLI("serve", "--scenario", "empty", "--addr", ln.Addr().String())
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "address already in use")
}

func TestGenerateChecksTheOutputDirectoryBeforeBuilding(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, _, errOut := runCLI("generate", "--scenario", "large", "--out", file)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "skolkit generate: --out: "+file)
}

// File errors are said in words: no such file, permission denied, a
// directory.
func TestFileErrorsSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"missing", &fs.PathError{Op: "open", Path: "x.yaml", Err: syscall.ENOENT}, "x.yaml: no such file"},
		{"not readable", &fs.PathError{Op: "open", Path: "x.yaml", Err: syscall.EACCES}, "x.yaml: permission denied"},
		{"a directory", &fs.PathError{Op: "read", Path: dir, Err: syscall.EISDIR}, dir + ": is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "x.yaml"
			if tc.name == "a directory" {
				name = dir
			}
			assert.Equal(t, tc.want, describeFileError(name, tc.err))
		})
	}
	if os.Geteuid() != 0 { // root reads every file
		file := filepath.Join(dir, "secret.yaml")
		require.NoError(t, os.WriteFile(file, []byte("name: x\n"), 0o000))
		code, _, errOut := runCLI("scenarios", "validate", file)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, file+": permission denied")
	}
}

func TestVersionPrintsTheModuleVersionAndPlatform(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(args...)
		require.Equal(t, 0, code, errOut)
		assert.Regexp(t, `^skolkit (v\d+\.\d+\.\d+\S*|\(devel\)|\(unknown\))\n`, out)
		assert.Regexp(t, `(?m)^go1\.\d+\S* \w+/\w+$`, out)
	}
	v := buildVersion{Version: "v1.2.3", Revision: "0123abc", Time: "2026-11-24T00:00:00Z", Modified: true, Go: "go1.26.8", Platform: "linux/amd64"}
	assert.Equal(t, "skolkit v1.2.3\nrevision 0123abc (2026-11-24T00:00:00Z), with uncommitted changes\ngo1.26.8 linux/amd64\n", v.String())
	v = buildVersion{Version: "(devel)", Go: "go1.26.8", Platform: "linux/amd64"}
	assert.Equal(t, "skolkit (devel)\nbuilt from a source tree without version information (release.sh and go install ...@VERSION record it)\ngo1.26.8 linux/amd64\n", v.String())
}

// In a container skolkit serve listens on every interface with the admin
// token from the environment; it prints loopback URLs that work from the
// same host and answers /healthz when ready.
func TestServeOnEveryInterfaceIsReadyAtHealthz(t *testing.T) {
	p := startServe(t, "--addr", ":0", "--scenario", "empty", "--admin-token", "t0ken")
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, p.base)
	p.waitFor(t, "(every interface)")
	resp, err := http.Get(p.base + "/healthz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "ok\n", string(body))
	assert.Equal(t, http.StatusUnauthorized, call(t, http.MethodGet, p.base+"/__admin/clock", "", nil, nil), "the control plane wants the token")
	assert.Equal(t, 0, p.stop(t), p.output())
}
