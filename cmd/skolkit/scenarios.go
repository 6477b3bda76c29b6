package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

const scenariosUsage = `Usage:
  skolkit scenarios list            the built-in scenarios and the named deviations
  skolkit scenarios validate FILE   check a scenario file and build its data: prints "ok",
                                    or every problem as file:line:col: path: message

A scenario says what data the mock serves (generated and explicit records),
which clients may call it, its clock, and its behaviours (rate limits,
faults, latency, named deviations). The format is described in
docs/scenarios.md; a file is given to skolkit serve --scenario FILE.

` + exitStatusHelp

// scenariosCommand runs "skolkit scenarios ...".
func scenariosCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, scenariosUsage)
		return exitUsage
	}
	if isHelp(args[1:]) || isHelp(args[:1]) {
		fmt.Fprint(stdout, scenariosUsage)
		return exitOK
	}
	switch args[0] {
	case "list":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "skolkit scenarios list: unexpected argument %q\nRun 'skolkit scenarios -h' for help.\n", args[1])
			return exitUsage
		}
		return listScenarios(stdout, stderr)
	case "validate":
		if len(args) != 2 || strings.HasPrefix(args[1], "-") {
			fmt.Fprint(stderr, "Usage: skolkit scenarios validate FILE\nRun 'skolkit scenarios -h' for help.\n")
			return exitUsage
		}
		return validateScenario(args[1], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "skolkit scenarios: unknown command %q\n\n%s", args[0], scenariosUsage)
		return exitUsage
	}
}

func listScenarios(stdout, stderr io.Writer) int {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, name := range scenarios.BuiltinNames() {
		sc, err := scenarios.Builtin(name)
		if err != nil {
			fmt.Fprintf(stderr, "skolkit scenarios list: %v\n", err)
			return 1
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, sc.Description)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "Deviations (behaviours.deviations):")
	for _, d := range deviation.All() {
		fmt.Fprintf(tw, "  %s\t%s\n", d.Name, d.Description)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "Legal variants (behaviours.variants), what the standard allows and the mock does not do by default:")
	for _, name := range slices.Sorted(maps.Keys(scenarios.KnownVariants)) {
		fmt.Fprintf(tw, "  %s\t%s\n", name, scenarios.KnownVariants[name])
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

// validateScenario parses a file and builds its data, so that the problems
// only generation finds are reported too, and checks that a client can log
// in to a server of it.
func validateScenario(file string, stdout, stderr io.Writer) int {
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "skolkit scenarios validate: %s\n", describeFileError(file, err))
		return exitUsage
	}
	sc, err := scenarios.Parse(file, data)
	if err == nil {
		_, err = sc.Build(time.Now())
	}
	if err == nil {
		err = sc.CheckLogin()
	}
	if err != nil {
		printScenarioError(stderr, err)
		return exitUsage
	}
	fmt.Fprintln(stdout, "ok")
	return exitOK
}

// printScenarioError prints every problem of a *scenarios.LoadError, one a
// line, or any other error as it is.
func printScenarioError(w io.Writer, err error) {
	var le *scenarios.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			fmt.Fprintln(w, p.String())
		}
		return
	}
	fmt.Fprintln(w, err)
}

// generateCommand runs "skolkit generate".
func generateCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skolkit generate", flag.ContinueOnError)
	scenario := fs.String("scenario", "default", "built-in scenario `NAME` ("+strings.Join(scenarios.BuiltinNames(), ", ")+") or a scenario FILE")
	out := fs.String("out", "", "write the JSON files to the directory `DIR` (created if missing; required)")
	nowFlag := fs.String("now", "", "the `TIME` the data is generated as of, RFC 3339 (default: the scenario's fixed clock, else the current time)")
	var seed seedFlag
	fs.Var(&seed, "seed", "replace the scenario's seed with `N` (same seed, same data)")
	help := `Usage: skolkit generate [--scenario NAME|FILE] --out DIR [--seed N] [--now TIME]

Builds a scenario's data and writes every table the mock holds after loading it
(generated and explicit records, the SS 12000 records derived from them, the
employee placements and interface-A views the mock adds) as JSON, one file per
table: ` + strings.Join(tableFiles(), ", ") + `.
Each file is a JSON array with one record a line, exactly the table's member of
the state document (GET /__admin/state): fields interface B does not show are
written under their names ("directory" for the interface-A attributes,
"assignmentRoles" for a group's assignment roles). So the files load back:
{"format": "` + mockserver.StateFormat + `", "<table>": <the table's file>, ...}
is a state document for PUT /__admin/state or skolkit serve --state-file.
Records without meta timestamps get the generation instant, as the store gives
them; person references carry the person's securityMarking.

  skolkit generate --scenario edge-cases --out data/
  skolkit generate --scenario ./my-school.yaml --seed 7 --now 2026-09-01T08:00:00Z --out data/

` + exitStatusHelp
	if code, ok := parseFlags(fs, args, help, stdout, stderr); !ok {
		return code
	}
	if *out == "" {
		fmt.Fprintln(stderr, "skolkit generate: --out DIR is required\nRun 'skolkit generate -h' for help.")
		return exitUsage
	}
	var now time.Time
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339Nano, *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "skolkit generate: --now %q is not an RFC 3339 date-time\n", *nowFlag)
			return exitUsage
		}
		now = t
	}
	// Found now, not after the data is built.
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "skolkit generate: --out: %s\n", describeFileError(*out, err))
		return exitUsage
	}
	if err := checkWritableDir(*out); err != nil {
		fmt.Fprintf(stderr, "skolkit generate: --out: %v\n", err)
		return exitUsage
	}
	sc, err := loadScenario(*scenario)
	if err != nil {
		printScenarioError(stderr, err)
		return exitUsage
	}
	if seed.v != nil {
		sc.Seed = *seed.v
	}
	if now.IsZero() {
		now = sc.Clock.At(time.Now())
	}
	sc.Clock = scenarios.Clock{Now: now} // the data is built, and stamped, as of now
	// The data is what the mock holds after loading the scenario: the
	// scenario's records, the SS 12000 records derived from them, and what
	// the mock adds at load (employee placements, the interface-A views).
	srv, err := mockserver.New(mockserver.Options{Scenario: sc, JournalSize: -1})
	if err != nil {
		printScenarioError(stderr, err)
		return exitUsage
	}
	srv.Close()
	ds := srv.Export()
	fillMarkings(ds)
	counts, err := writeDataset(*out, ds)
	if err != nil {
		fmt.Fprintf(stderr, "skolkit generate: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "scenario %q, seed %d, as of %s: wrote %s to %s\n",
		sc.Name, sc.Seed, now.UTC().Format(time.RFC3339), strings.Join(counts, ", "), *out)
	return exitOK
}

// tableFiles are the files generate writes, one per table of the state
// document (GET /__admin/state), in the document's order. A function, not a
// package variable: the state document's type is built by reflection, which
// every other command (serve's start) would pay for at initialisation.
func tableFiles() []string {
	var files []string
	for _, name := range mockserver.StateTableNames() {
		files = append(files, name+".json")
	}
	return files
}

// writeDataset writes one file per table of the state document and returns
// "N table" for each.
func writeDataset(dir string, ds *fixtures.Dataset) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var counts []string
	err := mockserver.StateTables(ds, func(name string, records []any) error {
		counts = append(counts, fmt.Sprintf("%d %s", len(records), name))
		return writeFile(filepath.Join(dir, name+".json"), func(w io.Writer) error { return writeArray(w, records) })
	})
	return counts, err
}

func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	if err := write(w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return w.Flush()
}

// writeArray writes a JSON array with one record a line: compact, yet easy
// to read, grep and diff; encoded as the state document is (no HTML
// escaping).
func writeArray[T any](w io.Writer, records []T) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range records {
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		buf.Reset()
		if err := enc.Encode(&records[i]); err != nil {
			return err
		}
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]\n")
	return err
}

// fillMarkings sets the securityMarking of every person reference from the
// referenced person, as interface B renders references.
func fillMarkings(ds *fixtures.Dataset) {
	marking := make(map[string]model.SecurityMarking, len(ds.Persons))
	for i := range ds.Persons {
		marking[ds.Persons[i].ID] = ds.Persons[i].SecurityMarking
	}
	fill := func(r *model.PersonReference) {
		if r != nil && r.SecurityMarking == "" {
			r.SecurityMarking = marking[r.ID]
		}
	}
	for i := range ds.Persons {
		for j := range ds.Persons[i].Responsibles {
			fill(&ds.Persons[i].Responsibles[j].Person)
		}
	}
	for i := range ds.Groups {
		for j := range ds.Groups[i].GroupMemberships {
			fill(&ds.Groups[i].GroupMemberships[j].Person)
		}
	}
	for i := range ds.Placements {
		p := &ds.Placements[i]
		fill(&p.Child)
		// Owner lists may share backing arrays between placements: copy
		// before writing.
		owners := slices.Clone(p.Owners)
		for j := range owners {
			fill(&owners[j])
		}
		p.Owners = owners
	}
	// Events share their references (model.CalendarEvent), with the store
	// too: each distinct set is copied once before it is written.
	refs := map[*model.EventRefs]*model.EventRefs{}
	for i := range ds.CalendarEvents {
		ev := &ds.CalendarEvents[i]
		c, ok := refs[ev.EventRefs]
		if !ok {
			c = ev.RefsCopy()
			fill(&c.Teacher)
			refs[ev.EventRefs] = c
		}
		ev.EventRefs = c
	}
	for i := range ds.Attendances {
		fill(&ds.Attendances[i].Student)
		fill(ds.Attendances[i].Reporter)
	}
	for i := range ds.Absences {
		fill(&ds.Absences[i].Student)
		fill(ds.Absences[i].RegisteredBy)
	}
}
