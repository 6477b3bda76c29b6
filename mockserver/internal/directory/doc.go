// Package directory is interface A of the mock (the vendor's Directory API
// under /directory/v1) and the data export (/data-export/v1): the resources
// as descriptions with their hooks (directory.go), persons, placements,
// grades, schools, groups, units and audit events, the search language's
// planner (search.go, over package search), and the interface-A
// view of generated data (Prepare).
//
// An API builds on the surface.Core that the composition root (package
// mockserver) hands it, and gives the root its endpoints; the root's gate
// authenticates, rate-limits and validates them. The package must not import
// package mockserver, package register or the conformance runner.
package directory
