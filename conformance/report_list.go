package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/rules"
)

// ListFormats are the formats of --list.
var ListFormats = []string{"text", "markdown", "json"}

// WriteList prints the catalogue: "text" (a table), "markdown" (the
// content of docs/conformance.md) or "json".
func WriteList(w io.Writer, format string) error {
	switch format {
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLEVEL\tSERVICE\tSS12000\tTITLE")
		for _, c := range Catalogue() {
			level := c.Level.String()
			if c.OptIn != "" {
				level += " (opt-in)"
			}
			title := c.Title
			if c.Choice != "" {
				title += " [skolkit's choice: " + c.Choice + "]"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.ID, level, c.SeverityIn(ProfileService), c.SeverityIn(ProfileSS12000), title)
		}
		rs := serverRules()
		for _, r := range rs {
			title := r.Title
			if r.Choice != "" {
				title += " [skolkit's choice: " + r.Choice + "]"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, "rule", r.SeverityIn(ProfileService), r.SeverityIn(ProfileSS12000), title)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "%d checks, %d rules\n", len(Catalogue()), len(rs))
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
			Standard Severity `json:"severitySS12000"`
			Choice   string   `json:"choice,omitempty"`
			Evidence string   `json:"evidence"`
			OptIn    string   `json:"optIn,omitempty"`
			Needs    []string `json:"needs,omitempty"`
			Spec     SpecRef  `json:"spec"`
			StdSpec  *SpecRef `json:"specSS12000,omitempty"`
		}
		var out []entry
		for _, c := range Catalogue() {
			e := entry{ID: c.ID, Title: c.Title, Area: c.Area, Level: c.Level.String(), Severity: c.Severity, Standard: c.SeverityIn(ProfileSS12000), Choice: c.Choice, Evidence: c.EvidenceRule(), OptIn: c.OptIn, Spec: c.Spec, StdSpec: c.StandardSpec}
			for _, s := range c.Needs {
				e.Needs = append(e.Needs, string(s))
			}
			out = append(out, e)
		}
		for _, r := range serverRules() {
			out = append(out, entry{ID: r.ID, Title: r.Title, Area: string(r.Family), Level: "rule", Severity: r.Severity, Standard: r.Standard, Choice: r.Choice,
				Evidence: "an exchange of an operation it concerns that it could judge", Spec: r.Spec, StdSpec: r.StandardSpec})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
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
- **Profiles** (` + "`--profile`" + `): ` + "`service`" + ` (the default) judges the whole service — interface A,
  interface B, the data export, the token endpoint — by the service's spec, and interface B no more strictly
  than the SS 12000 standard unless the service's spec says more (the check then quotes that sentence).
  ` + "`ss12000`" + ` judges interface B and the token endpoint by the official SS 12000 2.1.0 document and the
  RFCs it builds on only: MUST only where they say must; skolkit's own choices (the page-size cap,
  references that always carry ` + "`securityMarking`" + `, error bodies on 404, the lookup cap, exactly 400
  where a 4xx will do) are SHOULD at most, and the checks that depend on them accept what the standard
  allows (any 4xx, 401 or 403, a lookup answered 503, a reference without ` + "`securityMarking`" + `). Under
  ` + "`ss12000`" + ` every response is validated against the *standard mode* of the contract
  (` + "`openapi.Standard`" + `): the same documents with our stricter choices relaxed — any status with the
  standard's Error body, 404 without content, open objects, no required ` + "`securityMarking`" + ` or
  ` + "`pageToken`" + `, a token response needing only ` + "`access_token`" + ` and ` + "`token_type`" + ` (any case).
  Under ` + "`service`" + ` interface B and the token endpoint are validated against the *service mode*
  (` + "`openapi.Service`" + `): the same relaxations except where the spec says more (person references keep
  ` + "`securityMarking`" + ` required; the token response keeps its three fields and ` + "`Bearer`" + `).
  Checks outside a profile (interface A, the export; ` + "`-`" + ` below) are not run under it.
- **Severity**: MUST is required by the spec (or the standard and RFC it builds on); SHOULD is a
  recommendation or a choice of ours where the spec is silent. The two severity columns are the severity
  under ` + "`--profile service`" + ` and under ` + "`--profile ss12000`" + `; *skolkit's choice* labels a check
  whose expectation is our own where the standard leaves the behaviour open.
  ` + "`--fail-on must|should`" + ` sets which failures fail the run.
- **Evidence before a pass**: a check passes only on something it saw. A check about an id that does
  not exist (` + "`*.unknown-id`" + `, ` + "`*.malformed-id`" + `) first proves the route exists: a known id answers
  2xx (ids come from ` + "`--id`" + `, from the resource's own list, and for groups from the placements).
  A check of a refusal (` + "`auth.*.no-token`" + `, ` + "`*.garbage-token`" + `, ` + "`*.expired-token`" + `,
  ` + "`*.www-authenticate`" + `) first proves the same request with the run's token answers 2xx; a check that
  uses a token proves the token works with a 2xx (` + "`auth.token.reissue`" + `); a lookup refusal first proves a
  lookup of a known group answers 200; a bad ` + "`limit`" + ` or ` + "`pageToken`" + ` is sent only after the placement
  list was walked. The rules (` + "`contract.*`" + `, ` + "`errors.*`" + `, ` + "`dates.*`" + `, …) judge every answer the run
  receives and skip when it received nothing they could judge (for the dates: no answer carrying a date).
  A check with nothing to look at is skipped with the reason, never passed.
- **A run that tested nothing fails**: exit status 2 when a surface was given but no check could send it an
  authenticated request answered 2xx (missing credentials, a wrong URL, a token endpoint that issues no
  token, a token the surface refuses), with a message that says what to fix; ` + "`--min-checks N`" + ` sets a
  floor of checks that must pass or fail. ` + "`--report`" + ` paths are checked before the first request, and
  ` + "`--wait-for DURATION`" + ` waits for a server that is still starting.
- **Outcome**: pass, fail (with the request, an excerpt of the response, what was expected and a curl line,
  secrets shown as ` + "`$CLIENT_SECRET`" + ` and ` + "`$TOKEN`" + `), skip (always with the reason: a check the data
  or the configuration cannot decide is skipped, never passed), or error (the server could not be reached).
- Every exchange of the run is also judged by the rules of package ` + "`rules`" + ` (below the checks): small
  named predicates over one request and its answer or over the history so far, applied to every
  operation of the contract they concern; the ` + "`contract.*`" + ` rules validate every answer against the
  contract (` + "`openapi/*.yaml`" + `) with kin-openapi. ` + "`--spec FILE`" + ` adds a second document (for example the
  official SS 12000 one), matched by path relative to the surface URL.
- Ids for interface B's by-id checks come from ` + "`--id syllabus=UUID`" + ` (also ` + "`attendance=`" + `, ` + "`absence=`" + `,
  ` + "`group=`" + `, ` + "`placement=`" + `), from the first page of the resource's own list (` + "`GET /syllabuses`" + `, …: the
  standard has a list for every resource; a server without one is not failed for it), and for groups from
  the placements' group references; a check without an id is skipped with the reason.
- JUnit XML (` + "`--report junit=FILE`" + `) is checked in the tests against the structure of the Ant/Jenkins
  JUnit schema (elements testsuites/testsuite/testcase/failure/error/skipped and their required attributes
  and types) with encoding/xml: Go has no XSD validator in its standard library.

`)
	fmt.Fprintf(&b, "%d checks in %d areas.\n", len(all), len(Areas()))
	for _, area := range Areas() {
		fmt.Fprintf(&b, "\n## %s\n\n| id | level | service | ss12000 | what | evidence before a pass | spec |\n|---|---|---|---|---|---|---|\n", area)
		for _, c := range all {
			if c.Area != area {
				continue
			}
			level := c.Level.String()
			if c.OptIn != "" {
				level += ", opt-in: " + c.OptIn
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", c.ID, mdCell(level), c.SeverityIn(ProfileService), c.SeverityIn(ProfileSS12000), mdCell(whatCell(c.Title, c.Choice)), mdCell(c.EvidenceRule()), mdCell(specCell(c.Spec)))
		}
	}
	writeRulesMarkdown(&b)
	writeCoverageMarkdown(&b)
	b.WriteString("\n## Deviations and the checks that catch them\n\n" +
		"The mock's deviations (switched on by a scenario's `behaviours.deviations`), each with exactly the checks that fail " +
		"when the whole suite runs against the mock with it on (the kill matrix of `cmd/skolkit` asserts it):\n\n")
	b.WriteString(deviation.Markdown(deviation.All(), true))
	b.WriteString("\nOther kinds of wrong server, which the mock has no switch for, and the checks written to catch them:\n\n")
	b.WriteString(deviation.Markdown(deviation.Others(), true))
	writeFamilyProofsMarkdown(&b)
	b.WriteString("\n## Spec statements no check covers yet\n\n")
	for _, u := range Uncovered {
		fmt.Fprintf(&b, "- “%s” (%s): %s.\n", u.Quote, u.Section, u.Why)
	}
	return b.String()
}

// serverRules are the rules that judge a server, by id.
func serverRules() []*rules.Rule {
	var rs []*rules.Rule
	for _, r := range rules.Catalogue() {
		if r.Side == rules.SideServer {
			rs = append(rs, r)
		}
	}
	return rs
}

// writeRulesMarkdown lists the server rules, by family.
func writeRulesMarkdown(b *strings.Builder) {
	var families []rules.Family
	rs := serverRules()
	for _, r := range rs {
		if !slices.Contains(families, r.Family) {
			families = append(families, r.Family)
		}
	}
	fmt.Fprintf(b, "\n# Rules over every exchange\n\nThe runner hands every exchange to the server rules of package `rules`; each rule is a result of the run: it passes only when it judged something, fails with every finding (the exchange, what was expected, a curl line), and is skipped with the reason when the run gave it nothing to judge. %d server rules in %d families.\n", len(rs), len(families))
	for _, f := range families {
		fmt.Fprintf(b, "\n## %s\n\n| id | service | ss12000 | what | spec |\n|---|---|---|---|---|\n", f)
		for _, r := range rs {
			if r.Family != f {
				continue
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", r.ID, r.SeverityIn(ProfileService), r.SeverityIn(ProfileSS12000), mdCell(whatCell(r.Title, r.Choice)), mdCell(specCell(r.Spec)))
		}
	}
}

// specCell is the sentence a check or rule enforces, for a table cell.
func specCell(s SpecRef) string {
	out := fmt.Sprintf("“%s” (%s)", s.Quote, s.Section)
	if s.Decision != "" {
		out += "; decision [" + s.Decision + "](decisions.md#" + s.Decision + ")"
	}
	return out
}

// whatCell is a title, labelled when it is skolkit's choice.
func whatCell(title, choice string) string {
	if choice != "" {
		return title + " — *skolkit's choice*: " + choice
	}
	return title
}

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
