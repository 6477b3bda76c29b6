package openapi

import "github.com/getkin/kin-openapi/openapi3"

// The functions the generated documents_gen.go calls (internal/gengo): they
// build the kin-openapi types whose items are unexported, through their
// constructors and Set, as their UnmarshalJSON does.

func newPaths(ext map[string]any, items map[string]*openapi3.PathItem) *openapi3.Paths {
	x := fill(openapi3.NewPathsWithCapacity(len(items)), items)
	x.Extensions = ext
	return x
}

func newResponses(ext map[string]any, items map[string]*openapi3.ResponseRef) *openapi3.Responses {
	x := fill(openapi3.NewResponsesWithCapacity(len(items)), items)
	x.Extensions = ext
	return x
}

func newCallback(ext map[string]any, items map[string]*openapi3.PathItem) *openapi3.Callback {
	x := fill(openapi3.NewCallbackWithCapacity(len(items)), items)
	x.Extensions = ext
	return x
}

// fill sets every item of a map-like kin-openapi value and returns it.
func fill[M interface{ Set(string, V) }, V any](x M, items map[string]V) M {
	for k, v := range items {
		x.Set(k, v)
	}
	return x
}

func ptr[T any](v T) *T { return &v }
