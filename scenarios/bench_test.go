package scenarios_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/store"
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

// BenchmarkHeapPerRecordLarge reports the heap the store keeps for the large
// scenario, per stored record of every table (records, their strings and
// their index pages): the live heap after a collection with the loaded store
// less the live heap before the build. The dataset is handed over with
// LoadOwned, as the mock does, so the store keeps the built slices (and any
// spare capacity they have).
func BenchmarkHeapPerRecordLarge(b *testing.B) {
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for b.Loop() {
		before := heap()
		ds, err := sc.Build(testNow)
		if err != nil {
			b.Fatal(err)
		}
		n := len(ds.Organisations) + len(ds.Persons) + len(ds.Groups) + len(ds.Placements) + len(ds.Syllabuses) +
			len(ds.CalendarEvents) + len(ds.Attendances) + len(ds.Absences) + len(ds.Programmes) + len(ds.StudyPlans) +
			len(ds.SchoolUnitOfferings) + len(ds.Activities) + len(ds.AttendanceEvents) + len(ds.AttendanceSchedules) +
			len(ds.Grades) + len(ds.Resources) + len(ds.Rooms)
		st := store.New(time.Now)
		if err := st.LoadOwned(ds); err != nil {
			b.Fatal(err)
		}
		ds = nil
		after := heap()
		b.ReportMetric(float64(after-before)/float64(n), "B/record")
		b.ReportMetric(float64(n), "records")
		runtime.KeepAlive(st)
	}
}
