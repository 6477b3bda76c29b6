package exam

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/rules"
	"github.com/skolkit/skolkit/scenarios"
)

// Defaults of Config.
const (
	// DefaultRounds is how many rounds a scene has under incremental-sync.
	DefaultRounds = 3
	// DefaultRoundTimeout bounds one round of the client.
	DefaultRoundTimeout = 5 * time.Minute
)

// Config is what an exam runs.
type Config struct {
	// Scenario is the data every scene serves; nil means the built-in
	// "default". A scenario that switches on deviations, faults or latency
	// is refused: the exam's scenes are the server's behaviours.
	Scenario *scenarios.Scenario
	// Seed, when set, replaces the scenario's seed.
	Seed *int64
	// Task is what the client does each round; empty means full-sync.
	Task Task
	// Profile is what interface B serves and the client rules judge by:
	// rules.ProfileService (the default: the service's spec) or
	// rules.ProfileSS12000 (the SS 12000 document alone, for a client
	// generated from it).
	Profile rules.Profile
	// Scenes are the scenes to run, in catalogue order; nil means all.
	Scenes []Scene
	// Rounds per scene under incremental-sync (0: DefaultRounds, at least
	// 2); full-sync has one.
	Rounds int
	// RoundTimeout bounds each round (0: DefaultRoundTimeout).
	RoundTimeout time.Duration
	// Listener is where the client reaches the mock; nil means a free port
	// on 127.0.0.1. Run closes it.
	Listener net.Listener
	// WorkDir is where the scenes' working directories are made; empty
	// means the system's temporary directory. They are removed at the end
	// unless KeepWorkDirs.
	WorkDir      string
	KeepWorkDirs bool
	// Progress, when set, is told of each round as it ends.
	Progress func(RoundResult)
	// Ready, when set, is told the client's environment of each round
	// before the round runs (--serve prints it for the client started by
	// hand).
	Ready func(Round)
}

// Result is the outcome of an exam.
type Result struct {
	Task     Task
	Scenario string
	Started  time.Time
	Duration time.Duration
	// URLs are the surfaces the client was given.
	URLs   map[string]string
	Scenes []SceneResult
	// Incomplete says why the exam could not judge the client (a scene
	// that could not be played, a client that could not be run, one that
	// never made an authenticated request); any entry is exit status 2.
	Incomplete []string
	// ExamTime is the exam's own time: the whole duration minus the
	// client's rounds.
	ExamTime time.Duration
	// Profile is what the client rules judged by.
	Profile rules.Profile

	// secret and tokens are hidden in reports.
	secret string
	tokens []string
}

// SceneResult is the outcome of one scene.
type SceneResult struct {
	Scene Scene
	// Dir is the scene's working directory (removed at the end unless
	// Config.KeepWorkDirs).
	Dir      string
	Rounds   []RoundResult
	Findings []Finding
	// Coverage says what each client rule could judge in the scene.
	Coverage *rules.Coverage
	// Requests counts the client's requests in the scene.
	Requests int
	// Changes are the writes the exam made in the scene, in order.
	Changes []string

	// judged holds, per kind of the exam's own findings, "" when the scene
	// judged it, else why it could not.
	judged map[string]string
}

// judge records that a kind was judged, or (reason not empty) why it
// could not be; a kind judged once stays judged.
func (s *SceneResult) judge(kind Kind, reason string) {
	if s.judged == nil {
		s.judged = map[string]string{}
	}
	if prev, ok := s.judged[kind.ID]; ok && prev == "" {
		return
	}
	s.judged[kind.ID] = reason
}

// RoundResult is how one round went.
type RoundResult struct {
	Scene   string
	Number  int
	Outcome Outcome
	// Requests counts the client's requests, Authenticated those the mock
	// accepted its credentials for.
	Requests, Authenticated int
	Findings                int
}

// Findings returns every finding of the exam, faults first, then by scene
// and id.
func (r *Result) Findings() []Finding {
	var out []Finding
	for _, s := range r.Scenes {
		out = append(out, s.Findings...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Verdict == VerdictFault) != (b.Verdict == VerdictFault) {
			return a.Verdict == VerdictFault
		}
		return false
	})
	return out
}

// WorkDirs lists the scenes' working directories.
func (r *Result) WorkDirs() []string {
	var out []string
	for _, s := range r.Scenes {
		if s.Dir != "" {
			out = append(out, s.Dir)
		}
	}
	return out
}

// Faults counts the findings that are the client's faults.
func (r *Result) Faults() int {
	n := 0
	for _, f := range r.Findings() {
		if f.Verdict == VerdictFault {
			n++
		}
	}
	return n
}

// ExitCode is the exam's exit status: 2 when it could not judge the
// client, 1 when it found a client fault, 0 otherwise.
func (r *Result) ExitCode() int {
	switch {
	case len(r.Incomplete) > 0:
		return 2
	case r.Faults() > 0:
		return 1
	}
	return 0
}

// ErrScenario is returned for a scenario the exam cannot serve.
var ErrScenario = errors.New("the scenario cannot be examined with")

// Run runs the client through every scene and judges it.
func Run(ctx context.Context, cfg Config, client Client) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ln := cfg.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, err
		}
	}
	base := "http://" + ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		base = fmt.Sprintf("http://127.0.0.1:%d", tcp.Port)
	}
	f := &front{}
	if cp, ok := client.(*Controlled); ok {
		f.control = cp
	}
	hs := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shut)
	}()
	res := &Result{Task: cfg.Task, Scenario: cfg.Scenario.Name, Started: time.Now(), Profile: cfg.Profile}
	var clientTime time.Duration
	at := time.Now().UTC().Truncate(time.Millisecond)
	if !cfg.Scenario.Clock.Now.IsZero() {
		at = cfg.Scenario.Clock.Now
	}
	for _, scene := range cfg.Scenes {
		if ctx.Err() != nil {
			res.Incomplete = append(res.Incomplete, "the exam was interrupted")
			break
		}
		sr, spent, stop := runScene(ctx, cfg, scene, client, f, base, at, res)
		clientTime += spent
		res.Scenes = append(res.Scenes, sr)
		if stop {
			break
		}
	}
	attributeCauses(res)
	total := 0
	for _, s := range res.Scenes {
		for _, r := range s.Rounds {
			total += r.Authenticated
		}
	}
	if total == 0 && len(res.Incomplete) == 0 {
		why := "is it given the URLs and credentials of SKOLKIT_* or the {placeholders}?"
		for _, s := range res.Scenes {
			for _, f := range s.Findings {
				if f.ID == KindNoRequests.ID && strings.Contains(f.Message, "paths of no surface") {
					why = f.Message[strings.Index(f.Message, "it sent"):]
				}
			}
		}
		res.Incomplete = append(res.Incomplete, "the client made no authenticated request in any round: the exam has nothing to judge ("+why+")")
	}
	res.Duration = time.Since(res.Started)
	res.ExamTime = res.Duration - clientTime
	return res, nil
}

func (cfg Config) withDefaults() (Config, error) {
	if cfg.Scenario == nil {
		sc, err := scenarios.Builtin("default")
		if err != nil {
			return cfg, err
		}
		cfg.Scenario = sc
	}
	if b := cfg.Scenario.Behaviours; len(b.Deviations)+len(b.Faults)+len(b.Latency)+len(b.Variants) > 0 {
		return cfg, fmt.Errorf("%w: scenario %s switches on behaviours of its own (deviations, variants, faults or latency); the exam's scenes are the server's behaviours: remove them from the scenario", ErrScenario, cfg.Scenario.Name)
	}
	if len(cfg.Scenario.Clients) == 0 {
		return cfg, fmt.Errorf("%w: scenario %s has no client", ErrScenario, cfg.Scenario.Name)
	}
	if cfg.Task == "" {
		cfg.Task = TaskFullSync
	}
	if cfg.Profile == "" {
		cfg.Profile = rules.ProfileService
	}
	if !slices.Contains(Tasks, cfg.Task) {
		return cfg, fmt.Errorf("unknown task %q", cfg.Task)
	}
	if cfg.Scenes == nil {
		cfg.Scenes = Scenes()
	}
	if len(cfg.Scenes) == 0 {
		return cfg, errors.New("no scene to run")
	}
	switch {
	case cfg.Task == TaskFullSync:
		cfg.Rounds = 1
	case cfg.Rounds == 0:
		cfg.Rounds = DefaultRounds
	case cfg.Rounds < 2:
		return cfg, errors.New("incremental-sync needs at least 2 rounds")
	}
	if cfg.RoundTimeout <= 0 {
		cfg.RoundTimeout = DefaultRoundTimeout
	}
	return cfg, nil
}

// front serves the client: the current scene's stage, and with --serve
// the exam's own control plane (serve.go).
type front struct {
	mu      sync.RWMutex
	st      *stage
	control *Controlled
}

func (f *front) set(st *stage) {
	f.mu.Lock()
	f.st = st
	f.mu.Unlock()
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.control != nil && strings.HasPrefix(r.URL.Path, ControlPrefix) {
		f.control.ServeHTTP(w, r)
		return
	}
	f.mu.RLock()
	st := f.st
	f.mu.RUnlock()
	if st == nil {
		http.Error(w, "skolkit exam: between scenes; try again in a moment", http.StatusServiceUnavailable)
		return
	}
	st.handler.ServeHTTP(w, r)
}

// runScene plays one scene: builds its stage, runs its rounds and judges
// them. It returns how long the client's rounds took, and whether the exam
// must stop.
func runScene(ctx context.Context, cfg Config, scene Scene, client Client, f *front, base string, at time.Time, res *Result) (sr SceneResult, clientTime time.Duration, stop bool) {
	sr = SceneResult{Scene: scene}
	incomplete := func(format string, a ...any) {
		res.Incomplete = append(res.Incomplete, fmt.Sprintf("scene %s: ", scene.Name)+fmt.Sprintf(format, a...))
	}
	st, err := newStage(ctx, scene, stageOptions{scenario: cfg.Scenario, seed: cfg.Seed, at: at, fixed: !cfg.Scenario.Clock.Now.IsZero(),
		rounds: cfg.Rounds, profile: cfg.Profile, base: base})
	if err != nil {
		incomplete("the mock could not be built: %v", err)
		return sr, 0, true
	}
	defer st.close()
	res.secret = st.env.ClientSecret
	if res.URLs == nil {
		res.URLs = map[string]string{"auth_url": st.env.AuthURL, "token_url": st.env.TokenURL, "register_url": st.env.RegisterURL,
			"base_url": st.env.BaseURL, "export_url": st.env.ExportURL}
	}
	dir, err := os.MkdirTemp(cfg.WorkDir, "skolkit-exam-"+scene.Name+"-")
	if err != nil {
		incomplete("no working directory: %v", err)
		return sr, 0, true
	}
	if !cfg.KeepWorkDirs {
		defer os.RemoveAll(dir)
	}
	dir, _ = filepath.Abs(dir)
	sr.Dir = dir
	ev := newEvidence(st.oracle.lists)
	judge := newCompleteness(scene.Name, cfg.Task, ev, st.oracle)
	traffic, err := rules.NewJudge(rules.Config{Profile: cfg.Profile, Sides: []rules.Side{rules.SideClient}})
	if err != nil {
		incomplete("the client rules could not be loaded: %v", err)
		return sr, 0, true
	}
	roundOf := map[*Exchange]int{}
	defer func() {
		traffic.Finish()
		sr.Findings = append(sr.Findings, trafficFindings(scene.Name, traffic, roundOf)...)
		cov := traffic.Coverage()
		sr.Coverage = &cov
	}()
	f.set(st)
	defer f.set(nil)
	for n := 1; n <= cfg.Rounds; n++ {
		var between []change
		if n > 1 {
			cs, err := st.writer.changeSet(ctx)
			between = cs
			if err != nil {
				incomplete("the changes before round %d failed: %v", n, err)
				return sr, clientTime, false
			}
		}
		for _, c := range between {
			sr.Changes = append(sr.Changes, fmt.Sprintf("before round %d: %s", n, c))
		}
		start, err := st.oracle.snapshot(ctx)
		if err != nil {
			incomplete("%v", err)
			return sr, clientTime, false
		}
		r := Round{Scene: scene.Name, Number: n, Rounds: cfg.Rounds, Task: cfg.Task, Dir: dir, Env: st.env}
		if cfg.Ready != nil {
			cfg.Ready(r)
		}
		mark := st.log.len()
		st.beginRound()
		rctx, cancel := context.WithTimeout(ctx, cfg.RoundTimeout)
		out := client.RunRound(rctx, r)
		cancel()
		clientTime += out.Duration
		during, toxicErr := st.endRound()
		for _, c := range during {
			sr.Changes = append(sr.Changes, fmt.Sprintf("during round %d: %s", n, c))
		}
		if out.Err != nil {
			incomplete("%v", out.Err)
			return sr, clientTime, true
		}
		if toxicErr != nil {
			incomplete("%v", toxicErr)
			return sr, clientTime, false
		}
		exchanges := st.log.since(mark)
		for _, ex := range exchanges {
			ev.observe(ex, n)
			roundOf[ex] = n
			if o := traffic.Observe(ex); o.Op != nil && o.Op.Kind == rules.KindToken && o.OK() {
				if tok, _ := o.Object()["access_token"].(string); tok != "" {
					res.tokens = append(res.tokens, tok)
				}
			}
		}
		end, err := st.oracle.snapshot(ctx)
		if err != nil {
			incomplete("%v", err)
			return sr, clientTime, false
		}
		state := &roundState{number: n, start: start, end: end}
		if err := judge.finishRound(ctx, state); err != nil {
			incomplete("%v", err)
			return sr, clientTime, false
		}
		rr := RoundResult{Scene: scene.Name, Number: n, Outcome: out, Requests: ev.requests[n], Authenticated: ev.authenticated[n]}
		for _, k := range []Kind{KindExitStatus, KindTimeout, KindNoRequests} {
			sr.judge(k, "")
		}
		var found []Finding
		switch {
		case out.TimedOut:
			found = append(found, KindTimeout.finding(scene.Name, n, fmt.Sprintf("the client did not finish round %d within %s and was stopped; its output ends: %s", n, cfg.RoundTimeout, tail(out.Output)), "the round's end", nil))
		case out.ExitCode != 0:
			found = append(found, KindExitStatus.finding(scene.Name, n, fmt.Sprintf("the client ended round %d with exit status %d; its output ends: %s", n, out.ExitCode, tail(out.Output)), "exit status 0", lastExchange(exchanges)))
		}
		if rr.Authenticated == 0 {
			found = append(found, KindNoRequests.finding(scene.Name, n, fmt.Sprintf("the client made %d requests in round %d, none of them accepted as authenticated%s", rr.Requests, n, st.strayed()), "requests with a bearer token from the token endpoint", lastExchange(exchanges)))
		} else {
			found = append(found, judge.judge(&sr)...)
		}
		rr.Findings = len(found)
		sr.Findings = append(sr.Findings, found...)
		sr.Rounds = append(sr.Rounds, rr)
		sr.Requests += len(exchanges)
		if cfg.Progress != nil {
			cfg.Progress(rr)
		}
	}
	return sr, clientTime, false
}

// trafficFindings turns the client rules' findings into the exam's.
func trafficFindings(scene string, j *rules.Judge, roundOf map[*Exchange]int) []Finding {
	var out []Finding
	for _, f := range j.Findings() {
		r := rules.Lookup(f.Rule)
		if r == nil || f.Side != rules.SideClient {
			continue
		}
		verdict := VerdictFault
		if f.Severity == rules.NOTE {
			verdict = VerdictNote
		}
		out = append(out, Finding{ID: f.Rule, Title: r.Title, Family: string(f.Family), Scene: scene, Round: roundOf[f.Exchange],
			Verdict: verdict, Severity: string(f.Severity), Spec: r.SpecIn(j.Profile()), Message: f.Message, Expected: f.Expected,
			Exchange: f.Exchange, Related: f.Related})
	}
	return out
}

func lastExchange(exs []*Exchange) *Exchange {
	if len(exs) == 0 {
		return nil
	}
	return exs[len(exs)-1]
}

// tail is the end of a client's output for a message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(nothing)"
	}
	const n = 2000
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// attributeCauses names a scene's behaviour as the cause of each finding
// whose kind the client does not have in plain.
func attributeCauses(res *Result) {
	plain := -1
	for i, s := range res.Scenes {
		if s.Scene.Name == ScenePlain {
			plain = i
		}
	}
	if plain < 0 {
		return
	}
	inPlain := map[string]bool{}
	for _, f := range res.Scenes[plain].Findings {
		inPlain[f.ID] = true
	}
	for i := range res.Scenes {
		if i == plain {
			continue
		}
		for j := range res.Scenes[i].Findings {
			if f := &res.Scenes[i].Findings[j]; !inPlain[f.ID] {
				f.Cause = res.Scenes[i].Scene.Behaviour
			}
		}
	}
}
