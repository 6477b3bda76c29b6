package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/report"
)

const conformanceUsage = `Usage: skolkit conformance [flags]

Sends the conformance suite to an implementation of the service and reports
where it departs from the spec. Give the URLs of the surfaces to test; checks
of a surface without a URL are skipped.

  skolkit conformance --auth-url http://127.0.0.1:8080 \
      --register-url http://127.0.0.1:8080/api/v1 \
      --base-url http://127.0.0.1:8080/directory/v1 \
      --client-id skolkit-client --report junit=conformance.xml

The client secret is read from --client-secret or SKOLKIT_CLIENT_SECRET, is
sent only to the token endpoint (and, with --legacy-auth, to interface A), and
is never printed: reports show it as $CLIENT_SECRET and tokens as $TOKEN.

A server whose bearer tokens come from elsewhere (the SS 12000 document
requires a bearer token but defines no token endpoint) is tested with
--token (or SKOLKIT_TOKEN) instead of --auth-url and the client credentials:

  SKOLKIT_TOKEN=... skolkit conformance --profile ss12000 \
      --register-url https://sis.example.org/v2.0

--profile service (the default) judges the whole service by its spec;
--profile ss12000 judges interface B and the token endpoint by the official
SS 12000 2.1.0 document and the RFCs it builds on only (skolkit's own choices
count as SHOULD at most).

Exit status: 0 when no check at the --fail-on severity failed, 1 when one
did, 2 for usage errors, when the server could not be reached, and when the
run could not test what it was given (a surface no check could reach with
credentials, a token endpoint that issued no token, fewer decided checks than
--min-checks): the message says what to fix.
`

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*m = append(*m, p)
		}
	}
	return nil
}

// reportFlag collects --report FORMAT=FILE.
type reportFlag [][2]string

func (r *reportFlag) String() string { return "" }
func (r *reportFlag) Set(s string) error {
	format, file, ok := strings.Cut(s, "=")
	if !ok || file == "" || !slices.Contains(report.ReportFormats, format) {
		return fmt.Errorf("want FORMAT=FILE with FORMAT one of %s", strings.Join(report.ReportFormats, ", "))
	}
	*r = append(*r, [2]string{format, file})
	return nil
}

// check reports the first --report path that cannot be written: checked
// before the first request, so that a long run does not end in a report it
// cannot write.
func (r reportFlag) check() error {
	for _, f := range r {
		if err := report.CheckReportPath(f[1]); err != nil {
			return fmt.Errorf("--report %s=%s: %v", f[0], f[1], err)
		}
	}
	return nil
}

// write writes every report asked for.
func (r reportFlag) write(rep *report.Report) error {
	for _, f := range r {
		if err := report.WriteReportFile(f[0], f[1], rep); err != nil {
			return fmt.Errorf("--report %s=%s: %v", f[0], f[1], err)
		}
	}
	return nil
}

// idFlag collects --id KIND=UUID.
type idFlag map[string][]string

func (f idFlag) String() string { return "" }
func (f idFlag) Set(s string) error {
	kind, id, ok := strings.Cut(s, "=")
	if !ok || id == "" {
		return fmt.Errorf("want KIND=UUID with KIND one of %s", strings.Join(conformance.IDKinds, ", "))
	}
	f[kind] = append(f[kind], id)
	return nil
}

func conformanceCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skolkit conformance", flag.ContinueOnError)
	var cfg conformance.Config
	fs.StringVar(&cfg.BaseURL, "base-url", "", "interface A URL, e.g. http://host/directory/v1")
	fs.StringVar(&cfg.RegisterURL, "register-url", "", "interface B URL, e.g. http://host/api/v1")
	fs.StringVar(&cfg.AuthURL, "auth-url", "", "token base URL; the token endpoint is AUTH_URL/oauth/token")
	fs.StringVar(&cfg.ExportURL, "export-url", "", "data export URL, e.g. http://host/data-export/v1")
	fs.StringVar(&cfg.ClientID, "client-id", "", "client id (default: env SKOLKIT_CLIENT_ID)")
	fs.StringVar(&cfg.ClientSecret, "client-secret", "", "client secret (default: env SKOLKIT_CLIENT_SECRET; prefer the environment, command lines are visible to other users)")
	fs.StringVar(&cfg.LimitedClientID, "limited-client-id", "", "a second client that may read and not write: every write operation must answer it 403 (auth.insufficient-permission-403; default: env SKOLKIT_LIMITED_CLIENT_ID)")
	fs.StringVar(&cfg.LimitedClientSecret, "limited-client-secret", "", "the second client's secret (default: env SKOLKIT_LIMITED_CLIENT_SECRET; prefer the environment)")
	fs.StringVar(&cfg.Token, "token", "", "a bearer token to send as is instead of one from the token endpoint (excludes --auth-url; default: env SKOLKIT_TOKEN; prefer the environment)")
	fs.BoolVar(&cfg.LegacyAuth, "legacy-auth", false, "authenticate interface A with the Client-ID and Client-Secret headers instead of a bearer token")
	profile := fs.String("profile", string(conformance.ProfileService), "what to judge by: service (the service's spec, every surface) or ss12000 (interface B and the token endpoint by the SS 12000 2.1.0 standard and its RFCs only)")
	fs.IntVar(&cfg.MinChecks, "min-checks", 0, "exit 2 unless at least `N` checks passed or failed (not skipped): a floor for CI")
	fs.DurationVar(&cfg.WaitFor, "wait-for", 0, "wait up to `DURATION` for the surfaces to answer before giving up (a server still starting in CI)")
	level := fs.String("level", "read", "read (safe against production data) or write (creates, changes and deletes only records it made, and removes them)")
	var include, exclude multiFlag
	fs.Var(&include, "include", "run only checks whose id matches `PATTERN` (glob like B.placements.*, or an id prefix); repeatable; opt-in checks must be named exactly")
	fs.Var(&exclude, "exclude", "skip checks whose id matches `PATTERN`; repeatable")
	fs.DurationVar(&cfg.Timeout, "timeout", conformance.DefaultTimeout, "timeout of each request")
	fs.IntVar(&cfg.Concurrency, "concurrency", conformance.DefaultConcurrency, "checks run at once")
	fs.IntVar(&cfg.MaxPages, "max-pages", conformance.DefaultMaxPages, "bound on the pages of every pageToken or offset walk")
	fs.Int64Var(&cfg.MaxWalkBytes, "max-walk-bytes", conformance.DefaultMaxWalkBytes, "bound on the bytes of the bodies of every pageToken or offset walk (a list of a million records needs about 500 MB)")
	specFile := fs.String("spec", "", "also validate every response against this OpenAPI `FILE` (YAML or JSON), matching operations by path relative to the surface URL")
	var reports reportFlag
	fs.Var(&reports, "report", "write a report: junit=FILE, json=FILE or html=FILE; repeatable")
	failOn := fs.String("fail-on", "must", "exit 1 when a check of this severity or stronger fails: must or should")
	ids := idFlag{}
	fs.Var(ids, "id", "a record id for interface B's by-id checks: KIND=UUID with KIND syllabus, attendance, absence, group or placement; repeatable")
	fs.StringVar(&cfg.CallbackListen, "callback-listen", "", "where the receiver of the subscription checks listens (default 127.0.0.1:0, a free loopback port)")
	fs.StringVar(&cfg.CallbackURL, "callback-url", "", "the URL the server under test is to call back, for a server that cannot reach this host's loopback address (default: the receiver's own address)")
	fs.DurationVar(&cfg.CallbackWait, "callback-wait", conformance.DefaultCallbackWait, "how long the subscription checks wait for a callback after a change")
	list := fs.Bool("list", false, "print the catalogue of checks and exit")
	format := fs.String("format", "text", "format of --list: text, markdown or json")
	quiet := fs.Bool("q", false, "no progress lines while the checks run")
	if code, ok := parseFlags(fs, args, conformanceUsage, stdout, stderr); !ok {
		return code
	}
	if *list {
		if err := conformance.WriteList(stdout, *format); err != nil {
			fmt.Fprintf(stderr, "skolkit conformance: %v\n", err)
			return 2
		}
		return 0
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "skolkit conformance: "+format+"\n", a...)
		return 2
	}
	// A URL flag given empty is a variable that did not load (a CI secret
	// the job cannot read), not a wish to skip the surface: leaving it out
	// is how to skip one.
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if strings.HasSuffix(f.Name, "-url") && f.Name != "callback-url" && strings.TrimSpace(f.Value.String()) == "" {
			empty = append(empty, "--"+f.Name)
		}
	})
	if len(empty) > 0 {
		return usageErr("%s given empty (a variable or CI secret that did not load?): give the URL, or leave the flag out to skip that surface", strings.Join(empty, ", "))
	}
	if cfg.ClientID == "" {
		cfg.ClientID = os.Getenv("SKOLKIT_CLIENT_ID")
	}
	if cfg.ClientSecret == "" {
		cfg.ClientSecret = os.Getenv("SKOLKIT_CLIENT_SECRET")
	}
	if cfg.Token == "" {
		cfg.Token = os.Getenv("SKOLKIT_TOKEN")
	}
	if cfg.LimitedClientID == "" {
		cfg.LimitedClientID = os.Getenv("SKOLKIT_LIMITED_CLIENT_ID")
	}
	if cfg.LimitedClientSecret == "" {
		cfg.LimitedClientSecret = os.Getenv("SKOLKIT_LIMITED_CLIENT_SECRET")
	}
	var err error
	if cfg.Level, err = conformance.ParseLevel(*level); err != nil {
		return usageErr("--level: %v", err)
	}
	if cfg.FailOn, err = conformance.ParseSeverity(*failOn); err != nil {
		return usageErr("--fail-on: %v", err)
	}
	if cfg.Profile, err = conformance.ParseProfile(*profile); err != nil {
		return usageErr("--profile: %v", err)
	}
	if cfg.MinChecks < 0 || cfg.WaitFor < 0 {
		return usageErr("--min-checks and --wait-for must not be negative")
	}
	if err := reports.check(); err != nil {
		return usageErr("%v", err)
	}
	if cfg.Timeout <= 0 || cfg.Concurrency <= 0 || cfg.MaxPages <= 0 || cfg.MaxWalkBytes <= 0 {
		return usageErr("--timeout, --concurrency, --max-pages and --max-walk-bytes must be positive")
	}
	cfg.Include, cfg.Exclude, cfg.IDs = include, exclude, ids
	if *specFile != "" {
		doc, note, err := loadUserSpec(*specFile)
		if err != nil {
			return usageErr("--spec: %v", err)
		}
		cfg.UserSpec, cfg.UserSpecName = doc, *specFile
		if note != "" {
			cfg.Notes = append(cfg.Notes, "--spec "+*specFile+": "+note)
		}
	}
	if !*quiet {
		cfg.Progress = func(done, total int, r report.Result) {
			fmt.Fprintln(stdout, report.ProgressLine(done, total, r))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := conformance.Run(ctx, cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	report.WriteConsole(stdout, rep) // with the causes of an incomplete run, once each
	if err := reports.write(rep); err != nil {
		return usageErr("%v", err)
	}
	return rep.ExitCode()
}

// loadUserSpec reads the --spec document. A document whose only defects are
// invalid examples (the official SS 12000 one has some) is accepted, with a
// note: examples play no part in validating responses.
func loadUserSpec(file string) (*openapi3.T, string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", err
	}
	doc, err := openapi.LoadFrom(openapi.Name(file), data)
	if err == nil {
		return doc, "", nil
	}
	strict := err
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err = loader.LoadFromData(data)
	if err != nil {
		return nil, "", strict
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := doc.Validate(ctx, openapi3.DisableExamplesValidation()); err != nil {
		return nil, "", strict
	}
	return doc, "the document has invalid examples; it is used with examples ignored", nil
}
