package mockserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
)

// validator checks requests of one operation against the contract.
type validator struct {
	route      *routers.Route
	query      map[string]bool // declared query parameters: true when one takes an array
	hasBody    bool
	opts       *openapi3filter.Options
	pathPrefix string
	// pathParams are the names of the path's variables ({id}).
	pathParams []string
	// fast, when set, accepts the common requests of the operation without
	// kin-openapi (see fastCheck).
	fast *fastCheck
}

// newValidator finds the operation for method and full path in the named
// document. An operation that the server serves but the contract lacks is a
// start-up error: the two must not drift apart.
func newValidator(c *openapi.Contract, name openapi.Name, method, fullPath string) (*validator, error) {
	return newValidatorIn(c.Doc(name), name, method, fullPath)
}

// newValidatorIn is newValidator for a document of the contract's (the
// named one, or a profile's version of it).
func newValidatorIn(doc *openapi3.T, name openapi.Name, method, fullPath string) (*validator, error) {
	prefix := ""
	if len(doc.Servers) > 0 {
		u, err := url.Parse(doc.Servers[0].URL)
		if err != nil {
			return nil, fmt.Errorf("contract %s: server URL: %w", name, err)
		}
		prefix = strings.TrimSuffix(u.Path, "/")
	}
	rel := strings.TrimPrefix(fullPath, prefix)
	item := doc.Paths.Value(rel)
	if item == nil || item.GetOperation(method) == nil {
		return nil, fmt.Errorf("contract %s has no operation %s %s (server prefix %q)", name, method, rel, prefix)
	}
	op := item.GetOperation(method)
	v := &validator{
		route: &routers.Route{Spec: doc, Path: rel, PathItem: item, Method: method, Operation: op},
		query: map[string]bool{},
		opts: &openapi3filter.Options{
			MultiError:              true,
			AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
			SchemaValidationOptions: openapi.SchemaOptions(),
			// Interface B's writes ignore the read-only properties (id, meta,
			// securityMarking, displayName) a body carries (docs/decisions.md).
			ExcludeReadOnlyValidations: name == openapi.NameRegister,
		},
		hasBody:    op.RequestBody != nil,
		pathPrefix: prefix,
	}
	for _, part := range strings.Split(rel, "/") {
		if name, ok := strings.CutPrefix(part, "{"); ok {
			v.pathParams = append(v.pathParams, strings.TrimSuffix(name, "}"))
		}
	}
	if name == openapi.NameDirectory && strings.HasSuffix(rel, "/_search") {
		// A search body is checked by the search package, whose field table
		// comes from the same filter schemas and whose violations point at
		// the offending field (kin-openapi's, through the nullable allOf
		// wrappers of the vendor's filter schemas, name only the operator).
		v.opts.ExcludeRequestBody = true
	}
	for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range params {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				sch := p.Value.Schema
				v.query[p.Value.Name] = sch != nil && sch.Value != nil && sch.Value.Type.Is(openapi3.TypeArray)
			}
		}
	}
	v.fast = newFastCheck(item, op)
	return v, nil
}

// requestProblem is why a request does not meet the contract. Each surface
// writes it in its own error body: interface B answers 400 for every
// violation, interface A answers 422 with details for a body that fails its
// schema (and 400 for the rest).
type requestProblem struct {
	status  int // 400, 413 or 415; bodySchema problems are 400 on B and 422 on A
	message string
	// bodySchema is set when the body is well-formed JSON that fails the
	// schema; details then lists each violation with its JSON Pointer.
	// details also names the member whose text is refused (a 400).
	bodySchema bool
	details    []surface.FieldProblem
}

// validate writes the problem with the interface-B error body and reports
// false when the request does not meet the contract.
func (v *validator) validate(w http.ResponseWriter, r *http.Request) bool {
	p := v.check(r)
	if p == nil {
		return true
	}
	code := surface.CodeBadRequest
	if p.status == http.StatusRequestEntityTooLarge {
		code = surface.CodePayloadTooLarge
	}
	surface.WriteRegisterError(w, p.status, code, p.message)
	return false
}

// check returns nil when the request meets the contract.
func (v *validator) check(r *http.Request) *requestProblem {
	// url.Values drops pairs it cannot parse (a ";" separator, a bad escape):
	// refuse them rather than answer a wider query than the client meant.
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return &requestProblem{status: http.StatusBadRequest, message: fmt.Sprintf("the query string cannot be parsed: %v", err)}
	}
	if msg := surface.QueryTextProblem(query); msg != "" {
		return &requestProblem{status: http.StatusBadRequest, message: msg}
	}
	var unknown, repeated []string
	for k, vals := range query {
		isArray, known := v.query[k]
		switch {
		case !known:
			unknown = append(unknown, k)
		case !isArray && len(vals) > 1:
			repeated = append(repeated, k)
		}
	}
	if len(repeated) > 0 && len(unknown) == 0 {
		slices.Sort(repeated)
		return &requestProblem{status: http.StatusBadRequest, message: fmt.Sprintf("query parameter(s) %s may be given once only", strings.Join(surface.QuoteAll(repeated), ", "))}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		known := make([]string, 0, len(v.query))
		for k := range v.query {
			known = append(known, k)
		}
		slices.Sort(known)
		msg := fmt.Sprintf("unknown query parameter(s) %s", strings.Join(surface.QuoteAll(unknown), ", "))
		if len(known) > 0 {
			msg += "; this operation takes " + strings.Join(known, ", ")
		} else {
			msg += "; this operation takes none"
		}
		return &requestProblem{status: http.StatusBadRequest, message: msg}
	}
	if v.hasBody {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != surface.ContentTypeJSON {
			return &requestProblem{status: http.StatusUnsupportedMediaType, message: "the request body must have content type " + surface.ContentTypeJSON}
		}
		// One JSON value and nothing after it. Checked here because kin-openapi
		// re-encodes a body it set defaults in, dropping what followed.
		data, err := io.ReadAll(r.Body)
		if err != nil {
			if surface.IsTooLarge(err) {
				return &requestProblem{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf("the request body is larger than %d bytes", maxBodyBytes)}
			}
			return &requestProblem{status: http.StatusBadRequest, message: "the request body could not be read"}
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		if p := surface.BodyTextProblem(data); p != nil {
			msg := "request body: " + p.Message
			if p.Field != "" {
				msg = "request body: at " + p.Field + ": " + p.Message
			}
			return &requestProblem{status: http.StatusBadRequest, message: msg, details: []surface.FieldProblem{*p}}
		}
		var value any
		if len(bytes.TrimSpace(data)) > 0 {
			if err := surface.DecodeWhole(bytes.NewReader(data), &value); err != nil {
				return &requestProblem{status: http.StatusBadRequest, message: "the request body is not one JSON value: " + err.Error()}
			}
		}
	}
	params := map[string]string{}
	for _, k := range v.pathParams {
		val := r.PathValue(k)
		if un, err := url.PathUnescape(val); err == nil {
			val = un
		}
		params[k] = val
	}
	if v.fast != nil && v.fast.accepts(r, query, params) {
		return nil
	}
	err = openapi3filter.ValidateRequest(r.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: v.route, Options: v.opts,
	})
	if err == nil {
		return nil
	}
	if surface.IsTooLarge(err) {
		return &requestProblem{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf("the request body is larger than %d bytes", maxBodyBytes)}
	}
	p := &requestProblem{status: http.StatusBadRequest, message: describe(err)}
	if details, ok := bodySchemaViolations(err); ok {
		p.bodySchema, p.details = true, details
	}
	return p
}

// bodySchemaViolations returns the violations of a request whose only
// problems are schema violations of a well-formed JSON body.
func bodySchemaViolations(err error) ([]surface.FieldProblem, bool) {
	var out []surface.FieldProblem
	ok := true
	var walk func(err error)
	walk = func(err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(x)
			}
		case *openapi3filter.RequestError:
			if e.Parameter != nil || e.Err == nil {
				ok = false
				return
			}
			walk(e.Err)
		case *openapi3.SchemaError:
			out = append(out, schemaProblems(e, nil)...)
		default:
			ok = false
		}
	}
	walk(err)
	return out, ok && len(out) > 0
}

// schemaProblems returns the violations a schema error stands for, each
// with the JSON Pointer of the value it concerns, under the pointer base. A
// member the schema does not define is pointed at itself (kin-openapi
// points at its object), and a value that fails an allOf (a reference
// wrapped to carry a description) stands for the violations of its parts.
func schemaProblems(e *openapi3.SchemaError, base []string) []surface.FieldProblem {
	ptr := append(slices.Clone(base), e.JSONPointer()...)
	var parts openapi3.MultiError
	if e.SchemaField == "allOf" && errors.As(e.Origin, &parts) {
		var out []surface.FieldProblem
		for _, part := range parts {
			var pe *openapi3.SchemaError
			if !errors.As(part, &pe) {
				return []surface.FieldProblem{{Field: surface.Pointer(ptr), Message: e.Reason}}
			}
			out = append(out, schemaProblems(pe, base)...)
		}
		if len(out) > 0 {
			return out
		}
	}
	if name, ok := strings.CutPrefix(e.Reason, `property "`); ok {
		if name, ok = strings.CutSuffix(name, `" is unsupported`); ok {
			ptr = append(ptr, name)
		}
	}
	return []surface.FieldProblem{{Field: surface.Pointer(ptr), Message: e.Reason}}
}

// describe turns kin-openapi's validation errors into one message listing
// every violation as "where: what". It inspects the errors by their concrete
// types: openapi3.MultiError implements errors.As over its elements, so
// errors.As would look through a RequestError and lose the parameter name.
func describe(err error) string {
	var msgs []string
	var walk func(where string, err error)
	walk = func(where string, err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(where, x)
			}
		case *openapi3filter.RequestError:
			w := "request body"
			if e.Parameter != nil {
				w = fmt.Sprintf("%s parameter %q", e.Parameter.In, e.Parameter.Name)
			}
			if e.Err == nil {
				msgs = append(msgs, w+": "+e.Reason)
				return
			}
			walk(w, e.Err)
		case *openapi3.SchemaError:
			for _, p := range schemaProblems(e, nil) {
				msg := p.Message
				if p.Field != "" {
					msg = "at " + p.Field + ": " + msg
				}
				msgs = append(msgs, prefixed(where, msg))
			}
		case *openapi3filter.ParseError:
			msgs = append(msgs, prefixed(where, e.Error()))
		default:
			if u := errors.Unwrap(err); u != nil && where == "" {
				walk(where, u)
				return
			}
			msgs = append(msgs, prefixed(where, err.Error()))
		}
	}
	walk("", err)
	slices.Sort(msgs)
	return strings.Join(slices.Compact(msgs), "; ")
}

func prefixed(where, msg string) string {
	if where == "" {
		return msg
	}
	return where + ": " + msg
}

// fastCheck accepts requests of one operation that kin-openapi would accept,
// without kin-openapi: it knows only the simplest parameter schemas, and a
// request it does not accept goes to kin-openapi, which judges it and words
// the error. It is built only for an operation whose every parameter is in
// the path or the query with a schema of those kinds, and which takes no
// body; a request with a body is never accepted (kin-openapi reads it). So
// a request it accepts is one kin-openapi accepts (TestFastCheckAcceptsOnly
// WhatKinOpenAPIAccepts and FuzzFastCheck hold it to that), and a request it
// refuses is judged by kin-openapi.
type fastCheck struct {
	params []fastParam
}

type fastParam struct {
	name     string
	inPath   bool
	required bool
	array    bool
	valid    func(string) bool
}

// newFastCheck returns the fast check of an operation, or nil when one of its
// parameters is beyond it.
func newFastCheck(item *openapi3.PathItem, op *openapi3.Operation) *fastCheck {
	if op.RequestBody != nil {
		return nil
	}
	// The parameters kin-openapi validates: the path item's unless the
	// operation overrides them, and the operation's.
	var all []*openapi3.Parameter
	for _, ref := range item.Parameters {
		if ref.Value == nil {
			return nil
		}
		if op.Parameters.GetByInAndName(ref.Value.In, ref.Value.Name) == nil {
			all = append(all, ref.Value)
		}
	}
	for _, ref := range op.Parameters {
		if ref.Value == nil {
			return nil
		}
		all = append(all, ref.Value)
	}
	fc := &fastCheck{}
	for _, p := range all {
		fp, ok := newFastParam(p)
		if !ok {
			return nil
		}
		fc.params = append(fc.params, fp)
	}
	return fc
}

func newFastParam(p *openapi3.Parameter) (fastParam, bool) {
	fp := fastParam{name: p.Name, required: p.Required}
	switch p.In {
	case openapi3.ParameterInPath:
		fp.inPath = true
		if p.Style != "" && p.Style != openapi3.SerializationSimple {
			return fp, false
		}
	case openapi3.ParameterInQuery:
		if p.Style != "" && p.Style != openapi3.SerializationForm || p.Explode != nil && !*p.Explode {
			return fp, false
		}
	default:
		return fp, false
	}
	if p.Content != nil || p.AllowEmptyValue || len(p.Extensions) > 0 || p.Schema == nil || p.Schema.Value == nil {
		return fp, false
	}
	sch := p.Schema.Value
	if sch.Type.Is(openapi3.TypeArray) && !fp.inPath {
		if !onlyKeys(sch, "type", "items", "description") || sch.Items == nil || sch.Items.Value == nil {
			return fp, false
		}
		fp.array = true
		sch = sch.Items.Value
	}
	valid, ok := fastValue(sch)
	fp.valid = valid
	return fp, ok
}

// fastValue returns a check that accepts only values kin-openapi accepts for
// a schema of one primitive type with at most a format, an enum or bounds.
func fastValue(sch *openapi3.Schema) (func(string) bool, bool) {
	switch {
	case sch.Type.Is(openapi3.TypeString):
		if !onlyKeys(sch, "type", "format", "enum", "description") {
			return nil, false
		}
		format := func(string) error { return nil }
		if sch.Format != "" {
			var ok bool
			if format, ok = openapi.StringFormat(sch.Format); !ok {
				return nil, false
			}
		}
		var enum []string
		for _, e := range sch.Enum {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			enum = append(enum, s)
		}
		return func(v string) bool {
			return (enum == nil || slices.Contains(enum, v)) && format(v) == nil
		}, true
	case sch.Type.Is(openapi3.TypeInteger):
		if !onlyKeys(sch, "type", "minimum", "maximum", "description") || sch.ExclusiveMin.IsTrue() || sch.ExclusiveMax.IsTrue() {
			return nil, false
		}
		lo, hi := sch.Min, sch.Max
		return func(v string) bool {
			// Plain decimal digits without a leading zero, as strconv.ParseInt
			// reads them; kin-openapi then checks the bounds.
			if len(v) == 0 || len(v) > 9 || v[0] == '0' && len(v) > 1 {
				return false
			}
			n := 0
			for i := 0; i < len(v); i++ {
				if v[i] < '0' || v[i] > '9' {
					return false
				}
				n = n*10 + int(v[i]-'0')
			}
			return (lo == nil || float64(n) >= *lo) && (hi == nil || float64(n) <= *hi)
		}, true
	case sch.Type.Is(openapi3.TypeBoolean):
		if !onlyKeys(sch, "type", "description") {
			return nil, false
		}
		return func(v string) bool { return v == "true" || v == "false" }, true
	}
	return nil, false
}

// onlyKeys reports whether a schema says nothing but the keys given: any
// other keyword (a pattern, a length, a default that kin-openapi would write
// into the request, ...) leaves the parameter to kin-openapi.
func onlyKeys(sch *openapi3.Schema, keys ...string) bool {
	have, ok := schemaKeywords(sch)
	if !ok {
		return false
	}
	for _, k := range have {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}

// schemaKeywords returns the members of the schema's JSON rendering
// (kin-openapi's MarshalJSON writes the map of its MarshalYAML), read from
// the schema's fields instead of rendering it, which cost a quarter of
// building the routes: a field's JSON name when the rendering writes it (it
// is not empty), and the extensions' names. It reports false for a schema
// rendered as a boolean (Always).
func schemaKeywords(sch *openapi3.Schema) ([]string, bool) {
	if sch.Always != nil {
		return nil, false
	}
	var keys []string
	for k := range sch.Extensions {
		keys = append(keys, k)
	}
	v := reflect.ValueOf(sch).Elem()
	for _, f := range schemaFields() {
		if !emptyKeyword(v.Field(f.index)) {
			keys = append(keys, f.name)
		}
	}
	return keys, true
}

type schemaField struct {
	index int
	name  string
}

// schemaFields are the fields of openapi3.Schema with a JSON name.
var schemaFields = sync.OnceValue(func() []schemaField {
	t := reflect.TypeFor[openapi3.Schema]()
	var fields []schemaField
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields = append(fields, schemaField{i, name})
		}
	}
	return fields
})

// emptyKeyword reports whether MarshalYAML leaves the field out: it is
// zero, an empty slice or map, or a pointer to an empty slice (the type).
func emptyKeyword(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Pointer:
		return v.IsNil() || v.Elem().Kind() == reflect.Slice && v.Elem().Len() == 0
	}
	return v.IsZero()
}

// accepts reports whether the request certainly meets the operation's
// parameters. query is the parsed query, path the unescaped path
// parameters.
func (fc *fastCheck) accepts(r *http.Request, query url.Values, path map[string]string) bool {
	if r.Body != nil && r.Body != http.NoBody {
		return false
	}
	for i := range fc.params {
		p := &fc.params[i]
		if p.inPath {
			if v := path[p.name]; v == "" || !p.valid(v) {
				return false
			}
			continue
		}
		vals := query[p.name]
		if len(vals) == 0 {
			if p.required {
				return false
			}
			continue
		}
		if len(vals) > 1 && !p.array {
			return false
		}
		for _, v := range vals {
			if v == "" || !p.valid(v) {
				return false
			}
		}
	}
	return true
}
