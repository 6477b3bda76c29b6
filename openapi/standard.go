package openapi

import (
	"fmt"
	"slices"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// Standard returns a document of the contract in standard mode: the same
// operations and schemas, with every choice of ours that is stricter than
// the official SS 12000 2.1.0 document (for the register) or RFC 6749 (for
// the token endpoint) relaxed to what the standard allows. The conformance
// runner validates responses against it under --profile ss12000, so that a
// server is never failed for a behaviour the standard permits.
//
// The register document is first the ss12000 profile's (RegisterSS12000:
// the standard's shapes where the service's spec changes them). The rules,
// each from the standard's own text:
//
//   - every operation may answer any other status with the standard's Error
//     body (the standard documents a `default` Error response on every
//     operation);
//   - a 404 has no documented content (the standard's 404 responses declare
//     none), so any body or none is accepted;
//   - no object is closed: `additionalProperties: false` is dropped (the
//     standard's schemas are open);
//   - `securityMarking` is nowhere required (the standard's PersonReference
//     does not require it);
//   - a page needs only `data` (the standard's Placements requires only
//     `data`; `pageToken` may be absent when nothing more can be fetched);
//   - a token response needs only `access_token` and `token_type`, whose
//     value is compared case-insensitively (RFC 6749 §5.1 makes `expires_in`
//     RECOMMENDED, §7.1 says the type is case-insensitive).
//
// The document is built afresh for each name (once per process) and is
// read-only; it panics if name is not in the contract.
func Standard(name Name) (*openapi3.T, error) {
	return relaxedOnce(name, ModeStandard)
}

// Service returns a document of the contract in service mode: the rules of
// Standard, except those where the service's spec says more than the
// standard. Person references keep `securityMarking` required (the spec:
// "Person references also carry `securityMarking`"), and the token response
// keeps its three fields and `Bearer` (the spec: "Token response: JSON with
// `access_token` (string), `token_type` (`Bearer`), `expires_in`"); only its
// closedness is relaxed (RFC 6749 §5.1 allows more members). The runner
// validates responses against it under --profile service, so that interface
// B is judged no more strictly than the standard unless the spec says so.
func Service(name Name) (*openapi3.T, error) {
	return relaxedOnce(name, ModeService)
}

// Mode says how far a document is relaxed.
type Mode int

// The modes.
const (
	ModeStandard Mode = iota
	ModeService
)

type relaxedKey struct {
	name Name
	mode Mode
}

var relaxedDocs sync.Map // relaxedKey → func() (*openapi3.T, error)

func relaxedOnce(name Name, mode Mode) (*openapi3.T, error) {
	f, _ := relaxedDocs.LoadOrStore(relaxedKey{name, mode}, sync.OnceValues(func() (*openapi3.T, error) {
		return loadRelaxed(name, mode)
	}))
	return f.(func() (*openapi3.T, error))()
}

func loadRelaxed(name Name, mode Mode) (*openapi3.T, error) {
	var build func() *openapi3.T
	for _, d := range documents {
		if d.name == name {
			build = d.build
		}
	}
	if build == nil {
		panic(fmt.Sprintf("openapi: no document named %q", name))
	}
	doc := build()
	if name == NameRegister && mode == ModeStandard {
		toSS12000(doc) // the standard's shapes where the spec changes them
	}
	relax(doc, mode)
	return doc, nil
}

// relax applies the rules of a mode to a freshly built document.
func relax(doc *openapi3.T, mode Mode) {
	errorSchema := (*openapi3.SchemaRef)(nil)
	if doc.Components != nil {
		errorSchema = doc.Components.Schemas["Error"]
	}
	seen := map[*openapi3.Schema]bool{}
	var walk func(r *openapi3.SchemaRef)
	walk = func(r *openapi3.SchemaRef) {
		if r == nil || r.Value == nil || seen[r.Value] {
			return
		}
		s := r.Value
		seen[s] = true
		if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
			s.AdditionalProperties = openapi3.AdditionalProperties{}
		}
		s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(k string) bool {
			switch k {
			case "securityMarking", "expires_in":
				return mode == ModeStandard
			case "pageToken":
				_, ok := s.Properties["data"]
				return ok
			}
			return false
		})
		if tt := s.Properties["token_type"]; tt != nil && tt.Value != nil && mode == ModeStandard {
			tt.Value.Enum = nil
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		walk(s.Not)
		for _, p := range s.Properties {
			walk(p)
		}
		for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range list {
				walk(c)
			}
		}
	}
	if doc.Components != nil {
		for _, s := range doc.Components.Schemas {
			walk(s)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Responses == nil {
				continue
			}
			for _, r := range op.Responses.Map() {
				if r.Value == nil {
					continue
				}
				for _, mt := range r.Value.Content {
					walk(mt.Schema)
				}
			}
			if r := op.Responses.Value("404"); r != nil && r.Value != nil {
				desc := "Not found (the standard documents no content)."
				op.Responses.Set("404", &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc, Headers: r.Value.Headers}})
			}
			if op.Responses.Default() == nil && errorSchema != nil {
				desc := "Any other status, with the standard's Error body."
				op.Responses.Set("default", &openapi3.ResponseRef{Value: &openapi3.Response{
					Description: &desc,
					Content:     openapi3.NewContentWithJSONSchemaRef(errorSchema),
				}})
			}
		}
	}
}
