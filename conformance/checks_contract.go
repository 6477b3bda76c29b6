package conformance

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/report"
)

// The ledger checks run last and report on the whole run: all.user-spec
// validates every answer against a user's --spec document, all.walks-end
// says whether every walk ended.
// The contract itself (every answer the contract describes), error bodies
// and dates are judged by the rules of package rules (judge.go).

var specJSON = "All request and response bodies are JSON unless stated otherwise."

func ledgerChecks() []*Check {
	return []*Check{
		{ID: "all.user-spec", Title: "every answer matches the --spec document, where it documents the operation", Area: "contract",
			Severity: MUST, Standard: MUST, Spec: SpecRef{Section: "What the service does", Quote: specJSON}, Run: ledgerUserSpec, phase: phaseLedger},
		{ID: "all.walks-end", Title: "every walk the run made ends (a null pageToken, an offset at pagination.total) within --max-pages and --max-walk-bytes, without looping", Area: "contract",
			Severity: MUST, Standard: MUST, Spec: SpecRef{Section: "Endpoints (interface B)", Quote: "When the response `pageToken` is null, nothing more can be fetched.", Decision: "interface-b-paging"},
			StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: list operations, pageToken", Quote: "Om värdet är null finns inget mer att hämta."}, Run: ledgerWalks, phase: phaseLedger},
	}
}

// walkLedger keeps how the run's walks ended.
type walkLedger struct {
	mu       sync.Mutex
	ended    int
	failures []report.Failure
	count    int
}

// note records how a walk ended: complete, stopped without an end
// (endless), or cut by an answer that was no page (the contract's and the
// checks' to report).
func (l *walkLedger) note(what string, complete, endless bool, problem string, resp *Response) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case complete:
		l.ended++
	case endless:
		l.count++
		if len(l.failures) < maxViolationsKept {
			f := report.Failure{Message: what + ": " + problem, Expected: "a walk that ends"}
			if resp != nil {
				f.Exchange = resp.ex
			}
			l.failures = append(l.failures, f)
		}
	}
}

func ledgerWalks(t *T) {
	l := &t.env.walks
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended == 0 && l.count == 0 {
		t.Skipf("no walk was made to its end or to a bound (its checks were skipped or excluded, or every list answered otherwise than with a page)")
	}
	t.res.Failures = append(t.res.Failures, l.failures...)
	if l.count > len(l.failures) {
		t.Notef("%d walks did not end; the first %d are shown", l.count, len(l.failures))
	}
	t.Notef("%d walks ended", l.ended)
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
