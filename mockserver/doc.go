// Package mockserver is the HTTP mock of the school-data service, and the
// composition root of its surfaces: it serves the OAuth 2.0 token endpoint,
// interface A (the vendor's Directory API under /directory/v1), the data
// export and the control plane (/__admin) itself, and builds interface B
// (package register, the SS 12000 register API under /api/v1) over the state
// they share (package internal/surface: the store in go-memdb, the clock,
// the deviations switched on).
//
// Every request is authenticated, then validated against the embedded OpenAPI
// contract before a handler sees it, and every error is written by one of the
// constructors in internal/surface/errors.go. A Server holds no global state:
// start as many as you like in one process. The package must not import the
// conformance runner.
package mockserver
