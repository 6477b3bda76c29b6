package scenarios_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkBuildLarge builds the large built-in scenario: a municipality of
// about 55 000 persons with 100 000 placements and 1 000 000 calendar
// events. The mock builds it at start, before loading it.
func BenchmarkBuildLarge(b *testing.B) {
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var persons, placements, events int
	cpu0 := cpuTime()
	for b.Loop() {
		ds, err := sc.Build(testNow)
		if err != nil {
			b.Fatal(err)
		}
		persons, placements, events = len(ds.Persons), len(ds.Placements), len(ds.CalendarEvents)
	}
	if persons < 50000 || placements < 100000 || events < 1000000 {
		b.Fatalf("large has %d persons, %d placements and %d calendar events; want at least 50 000, 100 000 and 1 000 000",
			persons, placements, events)
	}
	b.ReportMetric(float64(persons), "persons")
	b.ReportMetric(float64(placements), "placements")
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the user and system CPU time the process has used (all
// goroutines and the collector): other load on a shared machine disturbs it
// less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkBuildEdgeCases(b *testing.B) {
	sc, err := scenarios.Builtin("edge-cases")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sc.Build(testNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseEdgeCases(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scenarios.Builtin("edge-cases"); err != nil {
			b.Fatal(err)
		}
	}
}
