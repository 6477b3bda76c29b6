// Command genjson renders each OpenAPI document of the openapi package (every
// *.yaml file in the working directory) as JSON in json/<name>.json, the
// bytes the package serves at .../openapi.json, and writes documents_gen.go:
// for each document a function that builds it as decoded from that JSON (see
// package gengo), which the package calls at start-up. It refuses a document
// that does not validate, and writes nothing then.
//
// Run it after changing a YAML document:
//
//	go generate ./openapi/
//
// TestEmbeddedJSONIsCurrent and TestGeneratedGoIsCurrent fail while any
// generated file is stale.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/openapi/internal/gengo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genjson:", err)
		os.Exit(1)
	}
}

func run() error {
	sources, err := filepath.Glob("*.yaml")
	if err != nil {
		return err
	}
	if len(sources) == 0 {
		return fmt.Errorf("no *.yaml documents in the working directory")
	}
	out := map[string][]byte{}
	var docs []gengo.Document
	for _, src := range sources {
		js, err := render(src)
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		out[filepath.Join("json", strings.TrimSuffix(src, ".yaml")+".json")] = js
		docs = append(docs, gengo.Document{Func: gengo.FuncName(src), JSON: js})
	}
	gosrc, err := gengo.Source("openapi", docs)
	if err != nil {
		return err
	}
	out[gengo.File] = gosrc
	if err := os.MkdirAll("json", 0o755); err != nil {
		return err
	}
	for file, js := range out {
		if err := os.WriteFile(file, js, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// render is what openapi.LoadFrom does to a document (parse without
// following external references, then validate) followed by the JSON
// rendering the package served before the JSON was generated.
func render(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("invalid: %w", err)
	}
	return doc.MarshalJSON()
}
