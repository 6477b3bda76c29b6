package conformance

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// ListFormats are the formats of --list.
var ListFormats = []string{"text", "markdown", "json"}

// WriteList prints the catalogue: "text" (a table), "markdown" (the
// content of docs/conformance.md) or "json".
func WriteList(w io.Writer, format string) error {
	switch format {
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLEVEL\tSEVERITY\tTITLE")
		for _, c := range Catalogue() {
			level := c.Level.String()
			if c.OptIn != "" {
				level += " (opt-in)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, level, c.Severity, c.Title)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "%d checks\n", len(Catalogue()))
		return err
	case "markdown":
		_, err := io.WriteString(w, Markdown())
		return err
	case "json":
		type entry struct {
			ID       string   `json:"id"`
			Title    string   `json:"title"`
			Area     string   `json:"area"`
			Level    string   `json:"level"`
			Severity Severity `json:"severity"`
			OptIn    string   `json:"optIn,omitempty"`
			Needs    []string `json:"needs,omitempty"`
			Spec     SpecRef  `json:"spec"`
		}
		var out []entry
		for _, c := range Catalogue() {
			e := entry{ID: c.ID, Title: c.Title, Area: c.Area, Level: c.Level.String(), Severity: c.Severity, OptIn: c.OptIn, Spec: c.Spec}
			for _, s := range c.Needs {
				e.Needs = append(e.Needs, string(s))
			}
			out = append(out, e)
		}
		return jsonEncoder(w).Encode(out)
	}
	return fmt.Errorf("unknown list format %q (want %s)", format, strings.Join(ListFormats, ", "))
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// Markdown renders docs/conformance.md from the catalogue.
func Markdown() string {
	var b strings.Builder
	all := Catalogue()
	b.WriteString(`<!-- Generated from the catalogue in conformance/: do not edit.
     Regenerate with: go run ./cmd/skolkit conformance --list --format markdown > docs/conformance.md
     (or: go test ./conformance -run TestMarkdownUpToDate -update). TestMarkdownUpToDate fails when this file is stale. -->

# Conformance checks

` + "`skolkit conformance`" + ` sends one test suite to any implementation of the service and reports where it
departs from the spec (the service's specification of its interfaces, cited by section). Each check below
names the sentence it enforces; where the spec leaves a behaviour open, the check follows the contract's
decision (` + "`docs/decisions.md`" + `) and names it.

- **Level**: ` + "`read`" + ` checks only read and are safe against production data; ` + "`write`" + ` checks
  (` + "`--level write`" + `) create records named ` + "`skolkit-conformance …`" + `, change and delete only those, and
  remove them when they end. Opt-in checks run only when ` + "`--include`" + ` names their id exactly.
- **Severity**: MUST is required by the spec (or the RFC it builds on); SHOULD is a recommendation or a
  choice of the contract where the spec is silent. ` + "`--fail-on must|should`" + ` sets which failures fail the run.
- **Outcome**: pass, fail (with the request, an excerpt of the response, what was expected and a curl line,
  secrets shown as ` + "`$CLIENT_SECRET`" + ` and ` + "`$TOKEN`" + `), skip (always with the reason: a check the data
  or the configuration cannot decide is skipped, never passed), or error (the server could not be reached).
- Every response is also validated against the contract (` + "`openapi/*.yaml`" + `) with kin-openapi; the
  ` + "`*.contract`" + ` checks report the violations. ` + "`--spec FILE`" + ` adds a second document (for example the
  official SS 12000 one), matched by path relative to the surface URL.
- Interface B has no list of syllabuses, attendance or absence records: give ids with
  ` + "`--id syllabus=UUID`" + ` (also ` + "`attendance=`" + `, ` + "`absence=`" + `, ` + "`group=`" + `, ` + "`placement=`" + `), else those
  checks are skipped. Group ids are taken from the placements' group references.
- JUnit XML (` + "`--report junit=FILE`" + `) is checked in the tests against the structure of the Ant/Jenkins
  JUnit schema (elements testsuites/testsuite/testcase/failure/error/skipped and their required attributes
  and types) with encoding/xml: Go has no XSD validator in its standard library.

`)
	fmt.Fprintf(&b, "%d checks in %d areas.\n", len(all), len(Areas()))
	for _, area := range Areas() {
		fmt.Fprintf(&b, "\n## %s\n\n| id | level | severity | what | spec |\n|---|---|---|---|---|\n", area)
		for _, c := range all {
			if c.Area != area {
				continue
			}
			level := c.Level.String()
			if c.OptIn != "" {
				level += ", opt-in: " + c.OptIn
			}
			spec := fmt.Sprintf("“%s” (%s)", c.Spec.Quote, c.Spec.Section)
			if c.Spec.Decision != "" {
				spec += "; decision " + c.Spec.Decision
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.ID, mdCell(level), c.Severity, mdCell(c.Title), mdCell(spec))
		}
	}
	b.WriteString("\n## Deviations and the checks that catch them\n\n| kind of deviation | how it is caught | checks |\n|---|---|---|\n")
	for _, d := range Deviations {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(d.Kind), mdCell(d.How), mdCell("`"+strings.Join(d.Checks, "`, `")+"`"))
	}
	b.WriteString("\n## Spec statements no check covers yet\n\n")
	for _, u := range Uncovered {
		fmt.Fprintf(&b, "- “%s” (%s): %s.\n", u.Quote, u.Section, u.Why)
	}
	return b.String()
}
