package mockserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/register"
)

// Legal variants: behaviours the SS 12000 standard (and the RFCs it builds
// on) allows but the mock does not do by default, switched on by a scenario
// (behaviours.variants) or Options.Variants. They are the opposite of the
// deviations: a server doing them is correct, and the conformance runner
// with --profile ss12000 must pass it (cmd/skolkit's variant test proves
// it). scenarios.KnownVariants describes each name; a test checks the two
// lists are the same.
//
// The mock has two hook points for them, so that they stay out of the
// handlers: pageSize, where the placement list decides its page size, and
// variantWriter, a middleware that rewrites interface B's and the token
// endpoint's answers (and decodes the rewritten pageToken on the way in).
const (
	// VarClampedLimit serves at most 25 placements a page, whatever limit
	// asks for (the standard sets no bound the server must honour beyond
	// "at most limit").
	VarClampedLimit = "clamped-limit"
	// VarSmallDefaultPage serves 7 placements a page when limit is omitted
	// ("as many as the server chooses").
	VarSmallDefaultPage = "small-default-page"
	// VarReferencesWithoutSecurityMarking drops securityMarking from person
	// references (the standard's PersonReference does not require it).
	VarReferencesWithoutSecurityMarking = "references-without-security-marking"
	// VarEmpty404 answers interface B's 404s without a body (the standard's
	// 404 declares no content).
	VarEmpty404 = "empty-404"
	// VarExtraProperties adds a vendor member to every object of interface
	// B's JSON answers (the standard's schemas are open).
	VarExtraProperties = "extra-properties"
	// VarPageTokenEncoding wraps every pageToken in another opaque encoding
	// (a pageToken is opaque).
	VarPageTokenEncoding = "pagetoken-encoding"
	// VarTokenTypeLowercase answers token_type "bearer" (RFC 6749 §7.1: the
	// type is case-insensitive).
	VarTokenTypeLowercase = "token-type-lowercase"
	// VarExtraTokenFields adds members to the token response (RFC 6749
	// §5.1 allows other parameters; the client ignores what it does not
	// know).
	VarExtraTokenFields = "extra-token-fields"
)

// Variants lists every legal variant the mock implements.
var Variants = []string{
	VarClampedLimit, VarSmallDefaultPage, VarReferencesWithoutSecurityMarking, VarEmpty404,
	VarExtraProperties, VarPageTokenEncoding, VarTokenTypeLowercase, VarExtraTokenFields,
}

// Page sizes of the paging variants.
const (
	clampedPageSize = 25
	smallPageSize   = 7
)

// varies reports whether the named variant is switched on.
func (s *Server) varies(name string) bool { return s.variants[name] }

// pageSize is the placement page size for a requested limit (0: none): the
// hook point of the paging variants.
func (s *Server) pageSize(limit int) int {
	if limit == 0 {
		limit = DefaultPageSize
		if s.varies(VarSmallDefaultPage) {
			limit = smallPageSize
		}
	}
	size := min(limit, MaxPageSize)
	if s.varies(VarClampedLimit) {
		size = min(size, clampedPageSize)
	}
	return size
}

// pageTokenPrefix marks a pageToken re-encoded by VarPageTokenEncoding.
const pageTokenPrefix = "v2~"

// variantWriter returns the rewriting middleware's writer for a request
// whose answer an output variant changes, or nil. It decodes a re-encoded
// pageToken in the request at once.
func (s *Server) variantWriter(w http.ResponseWriter, r *http.Request, vars, devs map[string]bool) *rewriter {
	if len(vars) == 0 && !devs[deviation.ReferenceMarkingDiffers] {
		return nil
	}
	b := strings.HasPrefix(r.URL.Path, PrefixB+"/")
	tok := r.URL.Path == PathToken
	if !b && !tok {
		return nil
	}
	var on []string
	for _, v := range []string{VarReferencesWithoutSecurityMarking, VarEmpty404, VarExtraProperties, VarPageTokenEncoding, VarTokenTypeLowercase, VarExtraTokenFields} {
		if vars[v] {
			on = append(on, v)
		}
	}
	if b && devs[deviation.ReferenceMarkingDiffers] {
		on = append(on, deviation.ReferenceMarkingDiffers)
	}
	if len(on) == 0 {
		return nil
	}
	if b && slices.Contains(on, VarPageTokenEncoding) {
		q := r.URL.Query()
		if t := q.Get(register.ParamPageToken); strings.HasPrefix(t, pageTokenPrefix) {
			if raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(t, pageTokenPrefix)); err == nil {
				q.Set(register.ParamPageToken, string(raw))
				r.URL.RawQuery = q.Encode()
			}
		}
	}
	return &rewriter{w: w, header: http.Header{}, variants: on, token: tok}
}

// rewriter buffers an answer and rewrites it as the variants say when the
// handler is done (flush).
type rewriter struct {
	w        http.ResponseWriter
	header   http.Header
	status   int
	body     bytes.Buffer
	variants []string
	token    bool
}

func (rw *rewriter) Header() http.Header { return rw.header }

func (rw *rewriter) WriteHeader(status int) {
	if rw.status == 0 {
		rw.status = status
	}
}

func (rw *rewriter) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	return rw.body.Write(p)
}

func (rw *rewriter) on(v string) bool { return slices.Contains(rw.variants, v) }

// flush writes the rewritten answer.
func (rw *rewriter) flush() {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	body := rw.body.Bytes()
	switch {
	case !rw.token && rw.status == http.StatusNotFound && rw.on(VarEmpty404):
		body = nil
		rw.header.Del("Content-Type")
	case strings.HasPrefix(rw.header.Get("Content-Type"), "application/json") && len(body) > 0:
		var v any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			v = rw.rewrite(v)
			if out, err := json.Marshal(v); err == nil {
				body = out
			}
		}
	}
	for k, vs := range rw.header {
		rw.w.Header()[k] = vs
	}
	if body != nil || rw.header.Get("Content-Length") != "" {
		rw.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	rw.w.WriteHeader(rw.status)
	if len(body) > 0 {
		rw.w.Write(body)
	}
}

// rewrite applies the variants to a decoded JSON answer.
func (rw *rewriter) rewrite(v any) any {
	if rw.token {
		if m, ok := v.(map[string]any); ok && rw.status == http.StatusOK {
			if rw.on(VarTokenTypeLowercase) {
				m["token_type"] = "bearer"
			}
			if rw.on(VarExtraTokenFields) {
				m["ext_expires_in"] = m["expires_in"]
				m["issued_by"] = "skolkit variant"
			}
		}
		return v
	}
	success := rw.status/100 == 2
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				x[k] = walk(c)
			}
			if rw.on(VarReferencesWithoutSecurityMarking) && isPersonReference(x) {
				delete(x, "securityMarking")
			}
			if rw.on(deviation.ReferenceMarkingDiffers) && isPersonReference(x) {
				x["securityMarking"] = flipMarking(x["securityMarking"])
			}
			if success && rw.on(VarExtraProperties) {
				x["x-vendor-extension"] = "skolkit variant"
			}
			return x
		case []any:
			for i, c := range x {
				x[i] = walk(c)
			}
		}
		return v
	}
	v = walk(v)
	if m, ok := v.(map[string]any); ok && success && rw.on(VarPageTokenEncoding) {
		if t, ok := m["pageToken"].(string); ok && t != "" {
			m["pageToken"] = pageTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(t))
		}
	}
	return v
}

// isPersonReference reports whether an object is a reference to a person:
// an id, a securityMarking, and at most a displayName besides.
func isPersonReference(m map[string]any) bool {
	if _, ok := m["securityMarking"]; !ok {
		return false
	}
	if _, ok := m["id"]; !ok {
		return false
	}
	for k := range m {
		if k != "id" && k != "securityMarking" && k != "displayName" && k != "x-vendor-extension" {
			return false
		}
	}
	return true
}

// checkVariants validates variant names.
func checkVariants(names []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, v := range names {
		if !slices.Contains(Variants, v) {
			return nil, fmt.Errorf("unknown variant %q; known: %s", v, strings.Join(Variants, ", "))
		}
		out[v] = true
	}
	return out, nil
}
