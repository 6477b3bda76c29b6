package scenarios_test

import (
	"testing"

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
