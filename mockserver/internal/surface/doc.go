// Package surface is what the mock's surfaces share: the state they serve
// (Core: the store, the clock, the logger, the deviations switched on), how
// a surface describes its operations to the composition root (Endpoint,
// AdminEndpoint), and the error bodies every surface writes (errors.go: one
// constructor per body).
//
// A surface (package register for interface B, package directory for
// interface A and the export) builds on a Core and hands its endpoints to
// package mockserver, which authenticates, validates, routes and (through
// package admin) journals them.
// This package imports no surface and no part of the conformance runner.
package surface
