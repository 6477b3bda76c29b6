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

// TestGCPhasesHoldTheMostLenientSettingAndRestore: while start-up phases
// run the collector has the most lenient setting any of them wants, never a
// stricter one than before, and the setting before them comes back when the
// last ends.
func TestGCPhasesHoldTheMostLenientSettingAndRestore(t *testing.T) {
	preloadContract() // at most once per process
	<-contractPreloaded // no preload phase running alongside
	setting := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	for _, tc := range []struct {
		name            string
		before          int
		steps           []func()
		wantAfterEachOf []int
	}{
		{"contract then load, contract ends first", 100,
			[]func(){func() { beginGCPhase("c", -1) }, func() { beginGCPhase("l", 400) }, func() { endGCPhase("c") }, func() { endGCPhase("l") }},
			[]int{-1, -1, 400, 100}},
		{"load alone", 100,
			[]func(){func() { beginGCPhase("l", 400) }, func() { endGCPhase("l") }},
			[]int{400, 100}},
		{"never stricter than before", 800,
			[]func(){func() { beginGCPhase("l", 400) }, func() { endGCPhase("l") }},
			[]int{800, 800}},
		{"GOGC=off stays off", -1,
			[]func(){func() { beginGCPhase("l", 400) }, func() { endGCPhase("l") }},
			[]int{-1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := debug.SetGCPercent(tc.before)
			defer debug.SetGCPercent(old)
			for i, step := range tc.steps {
				step()
				assert.Equal(t, tc.wantAfterEachOf[i], setting(), "after step %d", i)
			}
		})
	}
}
