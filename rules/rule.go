package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Rule is one named predicate over an exchange, or over the history of
// exchanges so far.
type Rule struct {
	// ID is dotted, family first: "paging.page-within-limit",
	// "client.pagetoken-with-filters".
	ID     string
	Family Family
	// Side is whose fault a finding is.
	Side  Side
	Title string
	// Spec is the sentence the rule enforces under --profile service.
	Spec SpecRef
	// StandardSpec is the sentence under --profile ss12000, when it
	// differs.
	StandardSpec *SpecRef
	// Severity is the rule's severity under --profile service; Standard
	// under --profile ss12000 (Off: not part of that profile).
	Severity Severity
	Standard Severity
	// Choice, when set, says that what the rule enforces is skolkit's own
	// choice where the spec leaves the behaviour open, and names the
	// decision.
	Choice string
	// Applies says which operations the rule concerns, derived from the
	// contract (never a list of paths); it is asked with nil for exchanges
	// that match no operation. A nil Applies concerns every exchange.
	Applies func(*Operation) bool
	// NewState, when set, makes the rule's own state for one judge (rules
	// over history keep theirs there or in the shared History).
	NewState func() any
	// Concurrent says that Check reads only the observation (no History,
	// no state), so the judge may run it outside its lock.
	Concurrent bool
	// Check judges one observation.
	Check func(*Context, *Observation)
	// Finish, when set, judges what is left when the stream ends
	// (Judge.Finish): a walk the client never followed to its end. It runs
	// under the judge's lock, with the History and the rule's state.
	Finish func(*Context)
}

// SeverityIn is the rule's severity under a profile.
func (r *Rule) SeverityIn(p Profile) Severity {
	if p == ProfileSS12000 {
		return r.Standard
	}
	return r.Severity
}

// SpecIn is the sentence the rule enforces under a profile.
func (r *Rule) SpecIn(p Profile) SpecRef {
	if p == ProfileSS12000 && r.StandardSpec != nil {
		return *r.StandardSpec
	}
	return r.Spec
}

// concerns reports whether the rule applies to an operation (nil: an
// exchange that matched none).
func (r *Rule) concerns(op *Operation) bool { return r.Applies == nil || r.Applies(op) }

// families lists every family's rules: one function per family, in the
// family's file.
func families() [][]*Rule {
	return [][]*Rule{
		clientRateLimitRules(), clientRequestRules(), clientRetryRules(), clientTokenRules(), clientWalkRules(),
		contractRules(), dateRules(), errorRules(), filterRules(), headerRules(),
		pagingRules(), referenceRules(), representationRules(), writeRules(),
	}
}

// catalogue is every rule sorted by id, built and validated once.
var catalogue = sync.OnceValue(func() []*Rule { return buildCatalogue(slices.Concat(families()...)) })

// Catalogue returns every rule, server and client, sorted by id. The rules
// are shared: do not modify them.
func Catalogue() []*Rule { return slices.Clone(catalogue()) }

// Lookup returns the rule with the id, or nil.
func Lookup(id string) *Rule {
	for _, r := range Catalogue() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func buildCatalogue(rs []*Rule) []*Rule {
	out := slices.Clone(rs)
	slices.SortFunc(out, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
	seen := map[string]bool{}
	for _, r := range out {
		if err := validRule(r); err != nil {
			panic(err)
		}
		if seen[r.ID] {
			panic("rules: duplicate rule id " + r.ID)
		}
		seen[r.ID] = true
	}
	return out
}

func validRule(r *Rule) error {
	sev := func(s Severity) bool { return s == MUST || s == SHOULD || s == NOTE || s == Off }
	switch {
	case r.ID == "" || r.Title == "" || r.Family == "" || r.Check == nil:
		return fmt.Errorf("rules: incomplete rule %q", r.ID)
	case !strings.HasPrefix(r.ID, string(r.Family)+".") && !strings.HasPrefix(r.ID, "client."):
		return fmt.Errorf("rules: rule %s: the id must start with its family (%s.)", r.ID, r.Family)
	case r.Side != SideServer && r.Side != SideClient:
		return fmt.Errorf("rules: rule %s has no side", r.ID)
	case r.Spec.Quote == "" || r.Spec.Section == "":
		return fmt.Errorf("rules: rule %s quotes no sentence", r.ID)
	case !sev(r.Severity) || !sev(r.Standard):
		return fmt.Errorf("rules: rule %s has a bad severity (%q, %q)", r.ID, r.Severity, r.Standard)
	case r.Severity == Off && r.Standard == Off:
		return fmt.Errorf("rules: rule %s is in no profile", r.ID)
	}
	return nil
}
