package main

import (
	"os/exec"
	"slices"
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
