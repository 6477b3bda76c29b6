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
// This package is a leaf: it must not import mockserver or conformance, both
// of which depend on it.
package openapi
