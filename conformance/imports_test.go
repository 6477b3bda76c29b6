package conformance

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuiltIndependentlyOfTheMock enforces the package's one hard rule: no
// file here, tests included, imports the mock or what the mock is built
// from. The runner must catch the mock's mistakes, not share them.
func TestBuiltIndependentlyOfTheMock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, banned := range []string{"mockserver", "fixtures", "model", "scenarios"} {
				assert.False(t, strings.HasPrefix(p, "github.com/skolkit/skolkit/"+banned), "%s imports %s", f, p)
			}
			// The table of the mock's deviations is for the tests (the
			// fake) and for the catalogue's documentation; the checks and
			// the runner judge by the spec alone.
			if !strings.HasSuffix(f, "_test.go") && f != "report_list.go" {
				assert.NotEqual(t, "github.com/skolkit/skolkit/deviation", p, "%s imports %s", f, p)
			}
		}
	}
}
