package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefaultHeapLeavesMemoryResidentAndFree: after prefaultHeap the
// process holds the memory resident, and the heap does not keep the block
// alive. It measures the process's resident memory, which the package's
// other tests running in parallel and a busy machine's memory pressure
// change, so it runs only when SKOLKIT_MEMORY=1, alone in its process
// (.ci/run runs it so).
func TestPrefaultHeapLeavesMemoryResidentAndFree(t *testing.T) {
	if os.Getenv("SKOLKIT_MEMORY") != "1" {
		t.Skip("measures resident memory: set SKOLKIT_MEMORY=1 and run it alone (.ci/run does)")
	}
	if !canPopulate {
		t.Skip("this system cannot populate memory in one call (Linux 5.14 or later can)")
	}
	probe, err := syscall.Mmap(-1, 0, 1<<16, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	populateErr := syscall.Madvise(probe, madvPopulateWrite)
	require.NoError(t, syscall.Munmap(probe))
	if populateErr != nil {
		t.Skipf("the kernel cannot populate memory (MADV_POPULATE_WRITE: %v); prefaultHeap does nothing here", populateErr)
	}
	const n = minPrefault
	before := residentBytes(t)
	prefaultHeap(n)
	after := residentBytes(t)
	assert.Greater(t, after-before, int64(n)*3/4, "resident memory grows by the prefaulted bytes")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	assert.Less(t, ms.HeapAlloc, uint64(n/2), "the prefaulted block is freed")
}

// residentBytes is the process's resident memory (/proc/self/statm).
func residentBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	f := strings.Fields(string(b))
	require.GreaterOrEqual(t, len(f), 2)
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}
