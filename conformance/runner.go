package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// Config is what a run needs. The zero values of the limits take the
// defaults below.
type Config struct {
	// BaseURL is interface A (…/directory/v1), RegisterURL interface B
	// (…/api/v1), AuthURL the token base ({auth_url}: the token endpoint is
	// AuthURL + /oauth/token), ExportURL the data export (…/data-export/v1).
	// A surface without a URL is not tested; its checks are skipped.
	BaseURL, RegisterURL, AuthURL, ExportURL string
	// ClientID and ClientSecret are the client credentials. The secret is
	// sent to the token endpoint only, and with LegacyAuth to interface A.
	ClientID, ClientSecret string
	// LimitedClientID and LimitedClientSecret are a second client that may
	// read and not write (auth.insufficient-permission-403): every write
	// operation must answer it 403. Its secret, like the first's, goes to the
	// token endpoint only.
	LimitedClientID, LimitedClientSecret string
	// Token, when set, is a bearer token obtained elsewhere, sent as is to
	// the interfaces instead of one from the token endpoint: the SS 12000
	// document requires a bearer token ("security: BearerAuth") but defines
	// no way to obtain one, so a server under --profile ss12000 may have no
	// token endpoint at all. It excludes AuthURL; the checks that need the
	// token endpoint (auth.token.*, *.token-accepted, *.expired-token) are
	// then skipped as for any surface without a URL.
	Token string
	// LegacyAuth authenticates interface A requests with the Client-ID and
	// Client-Secret headers instead of a bearer token.
	LegacyAuth bool
	// Level is read (safe against production data) or write.
	Level Level
	// Profile is what the server is judged by (default ProfileService).
	Profile Profile
	// MinChecks, when positive, is the least number of checks that must
	// pass or fail (not skip) for the run to count: fewer is exit 2.
	MinChecks int
	// WaitFor, when positive, is how long the runner waits for every
	// configured surface to answer HTTP before it gives up (exit 2).
	WaitFor time.Duration
	// Include and Exclude are check-id patterns (see matchID). Opt-in checks
	// run only when Include names them exactly.
	Include, Exclude []string
	// FailOn is the severity at which a failure makes the run fail.
	FailOn Severity
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
	// Concurrency is the number of checks run at once (default 4).
	Concurrency int
	// MaxPages bounds every pageToken and offset walk (default 1000).
	MaxPages int
	// IDs are record ids to test interface B's by-id operations with, by
	// kind: syllabus, attendance, absence (interface B has no list of them),
	// and placement, group (added to those found in the placement list).
	IDs map[string][]string
	// UserSpec is an extra OpenAPI document every response is validated
	// against too (--spec), matched by path relative to the surface URL.
	UserSpec     *openapi3.T
	UserSpecName string
	// MaxBodyBytes caps every response body (default 10 MiB).
	MaxBodyBytes int64
	// MaxWalkBytes caps the bytes one pageToken or offset walk keeps
	// (default 128 MiB).
	MaxWalkBytes int64
	// MaxRateLimitWait is the longest the runner waits on one 429 as
	// Retry-After or RateLimit-Reset say (default 60 s).
	MaxRateLimitWait time.Duration
	// MaxTokenWait is the longest the runner waits for an access token to
	// expire, for the expired-token checks (default 10 s).
	MaxTokenWait time.Duration
	// Notes are remarks to carry into the report (how --spec was loaded).
	Notes []string
	// Observe, when set, is given every exchange the run makes, after the
	// rules have judged it (tests: which operations a run reaches).
	Observe func(*rules.Exchange)
	// Progress, when set, is called as each check ends.
	Progress func(done, total int, r report.Result)
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
	// Now replaces the clock for dates the checks compute (tests).
	Now func() time.Time
	// CallbackListen and CallbackURL place the receiver of the
	// subscription checks (checks_b_subscriptions.go): where it listens
	// (default 127.0.0.1:0) and the URL the server is to call back
	// (default: the listener's own address).
	CallbackListen, CallbackURL string
	// CallbackWait bounds the wait for a callback after a change (default
	// DefaultCallbackWait).
	CallbackWait time.Duration
}

// Defaults of the limits.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultConcurrency      = 4
	DefaultMaxPages         = 1000
	DefaultMaxBodyBytes     = 10 << 20
	DefaultMaxWalkBytes     = 128 << 20
	DefaultMaxRateLimitWait = 60 * time.Second
	DefaultMaxTokenWait     = 10 * time.Second
)

// IDKinds are the record kinds --id accepts.
var IDKinds = []string{"syllabus", "attendance", "absence", "placement", "group"}

func (c *Config) setDefaults() {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxPages <= 0 {
		c.MaxPages = DefaultMaxPages
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxWalkBytes <= 0 {
		c.MaxWalkBytes = DefaultMaxWalkBytes
	}
	if c.MaxRateLimitWait <= 0 {
		c.MaxRateLimitWait = DefaultMaxRateLimitWait
	}
	if c.MaxTokenWait <= 0 {
		c.MaxTokenWait = DefaultMaxTokenWait
	}
	if c.FailOn == "" {
		c.FailOn = MUST
	}
	if c.Profile == "" {
		c.Profile = ProfileService
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// UsageError is a configuration the runner cannot use.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// ConnectionError is a surface that could not be reached before any check
// ran.
type ConnectionError struct {
	Surface Surface
	Err     error
}

func (e *ConnectionError) Error() string {
	return fmt.Sprintf("cannot reach %s (%s): %v", e.Surface, flagOf(e.Surface), e.Err)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

// env is the state of one run that checks share.
type env struct {
	cfg      Config
	urls     map[Surface]*url.URL
	http     *http.Client
	tokens   *tokenSource
	limited  *tokenSource // the second, read-only client's
	red      *report.Redactor
	judge    *rules.Judge
	user     *userSpec
	walks    walkLedger
	mu       sync.Mutex
	waits    []report.Wait
	created  map[string]string // record path → check id, while the record exists
	leftover []string
	data     sharedData
	// authed counts, per surface, the authenticated requests answered 2xx:
	// the evidence that the run could test the surface at all.
	authed map[Surface]int
	// issued counts the access tokens the token endpoint issued.
	issued int
	// callbacks is the receiver of subscription callbacks, started by the
	// first check that needs it (checks_b_subscriptions.go).
	callbacks callbackState
}

func (e *env) noteEvidence(s Surface) {
	e.mu.Lock()
	e.authed[s]++
	e.mu.Unlock()
}

func (e *env) noteIssued() {
	e.mu.Lock()
	e.issued++
	e.mu.Unlock()
}

func (e *env) token() (string, error) {
	if e.cfg.Token != "" {
		return e.cfg.Token, nil
	}
	if e.cfg.ClientID == "" || e.cfg.ClientSecret == "" {
		return "", fmt.Errorf("%w: no client credentials (--client-id, --client-secret or SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET)", errNoToken)
	}
	if e.tokens == nil {
		return "", fmt.Errorf("%w: no token endpoint (--auth-url) and no --token", errNoToken)
	}
	tok, err := e.tokens.token()
	if err == nil {
		e.noteIssued()
	}
	return tok, err
}

func (e *env) has(s Surface) bool { _, ok := e.urls[s]; return ok }

// parseSurfaceURL checks a surface URL.
func parseSurfaceURL(s Surface, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, &UsageError{fmt.Sprintf("%s %q: want an absolute http or https URL without query", flagOf(s), raw)}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// newEnv checks the configuration and builds the run's state.
func newEnv(ctx context.Context, cfg Config) (*env, error) {
	cfg.setDefaults()
	e := &env{cfg: cfg, urls: map[Surface]*url.URL{}, red: report.NewRedactor(cfg.ClientSecret), created: map[string]string{}, authed: map[Surface]int{}}
	for s, raw := range map[Surface]string{SurfaceA: cfg.BaseURL, SurfaceB: cfg.RegisterURL, SurfaceAuth: cfg.AuthURL, SurfaceExport: cfg.ExportURL} {
		if raw == "" {
			continue
		}
		u, err := parseSurfaceURL(s, raw)
		if err != nil {
			return nil, err
		}
		e.urls[s] = u
	}
	if !e.has(SurfaceA) && !e.has(SurfaceB) && !e.has(SurfaceExport) && !e.has(SurfaceAuth) {
		return nil, &UsageError{"nothing to test: give at least one of --base-url, --register-url, --auth-url, --export-url"}
	}
	if cfg.Token != "" && e.has(SurfaceAuth) {
		return nil, &UsageError{"--token replaces the token endpoint: give --token or --auth-url, not both"}
	}
	e.red.AddToken(cfg.Token)
	e.red.AddSecret(cfg.LimitedClientSecret, "$LIMITED_CLIENT_SECRET")
	if (cfg.LimitedClientID == "") != (cfg.LimitedClientSecret == "") {
		return nil, &UsageError{"--limited-client-id and --limited-client-secret go together: give both or neither"}
	}
	if cfg.LegacyAuth && !e.has(SurfaceA) {
		return nil, &UsageError{"--legacy-auth applies to interface A: give --base-url"}
	}
	for _, p := range slices.Concat(cfg.Include, cfg.Exclude) {
		if err := ValidatePattern(p); err != nil {
			return nil, &UsageError{err.Error()}
		}
	}
	for kind, ids := range cfg.IDs {
		if !slices.Contains(IDKinds, kind) {
			return nil, &UsageError{fmt.Sprintf("--id %s=...: unknown kind (want one of %s)", kind, strings.Join(IDKinds, ", "))}
		}
		for _, id := range ids {
			if !isUUID(id) {
				return nil, &UsageError{fmt.Sprintf("--id %s=%s: not a UUID", kind, id)}
			}
		}
	}
	e.http = newHTTPClient(&e.cfg)
	if u, ok := e.urls[SurfaceAuth]; ok {
		e.tokens = newTokenSource(ctx, e.cfg.ClientID, e.cfg.ClientSecret, e.http, u.String()+pathToken, e.red)
		if cfg.LimitedClientID != "" {
			e.limited = newTokenSource(ctx, cfg.LimitedClientID, cfg.LimitedClientSecret, e.http, u.String()+pathToken, e.red)
		}
	}
	if _, err := ParseProfile(string(e.cfg.Profile)); err != nil {
		return nil, &UsageError{"--profile: " + err.Error()}
	}
	if cfg.MinChecks < 0 {
		return nil, &UsageError{"--min-checks must not be negative"}
	}
	if rs := selectRules(e.cfg.Profile, e.cfg.Include, e.cfg.Exclude); len(rs) > 0 {
		j, err := rules.NewJudge(rules.Config{Profile: e.cfg.Profile, Sides: []rules.Side{rules.SideServer}, Rules: rs})
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		e.judge = j
	}
	if cfg.UserSpec != nil {
		v, err := rules.NewDocValidator(cfg.UserSpecName, cfg.UserSpec)
		if err != nil {
			return nil, fmt.Errorf("--spec: %w", err)
		}
		e.user = &userSpec{v: v, operations: map[string]int{}}
	}
	return e, nil
}

// preflight makes sure every configured surface answers HTTP at all, so that
// a wrong URL is one clear error instead of a hundred failed checks, and that
// the token endpoint accepts the credentials. With WaitFor it retries every
// half second until the surfaces answer or the time is up.
func (e *env) preflight(ctx context.Context) error {
	deadline := time.Now().Add(e.cfg.WaitFor)
	for _, s := range []Surface{SurfaceAuth, SurfaceA, SurfaceB, SurfaceExport} {
		u, ok := e.urls[s]
		if !ok {
			continue
		}
		for {
			rctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
			req, _ := http.NewRequestWithContext(rctx, http.MethodHead, u.String()+"/", nil)
			resp, err := e.http.Do(req)
			cancel()
			if err == nil {
				resp.Body.Close()
				// A gateway before a server still starting answers 502 to 504:
				// with --wait-for that is not up yet.
				starting := resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout
				if !starting || e.cfg.WaitFor <= 0 || !time.Now().Before(deadline) {
					break
				}
				err = fmt.Errorf("HEAD %s answered %d", u, resp.StatusCode)
			}
			if e.cfg.WaitFor <= 0 || !time.Now().Before(deadline) || ctx.Err() != nil {
				if e.cfg.WaitFor > 0 {
					err = fmt.Errorf("still unreachable after waiting %s (--wait-for): %w", e.cfg.WaitFor, err)
				}
				return &ConnectionError{Surface: s, Err: errors.New(e.red.Redact(err.Error()))}
			}
			if sleep(ctx, 500*time.Millisecond) != nil {
				return &ConnectionError{Surface: s, Err: ctx.Err()}
			}
		}
	}
	if e.tokens != nil && e.cfg.ClientID != "" && e.cfg.ClientSecret != "" {
		if _, err := e.token(); err != nil && strings.Contains(err.Error(), "invalid_client") {
			return &UsageError{fmt.Sprintf("the token endpoint rejected the client credentials: %v; check --client-id and --client-secret (or SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET)", err)}
		}
	}
	return nil
}

// incomplete says, for each surface the selected checks needed, why no
// check could test it with credentials (no authenticated request answered
// 2xx, or no token was ever issued), and whether fewer checks decided than
// --min-checks asks: a run that tested nothing must not look green.
func (e *env) incomplete(checks []*Check, results []report.Result) []string {
	requested := map[Surface]bool{}
	for i, c := range checks {
		if results[i].Status == report.StatusSkip && e.gate(c) != "" {
			continue
		}
		for _, s := range c.Needs {
			requested[s] = true
		}
	}
	var out []string
	creds := e.cfg.ClientID != "" && e.cfg.ClientSecret != ""
	why := func(s Surface) string {
		switch {
		case e.cfg.Token != "" && !(s == SurfaceA && e.cfg.LegacyAuth):
			return fmt.Sprintf("no request with the --token bearer token was answered 2xx: check %s (%s) and the token (see the failed checks)", flagOf(s), e.urls[s])
		case e.cfg.ClientID == "" && e.cfg.ClientSecret != "":
			return "no client id was given (a client secret was): set --client-id (or SKOLKIT_CLIENT_ID)"
		case e.cfg.ClientID != "" && e.cfg.ClientSecret == "":
			return "no client secret was given (a client id was): set --client-secret (or SKOLKIT_CLIENT_SECRET)"
		case !creds:
			return "no client credentials were given: set --client-id and --client-secret (or SKOLKIT_CLIENT_ID and SKOLKIT_CLIENT_SECRET), or give a bearer token with --token"
		case s == SurfaceA && e.cfg.LegacyAuth:
			return "no request with the Client-ID and Client-Secret headers was answered 2xx: check --base-url and the credentials"
		case e.tokens == nil:
			return "no token endpoint was given: set --auth-url, or give a bearer token with --token"
		}
		if _, err := e.tokens.token(); err != nil {
			return fmt.Sprintf("the token endpoint issued no token (%v): check --auth-url and the credentials", err)
		}
		return fmt.Sprintf("no authenticated request was answered 2xx: check %s (%s) and that the token is accepted (see the failed checks)", flagOf(s), e.urls[s])
	}
	// One line per cause, naming every surface it left untested (a token
	// endpoint that issues no token leaves it and interface B untested).
	var causes []string
	untested := map[string][]string{}
	for _, s := range []Surface{SurfaceAuth, SurfaceA, SurfaceB, SurfaceExport} {
		if !e.has(s) || !requested[s] {
			continue
		}
		name := surfaceName(s)
		if s == SurfaceAuth {
			if e.issued != 0 {
				continue
			}
			name = "the token endpoint"
		} else if e.authed[s] != 0 {
			continue
		}
		cause := why(s)
		if _, ok := untested[cause]; !ok {
			causes = append(causes, cause)
		}
		untested[cause] = append(untested[cause], name)
	}
	for _, cause := range causes {
		names := untested[cause]
		verb := "was"
		if len(names) > 1 {
			verb = "were"
		}
		list := strings.Join(names[:len(names)-1], ", ")
		if list != "" {
			list += " and "
		}
		out = append(out, fmt.Sprintf("%s%s %s not tested: %s", list, names[len(names)-1], verb, cause))
	}
	decided := 0
	for _, r := range results {
		if r.Status == report.StatusPass || r.Status == report.StatusFail {
			decided++
		}
	}
	if decided < e.cfg.MinChecks {
		out = append(out, fmt.Sprintf("only %d checks passed or failed, fewer than --min-checks %d: see the skip reasons", decided, e.cfg.MinChecks))
	}
	return out
}

// Run runs the selected checks and returns the report. It returns a
// *UsageError for a configuration it cannot use and a *ConnectionError when
// a surface cannot be reached at all; both mean exit status 2.
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	e, err := newEnv(ctx, cfg)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	if err := e.preflight(ctx); err != nil {
		return nil, err
	}
	rep := &report.Report{Started: started, Level: e.cfg.Level.String(), Profile: e.cfg.Profile, FailOn: e.cfg.FailOn, URLs: map[string]string{}}
	for s, u := range e.urls {
		rep.URLs[flagOf(s)[2:]] = u.String()
	}
	checks := selectChecks(e.cfg.Profile, e.cfg.Include, e.cfg.Exclude)
	results := make([]report.Result, len(checks))
	total := len(checks)
	if e.judge != nil {
		total += len(e.judge.Rules())
	}
	var done int
	var progressMu sync.Mutex
	finish := func(i int, r report.Result) {
		results[i] = r
		if e.cfg.Progress != nil {
			progressMu.Lock()
			done++
			e.cfg.Progress(done, total, r)
			progressMu.Unlock()
		}
	}
	for _, ph := range []phase{phaseRead, phaseWrite, phaseQuota, phaseLedger} {
		var idx []int
		for i, c := range checks {
			if c.phaseOf() != ph {
				continue
			}
			if reason := e.gate(c); reason != "" {
				finish(i, e.newResult(c, report.StatusSkip, reason))
				continue
			}
			idx = append(idx, i)
		}
		e.runPhase(ctx, checks, idx, finish)
		if ph == phaseRead {
			// The rules' traffic: after the read checks (which it must not
			// starve of a small quota), before anything is written.
			e.runTraffic(ctx)
		}
	}
	e.listLeftovers()
	e.callbacks.close()
	ruled := e.ruleResults()
	if e.cfg.Progress != nil {
		for _, r := range ruled {
			done++
			e.cfg.Progress(done, total, r)
		}
	}
	rep.Incomplete = e.incomplete(checks, slices.Concat(results, ruled))
	rep.Results = slices.Concat(results, ruled)
	rep.Duration = time.Since(started)
	rep.Waits = e.waits
	rep.Notes = e.cfg.Notes
	if e.cfg.Profile == ProfileSS12000 {
		for _, s := range []Surface{SurfaceA, SurfaceExport} {
			if e.has(s) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("--profile ss12000 judges interface B and the token endpoint only: %s (%s) was not tested; run --profile service for it", surfaceName(s), flagOf(s)))
			}
		}
	}
	rep.Leftovers = e.leftover
	return rep, nil
}

// gate says why a check cannot run in this configuration ("" when it can).
func (e *env) gate(c *Check) string {
	if c.Level > e.cfg.Level {
		return "a write check: it runs with --level write"
	}
	if c.OptIn != "" && !named(e.cfg.Include, c.ID) {
		return "opt-in (" + c.OptIn + "): it runs only when named with --include " + c.ID
	}
	for _, s := range c.Needs {
		if !e.has(s) {
			return fmt.Sprintf("%s not configured: give %s", surfaceName(s), flagOf(s))
		}
	}
	return ""
}

func surfaceName(s Surface) string { return s.Name() }

func (e *env) newResult(c *Check, s report.Status, reason string) report.Result {
	return report.Result{ID: c.ID, Title: c.Title, Area: c.Area, Level: c.Level.String(), Severity: c.SeverityIn(e.cfg.Profile), Choice: c.Choice, Spec: c.SpecIn(e.cfg.Profile), Status: s, Reason: reason}
}

// runPhase runs the checks at idx with at most Concurrency at once.
func (e *env) runPhase(ctx context.Context, checks []*Check, idx []int, finish func(int, report.Result)) {
	sem := make(chan struct{}, e.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, i := range idx {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			finish(i, e.runCheck(ctx, checks[i]))
		}()
	}
	wg.Wait()
}

// runCheck runs one check and turns its recorded outcome into a Result.
func (e *env) runCheck(ctx context.Context, c *Check) report.Result {
	res := e.newResult(c, "", "")
	t := &T{ctx: ctx, env: e, check: c, res: &res}
	start := time.Now()
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(stop); ok {
					return
				}
				res.Status = report.StatusError
				res.Reason = fmt.Sprintf("internal error in the check: %v\n%s", v, debug.Stack())
			}
		}()
		if ctx.Err() != nil {
			t.Skipf("the run was cancelled")
		}
		c.Run(t)
	}()
	e.runCleanups(t)
	res.Duration = time.Since(start)
	switch {
	case len(res.Failures) > 0 && res.Status != report.StatusError:
		res.Status = report.StatusFail
	case res.Status == "":
		res.Status = report.StatusPass
	}
	return res
}

// runCleanups runs a check's cleanups in reverse order, each with a fresh
// context; a cleanup that panics with stop has recorded its failure.
func (e *env) runCleanups(t *T) {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*e.cfg.Timeout)
			defer cancel()
			saved := t.ctx
			t.ctx = ctx
			defer func() {
				t.ctx = saved
				if v := recover(); v != nil {
					if _, ok := v.(stop); !ok {
						t.Failf(nil, "", "cleanup panicked: %v", v)
					}
				}
			}()
			t.cleanups[i](ctx)
		}()
	}
}
