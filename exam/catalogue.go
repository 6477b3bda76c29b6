package exam

import (
	"fmt"
	"io"
	"strings"

	"github.com/skolkit/skolkit/rules"
)

// FindingKinds lists every kind of finding an exam can make: the client
// rules of package rules, then the exam's own kinds.
func FindingKinds() []Kind {
	var out []Kind
	for _, r := range rules.Catalogue() {
		if r.Side != rules.SideClient {
			continue
		}
		out = append(out, Kind{ID: r.ID, Title: r.Title, Family: string(r.Family), Severity: string(r.Severity),
			Verdict: verdictOf(r.Severity), Spec: r.Spec, standard: r.Standard, standardSpec: r.StandardSpec})
	}
	for _, k := range Kinds() {
		k.standard = rules.Severity(k.Severity)
		out = append(out, k)
	}
	return out
}

func verdictOf(s rules.Severity) Verdict {
	if s == rules.NOTE {
		return VerdictNote
	}
	return VerdictFault
}

// WriteCatalogue writes the scenes and every kind of finding, as text or
// as the markdown of docs/exam.md.
func WriteCatalogue(w io.Writer, format string) error {
	switch format {
	case "text":
		fmt.Fprintln(w, "SCENES")
		for _, s := range Scenes() {
			fmt.Fprintf(w, "  %-13s %s\n", s.Name, s.Behaviour)
		}
		fmt.Fprintln(w, "\nFINDINGS (severity under --profile service / ss12000)")
		for _, k := range FindingKinds() {
			fmt.Fprintf(w, "  %-40s %-6s %-6s %s\n", k.ID, k.Severity, k.standard, k.Title)
		}
		return nil
	case "markdown":
		writeMarkdown(w)
		return nil
	}
	return fmt.Errorf("unknown format %q: text or markdown", format)
}

func writeMarkdown(w io.Writer) {
	fmt.Fprintln(w, "### Scenes")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scene | what the server does | why a server may |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, s := range Scenes() {
		fmt.Fprintf(w, "| `%s` | %s | %s: “%s” |\n", s.Name, cell(s.Behaviour), cell(s.Basis.Section), cell(s.Basis.Quote))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Findings")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Severity under `--profile service` / `--profile ss12000`. MUST and SHOULD findings are the client's faults; NOTE is a remark on its efficiency, never a fault.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| finding | severity | what a correct client does | the sentence it rests on |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, k := range FindingKinds() {
		spec := fmt.Sprintf("%s: “%s”", cell(k.Spec.Section), cell(k.Spec.Quote))
		if k.standardSpec != nil {
			spec += fmt.Sprintf("<br>under ss12000, %s: “%s”", cell(k.standardSpec.Section), cell(k.standardSpec.Quote))
		}
		if k.Spec.Decision != "" {
			spec += fmt.Sprintf(" ([decision](decisions.md#%s))", k.Spec.Decision)
		}
		fmt.Fprintf(w, "| `%s` | %s / %s | %s | %s |\n", k.ID, k.Severity, k.standard, cell(k.Title), spec)
	}
}

// cell escapes text for a markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
