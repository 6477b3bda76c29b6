package conformance

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// The rules of package rules judge every answer the run receives: the
// runner feeds each exchange to a server-side rules.Judge as it arrives,
// and each selected rule becomes a result of the run (judge.go). A rule
// passes only on evidence; a rule that saw nothing it could judge is
// skipped with the reason.

// Rules returns the server rules a run under the profile applies (without
// --include and --exclude): each becomes a result of the run.
func Rules(p Profile) []*rules.Rule { return selectRules(p, nil, nil) }

// SeverityOf returns the severity of a check or a rule under a profile,
// and whether there is one by that id.
func SeverityOf(id string, p Profile) (Severity, bool) {
	for _, c := range catalogue() {
		if c.ID == id {
			return c.SeverityIn(p), true
		}
	}
	if r := rules.Lookup(id); r != nil && r.Side == rules.SideServer {
		return r.SeverityIn(p), true
	}
	return "", false
}

// selectRules returns the server rules of the profile that --include and
// --exclude select.
func selectRules(p Profile, include, exclude []string) []*rules.Rule {
	var out []*rules.Rule
	for _, r := range rules.Catalogue() {
		if r.Side != rules.SideServer || r.SeverityIn(p) == Off {
			continue
		}
		if len(include) > 0 && !slices.ContainsFunc(include, func(pat string) bool { return matchID(pat, r.ID) }) {
			continue
		}
		if slices.ContainsFunc(exclude, func(pat string) bool { return matchID(pat, r.ID) }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// observe hands an exchange to the rules and to the --spec document.
func (e *env) observe(check string, wire *rules.Exchange, ex *report.Exchange) {
	if e.judge != nil {
		e.judge.Observe(wire)
	}
	if e.user != nil && ex != nil {
		e.user.record(check, wire, ex)
	}
	if e.cfg.Observe != nil {
		e.cfg.Observe(wire)
	}
}

// ruleResults turns what each rule judged into a result.
func (e *env) ruleResults() []report.Result {
	if e.judge == nil {
		return nil
	}
	cov := e.judge.Coverage()
	out := make([]report.Result, 0, len(cov.Rules))
	for _, c := range cov.Rules {
		reason := ""
		if c.Nothing() {
			reason = e.nothingReason(c.Rule, c)
		}
		res := report.RuleResult(c, e.cfg.Profile, e.red, reason)
		res.Level, res.Side = LevelRead.String(), ""
		out = append(out, res)
	}
	if len(cov.Dropped) > 0 {
		e.cfg.Notes = append(e.cfg.Notes, fmt.Sprintf("the rules' history dropped entries to stay within its bounds: %v", cov.Dropped))
	}
	return out
}

// nothingReason says why a rule judged nothing: the surfaces it concerns
// were not configured, or the run's answers gave it nothing.
func (e *env) nothingReason(r *rules.Rule, c rules.RuleCoverage) string {
	var missing []string
	concerned := false
	for _, op := range e.judge.Contract().Operations() {
		if r.Applies != nil && !r.Applies(op) {
			continue
		}
		concerned = true
		if !e.has(op.Surface) && !slices.Contains(missing, op.Surface.Name()) {
			missing = append(missing, op.Surface.Name())
		}
	}
	if concerned && len(missing) > 0 && len(c.Operations) == 0 {
		return fmt.Sprintf("%s not configured, and no answer of an operation it concerns was received", strings.Join(missing, ", "))
	}
	return c.Reason()
}

// userSpec validates every answer against a user's --spec document as well
// (all.user-spec).
type userSpec struct {
	v          *rules.DocValidator
	mu         sync.Mutex
	responses  int
	operations map[string]int
	unmatched  int
	violations []report.Failure
	count      int
}

const maxViolationsKept = 25

func (u *userSpec) record(check string, wire *rules.Exchange, ex *report.Exchange) {
	op, matched, problems := u.v.Validate(wire)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.responses++
	if !matched {
		u.unmatched++
		return
	}
	u.operations[op]++
	if len(problems) == 0 {
		return
	}
	u.count++
	if len(u.violations) < maxViolationsKept {
		u.violations = append(u.violations, report.Failure{
			Message:  fmt.Sprintf("%s (seen by %s): %s", op, check, strings.Join(problems, "; ")),
			Expected: "an answer the document describes",
			Exchange: ex,
		})
	}
}

// notOffered says whether an answer means that the server does not offer
// the operation at all: 405 or 501, or 404 to a GET of a collection
// ("/attendances"), which the standard never answers 404 when offered.
func notOffered(req *Request, status int) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusNotFound:
		return req.Method == http.MethodGet && strings.Count(strings.Trim(req.Path, "/"), "/") == 0
	}
	return false
}
