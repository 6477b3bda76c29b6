// Command skolkit is the school-data service kit: a stateful mock of both
// interfaces of the service (serve), and the contract it serves (spec).
//
// main only parses flags and wires packages together.
package main

import (
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
)

const usage = `skolkit — a test kit for the Swedish school-data service (SS 12000).

Usage:
  skolkit serve [flags]        run the mock server (skolkit serve -h for flags)
  skolkit spec [flags] [NAME]  print the embedded OpenAPI contract
  skolkit conformance [flags]  test an implementation against the spec (skolkit conformance -h)
  skolkit scenarios list       list the built-in scenarios and known deviations
  skolkit scenarios validate FILE
                               check a scenario file; every problem as file:line:col
  skolkit generate --scenario NAME|FILE --out DIR
                               write a scenario's data as JSON, one file per table
  skolkit help                 this text
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit code: 0 on
// success, 1 on failure, 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "spec":
		return spec(args[1:], stdout, stderr)
	case "conformance":
		return conformanceCmd(args[1:], stdout, stderr)
	case "scenarios":
		return scenariosCommand(args[1:], stdout, stderr)
	case "generate":
		return generateCommand(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "skolkit: unknown command %q\n\n%s", args[0], usage)
		return 2
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

func serve(args []string, stdout, stderr io.Writer) int {
	preloadContract()
	fs := flag.NewFlagSet("skolkit serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port)")
	scenario := fs.String("scenario", "default", "built-in scenario name ("+strings.Join(scenarios.BuiltinNames(), ", ")+") or a scenario file")
	clientID := fs.String("client-id", "", "replace the scenario's first client id")
	clientSecret := fs.String("client-secret", os.Getenv("SKOLKIT_CLIENT_SECRET"), "replace the scenario's first client secret (env SKOLKIT_CLIENT_SECRET)")
	var seed seedFlag
	fs.Var(&seed, "seed", "replace the scenario's seed (same seed, same data)")
	var ttl ttlFlag
	fs.Var(&ttl, "token-ttl", "access-token lifetime: seconds or a duration like 15m (default: the scenario's, 3600 s)")
	verbose := fs.Bool("v", false, "log every request")
	adminToken := fs.String("admin-token", "", "require this bearer token on the control plane (/__admin); needed to listen on a non-loopback address (default: env SKOLKIT_ADMIN_TOKEN)")
	stateFile := fs.String("state-file", "", "load the state from this file at start when it exists, and write it there on shutdown and on POST /__admin/snapshot")
	journalSize := fs.Int("journal-size", mockserver.DefaultJournalSize, "how many requests the journal (GET /__admin/requests) keeps; 0 keeps none")
	var allowHosts multiFlag
	fs.Var(&allowHosts, "webhook-allow-host", "a host subscription callbacks may go to besides loopback addresses and localhost (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "skolkit serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *adminToken == "" {
		*adminToken = os.Getenv("SKOLKIT_ADMIN_TOKEN") // read here so that -h does not print it
	}
	sc, err := loadScenario(*scenario)
	if err != nil {
		fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
		return 1
	}
	if !mockserver.IsLoopbackListenAddr(ln.Addr().String()) && strings.TrimSpace(*adminToken) == "" {
		ln.Close()
		fmt.Fprintf(stderr, "skolkit serve: refusing to listen on %s without --admin-token: the control plane (/__admin) would be open to the network. Give --admin-token (or SKOLKIT_ADMIN_TOKEN), or listen on a loopback address such as 127.0.0.1:8080\n", ln.Addr())
		return 2
	}
	stateExisted := false
	if *stateFile != "" {
		_, err := os.Stat(*stateFile)
		stateExisted = err == nil
	}
	if *journalSize <= 0 {
		*journalSize = -1
	}
	srv, err := mockserver.New(mockserver.Options{
		Scenario: sc, Seed: seed.v, ClientID: *clientID, ClientSecret: *clientSecret, TokenTTL: ttl.d, Logger: logger,
		AdminToken: *adminToken, StateFile: *stateFile, JournalSize: *journalSize,
		Webhooks: mockserver.WebhookOptions{AllowHosts: []string(allowHosts)},
	})
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
		return 1
	}
	base := "http://" + ln.Addr().String()
	id, secret := srv.Credentials()
	fmt.Fprintf(stdout, `skolkit mock serving scenario %q on %s
  auth_url      %s                  (POST %s)
  base_url      %s%s     (interface A, directory API)
  register_url  %s%s           (interface B, SS 12000)
  export_url    %s%s   (data export)
  contracts     %s/*/openapi.json, or: skolkit spec
  client_id     %s
  client_secret %s
  admin         %s%s          (control plane)
`, sc.Name, base, base, mockserver.PathToken, base, mockserver.PrefixA, base, mockserver.PrefixB, base, mockserver.PrefixExport,
		base, id, secret, base, mockserver.PrefixAdmin)
	if *stateFile != "" {
		how := "new"
		if stateExisted {
			how = "loaded"
		}
		fmt.Fprintf(stdout, "  state_file    %s (%s)\n", *stateFile, how)
	}
	hs := newHTTPServer(srv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "skolkit serve: shutdown: %v\n", err)
		return 1
	}
	if *stateFile != "" {
		info, err := srv.SaveState()
		if err != nil {
			fmt.Fprintf(stderr, "skolkit serve: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "state written to %s (%d bytes)\n", info.File, info.Bytes)
	}
	srv.Close()
	fmt.Fprintln(stdout, "skolkit mock stopped")
	return 0
}

// loadScenario takes a built-in name or a file path.
func loadScenario(nameOrFile string) (*scenarios.Scenario, error) {
	if data, err := os.ReadFile(nameOrFile); err == nil {
		return scenarios.Parse(nameOrFile, data)
	}
	return scenarios.Builtin(nameOrFile)
}

func spec(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skolkit spec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of the YAML source")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: skolkit spec [-json] [NAME]\nPrints the embedded OpenAPI documents (all, or the one named: %s).\n", names())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c, err := openapi.Load()
	if err != nil {
		fmt.Fprintf(stderr, "skolkit spec: %v\n", err)
		return 1
	}
	want := c.Names()
	if fs.NArg() > 0 {
		want = nil
		for _, a := range fs.Args() {
			if !slices.Contains(c.Names(), openapi.Name(a)) {
				fmt.Fprintf(stderr, "skolkit spec: no document %q (have: %s)\n", a, names())
				return 2
			}
			want = append(want, openapi.Name(a))
		}
	}
	for i, n := range want {
		if *asJSON {
			stdout.Write(c.JSON(n))
			fmt.Fprintln(stdout)
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout, "---")
		}
		stdout.Write(c.YAML(n))
	}
	return 0
}

func names() string {
	var out []string
	for _, n := range openapi.MustLoad().Names() {
		out = append(out, string(n))
	}
	return strings.Join(out, ", ")
}
