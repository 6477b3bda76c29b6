package main

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheBinaryDoesNotLinkTesting: the test helper lives in
// mockserver/mocktest, so that the production binary does not link
// package testing (nor testify).
func TestTheBinaryDoesNotLinkTesting(t *testing.T) {
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command is needed to list the binary's dependencies")
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/skolkit/skolkit/mockserver")
	assert.False(t, slices.Contains(deps, "testing"), "skolkit links package testing")
	for _, d := range deps {
		assert.NotContains(t, d, "testify", "skolkit links %s", d)
	}
}

// TestDependenciesPointInward enforces who may import whom: the judges
// are built independently of the mock (so that each catches the other's
// mistakes), the rules know only the contract, and reports only the rules'
// vocabulary. Test files count too, except where a row says so.
func TestDependenciesPointInward(t *testing.T) {
	const module = "github.com/skolkit/skolkit/"
	for _, tc := range []struct {
		dir string
		// allowed, when set, is every skolkit package the files may import.
		allowed []string
		// banned are skolkit packages no file may import; bannedOutsideTests
		// those only the tests (and the files of docs) may.
		banned, bannedOutsideTests []string
		docs                       []string
	}{
		// The table of the mock's deviations is for the tests (the fake) and
		// for the catalogue's documentation; the checks and the runner judge
		// by the spec alone.
		{dir: "conformance", banned: []string{"mockserver", "fixtures", "model", "scenarios"}, bannedOutsideTests: []string{"deviation"}, docs: []string{"report_list.go"}},
		{dir: "rules", allowed: []string{"openapi"}},
		// The mock is judged, never a judge; its test helper (mocktest)
		// runs the exam for Go tests.
		{dir: "mockserver", banned: []string{"conformance", "rules", "exam", "tap", "report"}},
		{dir: "exam", banned: []string{"conformance", "tap"}},
		{dir: "report", allowed: []string{"rules"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("..", "..", tc.dir, "*.go"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			for _, f := range files {
				ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
				require.NoError(t, err)
				for _, imp := range ast.Imports {
					p, _ := strconv.Unquote(imp.Path.Value)
					pkg, ok := strings.CutPrefix(p, module)
					if !ok {
						continue
					}
					pkg, _, _ = strings.Cut(pkg, "/")
					if tc.allowed != nil {
						assert.Contains(t, tc.allowed, pkg, "%s imports %s", f, p)
					}
					assert.NotContains(t, tc.banned, pkg, "%s imports %s", f, p)
					if !strings.HasSuffix(f, "_test.go") && !slices.Contains(tc.docs, filepath.Base(f)) {
						assert.NotContains(t, tc.bannedOutsideTests, pkg, "%s imports %s", f, p)
					}
				}
			}
		})
	}
}
