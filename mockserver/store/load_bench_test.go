package store_test

import (
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkLoadLarge loads the large built-in scenario (100 000 placements,
// about 20 000 persons, 100 000 attendance records) into an empty store.
// Building the data is not measured; see scenarios.BenchmarkBuildLarge.
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
	for b.Loop() {
		st := store.New(func() time.Time { return now })
		if err := st.Load(ds); err != nil {
			b.Fatal(err)
		}
	}
}
