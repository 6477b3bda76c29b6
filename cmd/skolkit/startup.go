package main

import (
	"runtime/debug"
	"sync"

	"github.com/skolkit/skolkit/openapi"
)

var (
	preloadOnce sync.Once
	// contractPreloaded is closed when the preloaded contract is loaded and
	// the collector's setting restored.
	contractPreloaded = make(chan struct{})
)

// preloadContract starts loading the contract (openapi.Shared) in the
// background, at most once per process, so that it loads while the command
// parses its flags and scenario and builds the scenario's data; mockserver.New
// then waits for it (and reports its error, if any).
//
// The garbage collector is off until the contract is loaded: the contract is
// a fixed amount of work that keeps much of what it allocates, so collecting
// while the heap grows from nothing would mark the same documents again and
// again. What the heap grows by in the meantime is bounded by that fixed work
// and by what the data load allocates in the same short window. The previous
// setting (GOGC) is restored afterwards.
func preloadContract() {
	preloadOnce.Do(func() {
		holdCollector(0)
		go func() {
			defer close(contractPreloaded)
			defer releaseCollector()
			_, _ = openapi.Shared()
		}()
	})
}

// collector counts the phases of the start that keep the garbage collector
// off: the collector is off while any holds it and back to its setting
// (GOGC) when the last lets go.
var collector struct {
	sync.Mutex
	holds   int
	percent int   // the setting before the first hold
	limit   int64 // the memory limit before the first hold
}

// holdCollector turns the garbage collector off until releaseCollector is
// called as often as holdCollector. A limit above 0 is a soft memory limit
// meanwhile (debug.SetMemoryLimit): should the heap reach it, the collector
// runs after all.
func holdCollector(limit int64) {
	collector.Lock()
	defer collector.Unlock()
	if collector.holds == 0 {
		collector.percent = debug.SetGCPercent(-1)
		collector.limit = debug.SetMemoryLimit(-1)
	}
	collector.holds++
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}

// releaseCollector ends a holdCollector; the last restores the collector's
// setting and memory limit.
func releaseCollector() {
	collector.Lock()
	defer collector.Unlock()
	if collector.holds--; collector.holds == 0 {
		debug.SetMemoryLimit(collector.limit)
		debug.SetGCPercent(collector.percent)
	}
}

// startBuild readies the process to build a scenario whose data takes about
// n bytes (mockserver.BuildFootprint) and returns what to call once it is
// built. A large build (minPrefault or more) has its memory faulted in ahead
// (prefaultHeap) and the collector off until then: the build keeps almost
// all it allocates, so collecting while its heap grows from nothing marks the
// same records again and again (at large, 0.6-0.9 s of CPU for some 130 MB
// of garbage; docs/decisions.md#collector-at-start). Should the heap reach twice n and 512 MiB more,
// the collector runs after all. The collector's next cycle, after the build,
// runs while the server serves.
func startBuild(n int64) (built func()) {
	if n < minPrefault {
		return func() {}
	}
	holdCollector(2*n + 512<<20)
	prefaultHeap(n)
	return releaseCollector
}
