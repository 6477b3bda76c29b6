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
		old := debug.SetGCPercent(-1)
		go func() {
			defer close(contractPreloaded)
			defer debug.SetGCPercent(old)
			_, _ = openapi.Shared()
		}()
	})
}
