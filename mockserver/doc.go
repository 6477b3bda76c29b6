// Package mockserver is the HTTP mock of the school-data service, and the
// composition root of its surfaces: it serves the OAuth 2.0 token endpoint
// itself, and builds interface A and the data export (package directory,
// under /directory/v1 and /data-export/v1), interface B (package register,
// the SS 12000 register API under /api/v1) and the control plane (package
// admin, /__admin, to which it adds the operations on the whole server) over
// the state they share (package internal/surface: the store in go-memdb, the
// clock, the deviations switched on). It authenticates, rate-limits,
// validates and routes every surface's requests.
//
// Every request is authenticated, then validated against the embedded OpenAPI
// contract before a handler sees it, and every error is written by one of the
// constructors in internal/surface/errors.go. A Server holds no global state:
// start as many as you like in one process. The package must not import the
// conformance runner.
package mockserver
