package exam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/rules"
	"github.com/skolkit/skolkit/scenarios"
)

// examClientID is the client the exam's own reads and writes authenticate
// as; the scenario's first client is the examinee's.
const examClientID = "skolkit-exam"

// stage is one scene's mock and everything around it: the handler that
// serves the client (capture, then the scene's behaviours the mock does not
// have itself, then the mock), the oracle and the writer.
type stage struct {
	scene   Scene
	mock    *mockserver.Server
	oracle  *oracle
	writer  *writer
	log     *exchangeLog
	handler http.Handler
	env     Env

	mu sync.Mutex
	// walked holds the lists whose second page the client asked for in this
	// round: the scene's behaviours at a walk's second page happen once per
	// list and round.
	walked map[resourceKey]bool
	// ruleIDs are the scene's fault and latency rules on the mock, while a
	// round runs.
	ruleIDs []string
	limiter *windowLimiter
	// during are the changes the exam made while the round ran.
	during []change
	// toxicErr is the first error of a scene behaviour (a write that
	// failed): the exam could not play the scene.
	toxicErr error
	// inflight counts the client's requests being served: a client may
	// have read its last answer before the capture has recorded it.
	inflight atomic.Int64
	// astray counts the client's requests to paths of no surface (outside
	// the control plane), and keeps the first few: a client with a wrong
	// base URL.
	astray      atomic.Int64
	astrayPaths []string
}

// dataAge is how long before the exam's start the scenes' data is built
// as of.
const dataAge = time.Hour

// inflightWait bounds how long a round's end waits for the client's
// requests still being served.
const inflightWait = time.Minute

// stageOptions are what a stage is built from.
type stageOptions struct {
	scenario *scenarios.Scenario
	seed     *int64
	// at is the instant the exam started (a scenario's fixed instant):
	// every scene's data is built as of dataAge before it.
	at time.Time
	// fixed: the scenario fixes its clock; the mock's then runs from at
	// instead of following the real one.
	fixed  bool
	rounds int
	// profile is what interface B serves (and the client rules judge by).
	profile rules.Profile
	// base is the URL the client reaches the exam at.
	base string
}

// newStage builds a scene's mock, its spare records and the handler that
// serves the client.
func newStage(ctx context.Context, scene Scene, o stageOptions) (*stage, error) {
	sc := *o.scenario
	// Every scene serves the scenario with complete data: plain is every
	// optional member present, and the other scenes differ from it by their
	// behaviour alone (sparse leaves the members out on the wire).
	sc.Generate.Complete = true
	sc.Clock = scenarios.Clock{}
	secret := randomSecret()
	sc.Clients = append(slices.Clone(o.scenario.Clients), scenarios.Client{ID: examClientID, Secret: secret, Scopes: []string{scenarios.ScopeAll}, RateLimit: 1 << 30})
	var started atomic.Int64 // unix nanoseconds when the mock was built; 0 before
	now := func() time.Time {
		s := started.Load()
		switch {
		case s == 0:
			// The data is built as of a while before the client's first
			// round, as a service's is: no record seems to change at the
			// moment a client starts.
			return o.at.Add(-dataAge)
		case o.fixed:
			return o.at.Add(time.Since(time.Unix(0, s)))
		}
		// Then the mock's clock is the real one, so that a client that
		// reads RateLimit-Reset or the records' times against its own
		// clock finds them agreeing.
		return time.Now()
	}
	mock, err := mockserver.New(mockserver.Options{Scenario: &sc, Seed: o.seed, TokenTTL: scene.TokenTTL, Variants: scene.Variants,
		Profile: string(o.profile), JournalSize: -1, Now: now})
	if err != nil {
		return nil, err
	}
	started.Store(time.Now().UnixNano())
	id, clientSecret := mock.Credentials()
	st := &stage{scene: scene, mock: mock, log: &exchangeLog{}, walked: map[resourceKey]bool{}}
	st.env = Env{AuthURL: o.base, TokenURL: o.base + mockserver.PathToken, RegisterURL: o.base + mockserver.PrefixB,
		BaseURL: o.base + mockserver.PrefixA, ExportURL: o.base + mockserver.PrefixExport, ClientID: id, ClientSecret: clientSecret}
	st.oracle = &oracle{http: &http.Client{Transport: inProcess{mock}}, clientID: examClientID, secret: secret, lists: listOps(mock.Contract())}
	h := fnv.New64a()
	h.Write([]byte(scene.Name))
	st.writer = &writer{o: st.oracle, rnd: mrand.New(mrand.NewPCG(uint64(sc.Seed), h.Sum64())), now: mock.Clock().Now}
	if err := st.writer.makeSpares(ctx, o.rounds); err != nil {
		mock.Close()
		return nil, err
	}
	if scene.RateLimit != nil {
		st.limiter = &windowLimiter{w: *scene.RateLimit}
	}
	captured := rules.Capture(st.behave(mock), rules.CaptureOptions{
		MaxBody: maxCaptureBody,
		// The exam has one client: every request is the examinee's.
		Client: func(*http.Request) string { return id },
		Sink:   st.log.add,
	})
	st.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st.inflight.Add(1)
		defer st.inflight.Add(-1)
		if s, _ := surfaceOf(r.URL.Path); s == "" && !strings.HasPrefix(r.URL.Path, mockserver.PrefixAdmin) {
			if st.astray.Add(1) <= 3 {
				st.mu.Lock()
				st.astrayPaths = append(st.astrayPaths, r.Method+" "+r.URL.Path)
				st.mu.Unlock()
			}
		}
		captured.ServeHTTP(w, r)
	})
	return st, nil
}

func randomSecret() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// strayed says what the client sent to paths of no surface, for a message;
// "" when nothing.
func (st *stage) strayed() string {
	n := st.astray.Load()
	if n == 0 {
		return ""
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return fmt.Sprintf("; it sent %d request(s) to paths of no surface (%s): are its base URLs the ones given, %s and %s?",
		n, strings.Join(st.astrayPaths, ", "), st.env.RegisterURL, st.env.BaseURL)
}

// beginRound puts the scene's rules on the mock and starts its behaviours
// afresh.
func (st *stage) beginRound() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.walked = map[resourceKey]bool{}
	st.during = nil
	if st.limiter != nil {
		st.limiter.restart()
	}
	if len(st.scene.Rules.Faults)+len(st.scene.Rules.Latency) > 0 {
		added := st.mock.AddRules(st.scene.Rules)
		for _, f := range added.Faults {
			st.ruleIDs = append(st.ruleIDs, f.ID)
		}
		for _, l := range added.Latency {
			st.ruleIDs = append(st.ruleIDs, l.ID)
		}
	}
}

// endRound waits for the client's requests still being served (a client
// gone before its last answer was captured), takes the scene's rules off
// the mock (the oracle reads without faults and delays) and returns the
// changes made during the round.
func (st *stage) endRound() ([]change, error) {
	for deadline := time.Now().Add(inflightWait); st.inflight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, id := range st.ruleIDs {
		st.mock.RemoveRule(id)
	}
	st.ruleIDs = nil
	return st.during, st.toxicErr
}

func (st *stage) close() { st.mock.Close() }

// behave wraps the mock in the scene's behaviours that the exam plays
// itself: the rate-limit window, tokens expiring and records changing at a
// walk's second page.
func (st *stage) behave(mock http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		surface, rel := surfaceOf(r.URL.Path)
		if st.limiter != nil && (surface == surfaceA || surface == surfaceB || surface == surfaceExport) {
			var ok bool
			if w, ok = st.limit(w, r, surface); !ok {
				return
			}
		}
		if list, from, ok := continuation(r, surface, rel); ok && (st.scene.ExpireTokensInWalks || st.scene.ChangeBetweenPages) {
			st.atSecondPage(r.Context(), list, from)
		}
		mock.ServeHTTP(w, r)
	})
}

// continuation recognises a request for a later page of a list: an
// interface-B GET with a pageToken, an interface-A or export list or
// search with an offset past 0. It returns the list and the offset asked
// for (0 for a pageToken).
func continuation(r *http.Request, surface rules.Surface, rel string) (resourceKey, int, bool) {
	q := r.URL.Query()
	switch surface {
	case surfaceB:
		if r.Method == http.MethodGet && q.Get("pageToken") != "" {
			return keyOf(surface, rel), 0, true
		}
	case surfaceA, surfaceExport:
		if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 {
			return keyOf(surface, rel), n, true
		}
	}
	return "", 0, false
}

// atSecondPage plays the scene's behaviours at the first later page of a
// list in a round.
func (st *stage) atSecondPage(ctx context.Context, list resourceKey, from int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.walked[list] {
		return
	}
	st.walked[list] = true
	if st.scene.ExpireTokensInWalks {
		st.mock.Clock().Advance(st.scene.TokenTTL + time.Second)
	}
	if st.scene.ChangeBetweenPages {
		cs, err := st.writer.changeList(context.WithoutCancel(ctx), list, from)
		st.during = append(st.during, cs...)
		if err != nil && st.toxicErr == nil {
			st.toxicErr = fmt.Errorf("changing %s between pages: %w", list, err)
		}
	}
}

// limit counts a request against the rate-limit window: a refused request
// is answered 429 here; an allowed one goes on with the window's headers.
func (st *stage) limit(w http.ResponseWriter, r *http.Request, surface rules.Surface) (http.ResponseWriter, bool) {
	real := time.Now()
	d := st.limiter.take(real)
	// The reset is told in the mock's clock, which its Date header shows.
	reset := st.mock.Clock().Now().Add(d.reset.Sub(real))
	set := func(h http.Header) {
		h.Set("RateLimit-Limit", strconv.Itoa(d.limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(d.remaining))
		h.Set("RateLimit-Reset", strconv.FormatInt(reset.UnixMilli(), 10))
	}
	if d.allowed {
		return &headerSetter{ResponseWriter: w, set: set}, true
	}
	set(w.Header())
	secs := int64((d.reset.Sub(real) + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	w.Header().Set("Date", st.mock.Clock().Now().UTC().Format(http.TimeFormat))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	msg := fmt.Sprintf("the quota of %d requests per window is spent; the window resets at %s", d.limit, reset.UTC().Format(time.RFC3339Nano))
	var body any = map[string]string{"code": "TooManyRequests", "message": msg}
	if surface != surfaceB {
		body = map[string]any{"error": map[string]string{"code": mockserver.CodeRateLimited, "message": msg, "requestID": randomSecret()[:16]}}
	}
	_ = json.NewEncoder(w).Encode(body)
	return w, false
}

// headerSetter sets headers just before the answer's header is written,
// over whatever the handler set.
type headerSetter struct {
	http.ResponseWriter
	set  func(http.Header)
	done bool
}

func (h *headerSetter) WriteHeader(code int) {
	if !h.done {
		h.done = true
		h.set(h.ResponseWriter.Header())
	}
	h.ResponseWriter.WriteHeader(code)
}

func (h *headerSetter) Write(p []byte) (int, error) {
	if !h.done {
		h.WriteHeader(http.StatusOK)
	}
	return h.ResponseWriter.Write(p)
}

// windowLimiter is the rate-limit scene's limiter: fixed windows of
// w.Window, each opened by the first request after the last one ended and
// holding w.Quota requests (the first window of a round w.FirstQuota).
// Every answer of a window announces the same RateLimit-Reset, its end, and
// a RateLimit-Remaining one lower than the answer before; a request beyond
// the quota before the window ends is refused. A client that sends its
// first requests quickly meets the refusal with most of the window to wait.
type windowLimiter struct {
	mu    sync.Mutex
	w     RateWindow
	used  int
	quota int       // 0: no window open
	ends  time.Time // the open window's end
	first bool
}

type windowDecision struct {
	allowed          bool
	limit, remaining int
	reset            time.Time
}

// restart makes the next request open a round's first window.
func (l *windowLimiter) restart() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.used, l.quota, l.ends, l.first = 0, 0, time.Time{}, true
}

func (l *windowLimiter) take(now time.Time) windowDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.quota != 0 && !now.Before(l.ends) {
		l.quota = 0 // the window is over
	}
	if l.quota == 0 {
		l.used, l.quota, l.ends = 0, l.w.Quota, now.Add(l.w.Window)
		if l.first && l.w.FirstQuota > 0 {
			l.quota = l.w.FirstQuota
		}
		l.first = false
	}
	if l.used >= l.quota {
		return windowDecision{limit: l.quota, reset: l.ends}
	}
	l.used++
	d := windowDecision{allowed: true, limit: l.quota, remaining: l.quota - l.used, reset: l.ends}
	return d
}
