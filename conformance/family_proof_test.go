package conformance

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/rules"
)

// Every deviation of the mock names the operations it breaks, each an
// operation of the contract.
func TestEveryDeviationNamesOperationsOfTheContract(t *testing.T) {
	contract, err := rules.LoadContract(rules.ProfileService)
	require.NoError(t, err)
	ops := map[string]bool{}
	for _, op := range contract.Operations() {
		ops[op.ID()] = true
	}
	for _, d := range deviation.All() {
		assert.NotEmpty(t, d.Operations, "%s names no operation it breaks", d.Name)
		for _, id := range d.Operations {
			assert.True(t, ops[id], "%s: %q is no operation of the contract", d.Name, id)
		}
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(d.Operations))), len(d.Operations), "%s names an operation twice", d.Name)
	}
}

// TestEveryRuleFamilyIsCaughtOnTwoOperations: for every family of the
// server rules, at least two of the mock's deviations are caught by a rule
// of the family, and two of them break different operations, so that no
// family is proven on one operation alone.
func TestEveryRuleFamilyIsCaughtOnTwoOperations(t *testing.T) {
	proofs := FamilyProofs()
	require.NotEmpty(t, proofs)
	byName := map[string]deviation.Deviation{}
	for _, d := range deviation.All() {
		byName[d.Name] = d
	}
	for _, p := range proofs {
		assert.GreaterOrEqual(t, len(p.Deviations), 2, "family %s: caught in only %v", p.Family, p.Deviations)
		assert.True(t, twoDeviationsOnTwoOperations(p.Deviations, byName), "family %s: no two of %v break different operations", p.Family, p.Deviations)
	}
	var families []rules.Family
	for _, r := range Rules(ProfileService) {
		families = append(families, r.Family)
	}
	for _, f := range families {
		assert.True(t, slices.ContainsFunc(proofs, func(p FamilyProof) bool { return p.Family == f }), "family %s has no proof", f)
	}
}

// twoDeviationsOnTwoOperations reports whether two of the named deviations
// break two different operations, one each.
func twoDeviationsOnTwoOperations(names []string, byName map[string]deviation.Deviation) bool {
	for i, a := range names {
		for _, b := range names[i+1:] {
			for _, oa := range byName[a].Operations {
				if slices.ContainsFunc(byName[b].Operations, func(ob string) bool { return ob != oa }) {
					return true
				}
			}
		}
	}
	return false
}
