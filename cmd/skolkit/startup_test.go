package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/openapi"
)

func TestPreloadContractLoadsItAndRestoresTheCollector(t *testing.T) {
	want := 100 // GOGC's default
	switch v := os.Getenv("GOGC"); v {
	case "":
	case "off":
		want = -1
	default:
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "GOGC=%s", v)
		want = n
	}
	preloadContract()
	preloadContract() // at most once per process
	<-contractPreloaded

	have := debug.SetGCPercent(want)
	assert.Equal(t, want, have, "the collector's setting after the contract is loaded")
	c, err := openapi.Shared()
	require.NoError(t, err)
	assert.NotEmpty(t, c.Names())
}

// TestCollectorHoldsNest: the collector is off while any phase of the start
// holds it, with the memory limit the last hold asked for, and back to its
// setting and limit when the last lets go, whichever order they end in.
func TestCollectorHoldsNest(t *testing.T) {
	preloadContract() // at most once per process: its hold has ended when
	<-contractPreloaded
	percent := debug.SetGCPercent(73)
	limit := debug.SetMemoryLimit(5 << 30)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	holdCollector(0)
	assert.Equal(t, -1, debug.SetGCPercent(-1), "off while held")
	holdCollector(3 << 30)
	assert.Equal(t, int64(3<<30), debug.SetMemoryLimit(-1), "the build's limit")
	releaseCollector()
	assert.Equal(t, -1, debug.SetGCPercent(-1), "still held once")
	releaseCollector()
	assert.Equal(t, 73, debug.SetGCPercent(73), "the setting is back")
	assert.Equal(t, int64(5<<30), debug.SetMemoryLimit(-1), "the limit is back")
}

// TestStartBuildHoldsTheCollectorOfLargeBuildsOnly: a small build starts
// with the collector as it is; a large one with it off until it is built
// (docs/decisions.md#collector-at-start).
func TestStartBuildHoldsTheCollectorOfLargeBuildsOnly(t *testing.T) {
	preloadContract()
	<-contractPreloaded
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)

	built := startBuild(minPrefault - 1)
	assert.Equal(t, 100, debug.SetGCPercent(100), "a small build leaves the collector on")
	built()
	assert.Equal(t, 100, debug.SetGCPercent(100))

	built = startBuild(minPrefault)
	assert.Equal(t, -1, debug.SetGCPercent(-1), "a large build turns it off")
	assert.Equal(t, int64(2*minPrefault+512<<20), debug.SetMemoryLimit(-1), "with a limit of twice the build and 512 MiB")
	built()
	assert.Equal(t, 100, debug.SetGCPercent(100), "and back on once built")
}
