package scenarios_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkBuildLarge builds the large built-in scenario: 100 000
// placements and about 20 000 persons. The mock loads it at start, so it
// should stay well under a second.
func BenchmarkBuildLarge(b *testing.B) {
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var persons, placements int
	for b.Loop() {
		ds, err := sc.Build(testNow)
		if err != nil {
			b.Fatal(err)
		}
		persons, placements = len(ds.Persons), len(ds.Placements)
	}
	if persons < 20000 || placements < 100000 {
		b.Fatalf("large has %d persons and %d placements; want at least 20 000 and 100 000", persons, placements)
	}
	b.ReportMetric(float64(persons), "persons")
	b.ReportMetric(float64(placements), "placements")
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
// (the dataset dropped: the store keeps its own copy of every record) less
// the live heap before the build.
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
		if err := st.Load(ds); err != nil {
			b.Fatal(err)
		}
		ds = nil
		after := heap()
		b.ReportMetric(float64(after-before)/float64(n), "B/record")
		b.ReportMetric(float64(n), "records")
		runtime.KeepAlive(st)
	}
}
