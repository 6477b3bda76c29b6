package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Observation is an Exchange with what the engine derived from it once,
// shared by every rule that looks at it: the operation it matched (nil:
// none), the path parameters, and, decoded on first use, the JSON bodies
// and the records of the answer. It is safe for concurrent use.
type Observation struct {
	*Exchange
	// Op is the operation of the contract the request matched, nil when
	// the contract has none.
	Op *Operation
	// PathParams are the values of the path template's parameters.
	PathParams map[string]string

	respOnce sync.Once
	resp     any
	respErr  error
	reqOnce  sync.Once
	req      any
	reqErr   error

	// What the history made of it (set under the judge's lock, before the
	// rules that read the history run).
	walk      *Walk
	sightings []*Sighting
}

// Sightings are the records of the answer as the history keeps them (none
// when the presentation is unknown).
func (o *Observation) Sightings() []*Sighting { return o.sightings }

// Presentation is how the answer's records were asked to be shown, and
// whether that is known: a later page of a walk without presentation
// parameters shows what the server carries over, which the standard does
// not say.
func (o *Observation) Presentation() (Presentation, bool) {
	p := o.PresentationOf()
	if o.Op != nil && o.Op.Paging == PagingPageToken && o.Query.Get("pageToken") != "" &&
		!o.Query.Has("expand") && !o.Query.Has("expandReferenceNames") {
		return p, false
	}
	return p, true
}

// NewObservation matches an exchange against the contract.
func NewObservation(c *Contract, ex *Exchange) *Observation {
	o := &Observation{Exchange: ex}
	if c != nil {
		o.Op, o.PathParams = c.Match(ex.Surface, ex.Method, ex.Path)
	}
	return o
}

// OK reports whether the answer was a 2xx.
func (o *Observation) OK() bool { return o.Status >= 200 && o.Status < 300 }

// Label names the exchange in messages: "GET /placements?limit=2 → 200".
func (o *Observation) Label() string {
	s := o.Method + " " + o.Path
	if len(o.Query) > 0 {
		s += "?" + o.Query.Encode()
	}
	return s + " → " + strconv.Itoa(o.Status)
}

// OperationName names the operation for findings: the contract's template,
// or the request's own path when the contract has none.
func (o *Observation) OperationName() string {
	if o.Op != nil {
		return o.Op.ID()
	}
	return string(o.Surface) + " " + o.Method + " " + o.Path
}

// errTruncated: the driver kept only part of the body.
var errTruncated = errors.New("the body was cut short by the driver")

func decodeJSON(b []byte, truncated bool) (any, error) {
	if truncated {
		return nil, errTruncated
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// JSON decodes the answer's body once (numbers as json.Number).
func (o *Observation) JSON() (any, error) {
	o.respOnce.Do(func() { o.resp, o.respErr = decodeJSON(o.ResponseBody, o.ResponseTruncated) })
	return o.resp, o.respErr
}

// Object returns the answer's body as a JSON object (nil when it is not
// one).
func (o *Observation) Object() map[string]any {
	v, _ := o.JSON()
	m, _ := v.(map[string]any)
	return m
}

// RequestJSON decodes the request's body once.
func (o *Observation) RequestJSON() (any, error) {
	o.reqOnce.Do(func() { o.req, o.reqErr = decodeJSON(o.RequestBody, o.RequestTruncated) })
	return o.req, o.reqErr
}

// Records returns the records of a 2xx answer of an operation that reads
// or writes records: the page's data (interface A's data.resultArray too),
// the lookup's array, the record itself. Members that are not objects are
// left out.
func (o *Observation) Records() []map[string]any {
	if o.Op == nil || !o.OK() {
		return nil
	}
	v, err := o.JSON()
	if err != nil {
		return nil
	}
	switch o.Op.Records {
	case "data":
		m, _ := v.(map[string]any)
		switch d := m["data"].(type) {
		case []any:
			return Objects(d)
		case map[string]any:
			ra, _ := d["resultArray"].([]any)
			return Objects(ra)
		}
	case "array":
		switch x := v.(type) {
		case []any:
			return Objects(x)
		case map[string]any:
			d, _ := x["data"].([]any)
			return Objects(d)
		}
	case "object":
		if m, ok := v.(map[string]any); ok {
			return []map[string]any{m}
		}
	}
	return nil
}

// IsPage reports whether a 2xx answer of a list has the page shape its
// contract gives: an object whose data is an array (or, on interface A,
// holds resultArray). A body of another shape has no page to judge; the
// contract rules judge its shape.
func (o *Observation) IsPage() bool {
	if o.Op == nil || !o.OK() || o.Op.Records != "data" {
		return false
	}
	v, err := o.JSON()
	if err != nil {
		return false
	}
	m, _ := v.(map[string]any)
	switch d := m["data"].(type) {
	case []any:
		return true
	case map[string]any:
		_, ok := d["resultArray"].([]any)
		return ok
	}
	return false
}

// Objects returns the members of an array that are objects.
func Objects(a []any) []map[string]any {
	out := make([]map[string]any, 0, len(a))
	for _, v := range a {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// IntParam reads an integer query parameter of the request.
func (o *Observation) IntParam(name string) (int, bool) {
	v := o.Query.Get(name)
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// Values returns every value of a query parameter, repeated parameters and
// comma-separated lists read alike ("expand=child&expand=owners",
// "expand=child,owners").
func (o *Observation) Values(name string) []string {
	var out []string
	for _, v := range o.Query[name] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// Presentation is how a record was asked to be shown: the expand values,
// sorted, and whether reference names were asked for. Records are compared
// only between reads with the same presentation.
type Presentation struct {
	Expand         string // comma-joined, sorted
	ReferenceNames bool
}

// PresentationOf returns the presentation a request asked for, as its own
// parameters say.
func (o *Observation) PresentationOf() Presentation {
	ex := o.Values("expand")
	slices.Sort(ex)
	ex = slices.Compact(ex)
	return Presentation{Expand: strings.Join(ex, ","), ReferenceNames: strings.EqualFold(o.Query.Get("expandReferenceNames"), "true")}
}

// MediaType returns a header's media type without parameters, lower case
// ("application/json"), and its parameters.
func MediaType(h string) (string, map[string]string) {
	if h == "" {
		return "", nil
	}
	mt, params, err := mime.ParseMediaType(h)
	if err != nil {
		mt, _, _ = strings.Cut(h, ";")
		return strings.ToLower(strings.TrimSpace(mt)), nil
	}
	return mt, params
}
