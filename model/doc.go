// Package model holds the records of the school-data service as they travel on
// the wire of interface B (SS 12000 2.1.0 names and shapes) together with the
// enumerated wire strings of every field.
//
// The package owns types and constants only: no storage, no HTTP, no fake data.
// The mock server stores these values in go-memdb, the fixtures generate them.
// The conformance runner does not import this package: it judges servers
// against the OpenAPI contract and the spec alone, so that a mistake here is
// caught there.
package model
