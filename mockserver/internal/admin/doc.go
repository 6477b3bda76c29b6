// Package admin is the mock's control plane (/__admin): the router of its
// operations behind the access guard (guard.go: an admin token, or loopback
// requests only), the request journal (journal.go) and the fault and latency
// rules (behaviours.go), with their operations. The operations that act on
// the whole server (reset, scenario, state, snapshot, clock, rate limits,
// records) belong to the composition root (package mockserver), and those of
// interface B's subscriptions and reports to package register; both hand
// them to the Plane as endpoints. The package must not import package
// mockserver, a surface package or the conformance runner.
package admin
