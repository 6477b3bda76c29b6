package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
	"github.com/skolkit/skolkit/scenarios"
)

const examUsage = `Usage: skolkit exam [flags] -- CLIENT-COMMAND [ARGS...]
       skolkit exam --serve [flags]
       skolkit exam --list [--format markdown]

Judges a client of the service: skolkit starts its mock on a free loopback
port and runs the client command once per round of each scene, a named
behaviour of the server the standard allows (plain, sparse, paging,
token-expiry, rate-limit, faults, variants). It reports what the client did
wrong, each finding with the sentence of the spec it rests on and the
exchange that shows it (secrets shown as $CLIENT_SECRET and $TOKEN).

  skolkit exam -- ./my-sync-client
  skolkit exam --task incremental-sync --scenes plain,paging \
      --report junit=exam.xml -- python3 sync.py --url {register_url}

The client is told the server in the environment: SKOLKIT_AUTH_URL (the
root; the token endpoint is $SKOLKIT_AUTH_URL/oauth/token),
SKOLKIT_TOKEN_URL, SKOLKIT_REGISTER_URL (interface B), SKOLKIT_BASE_URL
(interface A), SKOLKIT_EXPORT_URL, SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET,
SKOLKIT_SCENE, SKOLKIT_ROUND and SKOLKIT_TASK; {register_url}, {base_url},
{export_url}, {auth_url}, {token_url}, {client_id}, {client_secret},
{scene} and {round} in its arguments are replaced by the same values. Each
scene runs the client in a working directory of its own, kept between the
scene's rounds (where it keeps its sync state) and new for the next scene.

--task full-sync (the default): one round per scene; by its end the client
holds every record of the lists it reads at its latest version.
--task incremental-sync: rounds with creates, updates and deletes between
them (through interface A, interface B and the control plane); in each
round after the first the client learns every change since its last.

--serve serves the same scenes for a client started by hand (or by another
test framework): it prints the URLs and credentials, and the client says
when it has finished a round with POST /__admin/exam/round-end (GET
/__admin/exam says which scene and round are running).

Exit status: 0 when no client fault was found, 1 when one was, 2 when the
exam could not run (a bad flag, a client command that cannot be started, a
client that never made an authenticated request): the message says why.
`

func examCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skolkit exam", flag.ContinueOnError)
	scenario := fs.String("scenario", "default", "built-in scenario `NAME` ("+strings.Join(scenarios.BuiltinNames(), ", ")+") or a scenario FILE: the data every scene serves")
	var seed seedFlag
	fs.Var(&seed, "seed", "replace the scenario's seed with `N`")
	task := fs.String("task", string(exam.TaskFullSync), "what the client does each round: full-sync or incremental-sync")
	var scenes multiFlag
	fs.Var(&scenes, "scenes", "run only these scenes (comma-separated or repeated): "+strings.Join(exam.SceneNames(), ", "))
	rounds := fs.Int("rounds", exam.DefaultRounds, "rounds per scene with --task incremental-sync (at least 2)")
	roundTimeout := fs.Duration("round-timeout", exam.DefaultRoundTimeout, "stop a round of the client after `DURATION`")
	profile := fs.String("profile", string(rules.ProfileService), "service (the service's spec) or ss12000 (the SS 12000 document alone): what interface B serves and the client rules judge by")
	var reports reportFlag
	fs.Var(&reports, "report", "write a report: junit=FILE, json=FILE or html=FILE; repeatable")
	serveMode := fs.Bool("serve", false, "serve the scenes for a client started by hand instead of running a command")
	addr := fs.String("addr", "", "with --serve, where to listen, `host:port` (default 127.0.0.1:8080); without it, a free loopback port")
	keep := fs.Bool("keep-dirs", false, "keep the scenes' working directories (their paths are printed)")
	verbose := fs.Bool("v", false, "show the client's output as it runs")
	list := fs.Bool("list", false, "print the scenes and every kind of finding, and exit")
	format := fs.String("format", "text", "format of --list: text or markdown")
	quiet := fs.Bool("q", false, "no progress line after each round")
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(stdout, fs, examUsage)
			return exitOK
		}
		fmt.Fprintf(stderr, "skolkit exam: %v\nRun 'skolkit exam -h' for help.\n", err)
		return exitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "skolkit exam: "+format+"\n", a...)
		return exitUsage
	}
	if *list {
		if err := exam.WriteCatalogue(stdout, *format); err != nil {
			return usageErr("%v", err)
		}
		return exitOK
	}
	command := fs.Args()
	switch {
	case *serveMode && len(command) > 0:
		return usageErr("--serve runs no command: give either --serve or -- CLIENT-COMMAND")
	case !*serveMode && len(command) == 0:
		return usageErr("no client command: skolkit exam [flags] -- CLIENT-COMMAND [ARGS...] (or --serve)")
	case *addr != "" && !*serveMode:
		return usageErr("--addr is for --serve; a client command gets a free loopback port")
	}
	cfg := exam.Config{Seed: seed.v, RoundTimeout: *roundTimeout, Rounds: *rounds, KeepWorkDirs: *keep}
	var err error
	if cfg.Task, err = exam.ParseTask(*task); err != nil {
		return usageErr("--task: %v", err)
	}
	if cfg.Task == exam.TaskIncrementalSync && *rounds < 2 {
		return usageErr("--rounds: incremental-sync needs at least 2")
	}
	switch rules.Profile(*profile) {
	case rules.ProfileService, rules.ProfileSS12000:
		cfg.Profile = rules.Profile(*profile)
	default:
		return usageErr("--profile: %q is neither service nor ss12000", *profile)
	}
	if cfg.Scenes, err = exam.SelectScenes(scenes); err != nil {
		return usageErr("--scenes: %v", err)
	}
	if *roundTimeout <= 0 {
		return usageErr("--round-timeout must be positive")
	}
	if err := reports.check(); err != nil {
		return usageErr("%v", err)
	}
	if cfg.Scenario, err = loadScenario(*scenario); err != nil {
		fmt.Fprint(stderr, "skolkit exam: ")
		printScenarioError(stderr, err)
		return exitUsage
	}
	var client exam.Client
	if *serveMode {
		listen := *addr
		if listen == "" {
			listen = "127.0.0.1:8080"
		}
		ln, err := net.Listen("tcp", listen)
		if err != nil {
			return usageErr("%v", err)
		}
		cfg.Listener = ln
		controlled := exam.NewControlled()
		client = controlled
		announced := false
		cfg.Ready = func(r exam.Round) {
			if !announced {
				announced = true
				fmt.Fprintf(stdout, "skolkit exam serving %d scene(s) of scenario %q for a client started by hand\n", len(cfg.Scenes), cfg.Scenario.Name)
				for _, kv := range r.Vars() {
					if !strings.HasPrefix(kv, exam.EnvScene+"=") && !strings.HasPrefix(kv, exam.EnvRound+"=") {
						fmt.Fprintf(stdout, "  %s\n", kv)
					}
				}
				fmt.Fprintf(stdout, "  control plane  GET %s%s (the scene and round running), POST %s%s/round-end (when the client is done)\n",
					r.Env.AuthURL, exam.ControlPrefix, r.Env.AuthURL, exam.ControlPrefix)
			}
			fmt.Fprintf(stdout, "scene %s, round %d of %d: run the client now, then POST %s%s/round-end\n", r.Scene, r.Number, r.Rounds, r.Env.AuthURL, exam.ControlPrefix)
		}
		defer controlled.Finish()
	} else {
		cmd := &exam.Command{Path: command[0], Args: command[1:]}
		if *verbose {
			cmd.Echo = func(p []byte) { stderr.Write(p) }
		}
		client = cmd
	}
	progress := func(r exam.RoundResult) {
		status := fmt.Sprintf("exit %d", r.Outcome.ExitCode)
		if r.Outcome.TimedOut {
			status = "timed out"
		}
		fmt.Fprintf(stdout, "[%s %d] %s, %d requests (%d authenticated), %d finding(s), %s\n",
			r.Scene, r.Number, status, r.Requests, r.Authenticated, r.Findings, r.Outcome.Duration.Round(time.Millisecond))
	}
	if !*quiet {
		cfg.Progress = progress
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := exam.Run(ctx, cfg, client)
	if err != nil {
		return usageErr("%v", err)
	}
	rep := res.Report()
	report.WriteConsole(stdout, rep) // with the causes of an exam that could not judge, once each
	if err := reports.write(rep); err != nil {
		return usageErr("%v", err)
	}
	if *keep {
		for _, d := range res.WorkDirs() {
			fmt.Fprintf(stdout, "working directory kept: %s\n", d)
		}
	}
	return res.ExitCode()
}
