package store_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkLoadLarge loads the large built-in scenario (100 000 placements,
// about 20 000 persons, 100 000 attendance records) into an empty store.
// Building the data is not measured; see scenarios.BenchmarkBuildLarge.
// Besides wall time it reports the process's CPU time per load (cpu-ms/op,
// all goroutines and the collector), which other load on the machine
// disturbs less than wall time.
func BenchmarkLoadLarge(b *testing.B) {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	ds, err := sc.Build(now)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		st := store.New(func() time.Time { return now })
		if err := st.Load(ds); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(n), "cpu-ms/op")
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
