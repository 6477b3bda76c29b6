package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/fixtures"
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
	return 0
}

// validateScenario parses a file and builds its data, so that the problems
// only generation finds are reported too.
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

Builds a scenario's data (generated and explicit records) and writes it as JSON,
one file per table: ` + strings.Join(tableFiles, ", ") + `.
Each file is a JSON array with one record a line. Records without meta timestamps
get the generation instant, as the store would give them; person references carry
the person's securityMarking; a group's assignment roles are written as
_embedded.assignmentRoles.

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
	} else {
		sc.Clock = scenarios.Clock{Now: now}
	}
	ds, err := sc.Build(now)
	if err != nil {
		printScenarioError(stderr, err)
		return exitUsage
	}
	stampMeta(ds, now.UTC())
	fillMarkings(ds)
	// Assignment roles travel as _embedded.assignmentRoles, as interface B
	// renders them with expand=assignmentRoles.
	for i := range ds.Groups {
		if g := &ds.Groups[i]; len(g.AssignmentRoles) > 0 {
			g.Embedded = &model.GroupEmbedded{AssignmentRoles: g.AssignmentRoles}
		}
	}
	if err := writeDataset(*out, ds); err != nil {
		fmt.Fprintf(stderr, "skolkit generate: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "scenario %q, seed %d, as of %s: wrote %d organisations, %d persons, %d groups, %d placements, "+
		"%d syllabuses, %d calendar events, %d attendance records, %d absence records to %s\n",
		sc.Name, sc.Seed, now.UTC().Format(time.RFC3339), len(ds.Organisations), len(ds.Persons), len(ds.Groups),
		len(ds.Placements), len(ds.Syllabuses), len(ds.CalendarEvents), len(ds.Attendances), len(ds.Absences), *out)
	return exitOK
}

// tableFiles are the files generate writes, in the order of writeDataset.
var tableFiles = []string{
	"organisations.json", "persons.json", "groups.json", "placements.json",
	"syllabuses.json", "calendarEvents.json", "attendances.json", "absences.json",
}

func writeDataset(dir string, ds *fixtures.Dataset) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	writers := []func(io.Writer) error{
		func(w io.Writer) error { return writeArray(w, ds.Organisations) },
		func(w io.Writer) error { return writeArray(w, ds.Persons) },
		func(w io.Writer) error { return writeArray(w, ds.Groups) },
		func(w io.Writer) error { return writeArray(w, ds.Placements) },
		func(w io.Writer) error { return writeArray(w, ds.Syllabuses) },
		func(w io.Writer) error { return writeArray(w, ds.CalendarEvents) },
		func(w io.Writer) error { return writeArray(w, ds.Attendances) },
		func(w io.Writer) error { return writeArray(w, ds.Absences) },
	}
	for i, write := range writers {
		if err := writeFile(filepath.Join(dir, tableFiles[i]), write); err != nil {
			return err
		}
	}
	return nil
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
// to read, grep and diff.
func writeArray[T any](w io.Writer, records []T) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i := range records {
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		b, err := json.Marshal(&records[i])
		if err != nil {
			return err
		}
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
	for i := range ds.CalendarEvents {
		fill(&ds.CalendarEvents[i].Teacher)
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

// stampMeta gives records without meta timestamps (the explicit records of
// a scenario) the generation instant, as the store does when it loads them.
func stampMeta(ds *fixtures.Dataset, now time.Time) {
	stamp := func(m *model.Meta) {
		if m.Created.IsZero() {
			m.Created = now
		}
		if m.Modified.IsZero() {
			m.Modified = m.Created
		}
	}
	for i := range ds.Organisations {
		stamp(&ds.Organisations[i].Meta)
	}
	for i := range ds.Persons {
		stamp(&ds.Persons[i].Meta)
	}
	for i := range ds.Groups {
		stamp(&ds.Groups[i].Meta)
	}
	for i := range ds.Placements {
		stamp(&ds.Placements[i].Meta)
	}
	for i := range ds.Syllabuses {
		stamp(&ds.Syllabuses[i].Meta)
	}
	for i := range ds.CalendarEvents {
		stamp(&ds.CalendarEvents[i].Meta)
	}
	for i := range ds.Attendances {
		stamp(&ds.Attendances[i].Meta)
	}
	for i := range ds.Absences {
		stamp(&ds.Absences[i].Meta)
	}
}
