// Package mockserver is the HTTP mock of the school-data service: New builds
// a Server, an http.Handler that serves every surface on one listener (the
// OAuth 2.0 token endpoint, interface A and the data export under
// /directory/v1 and /data-export/v1, interface B, the SS 12000 register API,
// under /api/v1, and the control plane under /__admin), and whose methods
// are the control plane's operations for Go code (Reset, LoadScenario,
// Requests, AddRules, Clock, Export, ...).
//
// The package is the composition root. The store is built from the record
// kinds (the store's table declarations and interface B's resource
// descriptions: docs/decisions.md#record-kinds), and each surface is built
// over the state they share (mockserver/internal/...: store, register,
// directory, admin, surface); the package wraps them in what applies to
// every request — authentication, rate limits, validation against the
// embedded OpenAPI contract, one router, the journal, faults and latency,
// legal variants and wire deviations — all unexported. Its exported names
// are those its users need; the surfaces' own are internal.
//
// A Server holds no global state: start as many as you like in one process.
// The package must not import the conformance runner or the rules.
package mockserver
