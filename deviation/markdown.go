package deviation

import (
	"fmt"
	"strings"
)

// Markdown renders deviations as a Markdown table: each one's name, surface
// and what the server does, and, with checks, how the conformance suite
// looks for it and the checks that catch it. docs/scenarios.md and
// docs/conformance.md hold tables rendered by it.
//
//go:generate go test -run ^TestScenariosDocListsEveryDeviation$ . -update
func Markdown(ds []Deviation, checks bool) string {
	var b strings.Builder
	if checks {
		b.WriteString("| deviation | surface | what the server does | how it is caught | checks that catch it |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("| deviation | surface | what the mock does |\n|---|---|---|\n")
	}
	for _, d := range ds {
		name := "`" + d.Name + "`"
		if _, ok := Lookup(d.Name); !ok {
			name = d.Name
		}
		fmt.Fprintf(&b, "| %s | %s | %s |", name, d.Surface, cell(d.Description))
		if checks {
			caught := "—"
			if d.Pending != "" {
				caught = "pending `" + d.Pending + "`"
			}
			if len(d.CaughtBy) > 0 {
				caught = "`" + strings.Join(d.CaughtBy, "`, `") + "`"
			}
			fmt.Fprintf(&b, " %s | %s |", cell(d.How), caught)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// cell escapes s for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
