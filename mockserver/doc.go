// Package mockserver is the HTTP mock of the school-data service: the OAuth 2.0
// token endpoint, interface B (the SS 12000 register API under /api/v1) and
// the served contract, with state in go-memdb (package store).
//
// Every request is authenticated, then validated against the embedded OpenAPI
// contract before a handler sees it, and every error is written by one of the
// constructors in errors.go. A Server holds no global state: start as many as
// you like in one process. The package must not import the conformance runner.
package mockserver
