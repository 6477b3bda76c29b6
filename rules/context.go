package rules

import "fmt"

// Context is what a rule's Check gets: the profile, the judge's shared
// History, the rule's own state, and the ways to say what it concluded.
type Context struct {
	// Profile is what the traffic is judged by.
	Profile Profile
	// History is shared by the rules of one judge. Only rules that are not
	// Concurrent may use it.
	History *History
	// Contract is the operation index of the profile.
	Contract *Contract

	judge *Judge
	rule  *Rule
	state any
}

// State is the rule's own state (from its NewState), nil without one.
func (c *Context) State() any { return c.state }

// Severity is the rule's severity under the judge's profile.
func (c *Context) Severity() Severity { return c.rule.SeverityIn(c.Profile) }

// Standard reports whether the judge judges by SS 12000 alone.
func (c *Context) Standard() bool { return c.Profile == ProfileSS12000 }

// Judged says the rule looked at o and could decide: the evidence that
// makes a rule without findings pass.
func (c *Context) Judged(o *Observation) { c.judge.judged(c.rule, o, 1) }

// JudgedN is Judged for n things decided on one exchange (records,
// references, values).
func (c *Context) JudgedN(o *Observation, n int) {
	if n > 0 {
		c.judge.judged(c.rule, o, n)
	}
}

// Fail records a finding on o; related are other exchanges that show it
// (the earlier read a record differs from, the page a walk repeats).
func (c *Context) Fail(o *Observation, expected, format string, args ...any) {
	c.FailRelated(o, nil, expected, format, args...)
}

// FailRelated is Fail with related exchanges.
func (c *Context) FailRelated(o *Observation, related []*Exchange, expected, format string, args ...any) {
	f := Finding{
		Rule: c.rule.ID, Family: c.rule.Family, Side: c.rule.Side, Severity: c.Severity(),
		Message: fmt.Sprintf(format, args...), Expected: expected, Related: related,
	}
	if o != nil {
		f.Operation = o.OperationName()
		f.Exchange = o.Exchange
	}
	c.judge.finding(c.rule, o, f)
}

// Note records a remark (never a fault): with severity NOTE, a client's
// efficiency; otherwise something the report shows beside the rule's
// result.
func (c *Context) Note(o *Observation, format string, args ...any) {
	c.judge.note(c.rule, fmt.Sprintf(format, args...))
}

// Undecided says the rule concerned o but could not judge it, and why
// (coverage reports the reasons; nothing judged is never a pass).
func (c *Context) Undecided(o *Observation, reason string) { c.judge.undecided(c.rule, reason) }
