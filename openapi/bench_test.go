package openapi

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// BenchmarkLoad measures loading the whole contract as a process does once at
// start-up (Shared calls Load): every embedded document parsed and ready for
// request validation.
//
//	go test -run '^$' -bench 'Load$' -benchtime 10x -benchmem ./openapi/
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadDocument measures each document alone, in its steps: parsing
// the YAML source or the generated JSON with kin-openapi's loader, building
// it as Load does (the generated function),
// validating the parsed document, and rendering it as JSON. Load does only
// the third.
//
//	go test -run '^$' -bench 'LoadDocument' -benchtime 10x -benchmem ./openapi/
func BenchmarkLoadDocument(b *testing.B) {
	for _, d := range documents {
		src, err := files.ReadFile(d.file)
		if err != nil {
			b.Fatal(err)
		}
		js := d.json
		parse := func(data []byte) *openapi3.T {
			doc, err := parse(d.name, data)
			if err != nil {
				b.Fatal(err)
			}
			return doc
		}
		b.Run(string(d.name)+"/parse-yaml", func(b *testing.B) {
			for b.Loop() {
				parse(src)
			}
		})
		b.Run(string(d.name)+"/parse-json", func(b *testing.B) {
			for b.Loop() {
				parse(js)
			}
		})
		b.Run(string(d.name)+"/build", func(b *testing.B) {
			for b.Loop() {
				d.build()
			}
		})
		b.Run(string(d.name)+"/validate", func(b *testing.B) {
			doc := parse(js)
			for b.Loop() {
				if err := doc.Validate(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(d.name)+"/render-json", func(b *testing.B) {
			doc := parse(js)
			for b.Loop() {
				if _, err := doc.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
