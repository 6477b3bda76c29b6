// Package scenarios owns the scenario file format (YAML), its strict loader
// and the built-in scenarios embedded in the binary. A scenario says who the
// clients are, how long tokens live, which seed and how much fake data to
// generate. It holds no server state and does not serve HTTP.
package scenarios
