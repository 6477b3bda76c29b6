package main

import (
	"runtime"
	"sync"
)

// minPrefault is the smallest build worth faulting in ahead: below it the
// page faults cost less than a millisecond or two.
const minPrefault = 128 << 20

// prefaultHeap makes the next n bytes the Go heap hands out resident before
// they are used, when n is at least minPrefault and the system can: it
// allocates n bytes, asks the kernel to fault them in (populateWrite, one
// system call per core rather than a page fault per 4 KiB page), and frees
// them again, so that the allocations that follow reuse memory that is
// already mapped. On the 2-core virtual machines this was measured on, a
// page fault costs 7–17 µs and a populated page about a tenth of that:
// `serve --scenario large` touches about 1 GB, and this takes about 1.6 s off
// its start (docs/decisions.md#prefault). Where the kernel cannot (not Linux, or Linux
// before 5.14) it does nothing and the pages fault in as they are used.
func prefaultHeap(n int64) {
	if n < minPrefault || !canPopulate {
		return
	}
	if half := physicalMemory() / 2; half > 0 && n > half {
		n = half
	}
	b := make([]byte, n)
	parts := min(runtime.GOMAXPROCS(0), 4)
	step := (len(b) / parts) &^ (1<<12 - 1)
	var wg sync.WaitGroup
	for i := range parts {
		part := b[i*step:]
		if i < parts-1 {
			part = part[:step]
		}
		wg.Go(func() { populateWrite(part) })
	}
	wg.Wait()
	b = nil
	// Free the block now: left to the collector's next cycle, it would
	// count as live heap and double the goal of the cycle after.
	runtime.GC()
}
