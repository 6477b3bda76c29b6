package rules

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"
)

// Config says what a judge judges and by what.
type Config struct {
	// Profile is what the traffic is judged by (default ProfileService).
	Profile Profile
	// Sides are the sides judged (nil: both).
	Sides []Side
	// Rules are the rules applied (nil: Catalogue()); rules that are Off
	// under the profile, or of a side not judged, are left out.
	Rules []*Rule
	// Limits bound the history.
	Limits Limits
}

// Finding is one thing a rule found wrong.
type Finding struct {
	Rule     string   `json:"rule"`
	Family   Family   `json:"family"`
	Side     Side     `json:"side"`
	Severity Severity `json:"severity"`
	// Operation names the operation ("B GET /placements/{id}").
	Operation string `json:"operation"`
	Message   string `json:"message"`
	Expected  string `json:"expected,omitempty"`
	// Exchange is the exchange that shows it; Related are others that do
	// (the earlier read of a record, the page a walk repeats).
	Exchange *Exchange   `json:"-"`
	Related  []*Exchange `json:"-"`
}

// Judge applies rules to a stream of exchanges. It is safe for concurrent
// use: rules that read only the exchange in hand (Concurrent) run at once;
// the others, and the history they read, are serialised.
type Judge struct {
	cfg      Config
	contract *Contract
	rules    []*Rule
	byOp     sync.Map // *Operation (or nil key) → []*Rule
	history  *History
	mu       sync.Mutex // guards history, states and rules that are not Concurrent
	states   map[*Rule]any

	statsMu sync.Mutex
	stats   map[*Rule]*ruleStats
	seenOps map[string]int // operation → exchanges seen
	nRules  map[string]int // operation → rules that concerned it
	total   int
}

type ruleStats struct {
	ops       map[string]int
	judged    int
	findings  []Finding
	nFindings int
	undecided map[string]int
	notes     []string
}

// NewJudge builds a judge.
func NewJudge(cfg Config) (*Judge, error) {
	if cfg.Profile == "" {
		cfg.Profile = ProfileService
	}
	cfg.Limits = cfg.Limits.withDefaults()
	c, err := LoadContract(cfg.Profile)
	if err != nil {
		return nil, err
	}
	rs := cfg.Rules
	if rs == nil {
		rs = Catalogue()
	}
	j := &Judge{cfg: cfg, contract: c, history: newHistory(cfg.Limits), states: map[*Rule]any{},
		stats: map[*Rule]*ruleStats{}, seenOps: map[string]int{}, nRules: map[string]int{}}
	for _, r := range rs {
		if err := validRule(r); err != nil {
			return nil, err
		}
		if r.SeverityIn(cfg.Profile) == Off || (cfg.Sides != nil && !slices.Contains(cfg.Sides, r.Side)) {
			continue
		}
		j.rules = append(j.rules, r)
		if r.NewState != nil {
			j.states[r] = r.NewState()
		}
		j.stats[r] = &ruleStats{ops: map[string]int{}, undecided: map[string]int{}}
	}
	return j, nil
}

// Contract is the operation index the judge matches exchanges against.
func (j *Judge) Contract() *Contract { return j.contract }

// Rules are the rules the judge applies.
func (j *Judge) Rules() []*Rule { return slices.Clone(j.rules) }

// Profile is what the judge judges by.
func (j *Judge) Profile() Profile { return j.cfg.Profile }

type opKey struct{ op *Operation }

func (j *Judge) rulesFor(op *Operation) []*Rule {
	if v, ok := j.byOp.Load(opKey{op}); ok {
		return v.([]*Rule)
	}
	var out []*Rule
	for _, r := range j.rules {
		if r.concerns(op) {
			out = append(out, r)
		}
	}
	j.byOp.Store(opKey{op}, out)
	return out
}

// Begin tells the judge that a request is about to be sent and its answer
// is still to come; drivers that see a request before its answer call it
// for every request, so that rules comparing readings know of writes under
// way. Observe of the same exchange (the same pointer) ends it. The write
// is under way from the exchange's Start when it is set, else from now (a
// driver may set Start after Begin). A write whose answer is not observed
// within pendingMaxAge (its driver dropped it) is no longer counted under
// way.
func (j *Judge) Begin(ex *Exchange) {
	if !isWriteExchange(ex) {
		return
	}
	at := ex.Start
	if at.IsZero() {
		at = time.Now()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for w, start := range j.history.pending {
		if at.Sub(start) > pendingMaxAge {
			delete(j.history.pending, w)
		}
	}
	j.history.pending[ex] = at
}

// pendingMaxAge is how long a write stays under way without its answer.
const pendingMaxAge = time.Minute

// Observe judges one exchange and remembers it. The exchange must not be
// changed afterwards.
func (j *Judge) Observe(ex *Exchange) *Observation {
	o := NewObservation(j.contract, ex)
	rs := j.rulesFor(o.Op)
	name := o.OperationName()
	j.statsMu.Lock()
	if _, seen := j.seenOps[name]; !seen && len(j.seenOps) >= maxOperationNames {
		name = otherOperations // a stream of paths outside the contract must not grow the counts without bound
	}
	j.total++
	j.seenOps[name]++
	j.nRules[name] += len(rs)
	for _, r := range rs {
		j.stats[r].ops[name]++
	}
	j.statsMu.Unlock()
	for _, r := range rs {
		if r.Concurrent {
			r.Check(&Context{Profile: j.cfg.Profile, Contract: j.contract, judge: j, rule: r}, o)
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	// The history takes the exchange in first, so that a rule sees the
	// walk it belongs to and the records it shows beside what came before.
	delete(j.history.pending, ex)
	j.history.record(o)
	for _, r := range rs {
		if !r.Concurrent {
			r.Check(&Context{Profile: j.cfg.Profile, History: j.history, Contract: j.contract, judge: j, rule: r, state: j.states[r]}, o)
		}
	}
	return o
}

// Finish tells the rules that the stream has ended, so that those that
// judge what never came (a walk left before its end) do. A driver calls it
// once, when the traffic it judges is over (the exam at the end of a
// scene, the tap when it stops); exchanges observed after it are judged as
// before, and a second Finish judges what is left again.
func (j *Judge) Finish() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.rules {
		if r.Finish != nil {
			r.Finish(&Context{Profile: j.cfg.Profile, History: j.history, Contract: j.contract, judge: j, rule: r, state: j.states[r]})
		}
	}
}

func (j *Judge) judged(r *Rule, _ *Observation, n int) {
	j.statsMu.Lock()
	j.stats[r].judged += n
	j.statsMu.Unlock()
}

func (j *Judge) finding(r *Rule, _ *Observation, f Finding) {
	j.statsMu.Lock()
	defer j.statsMu.Unlock()
	st := j.stats[r]
	st.nFindings++
	if len(st.findings) < j.cfg.Limits.Findings {
		st.findings = append(st.findings, f)
	}
}

func (j *Judge) note(r *Rule, s string) {
	j.statsMu.Lock()
	defer j.statsMu.Unlock()
	st := j.stats[r]
	if len(st.notes) < j.cfg.Limits.Findings && !slices.Contains(st.notes, s) {
		st.notes = append(st.notes, s)
	}
}

func (j *Judge) undecided(r *Rule, reason string) {
	j.statsMu.Lock()
	u := j.stats[r].undecided
	if _, seen := u[reason]; !seen && len(u) >= maxUndecidedReasons {
		reason = otherReasons
	}
	u[reason]++
	j.statsMu.Unlock()
}

// The bounds of what a judge counts, so that its memory stays bounded
// however long it observes: operation names (the contract's are a few
// hundred; paths outside it are counted by their own path up to the bound)
// and distinct reasons a rule could not judge.
const (
	maxOperationNames   = 1024
	maxUndecidedReasons = 32
	otherOperations     = "other paths (more than 1024 operations and paths seen)"
	otherReasons        = "other reasons"
)

// Findings returns the findings kept so far, by rule id.
func (j *Judge) Findings() []Finding {
	j.statsMu.Lock()
	defer j.statsMu.Unlock()
	var out []Finding
	for _, r := range j.rules {
		out = append(out, j.stats[r].findings...)
	}
	return out
}

// Coverage says what each rule could judge.
type Coverage struct {
	// Exchanges is the number of exchanges observed.
	Exchanges int
	// Rules are the rules applied, by id.
	Rules []RuleCoverage
	// Unjudged are operations seen that no rule concerned, with the
	// number of exchanges.
	Unjudged map[string]int
	// Dropped says what the history forgot to stay within its limits.
	Dropped map[string]int
}

// RuleCoverage is what one rule saw.
type RuleCoverage struct {
	Rule *Rule
	// Operations are the operations it concerns that were seen, with the
	// number of exchanges.
	Operations map[string]int
	// Judged counts what it could decide (exchanges, records, values).
	Judged int
	// Findings counts every finding; Kept are the first ones.
	Findings int
	Kept     []Finding
	// Undecided are the reasons it could not judge, with counts.
	Undecided map[string]int
	// Notes are remarks it made.
	Notes []string
}

// Nothing reports whether the rule had nothing to look at: it judged
// nothing and found nothing (never a pass).
func (c RuleCoverage) Nothing() bool { return c.Judged == 0 && c.Findings == 0 }

// Reason words why a rule without evidence could not pass.
func (c RuleCoverage) Reason() string {
	if len(c.Undecided) > 0 {
		reasons := slices.Collect(maps.Keys(c.Undecided))
		sort.Slice(reasons, func(a, b int) bool { return c.Undecided[reasons[a]] > c.Undecided[reasons[b]] })
		s := reasons[0]
		if len(reasons) > 1 {
			s += fmt.Sprintf(" (and %d other reasons)", len(reasons)-1)
		}
		return s
	}
	if len(c.Operations) == 0 {
		return "no exchange of an operation it concerns was seen"
	}
	return "the exchanges seen gave it nothing to judge"
}

// Coverage returns what every rule could judge so far.
func (j *Judge) Coverage() Coverage {
	// The judge's lock before the statistics' (the order Observe takes
	// them in).
	j.mu.Lock()
	dropped := j.history.Dropped()
	j.mu.Unlock()
	j.statsMu.Lock()
	defer j.statsMu.Unlock()
	cov := Coverage{Exchanges: j.total, Unjudged: map[string]int{}, Dropped: dropped}
	for _, r := range j.rules {
		st := j.stats[r]
		cov.Rules = append(cov.Rules, RuleCoverage{
			Rule: r, Operations: maps.Clone(st.ops), Judged: st.judged, Findings: st.nFindings,
			Kept: slices.Clone(st.findings), Undecided: maps.Clone(st.undecided), Notes: slices.Clone(st.notes),
		})
	}
	for op, n := range j.seenOps {
		if j.nRules[op] == 0 {
			cov.Unjudged[op] = n
		}
	}
	return cov
}
