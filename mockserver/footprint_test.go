package mockserver

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/scenarios"
)

// TestBuildFootprintOfLarge: BuildFootprint of the municipality-sized
// scenario is within about a quarter of the heap memory New takes to build
// it. It builds a million calendar events, so it runs only when
// SKOLKIT_LARGE=1 (.ci/run sets it).
func TestBuildFootprintOfLarge(t *testing.T) {
	if os.Getenv("SKOLKIT_LARGE") != "1" {
		t.Skip("builds a million calendar events: set SKOLKIT_LARGE=1 to run it (.ci/run does)")
	}
	sc, err := scenarios.Builtin("large")
	require.NoError(t, err)
	retained := func() int64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapSys - ms.HeapReleased)
	}
	before := retained()
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	srv, err := New(Options{Scenario: sc, Now: func() time.Time { return now }})
	require.NoError(t, err)
	used := retained() - before
	estimate := BuildFootprint(sc)
	t.Logf("BuildFootprint %d MB, heap retained by New %d MB", estimate>>20, used>>20)
	assert.InEpsilon(t, float64(used), float64(estimate), 0.25, "BuildFootprint against the heap New retained")
	runtime.KeepAlive(srv)
}
