package client_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestREADMEShowsThisExample keeps README.md's Go example ("Use it from Go
// tests") equal to client_test.go, which go test compiles and runs.
func TestREADMEShowsThisExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("client_test.go")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "## Use it from Go tests")
	require.True(t, ok, `README.md has no section "## Use it from Go tests"`)
	_, block, ok := strings.Cut(section, "```go\n")
	require.True(t, ok, "the section has no ```go block")
	block, _, ok = strings.Cut(block, "```\n")
	require.True(t, ok, "the ```go block is not closed")
	require.Equal(t, string(example), block, "README.md's Go example differs from examples/gotest/client_test.go: copy the file into the README")
}
