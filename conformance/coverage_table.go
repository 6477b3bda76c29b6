package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/rules"
)

// The coverage table of docs/conformance.md: for every operation of the
// contract, which families of rules apply to it, which rules of each, and
// how the runner reaches it; an applicable family that no rule covers, or
// an operation the runner does not reach, is a gap, listed with why.

// ReachedByChecks are the operations the runner reaches through its checks
// alone (writes, subscriptions, the token endpoint, …), not through the
// traffic of the rules. A test against the mock keeps the list true both
// ways (cmd/skolkit: TestCoverageTableHolds).
var ReachedByChecks = []string{
	"auth POST /oauth/token",
	"A POST /employee", "A PATCH /employee/{id}", "A DELETE /employee/{id}",
	"A POST /employee-placement", "A PATCH /employee-placement/{id}", "A DELETE /employee-placement/{id}",
	"A PATCH /employee-placement/{id}/archive", "A PATCH /employee-placement/{id}/restore",
	"A POST /group", "A PATCH /group/{id}", "A DELETE /group/{id}",
	"A POST /guardian", "A PATCH /guardian/{id}", "A DELETE /guardian/{id}",
	"A PATCH /school/{id}", "A PATCH /unit/{id}",
	"A POST /grade-elementary", "A PATCH /grade-elementary/{id}", "A DELETE /grade-elementary/{id}",
	"A POST /grade-upper-secondary", "A PATCH /grade-upper-secondary/{id}", "A DELETE /grade-upper-secondary/{id}",
	"A POST /student", "A PATCH /student/{id}", "A DELETE /student/{id}",
	"A POST /student-placement", "A DELETE /student-placement/{id}",
	"A PATCH /student-placement/{id}/archive", "A PATCH /student-placement/{id}/restore",
	"A PATCH /student-placement/{id}", "A PATCH /student-placements/{id}", "A GET /student-placements/{id}",
	"A GET /openapi.json", "B GET /openapi.json", "export GET /openapi.json",
	"B POST /attendances", "B DELETE /attendances/{id}",
	"B POST /attendanceEvents", "B DELETE /attendanceEvents/{id}",
	"B POST /attendanceSchedule", "B DELETE /attendanceSchedule/{id}",
	"B POST /subscriptions", "B GET /subscriptions/{id}", "B PATCH /subscriptions/{id}", "B DELETE /subscriptions/{id}",
	"B GET /deletedEntities",
	"B POST /log", "B POST /statistics",
}

// NotReached are the operations the runner does not send, and why.
var NotReached = map[string]string{
	"A PATCH /student-placement/{id}": "placements are changed through the older path /student-placements/{id}, which the spec states",
	"A POST /school":                  "opt-in (A.school.create, A.school.update): the spec gives no way to delete a School the runner made",
	"A POST /unit":                    "opt-in (A.unit.create, A.unit.update): the vendor's API gives no way to delete a Unit the runner made",
	"B POST /absences":                "opt-in (B.absences.create): SS 12000 gives no way to delete an absence the runner made",
	"B POST /log/":                    "the same operation as POST /log, which the runner sends",
	"B POST /statistics/":             "the same operation as POST /statistics, which the runner sends",
}

// familyApplies says whether a family of rules concerns an operation, from
// the contract alone: what the operation is, not what rules exist.
func familyApplies(f rules.Family, op *rules.Operation) bool {
	switch f {
	case rules.FamilyContract, rules.FamilyErrors:
		return true
	case rules.FamilyHeaders:
		return true
	case rules.FamilyDates, rules.FamilyRepresentation:
		return op.ReadsRecords()
	case rules.FamilyPaging:
		return op.Paging != rules.PagingNone && op.Records == "data"
	case rules.FamilyFilters:
		return len(op.Filters) > 0
	case rules.FamilyReferences:
		return len(op.References) > 0
	case rules.FamilyWrites:
		return op.Body && (op.Kind == rules.KindCreate || op.Kind == rules.KindUpdate)
	}
	return false
}

// coverageFamilies are the families of server rules, in table order.
var coverageFamilies = []rules.Family{rules.FamilyContract, rules.FamilyErrors, rules.FamilyDates, rules.FamilyPaging, rules.FamilyFilters,
	rules.FamilyRepresentation, rules.FamilyReferences, rules.FamilyWrites, rules.FamilyHeaders}

// CoverageRow is one operation of the coverage table.
type CoverageRow struct {
	Operation *rules.Operation
	// Reached says how the runner sends the operation: "traffic" (the
	// rules' traffic), "checks", or "" (not at all).
	Reached string
	// Rules are the rules of each family that apply (a family that applies
	// with no rule has an empty list; one that does not apply is absent).
	Rules map[rules.Family][]string
	// Gaps say what the runner cannot judge there, and why.
	Gaps []string
}

// reachedByTraffic says whether the rules' traffic sends an operation: the
// lists it walks and their reads by id, lookups and searches.
func reachedByTraffic(c *rules.Contract, op *rules.Operation) bool {
	if op.Method != "GET" && op.Kind != rules.KindLookup && op.Kind != rules.KindSearch {
		return false
	}
	for _, l := range c.Operations() {
		if l.Kind == rules.KindList && l.Method == "GET" && l.Paging != rules.PagingNone && l.Surface == op.Surface && l.Resource == op.Resource {
			switch op.Kind {
			case rules.KindList, rules.KindGet, rules.KindLookup, rules.KindSearch:
				return op.Resource != ""
			}
		}
	}
	return false
}

// CoverageTable derives the coverage table under a profile.
func CoverageTable(p Profile) ([]CoverageRow, error) {
	c, err := rules.LoadContract(p)
	if err != nil {
		return nil, err
	}
	rs := Rules(p)
	var out []CoverageRow
	for _, op := range c.Operations() {
		if p == ProfileSS12000 && op.Surface != SurfaceB && op.Surface != SurfaceAuth {
			continue
		}
		row := CoverageRow{Operation: op, Rules: map[rules.Family][]string{}}
		switch {
		case reachedByTraffic(c, op):
			row.Reached = "traffic"
		case slices.Contains(ReachedByChecks, op.ID()):
			row.Reached = "checks"
		default:
			why := NotReached[op.ID()]
			if why == "" {
				why = "no check sends it"
			}
			row.Gaps = append(row.Gaps, "not sent by the runner: "+why)
		}
		for _, f := range coverageFamilies {
			if !familyApplies(f, op) {
				continue
			}
			row.Rules[f] = []string{}
			for _, r := range rs {
				if r.Family == f && (r.Applies == nil || r.Applies(op)) {
					row.Rules[f] = append(row.Rules[f], strings.TrimPrefix(r.ID, string(f)+"."))
				}
			}
			if len(row.Rules[f]) == 0 {
				row.Gaps = append(row.Gaps, fmt.Sprintf("%s: no rule of the family applies", f))
			}
		}
		for _, f := range op.Filters {
			if f.Compare == rules.CompareNone {
				row.Gaps = append(row.Gaps, fmt.Sprintf("filters: %s is not judged: %s", f.Param, f.Why))
			}
		}
		for _, key := range op.SortKeys {
			if _, ok := rules.SortKey(op, key); !ok {
				row.Gaps = append(row.Gaps, fmt.Sprintf("paging: sortkey=%s is not judged: the record has no member of that name, and the standard does not say what the order reads", key))
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// writeCoverageMarkdown renders the coverage table and its gaps.
func writeCoverageMarkdown(b *strings.Builder) {
	rows, err := CoverageTable(ProfileService)
	if err != nil {
		fmt.Fprintf(b, "\n(the coverage table could not be derived: %v)\n", err)
		return
	}
	fmt.Fprintf(b, "\n# Coverage of the contract\n\nFor every operation of the contract (under `--profile service`), the families of rules that apply to it and the rules of each family that judge it, and how the runner reaches it: through the rules' *traffic* (the walks, filtered walks, sorted walks, reads by id, lookups and searches the runner derives from the contract for every list), or through its *checks*. A family that applies with no rule, an operation the runner does not send, and a filter or order no rule can judge are gaps, listed below the table. `–` is a family that does not apply.\n\n")
	b.WriteString("| operation | reached by |")
	for _, f := range coverageFamilies {
		b.WriteString(" " + string(f) + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(coverageFamilies)) + "\n")
	gaps := 0
	for _, r := range rows {
		reached := r.Reached
		if reached == "" {
			reached = "**not sent**"
		}
		fmt.Fprintf(b, "| `%s` | %s |", r.Operation.ID(), reached)
		for _, f := range coverageFamilies {
			rs, ok := r.Rules[f]
			switch {
			case !ok:
				b.WriteString(" – |")
			case len(rs) == 0:
				b.WriteString(" **gap** |")
			default:
				b.WriteString(" " + mdCell(strings.Join(rs, ", ")) + " |")
			}
		}
		b.WriteString("\n")
		gaps += len(r.Gaps)
	}
	fmt.Fprintf(b, "\n## Gaps (%d)\n\n", gaps)
	for _, r := range rows {
		for _, g := range r.Gaps {
			fmt.Fprintf(b, "- `%s`: %s.\n", r.Operation.ID(), mdCell(g))
		}
	}
}
