package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/scenarios"
)

// TestOnlyLargeBuildsArePrefaulted: the small built-in scenarios start
// without the prefault (it would cost them more than their page faults), the
// municipality-sized one with the 0.85 GB it touches (docs/decisions.md#prefault).
func TestOnlyLargeBuildsArePrefaulted(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		sc, err := scenarios.Builtin(name)
		require.NoError(t, err)
		n := mockserver.BuildFootprint(sc)
		if name == "large" {
			assert.Greater(t, n, int64(700<<20), "large touches about 0.85 GB")
			assert.Less(t, n, int64(1100<<20), "large touches about 0.85 GB")
		} else {
			assert.Less(t, n, int64(minPrefault), "%s: a small scenario is not prefaulted", name)
		}
	}
}
