package conformance

import (
	"maps"
	"slices"
	"strings"
)

// A ledger check runs last and reports on every response the run
// received: all.user-spec validates them against a user's --spec document.
// The contract itself (every answer the contract describes), error bodies
// and dates are judged by the rules of package rules (judge.go).

var specJSON = "All request and response bodies are JSON unless stated otherwise."

func ledgerChecks() []*Check {
	return []*Check{{ID: "all.user-spec", Title: "every answer matches the --spec document, where it documents the operation", Area: "contract",
		Severity: MUST, Standard: MUST, Spec: SpecRef{Section: "What the service does", Quote: specJSON}, Run: ledgerUserSpec, phase: phaseLedger}}
}

func ledgerUserSpec(t *T) {
	u := t.env.user
	if u == nil {
		t.Skipf("no --spec document given")
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.operations) == 0 {
		t.Skipf("none of the %d answers belongs to an operation of %s (operations are matched by method and path relative to the surface URL)", u.responses, u.v.Name())
	}
	if u.unmatched > 0 {
		t.Notef("%d answers belong to operations %s does not document", u.unmatched, u.v.Name())
	}
	t.res.Failures = append(t.res.Failures, u.violations...)
	if u.count > len(u.violations) {
		t.Notef("%d violations in all; the first %d are shown", u.count, len(u.violations))
	}
	ops := slices.Sorted(maps.Keys(u.operations))
	t.Notef("%d answers checked across %d operations: %s", u.responses, len(ops), strings.Join(ops, ", "))
}
