package mockserver

import (
	"testing"
	"time"

	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkNewScenario measures mockserver.New for the default and the large
// built-in scenario from scratch: contract (loaded once per process, as in a
// real start), generating the data, deriving interface A's view, loading
// the store and the routes: every round pays for generation and load as a
// fresh process does.
func BenchmarkNewScenario(b *testing.B) {
	for _, name := range []string{"default", "large"} {
		b.Run(name, func(b *testing.B) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
			for b.Loop() {
				if _, err := New(Options{Scenario: sc, Now: func() time.Time { return now }}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
