// Package openapi owns skolkit's contract: the OpenAPI 3.0 documents of the
// service, embedded in the binary, and their loading.
//
// Each document is identified by a Name: NameAuth is the token endpoint
// (POST /oauth/token), NameRegister is interface B, the SS 12000 register API
// under /api/v1. The YAML documents are the source; go generate renders each
// as JSON (json/*.json) after validating it with kin-openapi, and writes
// documents_gen.go, a function per document that builds the document
// kin-openapi's loader gives from that JSON (package internal/gengo); the
// tests fail when a document is invalid or a generated file is stale. Load
// builds every document with its function; a Contract then hands out the
// document (for request and response validation), its JSON rendering (served
// at .../openapi.json) and its YAML source.
//
// The documents are written for this service from its spec; for the parts
// interface B shares with SS 12000 2.1.0 they agree with the official SS 12000
// document in every name, shape and enumerated value (checked by the tests).
// Deviations are recorded in docs/decisions.md.
//
// Two extensions say what the rules of package rules cannot derive from a
// name. On a query parameter of a list, x-skolkit-filter says what the
// parameter selects: {field: placedAt.id, compare: equals} (the record
// member and the comparison: equals, contains, onOrBefore, onOrAfter,
// before, after, or none with a why), absent: keep (a record without the
// member is always included: the endDate filters), eitherWithout: endDate
// (records without that member may be included or not). On a reference
// schema whose name does not name its resource, x-skolkit-reference gives
// the list it points to (/organisations).
//
// This package is a leaf: it must not import mockserver or conformance, both
// of which depend on it.
package openapi
