package mockserver

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/wire"
)

// Legal variants: behaviours the SS 12000 standard (and the RFCs it builds
// on), or for interface A the vendor's facts, allow but the mock does not do
// by default, switched on by a scenario (behaviours.variants) or
// Options.Variants. They are the opposite of the deviations: a server doing
// them is correct, and the conformance runner with --profile ss12000 must
// pass it (cmd/skolkit's variant test proves it). scenarios.KnownVariants
// describes each name; a test checks the two lists are the same.
//
// The mock has two hook points for them, so that they stay out of the
// handlers: pageSize, where the placement list decides its page size, and
// the wire (package internal/wire): the request changed on its way in
// (variantRequest) and the answer rewritten on its way out
// (variantRewrites).
const (
	// VarClampedLimit serves at most 25 placements a page, whatever limit
	// asks for (the standard sets no bound the server must honour beyond
	// "at most limit").
	VarClampedLimit = "clamped-limit"
	// VarSmallDefaultPage serves 7 placements a page when limit is omitted
	// ("as many as the server chooses").
	VarSmallDefaultPage = "small-default-page"
	// VarShortPages serves every list of interface B in pages smaller than
	// asked: at most half the limit sent (at least one record), 7 records
	// when none is sent (a page holds at most limit records).
	VarShortPages = "short-pages"
	// VarReferencesWithoutSecurityMarking drops securityMarking from person
	// references (the standard's PersonReference does not require it).
	VarReferencesWithoutSecurityMarking = "references-without-security-marking"
	// VarAbsentOptionalMembers leaves out what the documents allow to be
	// absent: on interface B every member the official document does not
	// require, unless a filter, sort key or lookup of the standard reads it
	// or a client wrote the record (sparse.go); on interface A every member
	// that is null and not required (the vendor's nullable fields).
	VarAbsentOptionalMembers = "absent-optional-members"
	// VarEmpty404 answers interface B's 404s without a body (the standard's
	// 404 declares no content).
	VarEmpty404 = "empty-404"
	// VarExtraProperties adds a vendor member to every object of interface
	// B's JSON answers (the standard's schemas are open).
	VarExtraProperties = "extra-properties"
	// VarReorderedMembers writes the members of every JSON object of every
	// answer in reverse order (RFC 8259 §4: an object is unordered).
	VarReorderedMembers = "reordered-members"
	// VarLocalTimeOffset writes every date-time of interface A, interface B
	// and the export in Swedish local time with its offset (+01:00, in
	// summer +02:00) instead of UTC with Z: the same instant (RFC 3339 §5.6
	// allows any offset).
	VarLocalTimeOffset = "local-time-offset"
	// VarLongFractionalSeconds writes every date-time of interface A,
	// interface B and the export with seven digits of fractional seconds,
	// as .NET's round-trip format does: the same instant.
	VarLongFractionalSeconds = "long-fractional-seconds"
	// VarWholeSeconds keeps interface B's date-times to the whole second:
	// they are written without fractional seconds, and its date-time
	// filters compare at that precision (RFC 3339's time-secfrac is
	// optional).
	VarWholeSeconds = "whole-seconds"
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
	VarClampedLimit, VarSmallDefaultPage, VarShortPages, VarReferencesWithoutSecurityMarking,
	VarAbsentOptionalMembers, VarEmpty404, VarExtraProperties, VarReorderedMembers, VarLocalTimeOffset,
	VarLongFractionalSeconds, VarWholeSeconds, VarPageTokenEncoding, VarTokenTypeLowercase, VarExtraTokenFields,
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
		limit = defaultPageSize
		if s.varies(VarSmallDefaultPage) {
			limit = smallPageSize
		}
	}
	size := min(limit, maxPageSize)
	if s.varies(VarClampedLimit) {
		size = min(size, clampedPageSize)
	}
	return size
}

// pageTokenPrefix marks a pageToken re-encoded by VarPageTokenEncoding.
const pageTokenPrefix = "v2~"

// surfaceOf names the surface a path belongs to: "token", "A", "B",
// "export" or "".
func surfaceOf(path string) string {
	switch {
	case path == PathToken:
		return "token"
	case strings.HasPrefix(path, PrefixA+"/"):
		return "A"
	case strings.HasPrefix(path, PrefixB+"/"):
		return "B"
	case strings.HasPrefix(path, PrefixExport+"/"):
		return "export"
	}
	return ""
}

// isBList reports whether a request reads a list of interface B: a GET of
// a collection (/api/v1/{resource}).
func isBList(r *http.Request) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, PrefixB+"/")
	return ok && r.Method == http.MethodGet && rest != "" && !strings.Contains(rest, "/") && r.URL.Path != pathOpenAPIB
}

// variantRequest changes a request as the variants switched on say, before
// anything else reads it: it decodes a re-encoded pageToken, halves the
// limit of a list under VarShortPages, and moves the date-time bounds of
// interface B under VarWholeSeconds.
func (s *Server) variantRequest(r *http.Request, vars map[string]bool) {
	if len(vars) == 0 || surfaceOf(r.URL.Path) != "B" {
		return
	}
	q := r.URL.Query()
	changed := false
	if t := q.Get(register.ParamPageToken); vars[VarPageTokenEncoding] && strings.HasPrefix(t, pageTokenPrefix) {
		if raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(t, pageTokenPrefix)); err == nil {
			q.Set(register.ParamPageToken, string(raw))
			changed = true
		}
	}
	if vars[VarShortPages] && isBList(r) {
		switch limits := q[register.ParamLimit]; {
		case len(limits) == 1:
			if n, err := strconv.Atoi(limits[0]); err == nil && n > 1 {
				q.Set(register.ParamLimit, strconv.Itoa(n/2))
				changed = true
			}
		case len(limits) == 0 && !q.Has(register.ParamPageToken):
			q.Set(register.ParamLimit, strconv.Itoa(smallPageSize))
			changed = true
		}
	}
	if vars[VarWholeSeconds] {
		for name, vs := range q {
			c, ok := boundComparison(name)
			if !ok || len(vs) != 1 {
				continue
			}
			if t, ok := wire.ParseDateTime(vs[0]); ok {
				q.Set(name, wire.FormatBound(wire.SecondBound(t, c)))
				changed = true
			}
		}
	}
	if changed {
		r.URL.RawQuery = q.Encode()
	}
}

// boundComparison is how interface B's date-time bound named by a query
// parameter compares (SS 12000: before and onOrBefore inclusive, after
// exclusive, onOrAfter inclusive; docs/decisions.md#filter-bounds).
func boundComparison(param string) (wire.Comparison, bool) {
	switch {
	case param == "after" || strings.HasSuffix(param, ".after"):
		return wire.After, true
	case strings.HasSuffix(param, ".onOrAfter"):
		return wire.OnOrAfter, true
	case strings.HasSuffix(param, ".before"), strings.HasSuffix(param, ".onOrBefore"):
		return wire.OnOrBefore, true
	}
	return 0, false
}

// variantRewrites returns the rewrites of the answer to r that the variants
// switched on make, in the order they apply.
func (s *Server) variantRewrites(r *http.Request, vars map[string]bool) []wire.Rewrite {
	if len(vars) == 0 {
		return nil
	}
	surf := surfaceOf(r.URL.Path)
	var out []wire.Rewrite
	add := func(on bool, rw wire.Rewrite) {
		if on {
			out = append(out, rw)
		}
	}
	b := surf == "B"
	add(surf == "token" && vars[VarTokenTypeLowercase], func(a *wire.Answer) {
		if o, ok := a.Object(); ok && a.OK() {
			o.Set("token_type", "bearer")
		}
	})
	add(surf == "token" && vars[VarExtraTokenFields], func(a *wire.Answer) {
		if o, ok := a.Object(); ok && a.OK() {
			v, _ := o.Get("expires_in")
			o.Set("ext_expires_in", v)
			o.Set("issued_by", "skolkit variant")
		}
	})
	add(b && vars[VarEmpty404], func(a *wire.Answer) {
		if a.Status == http.StatusNotFound {
			a.Drop()
		}
	})
	add(b && vars[VarReferencesWithoutSecurityMarking], func(a *wire.Answer) {
		if v, ok := a.JSON(); ok {
			wire.Map(v, func(_ string, v any) any {
				if o, ok := v.(*wire.Object); ok && isPersonReference(o) {
					o.Delete("securityMarking")
				}
				return v
			})
		}
	})
	if vars[VarAbsentOptionalMembers] {
		out = append(out, s.sparse.rewrites(r, surf)...)
	}
	add(b && vars[VarExtraProperties], func(a *wire.Answer) {
		if v, ok := a.JSON(); ok && a.OK() {
			wire.Map(v, func(_ string, v any) any {
				if o, ok := v.(*wire.Object); ok {
					o.Set("x-vendor-extension", "skolkit variant")
				}
				return v
			})
		}
	})
	add(b && vars[VarPageTokenEncoding], func(a *wire.Answer) {
		if o, ok := a.Object(); ok && a.OK() {
			if t, ok := o.String(register.ParamPageToken); ok && t != "" {
				o.Set(register.ParamPageToken, pageTokenPrefix+base64.RawURLEncoding.EncodeToString([]byte(t)))
			}
		}
	})
	var times wire.Times
	if surf == "A" || surf == "B" || surf == "export" {
		if vars[VarLocalTimeOffset] {
			times.Zone = wire.Stockholm
		}
		if vars[VarLongFractionalSeconds] {
			times.Digits = 7
		}
		if b && vars[VarWholeSeconds] {
			times.Digits = wire.WholeSeconds
		}
	}
	add(times.On(), func(a *wire.Answer) {
		if v, ok := a.JSON(); ok {
			a.SetJSON(times.Rewrite(v))
		}
	})
	add(surf != "" && vars[VarReorderedMembers], func(a *wire.Answer) {
		if v, ok := a.JSON(); ok {
			a.SetJSON(wire.ReverseMembers(v))
		}
	})
	return out
}

// isPersonReference reports whether an object is a reference to a person:
// an id, a securityMarking, and at most a displayName besides.
func isPersonReference(o *wire.Object) bool {
	if !o.Has("securityMarking") || !o.Has("id") {
		return false
	}
	for _, m := range o.Members {
		if m.Key != "id" && m.Key != "securityMarking" && m.Key != "displayName" && m.Key != "x-vendor-extension" {
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
