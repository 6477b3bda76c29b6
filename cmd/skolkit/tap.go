package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
	"github.com/skolkit/skolkit/tap"
)

const tapUsage = `Usage: skolkit tap --target URL [flags]

Sits between a client and a server as a reverse proxy and judges the traffic
it sees, both ways, with the rules of the conformance runner (the server's
faults) and of the exam (the client's faults). It sends no request of its
own: every request goes to the target as the client sent it (the token
endpoint's too), every answer comes back as the target gave it, streamed.
Point the client at the tap instead of the server:

  skolkit tap --listen 127.0.0.1:8081 --target https://sis.example.org \
      --report html=tap.html --report junit=tap.xml --duration 10m

The client's base URL becomes http://127.0.0.1:8081/directory/v1, its
register URL http://127.0.0.1:8081/api/v1, and so on: the paths are the
target's. GET /__tap/report serves the findings so far (JSON); paths under
/__tap/ are the tap's and never forwarded.

A rule judges only what the traffic shows: what it could not judge (a list
item with no by-id read to compare it with, a body cut at --max-body, an
exchange dropped because the judge fell behind) is reported with the reason,
never passed. Access tokens, client secrets and Basic credentials are
redacted in every report; --mask-personal-data replaces civic numbers, names,
addresses, e-mail addresses and telephone numbers in the reports too (never
in the forwarded traffic).

The tap stops on SIGINT, SIGTERM or after --duration, and then writes its
reports.

Exit status: 0 when no MUST fault of either side was seen, 1 when one was,
2 when the tap could not start (a bad flag or target, an address that cannot
be listened on, a report path that cannot be written).
`

func tapCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skolkit tap", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8081", "address to listen on, `host:port`")
	target := fs.String("target", "", "the server's base `URL` (http:// or https://), e.g. https://sis.example.org")
	profile := fs.String("profile", "service", "what to judge by: service (the service's spec) or ss12000 (the SS 12000 2.1.0 standard and its RFCs only)")
	prefixes := rules.DefaultPrefixes()
	fs.StringVar(&prefixes.B, "register-prefix", prefixes.B, "the path of interface B (SS 12000) on the target")
	fs.StringVar(&prefixes.A, "base-prefix", prefixes.A, "the path of interface A (the directory API) on the target")
	fs.StringVar(&prefixes.Export, "export-prefix", prefixes.Export, "the path of the data export on the target")
	fs.StringVar(&prefixes.Token, "token-path", prefixes.Token, "the path of the token endpoint on the target")
	var reports reportFlag
	fs.Var(&reports, "report", "write a report when the tap stops: junit=FILE, json=FILE or html=FILE; repeatable")
	duration := fs.Duration("duration", 0, "stop after `D` (e.g. 10m); 0: run until SIGINT or SIGTERM")
	mask := fs.Bool("mask-personal-data", false, "replace civic numbers, names, addresses, e-mail addresses and telephone numbers in the reports (consistently: one value, one stand-in)")
	maxBody := fs.Int("max-body", tap.DefaultMaxBody, "bytes of each body the judge sees (`N`); a longer body is forwarded whole, and the rules see its beginning only")
	queue := fs.Int("queue", tap.DefaultQueueLen, "exchanges that may wait for the judge (`N`); more are counted as dropped, never waited for")
	judgeShare := fs.Float64("judge-share", tap.DefaultJudgeShare, "the share of one core the judge may use (0 < `S` <= 1); under more traffic than it can judge in that share, it drops exchanges (counted in the report) instead of slowing forwarding")
	targetCA := fs.String("target-ca", "", "trust the certificates in this PEM `FILE` for an https:// target (besides the system's)")
	if code, ok := parseFlags(fs, args, tapUsage, stdout, stderr); !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "skolkit tap: "+format+"\n", a...)
		return exitUsage
	}
	u, err := parseTarget(*target)
	if err != nil {
		return usageErr("--target: %v", err)
	}
	for name, p := range map[string]string{"--register-prefix": prefixes.B, "--base-prefix": prefixes.A, "--export-prefix": prefixes.Export, "--token-path": prefixes.Token} {
		if !strings.HasPrefix(p, "/") || (len(p) > 1 && strings.HasSuffix(p, "/")) {
			return usageErr("%s %q: want a path like /api/v1 (a leading slash, no trailing one)", name, p)
		}
	}
	if *duration < 0 || *maxBody <= 0 || *queue <= 0 {
		return usageErr("--duration must not be negative, --max-body and --queue must be positive")
	}
	if !(*judgeShare > 0 && *judgeShare <= 1) {
		return usageErr("--judge-share %v: want a share of one core, more than 0 and at most 1", *judgeShare)
	}
	prof, err := parseRulesProfile(*profile)
	if err != nil {
		return usageErr("--profile: %v", err)
	}
	for _, r := range reports {
		if err := report.CheckReportPath(r[1]); err != nil {
			return usageErr("--report %s=%s: %v", r[0], r[1], err)
		}
	}
	var tlsConfig *tls.Config
	if *targetCA != "" {
		if tlsConfig, err = trustPEM(*targetCA); err != nil {
			return usageErr("--target-ca: %v", err)
		}
	}
	tuneCollector()
	judging, err := tap.NewJudging(rules.Config{Profile: prof}, *mask)
	if err != nil {
		return usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageErr("%v", err)
	}
	// Signals are taken before the banner is printed: a SIGINT sent as soon
	// as it shows stops the tap cleanly, with its reports.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base := baseURL(ln.Addr())
	run := tap.Run{Started: time.Now(), Target: u.String(), Listen: base, MaxBody: *maxBody}
	var tp *tap.Tap
	live := func(w http.ResponseWriter, r *http.Request) {
		run := run
		run.Stats = tp.Stats()
		w.Header().Set("Content-Type", "application/json")
		_ = report.WriteJSON(w, judging.Report(run))
	}
	tp, err = tap.New(tap.Options{
		Target: u, Transport: tap.NewTransport(tlsConfig), Prefixes: prefixes,
		MaxBody: *maxBody, QueueLen: *queue, JudgeShare: *judgeShare, Observer: judging,
		Summary: live, ErrorLog: log.New(stderr, "", log.LstdFlags),
	})
	if err != nil {
		ln.Close()
		return usageErr("%v", err)
	}
	fmt.Fprintf(stdout, `skolkit tap on %s, forwarding to %s
  auth_url      %s                  (POST %s)
  base_url      %s%s     (interface A)
  register_url  %s%s           (interface B)
  export_url    %s%s   (data export)
  live report   %s%s
`, base, u, base, prefixes.Token, base, prefixes.A, base, prefixes.B, base, prefixes.Export, base, tap.PathReport)
	hs := &http.Server{Handler: tp, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
		ErrorLog: log.New(stderr, "", log.LstdFlags)}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	code := exitOK
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "skolkit tap: %v\n", err)
		code = exitFailed
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "skolkit tap: shutdown: %v\n", err)
	}
	tp.Close()
	judging.Finish()
	run.Stats = tp.Stats()
	rep := judging.Report(run)
	report.WriteConsole(stdout, rep)
	for _, r := range reports {
		if err := report.WriteReportFile(r[0], r[1], rep); err != nil {
			fmt.Fprintf(stderr, "skolkit tap: --report %s=%s: %v\n", r[0], r[1], err)
			code = exitFailed
		}
	}
	if code == exitOK {
		code = rep.ExitCode()
	}
	return code
}

// parseRulesProfile reads --profile.
func parseRulesProfile(s string) (rules.Profile, error) {
	switch p := rules.Profile(s); p {
	case rules.ProfileService, rules.ProfileSS12000:
		return p, nil
	}
	return "", fmt.Errorf("%q: want service or ss12000", s)
}

// tuneCollector sets the garbage collector of the tap's process, unless
// GOGC or GOMEMLIMIT say otherwise: a collection when the heap has grown
// by 400 % instead of 100 %, within a soft limit of 256 MiB. The tap's live
// heap is small and bounded (its queue, the rules' history); the judge's
// garbage is most of what it allocates, and fewer collections leave more
// of the processor to forwarding (docs/decisions.md#tap-collector).
func tuneCollector() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(256 << 20)
	}
}

// parseTarget accepts an absolute http or https URL without a query.
func parseTarget(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("required: the server's base URL, e.g. https://sis.example.org")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q: want an absolute http:// or https:// URL", s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%q: want a URL without query, fragment or credentials", s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// trustPEM is a TLS configuration that trusts the system's roots and the
// certificates of a PEM file.
func trustPEM(file string) (*tls.Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, errors.New(describeFileError(file, err))
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s: no PEM certificate in it", file)
	}
	return &tls.Config{RootCAs: pool}, nil
}
