// Package scenarios owns the scenario file format (YAML), its strict loader
// and the built-in scenarios embedded in the binary. A scenario says who the
// clients are (with their rate limits), how long tokens live, the mock's
// clock, which seed and how much fake data to generate, which explicit
// records to add (linked by aliases), and how the mock misbehaves (latency,
// faults, deviations). Build turns a scenario into a fixtures.Dataset.
//
// Parse reports every problem of a file at once, each with its file, line
// and column, as a *LoadError. The format is documented in
// docs/scenarios.md.
//
// The package holds no server state and serves no HTTP: the mock server
// reads a Scenario and honours it.
package scenarios
