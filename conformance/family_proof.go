package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/rules"
)

// FamilyProof is what proves one family of the server rules: the mock's
// deviations that a rule of the family catches (package deviation's
// CaughtBy, which the kill matrix holds to what fails), and the operations
// those deviations break.
type FamilyProof struct {
	Family     rules.Family
	Deviations []string // names, sorted
	Operations []string // contract operation ids, sorted, each once
}

// FamilyProofs returns the proof of every family of the server rules of
// either profile, in the order of the families' names. The families come
// from the rules' catalogue, never from a list of their own.
func FamilyProofs() []FamilyProof {
	var families []rules.Family
	for _, p := range []Profile{ProfileService, ProfileSS12000} {
		for _, r := range Rules(p) {
			if !slices.Contains(families, r.Family) {
				families = append(families, r.Family)
			}
		}
	}
	slices.Sort(families)
	out := make([]FamilyProof, 0, len(families))
	for _, f := range families {
		proof := FamilyProof{Family: f}
		for _, d := range deviation.All() {
			if !slices.ContainsFunc(d.CaughtBy, func(id string) bool { r := rules.Lookup(id); return r != nil && r.Family == f }) {
				continue
			}
			proof.Deviations = append(proof.Deviations, d.Name)
			proof.Operations = append(proof.Operations, d.Operations...)
		}
		slices.Sort(proof.Operations)
		proof.Operations = slices.Compact(proof.Operations)
		out = append(out, proof)
	}
	return out
}

// writeFamilyProofsMarkdown renders the families' proofs as a table.
func writeFamilyProofsMarkdown(b *strings.Builder) {
	b.WriteString("\n## Every rule family caught on several operations\n\n" +
		"For each family of the server rules, the mock's deviations that a rule of the family catches (the kill matrix " +
		"asserts that each fails exactly the checks the table above names) and the operations of the contract those " +
		"deviations break. Every family has at least two deviations that break different operations " +
		"(`TestEveryRuleFamilyIsCaughtOnTwoOperations`).\n\n" +
		"| family | deviations a rule of the family catches | operations they break |\n|---|---|---|\n")
	for _, p := range FamilyProofs() {
		fmt.Fprintf(b, "| %s | `%s` | %s |\n", p.Family, strings.Join(p.Deviations, "`, `"), mdCell(strings.Join(p.Operations, ", ")))
	}
}
