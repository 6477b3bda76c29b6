package scenarios

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Route selects requests by method and URL path. In YAML it is one string,
// "GET /api/v1/placements*": an HTTP method (or * for any) and a path glob
// in which * stands for any run of characters, slashes included. A route
// without a method ("/api/v1/*") matches every method.
type Route struct {
	// Method is an upper-case HTTP method; empty matches every method.
	Method string
	// Path is the glob, starting with "/".
	Path string
}

// Methods a route may name.
var routeMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions,
}

// Match reports whether a request's method and URL path (without the query)
// match the route.
func (r Route) Match(method, path string) bool {
	return (r.Method == "" || r.Method == method) && glob(r.Path, path)
}

// String renders the route as written in YAML.
func (r Route) String() string {
	if r.Method == "" {
		return r.Path
	}
	return r.Method + " " + r.Path
}

// MarshalJSON writes the route as one string.
func (r Route) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// MarshalYAML writes the route as one string.
func (r Route) MarshalYAML() (any, error) { return r.String(), nil }

func (r *Route) decodeYAML(d *decoder, n *yaml.Node, path string) {
	s, ok := d.scalar(n, path, `a route like "GET /api/v1/placements*"`)
	if !ok {
		return
	}
	method, p, hasMethod := strings.Cut(strings.TrimSpace(s), " ")
	if !hasMethod {
		method, p = "", method
	}
	p = strings.TrimSpace(p)
	switch m := strings.ToUpper(method); {
	case m == "" && hasMethod:
		d.fail(n, path, "%q has no path", s)
		return
	case m == "*" || m == "":
		method = ""
	case slices.Contains(routeMethods, m):
		method = m
	default:
		d.fail(n, path, "unknown route method %q in %q; one of %s or *", method, s, strings.Join(routeMethods, ", "))
		return
	}
	if !strings.HasPrefix(p, "/") {
		d.fail(n, path, "the path of route %q must start with /", s)
		return
	}
	r.Method, r.Path = method, p
}

// glob matches s against a pattern in which * stands for any run of
// characters and every other character for itself.
func glob(pattern, s string) bool {
	// The classic greedy algorithm with one backtracking point: linear in
	// practice, never exponential.
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// Delay is a fixed delay (Min == Max) or a range to draw from. In YAML it
// is "200ms" or "50ms-300ms" (Go durations).
type Delay struct {
	Min, Max time.Duration
}

// MaxDelay bounds a latency rule's delay (the mock's write timeout is 60 s).
const MaxDelay = 30 * time.Second

// Pick returns the delay for one request: Min for a fixed delay, else a
// duration drawn uniformly from [Min, Max] with r.
func (d Delay) Pick(r *rand.Rand) time.Duration {
	if d.Max <= d.Min {
		return d.Min
	}
	return d.Min + time.Duration(r.Int64N(int64(d.Max-d.Min)+1))
}

// String renders the delay as written in YAML.
func (d Delay) String() string {
	if d.Min == d.Max {
		return d.Min.String()
	}
	return d.Min.String() + "-" + d.Max.String()
}

// MarshalJSON writes the delay as one string.
func (d Delay) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// MarshalYAML writes the delay as one string.
func (d Delay) MarshalYAML() (any, error) { return d.String(), nil }

func (d *Delay) decodeYAML(dec *decoder, n *yaml.Node, path string) {
	s, ok := dec.scalar(n, path, `a delay like "200ms" or "50ms-300ms"`)
	if !ok {
		return
	}
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	minD, err1 := time.ParseDuration(strings.TrimSpace(lo))
	maxD, err2 := time.ParseDuration(strings.TrimSpace(hi))
	switch {
	case err1 != nil || err2 != nil || minD < 0:
		dec.fail(n, path, "%q is not a delay like 200ms or a range like 50ms-300ms", s)
	case minD > maxD:
		dec.fail(n, path, "the range %q runs backwards: %s is more than %s", s, minD, maxD)
	case maxD > MaxDelay:
		dec.fail(n, path, "%s is more than the longest delay, %s", maxD, MaxDelay)
	default:
		d.Min, d.Max = minD, maxD
	}
}

// LatencyRule delays the requests its route matches.
type LatencyRule struct {
	Route Route `yaml:"route" json:"route"`
	Delay Delay `yaml:"delay" json:"delay"`
}

// Match reports whether the rule applies to a request.
func (l LatencyRule) Match(method, path string) bool { return l.Route.Match(method, path) }

// FaultRule answers the requests its route matches with a fixed response
// when it fires: on every matching request (the default), on every Nth
// (EveryNth), on the first N (FirstN), or with a probability drawn from the
// scenario's seed (Probability). At most one of the three is set.
type FaultRule struct {
	Route Route `yaml:"route" json:"route"`
	// Status is the HTTP status of the answer (200 to 599).
	Status int `yaml:"status" json:"status"`
	// Body is the answer's body: in YAML a string, sent as it is, or a
	// mapping or list, sent as JSON.
	Body FaultBody `yaml:"body,omitempty" json:"body,omitempty"`
	// Headers are set on the answer.
	Headers     map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	EveryNth    int               `yaml:"everyNth,omitempty" json:"everyNth,omitempty"`
	FirstN      int               `yaml:"firstN,omitempty" json:"firstN,omitempty"`
	Probability *float64          `yaml:"probability,omitempty" json:"probability,omitempty"`
}

// Match reports whether the rule applies to a request.
func (f FaultRule) Match(method, path string) bool { return f.Route.Match(method, path) }

// Fires reports whether the rule answers the nth request it matches (n
// counts from 1, per rule). It draws from r only for a probability rule.
func (f FaultRule) Fires(n int, r *rand.Rand) bool {
	switch {
	case f.EveryNth > 0:
		return n%f.EveryNth == 0
	case f.FirstN > 0:
		return n <= f.FirstN
	case f.Probability != nil:
		return r.Float64() < *f.Probability
	}
	return true
}

// ContentType is the Content-Type of the answer: the one in Headers, else
// application/json for a JSON body, else text/plain.
func (f FaultRule) ContentType() string {
	for k, v := range f.Headers {
		if strings.EqualFold(k, "Content-Type") {
			return v
		}
	}
	if f.Body != "" && json.Valid([]byte(f.Body)) {
		return "application/json"
	}
	return "text/plain; charset=utf-8"
}

// FaultBody is the body of a fault's answer.
type FaultBody string

func (b *FaultBody) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		*b = FaultBody(n.Value)
		return
	}
	var v any
	if err := n.Decode(&v); err != nil {
		d.fail(n, path, "cannot read the body: %v", err)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		d.fail(n, path, "cannot write the body as JSON: %v", err)
		return
	}
	*b = FaultBody(data)
}
