package scenarios

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

//go:embed builtin/*.yaml
var builtin embed.FS

// Scenario is one loaded scenario file. Parse fills in the defaults, so the
// fields hold what the mock must do: Clients[i].RateLimit, ListShape and the
// counts of Generate are always set.
type Scenario struct {
	// Name identifies the scenario (required).
	Name string `yaml:"name" json:"name"`
	// Description is one line for "skolkit scenarios list".
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Seed drives every generated value and the ids of explicit records: the
	// same seed gives the same data.
	Seed int64 `yaml:"seed" json:"seed"`
	// Clock is the mock's notion of now: the real clock (the default) or a
	// fixed instant.
	Clock Clock `yaml:"clock,omitempty" json:"clock"`
	// TokenLifetime is the access-token lifetime in seconds (default 3600).
	TokenLifetime int `yaml:"tokenLifetime,omitempty" json:"tokenLifetime,omitempty"`
	// Clients may obtain tokens.
	Clients []Client `yaml:"clients" json:"clients"`
	// Generate says how much fake data to generate.
	Generate Generate `yaml:"generate,omitempty" json:"generate"`
	// Records are explicit records, added to the generated ones.
	Records Records `yaml:"records,omitempty" json:"records"`
	// Behaviours are latency, faults and deviations of the mock.
	Behaviours Behaviours `yaml:"behaviours,omitempty" json:"behaviours"`
	// ListShape is where interface A list responses put their items.
	ListShape ListShape `yaml:"listShape,omitempty" json:"listShape,omitempty"`
	// Webhooks are SS 12000 subscriptions and delivery faults (webhooks.go).
	Webhooks Webhooks `yaml:"webhooks,omitempty" json:"webhooks"`
	// Profile is what interface B follows where the service's spec and the
	// SS 12000 document differ: a key of KnownProfiles; empty is "service".
	Profile string `yaml:"profile,omitempty" json:"profile,omitempty"`

	// src keeps the file name and the nodes of the parsed document, so that
	// Build can report its problems at their positions; nil for a scenario
	// built in Go.
	src *decoder
}

// Client is an API client that may obtain tokens.
type Client struct {
	ID     string `yaml:"id" json:"id"`
	Secret string `yaml:"secret" json:"secret"`
	// Scopes the client may hold; "all" stands for every scope the server knows.
	Scopes []string `yaml:"scopes" json:"scopes"`
	// RateLimit is the client's quota of requests per hour (default 1500,
	// the vendor's documented quota). Parse fills it in.
	RateLimit int `yaml:"rateLimit,omitempty" json:"rateLimit,omitempty"`
}

// Quota returns the client's requests per hour, applying the default to a
// Client built in Go without one.
func (c Client) Quota() int {
	if c.RateLimit <= 0 {
		return DefaultRateLimit
	}
	return c.RateLimit
}

// Defaults applied by Parse.
const (
	// DefaultTokenLifetime is the token lifetime in seconds when a scenario names none.
	DefaultTokenLifetime = 3600
	// DefaultRateLimit is a client's quota of requests per hour when it names none.
	DefaultRateLimit = 1500
)

// Scope names that stand for several scopes in a client's scopes.
const (
	// ScopeAll grants every scope.
	ScopeAll = "all"
	// ScopeRead grants every scope that only reads (every "…:read" scope):
	// a client with it may read everything and write nothing.
	ScopeRead = "read"
)

// ListShape is where interface A puts the items of a list response.
type ListShape string

// List shapes.
const (
	// ListShapeData puts the items in an array at "data" (the default).
	ListShapeData ListShape = "data"
	// ListShapeResultArray puts them at "data.resultArray".
	ListShapeResultArray ListShape = "data.resultArray"
)

// Clock is the mock's clock: the real clock when Now is zero, else fixed at
// Now (the mock's clock stands still there until moved through the admin
// API). In YAML it is "clock: real" or "clock: {now: 2026-03-14T10:30:00Z}".
type Clock struct {
	Now time.Time
}

// Fixed reports whether the clock is fixed.
func (c Clock) Fixed() bool { return !c.Now.IsZero() }

// At returns the fixed instant, or real for the real clock.
func (c Clock) At(real time.Time) time.Time {
	if c.Fixed() {
		return c.Now
	}
	return real
}

func (c *Clock) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		if n.Value != "real" {
			d.fail(n, path, "expected real or a mapping with now: <RFC 3339 date-time>, got %s", describe(n))
		}
		return
	}
	var v struct {
		Now string `yaml:"now"`
	}
	d.decode(n, path, reflect.ValueOf(&v).Elem())
	nowPath := path + ".now"
	switch {
	case d.failed[path] || d.failed[nowPath]:
	case !d.present(nowPath):
		d.problem(nowPath, "required (or write clock: real)")
	case v.Now == "real":
	default:
		t, err := time.Parse(time.RFC3339Nano, v.Now)
		if err != nil {
			d.fail(d.at(nowPath), nowPath, "%q is not an RFC 3339 date-time (like 2026-03-14T10:30:00Z) or real", v.Now)
			return
		}
		c.Now = t
	}
}

func (c Clock) repr() any {
	if !c.Fixed() {
		return "real"
	}
	return map[string]string{"now": c.Now.Format(time.RFC3339Nano)}
}

// MarshalJSON writes the clock in its YAML shape ("real" or {"now": ...}).
func (c Clock) MarshalJSON() ([]byte, error) { return json.Marshal(c.repr()) }

// MarshalYAML writes the clock in the shape Parse reads.
func (c Clock) MarshalYAML() (any, error) { return c.repr(), nil }

// Generate says how much fake data to generate, as counts of the
// fixtures.Config fields. Profile supplies every count the file leaves out;
// after Parse every count holds its final value.
type Generate struct {
	// Profile is "default" (the default), "none" or "large".
	Profile           string `yaml:"profile,omitempty" json:"profile,omitempty"`
	SchoolUnits       int    `yaml:"schoolUnits" json:"schoolUnits"`
	Children          int    `yaml:"children" json:"children"`
	Pupils            int    `yaml:"pupils" json:"pupils"`
	Staff             int    `yaml:"staff" json:"staff"`
	GuardiansPerChild int    `yaml:"guardiansPerChild" json:"guardiansPerChild"`
	Groups            int    `yaml:"groups" json:"groups"`
	Placements        int    `yaml:"placements" json:"placements"`
	Syllabuses        int    `yaml:"syllabuses" json:"syllabuses"`
	CalendarEvents    int    `yaml:"calendarEvents" json:"calendarEvents"`
	Attendances       int    `yaml:"attendances" json:"attendances"`
	Absences          int    `yaml:"absences" json:"absences"`
	// Units is the number of interface-A Units (administrative units,
	// organisation elements of type Förvaltning).
	Units int `yaml:"units" json:"units"`
	// Complete fills every optional member of the records (fixtures.Fill),
	// generated and explicit alike, that the store holds and no other
	// member contradicts; the mock fills interface A's own members too.
	Complete bool `yaml:"complete,omitempty" json:"complete,omitempty"`
}

// Behaviours are the ways the mock misbehaves on purpose.
type Behaviours struct {
	// Latency rules delay matching requests; the first matching rule applies.
	Latency []LatencyRule `yaml:"latency,omitempty" json:"latency,omitempty"`
	// Faults answer matching requests with a fixed response instead of
	// serving them; rules are tried in order and the first that fires answers.
	Faults []FaultRule `yaml:"faults,omitempty" json:"faults,omitempty"`
	// Deviations name deviations from the spec to switch on (names of
	// package deviation).
	Deviations []string `yaml:"deviations,omitempty" json:"deviations,omitempty"`
	// Variants name legal variants to switch on (keys of KnownVariants):
	// behaviours the SS 12000 standard allows that the mock does not do by
	// default.
	Variants []string `yaml:"variants,omitempty" json:"variants,omitempty"`
}

// Builtin returns the embedded scenario with the name.
func Builtin(name string) (*Scenario, error) {
	data, err := builtin.ReadFile("builtin/" + name + ".yaml")
	if err != nil || !validBuiltinName.MatchString(name) {
		return nil, fmt.Errorf("no built-in scenario %q (have: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	return Parse("builtin/"+name+".yaml", data)
}

var validBuiltinName = regexp.MustCompile(`^[a-z0-9-]+$`)

// BuiltinNames lists the embedded scenarios.
func BuiltinNames() []string {
	entries, _ := builtin.ReadDir("builtin")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Parse decodes and checks a scenario file (YAML; JSON is YAML too, so the
// admin API may send either). It reports every problem at once, each with
// the file, line and column, as a *LoadError, and returns no scenario then.
func Parse(file string, data []byte) (*Scenario, error) {
	d := newDecoder(file)
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		p := Problem{File: file, Message: "the file is empty"}
		if !errors.Is(err, io.EOF) {
			p = syntaxProblem(file, err)
		}
		d.problems = append(d.problems, p)
		return nil, &LoadError{File: file, Problems: d.problems}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errorf(&extra, "", "a scenario file holds one YAML document; this is a second one")
	} else if !errors.Is(err, io.EOF) {
		d.problems = append(d.problems, syntaxProblem(file, err))
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	var sc Scenario
	d.decode(doc, "", reflect.ValueOf(&sc).Elem())
	if !d.failed[""] {
		sc.check(d)
	}
	if len(d.problems) > 0 {
		e := &LoadError{File: file, Problems: d.problems}
		e.sort()
		return nil, e
	}
	sc.src = d
	return &sc, nil
}

var reYAMLLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxProblem turns a yaml.v3 parse error ("yaml: line 3: ...") into a
// problem with the line.
func syntaxProblem(file string, err error) Problem {
	msg := err.Error()
	p := Problem{File: file}
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	p.Message = "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")
	return p
}

// Lifetime returns the token lifetime in seconds, applying the default.
func (sc *Scenario) Lifetime() int {
	if sc.TokenLifetime == 0 {
		return DefaultTokenLifetime
	}
	return sc.TokenLifetime
}

// Rand returns a random source for one stream of the mock's draws
// (probability faults, latency ranges), seeded from the scenario's seed and
// the stream's name: the same scenario gives the same draws in the same
// order. A *rand.Rand is not safe for concurrent use.
func (sc *Scenario) Rand(stream string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(stream))
	return rand.New(rand.NewPCG(uint64(sc.Seed), h.Sum64()))
}

// CheckLogin reports, as a *LoadError at the scenario's clients, a scenario
// whose server no client could obtain a token from (no client with an id
// and a secret): every request to it would fail. The error says how to add
// one. Parse does not check it, since a scenario need not be served (a
// fragment of rules, the data of skolkit generate); skolkit scenarios
// validate, the server and the control plane do.
func (sc *Scenario) CheckLogin() error {
	for _, c := range sc.Clients {
		if c.ID != "" && c.Secret != "" {
			return nil
		}
	}
	return sc.buildError("clients", "no client can obtain a token, so every request to the mock would fail; add one, "+
		"e.g. clients: [{id: my-client, secret: my-secret, scopes: [all]}] (or start skolkit serve with --client-id and --client-secret)")
}
