package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam/refclient"
)

// skolkit exam runs a real command: this test binary, which is a reference
// client when refclient.EnvInterface is set (TestMain).
func TestExamJudgesAClientCommand(t *testing.T) {
	t.Setenv(refclient.EnvInterface, "B")
	dir := t.TempDir()
	junit, js, html := filepath.Join(dir, "exam.xml"), filepath.Join(dir, "exam.json"), filepath.Join(dir, "exam.html")
	var out, errOut bytes.Buffer
	code := examCmd([]string{"--scenes", "plain,sparse", "--report", "junit=" + junit, "--report", "json=" + js, "--report", "html=" + html,
		"--", os.Args[0], "{register_url}"}, &out, &errOut)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "[plain 1] exit 0")
	assert.Contains(t, out.String(), "[sparse 1] exit 0")
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &suites))
	assert.Zero(t, suites.Failures)
	assert.Positive(t, suites.Tests)
	require.Len(t, suites.Suites, 2, "a suite per scene")
	for _, f := range []string{js, html} {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.Positive(t, fi.Size())
	}
}

func TestExamFailsABrokenClient(t *testing.T) {
	t.Setenv(refclient.EnvInterface, "B")
	t.Setenv(refclient.EnvDefect, string(refclient.FirstPageOnly))
	var out, errOut bytes.Buffer
	code := examCmd([]string{"--scenes", "plain", "--", os.Args[0]}, &out, &errOut)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "--- FAIL plain/client.walk-abandoned")
	assert.Contains(t, out.String(), "--- FAIL plain/exam.completeness.missing")
	assert.Contains(t, out.String(), "curl ")
	assert.NotContains(t, out.String(), "skolkit-secret", "the secret is never printed")
}

func TestExamCannotJudge(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  string // refclient.EnvInterface
		says string
	}{
		{"no command", []string{"--scenes", "plain"}, "", "no client command"},
		{"an unknown scene", []string{"--scenes", "plain,stormy", "--", "true"}, "", `unknown scene "stormy"`},
		{"an unknown task", []string{"--task", "backup", "--", "true"}, "", `unknown task "backup"`},
		{"--serve with a command", []string{"--serve", "--", "true"}, "", "either --serve or -- CLIENT-COMMAND"},
		{"one incremental round", []string{"--task", "incremental-sync", "--rounds", "1", "--", "true"}, "", "at least 2"},
		{"a command that cannot start", []string{"--scenes", "plain", "--", "./no-such-client"}, "", "no-such-client"},
		{"a client that never authenticates", []string{"--scenes", "plain", "--", os.Args[0]}, "nothing", "no authenticated request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(refclient.EnvInterface, tc.env)
			var out, errOut bytes.Buffer
			code := examCmd(tc.args, &out, &errOut)
			assert.Equal(t, 2, code)
			// A usage error on stderr; the causes of an exam that ran and
			// could not judge in its report on stdout.
			assert.Contains(t, out.String()+errOut.String(), tc.says)
		})
	}
}

func TestExamListsItsScenesAndFindings(t *testing.T) {
	var out bytes.Buffer
	require.Equal(t, 0, examCmd([]string{"--list"}, &out, &bytes.Buffer{}))
	for _, s := range []string{"plain", "token-expiry", "client.pagetoken-with-filters", "exam.completeness.missing"} {
		assert.Contains(t, out.String(), s)
	}
	out.Reset()
	require.Equal(t, 0, examCmd([]string{"-h"}, &out, &bytes.Buffer{}))
	assert.True(t, strings.HasPrefix(out.String(), "Usage: skolkit exam"))
}
