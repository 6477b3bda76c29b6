package scenarios

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed builtin/*.yaml
var builtin embed.FS

// Scenario is one loaded scenario file.
type Scenario struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Seed drives every generated value: the same seed gives the same data.
	Seed int64 `yaml:"seed" json:"seed"`
	// TokenLifetime is the access-token lifetime in seconds (default 3600).
	TokenLifetime int      `yaml:"tokenLifetime,omitempty" json:"tokenLifetime,omitempty"`
	Clients       []Client `yaml:"clients" json:"clients"`
	Generate      Generate `yaml:"generate,omitempty" json:"generate,omitempty"`
}

// Client is an API client that may obtain tokens.
type Client struct {
	ID     string `yaml:"id" json:"id"`
	Secret string `yaml:"secret" json:"secret"`
	// Scopes the client may hold; "all" stands for every scope the server knows.
	Scopes []string `yaml:"scopes" json:"scopes"`
}

// Generate says how much fake data to generate.
type Generate struct {
	// Profile names a preset size: "default" or "none".
	Profile string `yaml:"profile,omitempty" json:"profile,omitempty"`
}

// DefaultTokenLifetime is the token lifetime when a scenario names none.
const DefaultTokenLifetime = 3600

// ScopeAll in a client's scopes grants every scope.
const ScopeAll = "all"

// Builtin returns the embedded scenario with the name.
func Builtin(name string) (*Scenario, error) {
	data, err := builtin.ReadFile("builtin/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (have: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	return Parse("builtin/"+name+".yaml", data)
}

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

// Parse decodes a scenario strictly: unknown keys and wrong types are errors
// that name the file, line and column. It then checks the values.
func Parse(file string, data []byte) (*Scenario, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: %s", file, strings.Join(te.Errors, "; "))
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := sc.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &sc, nil
}

func (sc *Scenario) check() error {
	var errs []error
	if sc.Name == "" {
		errs = append(errs, errors.New("name: required"))
	}
	if sc.TokenLifetime < 0 {
		errs = append(errs, fmt.Errorf("tokenLifetime: %d is negative", sc.TokenLifetime))
	}
	seen := map[string]bool{}
	for i, c := range sc.Clients {
		if c.ID == "" || c.Secret == "" {
			errs = append(errs, fmt.Errorf("clients[%d]: id and secret are required", i))
		}
		if seen[c.ID] {
			errs = append(errs, fmt.Errorf("clients[%d]: duplicate id %q", i, c.ID))
		}
		seen[c.ID] = true
	}
	switch sc.Generate.Profile {
	case "", "default", "none":
	default:
		errs = append(errs, fmt.Errorf("generate.profile: %q is not one of default, none", sc.Generate.Profile))
	}
	return errors.Join(errs...)
}

// Lifetime returns the token lifetime in seconds, applying the default.
func (sc *Scenario) Lifetime() int {
	if sc.TokenLifetime == 0 {
		return DefaultTokenLifetime
	}
	return sc.TokenLifetime
}
