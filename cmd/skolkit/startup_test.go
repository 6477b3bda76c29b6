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
