package openapi

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// BenchmarkLoad measures loading the whole contract as a process does once at
// start-up (Shared calls Load): every embedded document parsed and made ready
// for request validation.
//
//	go test -run x -bench 'Load$' -benchtime 10x -benchmem ./openapi/
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadDocument measures each document alone, in its steps: parsing
// the embedded source, validating the parsed document, and rendering it as JSON.
//
//	go test -run x -bench 'LoadDocument' -benchtime 10x -benchmem ./openapi/
func BenchmarkLoadDocument(b *testing.B) {
	for _, d := range documents {
		src, err := files.ReadFile(d.file)
		if err != nil {
			b.Fatal(err)
		}
		parse := func() *openapi3.T {
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(src)
			if err != nil {
				b.Fatal(err)
			}
			return doc
		}
		b.Run(string(d.name)+"/parse", func(b *testing.B) {
			for b.Loop() {
				parse()
			}
		})
		b.Run(string(d.name)+"/validate", func(b *testing.B) {
			doc := parse()
			for b.Loop() {
				if err := doc.Validate(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(d.name)+"/json", func(b *testing.B) {
			doc := parse()
			for b.Loop() {
				if _, err := doc.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
