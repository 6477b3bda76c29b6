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
		beginGCPhase("contract", -1)
		go func() {
			defer close(contractPreloaded)
			defer endGCPhase("contract")
			_, _ = openapi.Shared()
		}()
	})
}

// loadGCPercent is the collector's setting while serve builds and loads its
// scenario: the data set is kept whole, so a collection while the heap grows
// to it marks the same records again and again. At 400 the large scenario's
// start costs about 0.6 s of CPU less and 70 MB more at its peak
// (docs/performance.md).
const loadGCPercent = 400

// gcPhases are the phases of start-up that want the collector set otherwise
// (the contract preload: off; the scenario load: loadGCPercent), and the
// setting before the first, restored when the last ends. While several run,
// the most lenient setting holds.
var gcPhases struct {
	sync.Mutex
	before int
	active map[string]int
}

func beginGCPhase(name string, percent int) {
	gcPhases.Lock()
	defer gcPhases.Unlock()
	if len(gcPhases.active) == 0 {
		gcPhases.before = debug.SetGCPercent(-1)
		gcPhases.active = map[string]int{}
	}
	gcPhases.active[name] = percent
	applyGCPhases()
}

func endGCPhase(name string) {
	gcPhases.Lock()
	defer gcPhases.Unlock()
	delete(gcPhases.active, name)
	if len(gcPhases.active) == 0 {
		debug.SetGCPercent(gcPhases.before)
		return
	}
	applyGCPhases()
}

// applyGCPhases sets the most lenient setting of the active phases (off, or
// the largest percentage), never stricter than the setting before them.
func applyGCPhases() {
	p := gcPhases.before
	for _, q := range gcPhases.active {
		switch {
		case p < 0 || q < 0:
			p = -1
		default:
			p = max(p, q)
		}
	}
	debug.SetGCPercent(p)
}
