package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/rules"
)

// RuleResult is what one rule of a judge found, as a result: failed with
// its first findings (each with its exchange, and the related ones, as
// excerpts; messages as red.Text shows them), skipped with nothing as the
// reason when it had nothing to look at (never a pass), passed otherwise;
// the findings of a rule of severity NOTE (a client's efficiency) are notes
// of a pass, never a failure.
// Notes say how many findings there were in all and what it judged
// across which operations.
func RuleResult(c rules.RuleCoverage, p rules.Profile, red *Redactor, nothing string) Result {
	r := c.Rule
	res := Result{ID: r.ID, Title: r.Title, Area: string(r.Family), Side: r.Side,
		Severity: r.SeverityIn(p), Choice: r.Choice, Spec: r.SpecIn(p)}
	for _, n := range c.Notes {
		res.Notes = append(res.Notes, red.Text(n))
	}
	switch {
	case c.Findings > 0 && r.SeverityIn(p) == rules.NOTE:
		// A remark on a client's efficiency, never a fault.
		res.Status = StatusPass
		for _, f := range c.Kept {
			res.Notes = append(res.Notes, red.Text(f.Message))
		}
	case c.Findings > 0:
		res.Status = StatusFail
		for _, f := range c.Kept {
			fl := Failure{}
			if f.Exchange != nil { // excerpts first: they teach a masking redactor what the message may quote
				fl.Exchange = red.Excerpt(f.Exchange)
			}
			for _, rel := range f.Related {
				fl.Related = append(fl.Related, red.Excerpt(rel))
			}
			fl.Message, fl.Expected = red.Text(f.Message), red.Text(f.Expected)
			res.Failures = append(res.Failures, fl)
		}
		if c.Findings > len(c.Kept) {
			res.Notes = append(res.Notes, fmt.Sprintf("%d findings in all; the first %d are shown", c.Findings, len(c.Kept)))
		}
	case c.Nothing():
		res.Status = StatusSkip
		res.Reason = nothing
	default:
		res.Status = StatusPass
	}
	res.Requests = 0
	for _, n := range c.Operations {
		res.Requests += n
	}
	if n := len(c.Operations); n > 0 {
		ops := slices.Sorted(maps.Keys(c.Operations))
		shown := ops[:min(len(ops), 12)]
		more := ""
		if len(ops) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(ops)-len(shown))
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%d judged, in %d exchanges of the %d operations it concerns that were seen: %s", c.Judged, res.Requests, n, strings.Join(shown, ", ")+more))
	}
	for n, reason := range undecided(c) {
		res.Notes = append(res.Notes, fmt.Sprintf("could not judge %d times: %s", n, red.Text(reason)))
	}
	return res
}

// undecided yields the reasons a rule could not judge, most frequent
// first.
func undecided(c rules.RuleCoverage) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		reasons := slices.Sorted(maps.Keys(c.Undecided))
		slices.SortStableFunc(reasons, func(a, b string) int { return c.Undecided[b] - c.Undecided[a] })
		for _, r := range reasons {
			if !yield(c.Undecided[r], r) {
				return
			}
		}
	}
}
