package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Ledger checks run last and report on every response the run received:
// validated against the contract as it arrived (validate.go).

var specJSON = "All request and response bodies are JSON unless stated otherwise."

func ledgerChecks() []*Check {
	mk := func(id, title string, sev Severity, spec SpecRef, run func(*T)) *Check {
		return &Check{ID: id, Title: title, Area: "contract", Severity: sev, Spec: spec, Run: run, phase: phaseLedger}
	}
	// in sets a check's severity under --profile ss12000.
	in := func(std Severity, c *Check) *Check { c.Standard = std; return c }
	choice := func(why string, c *Check) *Check { c.Choice = why; return c }
	return []*Check{
		in(MUST, mk("auth.contract", "every token-endpoint answer has a documented status, content type, headers and body (openapi/auth.yaml)", MUST,
			SpecRef{Section: "Authentication", Quote: specTokenResp.Quote, Decision: "B13, B14"}, ledgerContract(SurfaceAuth))),
		mk("A.contract", "every interface A answer has a documented status, content type, headers and body (openapi/directory.yaml)", MUST,
			SpecRef{Section: "What the service does", Quote: specJSON, Decision: "A2, A16, A19"}, ledgerContract(SurfaceA)),
		in(MUST, mk("B.contract", "every interface B answer has a documented status, content type, headers and body (openapi/register.yaml, relaxed to the standard where the spec says no more: openapi.Service; under --profile ss12000 openapi.Standard)", MUST,
			SpecRef{Section: "What the service does", Quote: specJSON, Decision: "B9, B11"}, ledgerContract(SurfaceB))),
		mk("export.contract", "every data-export answer has a documented status, content type, headers and body (openapi/export.yaml)", MUST,
			SpecRef{Section: "What the service does", Quote: specJSON, Decision: "E1, E2"}, ledgerContract(SurfaceExport)),
		in(MUST, mk("auth.errors.body", "every token-endpoint error has the RFC 6749 §5.2 body", MUST,
			SpecRef{Section: "RFC 6749 §5.2", Quote: "The authorization server responds with an HTTP 400 (Bad Request) status code (unless specified otherwise) and includes the following parameters with the response: error REQUIRED.", Decision: "B14"}, ledgerErrorBody(SurfaceAuth))),
		mk("A.errors.body", "every interface A error has the body {error: {code, message, requestID}} with the code of its status", SHOULD,
			SpecRef{Section: "Errors", Quote: "The body shape of error responses, and any error code field: not shown.", Decision: "A16"}, ledgerErrorBody(SurfaceA)),
		in(SHOULD, choice("an error body on every status, 404 included (decision B9); the standard's 404 has no content", mk("B.errors.body", "every interface B error has the SS 12000 body {code, message} (under --profile ss12000 a 404 may have none)", SHOULD,
			SpecRef{Section: "Errors", Quote: "Error statuses of interface B: not shown.", Decision: "B9"}, ledgerErrorBody(SurfaceB)))),
		mk("export.errors.body", "every data-export error has the body {error: {code, message, requestID}}", SHOULD,
			SpecRef{Section: "Errors", Quote: "The body shape of error responses, and any error code field: not shown.", Decision: "E1"}, ledgerErrorBody(SurfaceExport)),
		mk("A.errors.422-only-on-writes", "interface A answers 422 only to creates, searches and updates", MUST, specA422, ledgerA422),
		in(MUST, mk("all.dates-rfc3339", "every date is an RFC 3339 full-date and every timestamp an RFC 3339 date-time", MUST,
			SpecRef{Section: "Resources: Conventions", Quote: "`meta`: object with `created` and `modified`, both date-time (RFC 3339). … Date fields: string, format date (RFC 3339 full-date)."}, ledgerDates)),
		in(MUST, mk("all.user-spec", "every answer matches the --spec document, where it documents the operation", MUST,
			SpecRef{Section: "What the service does", Quote: specJSON}, ledgerUserSpec)),
	}
}

// reportTally turns a tally into the check's outcome.
func (t *T) reportTally(tl *tally, what string) {
	if tl == nil || tl.responses == 0 {
		t.Skipf("no %s was received in this run (its checks were skipped or excluded)", what)
	}
	for _, v := range tl.violations {
		t.res.Failures = append(t.res.Failures, Failure{
			Message:  fmt.Sprintf("%s (seen by %s): %s", v.Operation, v.Check, strings.Join(v.Problems, "; ")),
			Expected: "an answer the document describes",
			Exchange: v.Exchange,
		})
	}
	if tl.count > len(tl.violations) {
		t.Notef("%d violations in all; the first %d are shown", tl.count, len(tl.violations))
	}
	if len(tl.operations) > 0 {
		ops := slices.Sorted(maps.Keys(tl.operations))
		t.Notef("%d answers checked across %d operations: %s", tl.responses, len(ops), strings.Join(ops, ", "))
	} else {
		t.Notef("%d answers checked", tl.responses)
	}
}

func (t *T) tallyOf(f func(l *ledger) *tally) *tally {
	l := t.env.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	return f(l)
}

func ledgerContract(s Surface) func(*T) {
	return func(t *T) {
		if !t.env.has(s) {
			t.Skipf("%s not configured: give %s", surfaceName(s), s.flag())
		}
		t.reportTally(t.tallyOf(func(l *ledger) *tally { return l.surfaces[s] }), "answer of "+surfaceName(s))
	}
}

func ledgerErrorBody(s Surface) func(*T) {
	return func(t *T) {
		if !t.env.has(s) {
			t.Skipf("%s not configured: give %s", surfaceName(s), s.flag())
		}
		t.reportTally(t.tallyOf(func(l *ledger) *tally { return l.errorBody[s] }), "error answer of "+surfaceName(s))
	}
}

func ledgerA422(t *T) {
	if !t.env.has(SurfaceA) {
		t.Skipf("interface A not configured: give --base-url")
	}
	t.reportTally(t.tallyOf(func(l *ledger) *tally { return l.a422 }), "answer of interface A")
}

func ledgerDates(t *T) {
	t.reportTally(t.tallyOf(func(l *ledger) *tally { return l.dates }), "answer with a date or timestamp")
}

func ledgerUserSpec(t *T) {
	if t.env.cfg.UserSpec == nil {
		t.Skipf("no --spec document given")
	}
	tl := t.tallyOf(func(l *ledger) *tally { return l.userTally })
	if len(tl.operations) == 0 {
		t.Skipf("none of the %d answers belongs to an operation of %s (operations are matched by method and path relative to the surface URL)", tl.responses, t.env.cfg.UserSpecName)
	}
	if n := sumValues(tl.unmatched); n > 0 {
		t.Notef("%d answers belong to operations %s does not document", n, t.env.cfg.UserSpecName)
	}
	t.reportTally(tl, "answer")
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
