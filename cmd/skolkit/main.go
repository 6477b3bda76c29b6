// Command skolkit is the school-data service kit: a stateful mock of both
// interfaces of the service (serve), and the contract it serves (spec).
//
// main only parses flags and wires packages together.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
	"go.yaml.in/yaml/v3"
)

const usage = `skolkit — a test kit for the Swedish school-data service (SS 12000).

Usage:
  skolkit serve [flags]        run the mock server
  skolkit conformance [flags]  test an implementation of the service against the spec
  skolkit tap --target URL [flags]
                               a proxy that judges the live traffic between a
                               client and a server, both ways
  skolkit exam [flags] -- CLIENT-COMMAND [ARGS...]
                               judge a client of the service against the mock's scenes
  skolkit scenarios list       list the built-in scenarios and the named deviations
  skolkit scenarios validate FILE
                               check a scenario file; every problem as file:line:col
  skolkit generate --scenario NAME|FILE --out DIR
                               write a scenario's data as JSON, one file per table
  skolkit spec [-json] [NAME]  print the embedded OpenAPI contract
  skolkit version              print the version
  skolkit help [COMMAND]       this text, or a command's help (as COMMAND -h)

` + exitStatusHelp

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands maps each command to its function.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"serve":       serve,
	"spec":        spec,
	"conformance": conformanceCmd,
	"tap":         tapCmd,
	"exam":        examCmd,
	"scenarios":   scenariosCommand,
	"generate":    generateCommand,
	"version":     versionCmd,
}

// run executes one command line and returns the process exit code
// (exitOK, exitFailed or exitUsage).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(args[1:], stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && !slices.Contains([]string{"help", "-h", "-help", "--help"}, args[1]) {
			if cmd, ok := commands[args[1]]; ok {
				return cmd([]string{"-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "skolkit help: unknown command %q\n\n%s", args[1], usage)
			return exitUsage
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "-version", "--version":
		return versionCmd(nil, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "skolkit: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}

// ttlFlag accepts a Go duration ("90s", "1h") or whole seconds ("3600").
type ttlFlag struct{ d time.Duration }

func (f *ttlFlag) String() string { return f.d.String() }
func (f *ttlFlag) Set(s string) error {
	if n, err := strconv.Atoi(s); err == nil {
		f.d = time.Duration(n) * time.Second
	} else if f.d, err = time.ParseDuration(s); err != nil {
		return fmt.Errorf("%q is neither seconds nor a duration like 90s or 1h", s)
	}
	if f.d <= 0 {
		return errors.New("the token lifetime must be positive")
	}
	return nil
}

// seedFlag records whether --seed was given.
type seedFlag struct{ v *int64 }

func (f *seedFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatInt(*f.v, 10)
}
func (f *seedFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	f.v = &n
	return nil
}

const serveHelp = `Usage: skolkit serve [flags]

Runs the mock of the school-data service on one listener: the OAuth 2.0
token endpoint (POST /oauth/token), interface A (the directory API,
/directory/v1), interface B (the SS 12000 register API, /api/v1), the data
export (/data-export/v1) and the control plane (/__admin). It prints the URLs
and the client credentials to use, and serves until SIGINT or SIGTERM, then
finishes the requests in flight and stops.

  skolkit serve                                  the default scenario on 127.0.0.1:8080
  skolkit serve --scenario edge-cases --seed 7   another built-in scenario, other data
  skolkit serve --scenario ./my-school.yaml      a scenario file (see docs/scenarios.md)
  skolkit serve --profile ss12000                interface B as the SS 12000 document alone, for a
                                                 client generated from it
  SKOLKIT_ADMIN_TOKEN=... skolkit serve --addr :8080
                                                 every interface (in a container)

The server is ready when GET /healthz answers 200 "ok" (with the profile
that serves in its Skolkit-Profile header). The control plane is
open to loopback clients only, unless --admin-token (or SKOLKIT_ADMIN_TOKEN)
is given; listening on another address requires one.

` + exitStatusHelp

func serve(args []string, stdout, stderr io.Writer) int {
	preloadContract()
	fs := flag.NewFlagSet("skolkit serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on, `host:port` (:8080 for every interface)")
	scenario := fs.String("scenario", "default", "built-in scenario `NAME` ("+strings.Join(scenarios.BuiltinNames(), ", ")+") or a scenario FILE")
	clientID := fs.String("client-id", "", "replace the scenario's first client id")
	clientSecret := fs.String("client-secret", "", "replace the scenario's first client secret (default: env SKOLKIT_CLIENT_SECRET)")
	var seed seedFlag
	fs.Var(&seed, "seed", "replace the scenario's seed with `N` (same seed, same data)")
	var ttl ttlFlag
	fs.Var(&ttl, "token-ttl", "access-token lifetime `TTL`: seconds or a duration like 15m (default: the scenario's, 3600 s)")
	verbose := fs.Bool("v", false, "log every request")
	adminToken := fs.String("admin-token", "", "require this bearer token on the control plane (/__admin); needed to listen on a non-loopback address (default: env SKOLKIT_ADMIN_TOKEN)")
	stateFile := fs.String("state-file", "", "load the state from this `FILE` at start when it exists, and write it there on shutdown and on POST /__admin/snapshot")
	journalSize := fs.Int("journal-size", mockserver.DefaultJournalSize, "how many requests the journal (GET /__admin/requests) keeps; 0 keeps none")
	profile := fs.String("profile", "", "what interface B follows where the service's spec and the SS 12000 2.1.0 document differ: `service` (the spec) or ss12000 (the document alone) (default: the scenario's, else service)")
	var allowHosts multiFlag
	fs.Var(&allowHosts, "webhook-allow-host", "a `HOST` subscription callbacks may go to besides loopback addresses and localhost (repeatable)")
	if code, ok := parseFlags(fs, args, serveHelp, stdout, stderr); !ok {
		return code
	}
	if *clientSecret == "" {
		*clientSecret = os.Getenv("SKOLKIT_CLIENT_SECRET") // read here so that -h does not print it
	}
	if *adminToken == "" {
		*adminToken = os.Getenv("SKOLKIT_ADMIN_TOKEN") // read here so that -h does not print it
	}
	sc, err := loadScenario(*scenario)
	if err == nil && (*clientID == "" || *clientSecret == "") {
		err = sc.CheckLogin() // the flags make a client when the scenario has none
	}
	if err != nil {
		fmt.Fprint(stderr, "skolkit serve: ")
		printScenarioError(stderr, err)
		return exitUsage
	}
	if *stateFile != "" {
		// Found now, not at shutdown when the state would be lost.
		if err := checkWritableFile(*stateFile); err != nil {
			fmt.Fprintf(stderr, "skolkit serve: --state-file: %v\n", err)
			return exitUsage
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
		return exitUsage
	}
	if !mockserver.IsLoopbackListenAddr(ln.Addr().String()) && strings.TrimSpace(*adminToken) == "" {
		ln.Close()
		fmt.Fprintf(stderr, "skolkit serve: refusing to listen on %s without --admin-token: the control plane (/__admin) would be open to the network. Give --admin-token (or SKOLKIT_ADMIN_TOKEN), or listen on a loopback address such as 127.0.0.1:8080\n", ln.Addr())
		return exitUsage
	}
	stateExisted := false
	if *stateFile != "" {
		_, err := os.Stat(*stateFile)
		stateExisted = err == nil
	}
	if *journalSize <= 0 {
		*journalSize = -1
	}
	built := func() {}
	if !stateExisted {
		built = startBuild(mockserver.BuildFootprint(sc))
	}
	srv, err := mockserver.New(mockserver.Options{
		Scenario: sc, Seed: seed.v, ClientID: *clientID, ClientSecret: *clientSecret, TokenTTL: ttl.d, Logger: logger,
		AdminToken: *adminToken, StateFile: *stateFile, JournalSize: *journalSize, Profile: *profile,
		Webhooks: mockserver.WebhookOptions{AllowHosts: []string(allowHosts)},
	})
	built()
	if err != nil {
		ln.Close()
		fmt.Fprint(stderr, "skolkit serve: ")
		printScenarioError(stderr, err)
		return exitUsage
	}
	// Signals are taken before the banner: whoever waits for the banner
	// may stop the server at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base := baseURL(ln.Addr())
	id, secret := srv.Credentials()
	fmt.Fprintf(stdout, "skolkit mock serving scenario %q on %s\n", sc.Name, base)
	urls := newURLColumn(base, "", mockserver.PrefixA, mockserver.PrefixB, mockserver.PrefixExport, mockserver.PrefixAdmin)
	bannerLine(stdout, "auth_url", urls.cell(base, "(POST "+mockserver.PathToken+")"))
	bannerLine(stdout, "base_url", urls.cell(base+mockserver.PrefixA, "(interface A, directory API)"))
	bannerLine(stdout, "register_url", urls.cell(base+mockserver.PrefixB, "(interface B, SS 12000)"))
	bannerLine(stdout, "export_url", urls.cell(base+mockserver.PrefixExport, "(data export)"))
	bannerLine(stdout, "contracts", base+"/*/openapi.json, or: skolkit spec")
	bannerLine(stdout, "client_id", id)
	bannerLine(stdout, "client_secret", secret)
	if limitedID, limitedSecret, ok := srv.ReadOnlyClient(); ok {
		bannerLine(stdout, "limited_client_id", limitedID+"   (reads only: every write answers 403)")
		bannerLine(stdout, "limited_client_secret", limitedSecret)
	}
	bannerLine(stdout, "admin", urls.cell(base+mockserver.PrefixAdmin, "(control plane)"))
	printServing(stdout, srv.Serving())
	if *stateFile != "" {
		how := "new"
		if stateExisted {
			how = "loaded"
		}
		bannerLine(stdout, "state_file", *stateFile+" ("+how+")")
	}
	if base != "http://"+ln.Addr().String() {
		bannerLine(stdout, "listening on", ln.Addr().String()+" (every interface)")
	}
	hs := newHTTPServer(withHealth(srv))
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
		return exitFailed
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "skolkit serve: shutdown: %v\n", err)
		return exitFailed
	}
	if *stateFile != "" {
		info, err := srv.SaveState()
		if err != nil {
			fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "state written to %s (%d bytes)\n", info.File, info.Bytes)
	}
	srv.Close()
	fmt.Fprintln(stdout, "skolkit mock stopped")
	return 0
}

// printServing prints the banner's lines on how the mock departs from its
// defaults: the profile always, the deviations and legal variants when any
// is switched on.
func printServing(w io.Writer, sv mockserver.Serving) {
	what := "interface B follows the service's spec; --profile ss12000 serves the SS 12000 document alone"
	if sv.Profile == mockserver.ProfileSS12000 {
		what = "interface B is the SS 12000 2.1.0 document alone where the service's spec differs"
	}
	bannerLine(w, "profile", fmt.Sprintf("%s   (%s)", sv.Profile, what))
	if len(sv.Deviations) > 0 {
		bannerLine(w, "deviations", strings.Join(sv.Deviations, ", ")+"   (switched on: the mock departs from the spec on purpose; skolkit scenarios list)")
	}
	if len(sv.Variants) > 0 {
		bannerLine(w, "variants", strings.Join(sv.Variants, ", ")+"   (switched on: legal behaviours the mock does not do by default; skolkit scenarios list)")
	}
}

// bannerLabelWidth is the width of the banner's column of labels: its
// longest label and a space, so that every value starts in one column.
const bannerLabelWidth = len("limited_client_secret ")

// bannerLine prints one line of serve's banner: a label and its value, the
// value in the column every other line's value starts in.
func bannerLine(w io.Writer, label, value string) {
	fmt.Fprintf(w, "  %-*s%s\n", bannerLabelWidth, label, value)
}

// urlColumn lines up the notes that follow the banner's URLs: each note
// starts three spaces after the longest URL.
type urlColumn int

// newURLColumn is the column of notes after the URLs base+path.
func newURLColumn(base string, paths ...string) urlColumn {
	longest := 0
	for _, p := range paths {
		longest = max(longest, len(base+p))
	}
	return urlColumn(longest + 3)
}

// cell is url followed by its note, the note in the column.
func (c urlColumn) cell(url, note string) string {
	return fmt.Sprintf("%-*s%s", int(c), url, note)
}

// baseURL is the URL clients use for a listener: its address, or
// 127.0.0.1 with its port when it listens on every interface.
func baseURL(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	return "http://" + a.String()
}

const specHelp = `Usage: skolkit spec [-json] [-profile service|ss12000] [NAME...]

Prints the OpenAPI 3.0 documents the mock serves and the conformance suite
checks against: all of them, or the ones named. YAML by default (the source,
with its comments); -json prints the JSON the mock serves at
<surface>/openapi.json. -profile ss12000 prints interface B's document as
skolkit serve --profile ss12000 serves it (the official SS 12000 document's
shapes wherever the service's spec differs, docs/decisions.md#interface-b-profiles);
its YAML is rendered from that JSON, so it has no comments.

  skolkit spec register > register.yaml
  skolkit spec -json directory | jq '.paths | keys'
  skolkit spec -profile ss12000 register > register-ss12000.yaml

`

func spec(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skolkit spec", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON instead of the YAML source")
	profile := fs.String("profile", mockserver.ProfileService, "`service` or ss12000: the profile whose interface B document to print")
	// Names and flags may come in any order; -profile takes a value,
	// separately or after "=".
	var flagArgs, names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-profile" || a == "--profile") && i+1 < len(args):
			flagArgs = append(flagArgs, a, args[i+1])
			i++
		case strings.HasPrefix(a, "-"):
			flagArgs = append(flagArgs, a)
		default:
			names = append(names, a)
		}
	}
	if code, ok := parseFlags(fs, flagArgs, specHelp+"Documents: "+docNames()+".\n", stdout, stderr); !ok {
		return code
	}
	if !slices.Contains(mockserver.Profiles, *profile) {
		fmt.Fprintf(stderr, "skolkit spec: unknown profile %q; known: %s\n", *profile, strings.Join(mockserver.Profiles, ", "))
		return exitUsage
	}
	c, err := openapi.Load()
	if err != nil {
		fmt.Fprintf(stderr, "skolkit spec: %v\n", err)
		return exitFailed
	}
	want := c.Names()
	if len(names) > 0 {
		want = nil
		for _, a := range names {
			if !slices.Contains(c.Names(), openapi.Name(a)) {
				fmt.Fprintf(stderr, "skolkit spec: no document %q (have: %s)\n", a, docNames())
				return exitUsage
			}
			want = append(want, openapi.Name(a))
		}
	}
	for i, n := range want {
		js, yml := c.JSON(n), c.YAML(n)
		if n == openapi.NameRegister && *profile == mockserver.ProfileSS12000 {
			_, js = openapi.RegisterSS12000()
			if yml, err = jsonToYAML(js); err != nil {
				fmt.Fprintf(stderr, "skolkit spec: %v\n", err)
				return exitFailed
			}
		}
		if *asJSON {
			stdout.Write(js)
			fmt.Fprintln(stdout)
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout, "---")
		}
		stdout.Write(yml)
	}
	return exitOK
}

// jsonToYAML renders a JSON document as YAML, keeping the order of its
// members (JSON is YAML: the node tree keeps what the JSON says).
func jsonToYAML(js []byte) ([]byte, error) {
	var node yaml.Node
	if err := yaml.Unmarshal(js, &node); err != nil {
		return nil, err
	}
	clearStyle(&node)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// clearStyle drops the flow style and quoting JSON parses with, so that the
// document prints in YAML's block style.
func clearStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle | yaml.DoubleQuotedStyle
	for _, c := range n.Content {
		clearStyle(c)
	}
}

func docNames() string {
	var out []string
	for _, n := range openapi.MustLoad().Names() {
		out = append(out, string(n))
	}
	return strings.Join(out, ", ")
}
