package scenarios_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skolkit/skolkit/scenarios"
)

// FuzzParse checks that Parse never panics and either returns a scenario or
// a *LoadError with at least one problem, never both. Seeds: testdata/fuzz
// and the built-in scenarios.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("builtin/*.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no built-in scenarios: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, src := range []string{
		"name: t\n",
		"name: t\nclock: real\nbehaviours:\n  latency: [{route: GET /x*, delay: 1ms-2ms}]\n",
		"name: t\nrecords:\n  persons: [{alias: a, givenName: A, familyName: B, civicNo: \"20200101TF01\"}]\n",
	} {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenarios.Parse("f.yaml", data)
		if err == nil {
			if sc == nil {
				t.Fatal("no scenario and no error")
			}
			return
		}
		if sc != nil {
			t.Fatal("a scenario and an error")
		}
		var le *scenarios.LoadError
		if !errors.As(err, &le) || len(le.Problems) == 0 {
			t.Fatalf("want a *LoadError with problems, got %T %v", err, err)
		}
	})
}
