package surface

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/openapi"
)

// Endpoint is one operation a surface serves: method, path template and
// handler, with the scope it needs ("" = no authentication) and the contract
// document that validates the request ("" = none).
type Endpoint struct {
	Method, Path string
	Scope        string
	Doc          openapi.Name
	// Spec, when set, is the document that describes the operation in
	// Doc's place: a resource declared beside the contract's brings its own.
	Spec   *openapi3.T
	Kind   Kind
	Handle http.HandlerFunc
}

// Kind says which authentication and error body an endpoint has.
type Kind int

// The kinds of endpoint.
const (
	Public    Kind = iota // the token endpoint, served contracts
	Register              // interface B: bearer tokens, SS 12000 errors
	Directory             // interface A and the export: gate, A errors
)

// AdminEndpoint is one control-plane operation.
type AdminEndpoint struct {
	Method, Path string
	Query        []string // the query parameters it takes
	Open         bool     // needs no admin token
	Handle       http.HandlerFunc
}

// PathID returns the {id} of the request in canonical (lower-case) form.
func PathID(r *http.Request) string {
	id, err := url.PathUnescape(r.PathValue("id"))
	if err != nil {
		return ""
	}
	return strings.ToLower(id)
}

// QuoteAll quotes every string, for messages.
func QuoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
