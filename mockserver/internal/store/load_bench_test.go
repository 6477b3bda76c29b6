package store_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkLoadLarge loads the large built-in scenario (a municipality: about
// 55 000 persons, 100 000 placements, 1 000 000 calendar events) into an
// empty store: "copy" with Load, which copies every record, and "owned" with
// LoadOwned, which keeps the dataset's slices as the mock does (a fresh
// dataset is built for each round, outside the timer). Building the data is
// not measured; see scenarios.BenchmarkBuildLarge. Besides wall time it
// reports the process's CPU time spent in the loads (cpu-ms/op, all
// goroutines and the collector), which other load on the machine disturbs
// less than wall time.
func BenchmarkLoadLarge(b *testing.B) {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	for _, owned := range []bool{false, true} {
		name := "copy"
		if owned {
			name = "owned"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			n := 0
			var ds *store.Dataset
			for b.Loop() {
				b.StopTimer()
				if ds == nil || owned {
					ds = nil
					runtime.GC()
					if ds, err = sc.Build(now); err != nil {
						b.Fatal(err)
					}
					runtime.GC()
				}
				b.StartTimer()
				cpu0 := cpuTime()
				st := store.New(func() time.Time { return now })
				load := st.Load
				if owned {
					load = st.LoadOwned
				}
				if err := load(ds); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
				n++
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms/op")
		})
	}
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
