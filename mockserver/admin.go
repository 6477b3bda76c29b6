package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"go.yaml.in/yaml/v3"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/directory"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// PrefixAdmin is the path prefix of the control plane (openapi/admin.yaml).
const PrefixAdmin = "/__admin"

// MaxAdminBodyBytes is the largest scenario or rule set the control plane
// accepts (a state document may be up to MaxStateBytes).
const MaxAdminBodyBytes = 8 << 20

// control is the control plane's part of a Server.
type control struct {
	// mu is held for reading while a request of the served surfaces runs and
	// for writing while a scenario is swapped in, so that a request sees one
	// scenario's clients, token lifetime and list shape throughout.
	mu sync.RWMutex
	// swap serialises the operations that replace data or scenario; they
	// build outside mu and take it only to swap.
	swap   sync.Mutex
	saveMu sync.Mutex

	router    http.Handler
	token     string
	stateFile string
	journal   *journal
	rules     ruleSet
}

// initControl sets up the control plane from the options.
func (s *Server) initControl(opts Options) error {
	size := opts.JournalSize
	if size == 0 {
		size = DefaultJournalSize
	}
	s.ctl.journal = newJournal(size)
	s.ctl.token = strings.TrimSpace(opts.AdminToken)
	s.ctl.stateFile = opts.StateFile
	s.ctl.rules.load(s.scenario)
	return s.adminRoutes()
}

// useScenario takes the clients, token lifetime and list shape of a
// scenario. The caller holds ctl.mu for writing (or owns the server).
func (s *Server) useScenario(sc *scenarios.Scenario) {
	s.scenario = sc
	s.clients = map[string]Client{}
	s.first = Client{}
	for i, c := range sc.Clients {
		scopes := slices.Clone(c.Scopes)
		if slices.Contains(scopes, scenarios.ScopeAll) {
			scopes = slices.Clone(AllScopes)
		}
		cl := Client{ID: c.ID, Secret: c.Secret, Scopes: scopes, RateLimit: c.Quota()}
		s.clients[c.ID] = cl
		if i == 0 {
			s.first = cl
		}
	}
	s.tokenTTL = time.Duration(sc.Lifetime()) * time.Second
	s.core.ListShape = ListShapeData
	if sc.ListShape == scenarios.ListShapeResultArray {
		s.core.ListShape = ListShapeResultArray
	}
}

// isAdminPath reports whether a path belongs to the control plane.
func isAdminPath(p string) bool {
	return p == PrefixAdmin || strings.HasPrefix(p, PrefixAdmin+"/")
}

// serveAdmin serves a control-plane request: not journalled, no faults.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving admin request", "method", r.Method, "path", r.URL.Path, "panic", v)
			surface.WriteAdminError(w, http.StatusInternalServerError, AdminInternal, "unexpected server error")
		}
	}()
	s.ctl.router.ServeHTTP(w, r)
}

func (s *Server) adminEndpoints() []surface.AdminEndpoint {
	return append(s.reg.AdminEndpoints(), []surface.AdminEndpoint{
		{Method: http.MethodGet, Path: "/openapi.json", Open: true, Handle: s.serveDoc(openapi.NameAdmin)},
		{Method: http.MethodPost, Path: "/reset", Handle: s.adminReset},
		{Method: http.MethodPut, Path: "/scenario", Handle: s.adminScenario},
		{Method: http.MethodGet, Path: "/state", Handle: s.adminGetState},
		{Method: http.MethodPut, Path: "/state", Handle: s.adminPutState},
		{Method: http.MethodPost, Path: "/snapshot", Handle: s.adminSnapshot},
		{Method: http.MethodGet, Path: "/requests", Query: []string{"method", "pathPrefix", "status", "clientID"}, Handle: s.adminRequests},
		{Method: http.MethodDelete, Path: "/requests", Handle: s.adminClearRequests},
		{Method: http.MethodGet, Path: "/faults", Handle: s.adminRules},
		{Method: http.MethodPost, Path: "/faults", Handle: s.adminAddRules},
		{Method: http.MethodDelete, Path: "/faults/{id}", Handle: s.adminRemoveRule},
		{Method: http.MethodGet, Path: "/clock", Handle: s.adminClock},
		{Method: http.MethodPut, Path: "/clock", Handle: s.adminSetClock},
		{Method: http.MethodPost, Path: "/clock/advance", Handle: s.adminAdvanceClock},
		{Method: http.MethodPost, Path: "/ratelimits/reset", Handle: s.adminResetRateLimits},
		{Method: http.MethodDelete, Path: "/records/{table}/{id}", Handle: s.adminDeleteRecord},
	}...)
}

// adminRoutes builds the control plane's router: one route per path, so
// that a wrong method is answered 405 with Allow, and every route behind the
// access check.
func (s *Server) adminRoutes() error {
	r := mux.NewRouter()
	r.UseEncodedPath()
	r.NotFoundHandler = s.adminGuard(false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		surface.WriteAdminError(w, http.StatusNotFound, AdminNotFound, fmt.Sprintf("no control-plane operation at %s; see %s/openapi.json", r.URL.Path, PrefixAdmin))
	}))
	byPath := map[string][]surface.AdminEndpoint{}
	var order []string
	for _, e := range s.adminEndpoints() {
		if _, ok := byPath[e.Path]; !ok {
			order = append(order, e.Path)
		}
		byPath[e.Path] = append(byPath[e.Path], e)
	}
	for _, path := range order {
		eps := byPath[path]
		handlers := map[string]http.Handler{}
		var allow []string
		for _, e := range eps {
			handlers[e.Method] = s.adminGuard(e.Open, checkQuery(e.Query, e.Handle))
			allow = append(allow, e.Method)
		}
		allowHeader := strings.Join(allow, ", ")
		notAllowed := s.adminGuard(false, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set(surface.HeaderAllow, allowHeader)
			surface.WriteAdminError(w, http.StatusMethodNotAllowed, AdminMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s%s; allowed: %s", req.Method, PrefixAdmin, path, allowHeader))
		}))
		r.Path(PrefixAdmin + path).HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if h, ok := handlers[req.Method]; ok {
				h.ServeHTTP(w, req)
				return
			}
			notAllowed.ServeHTTP(w, req)
		})
	}
	s.ctl.router = r
	return nil
}

// checkQuery answers 400 to a request with a query parameter the operation
// does not take, or takes once and gets more often.
func checkQuery(known []string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range r.URL.Query() {
			if !slices.Contains(known, k) {
				takes := "none"
				if len(known) > 0 {
					takes = strings.Join(known, ", ")
				}
				surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, fmt.Sprintf("unknown query parameter %q; this operation takes %s", k, takes))
				return
			}
			if len(v) > 1 {
				surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, fmt.Sprintf("query parameter %q may be given once only", k))
				return
			}
		}
		next(w, r)
	}
}

// adminGuard lets a request through to the control plane or answers it:
//
//   - with an admin token configured, every operation but the open ones
//     needs "Authorization: Bearer <token>" (401 otherwise);
//   - without one, only requests that arrive on a loopback address, name a
//     loopback host (no DNS rebinding) and do not come from a web page of
//     another origin (no cross-site request forgery) get through (403).
func (s *Server) adminGuard(open bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.ctl.token != "" {
			if !open && !s.adminTokenOK(r) {
				w.Header().Set(surface.HeaderWWWAuth, `Bearer realm="skolkit-admin"`)
				surface.WriteAdminError(w, http.StatusUnauthorized, AdminUnauthorized, "the control plane needs the admin token: send Authorization: Bearer <admin token> (the one given to --admin-token)")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if msg := localOnly(r); msg != "" {
			surface.WriteAdminError(w, http.StatusForbidden, AdminForbidden, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) adminTokenOK(r *http.Request) bool {
	scheme, tok, found := strings.Cut(r.Header.Get("Authorization"), " ")
	return found && strings.EqualFold(scheme, "Bearer") && secretsEqual(strings.TrimSpace(tok), s.ctl.token)
}

// localOnly returns why a request may not use a control plane that has no
// admin token, or "".
func localOnly(r *http.Request) string {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !isLoopbackAddr(addr) {
		return "the control plane has no admin token, so it answers only requests to a loopback address; start the server with --admin-token to use it from elsewhere"
	}
	if host := requestHost(r.Host); host != "" && !isLoopbackHost(host) {
		return fmt.Sprintf("the control plane has no admin token, so it answers only requests that name a loopback host (localhost, 127.0.0.1, [::1]), not %q", host)
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "the control plane does not answer requests from web pages of other sites"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return fmt.Sprintf("the control plane does not answer requests from web pages of other origins (Origin %s)", origin)
		}
	}
	return ""
}

// isLoopbackAddr reports whether a listener's address is a loopback
// address (or a Unix socket, which is local by nature).
func isLoopbackAddr(a net.Addr) bool {
	if a == nil {
		return false
	}
	if a.Network() == "unix" || a.Network() == "unixpacket" {
		return true
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		host = a.String()
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// IsLoopbackListenAddr reports whether a listener bound to addr (as
// net.Listener.Addr().String() gives it) is reachable only from this
// machine. An unspecified address (0.0.0.0, [::]) is not.
func IsLoopbackListenAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func requestHost(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopbackHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback()
}

// Summary is the answer of the operations that change the whole state.
type Summary struct {
	Scenario string         `json:"scenario"`
	Seed     int64          `json:"seed"`
	Clock    ClockState     `json:"clock"`
	Records  map[string]int `json:"records"`
	Faults   int            `json:"faults"`
	Latency  int            `json:"latency"`
}

// ClockState is the clock as the control plane shows it.
type ClockState struct {
	Now   time.Time `json:"now"`
	Fixed bool      `json:"fixed"`
}

func (s *Server) clockState() ClockState {
	return ClockState{Now: s.clock.Now(), Fixed: s.clock.Fixed()}
}

func (s *Server) summary(sc *scenarios.Scenario, records map[string]int) Summary {
	f, l := s.ctl.rules.counts()
	return Summary{Scenario: sc.Name, Seed: sc.Seed, Clock: s.clockState(), Records: records, Faults: f, Latency: l}
}

// restart puts the clock back to how NewClock made it for a scenario:
// standing at fixedAt, or following its base with no offset.
func (c *Clock) restart(fixedAt time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fixed, c.at, c.offset = !fixedAt.IsZero(), fixedAt, 0
}

// clockSnapshot is a clock's setting, to put back.
type clockSnapshot struct {
	fixed  bool
	at     time.Time
	offset time.Duration
}

func (c *Clock) snapshot() clockSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clockSnapshot{c.fixed, c.at, c.offset}
}

func (c *Clock) restore(s clockSnapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fixed, c.at, c.offset = s.fixed, s.at, s.offset
}

// startOf returns the instant a clock restarted for a scenario would show.
func (c *Clock) startOf(fixedAt time.Time) time.Time {
	if !fixedAt.IsZero() {
		return fixedAt
	}
	return c.base()
}

// setMode makes the clock stand still at t (fixed) or run on from t.
func (c *Clock) setMode(t time.Time, fixed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fixed = fixed
	if fixed {
		c.at = t
		return
	}
	c.offset = t.Sub(c.base())
}

// retain keeps the tokens for which keep holds and revokes the others.
func (t *tokenTable) retain(keep func(grant) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, g := range t.tokens {
		if !keep(g) {
			delete(t.tokens, k)
		}
	}
}

// switchTo builds a scenario's data and swaps it in with the scenario:
// clients, token lifetime, list shape, clock, rules; the journal and the
// rate-limit counters are cleared. Nothing changes when the data does not
// build or load. The caller holds ctl.swap.
func (s *Server) switchTo(sc *scenarios.Scenario) (Summary, error) {
	devs := map[string]bool{}
	for _, d := range sc.Behaviours.Deviations {
		if !deviation.Known(d) {
			return Summary{}, &scenarios.LoadError{File: sc.Name, Problems: []scenarios.Problem{{File: sc.Name, Path: "behaviours.deviations",
				Message: fmt.Sprintf("unknown deviation %q; known: %s", d, strings.Join(deviation.Names(), ", "))}}}
		}
		devs[d] = true
	}
	vars, err := checkVariants(sc.Behaviours.Variants)
	if err != nil {
		return Summary{}, &scenarios.LoadError{File: sc.Name, Problems: []scenarios.Problem{{File: sc.Name, Path: "behaviours.variants", Message: err.Error()}}}
	}
	ds, err := sc.Build(s.clock.startOf(sc.Clock.Now))
	if err != nil {
		return Summary{}, err
	}
	d := store.Dataset(*ds)
	directory.PrepareGenerated(&d)
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	// The clock goes first, so that records without timestamps are stamped
	// with the scenario's now.
	saved := s.clock.snapshot()
	s.clock.restart(sc.Clock.Now)
	if err := s.store.Load(&d); err != nil {
		s.clock.restore(saved)
		return Summary{}, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	if sc != s.scenario {
		old := s.clients
		s.useScenario(sc)
		// A new scenario brings its own deviations (Options.Deviations
		// apply to the start-up scenario, like the other start-up overrides).
		s.core.Deviations = devs
		s.variants = vars
		// A token survives while its client is still there with the same
		// secret and every scope of the token; it keeps its expiry.
		s.tokens.retain(func(g grant) bool {
			c, ok := s.clients[g.ClientID]
			if !ok || c.Secret != old[g.ClientID].Secret {
				return false
			}
			for _, scope := range g.Scopes {
				if !slices.Contains(c.Scopes, scope) {
					return false
				}
			}
			return true
		})
	}
	s.ctl.rules.load(sc)
	s.reg.ResetHooks(sc)
	s.ctl.journal.clear()
	s.limiter.reset()
	return s.summary(sc, countRecords(&d)), nil
}

// Reset puts the server back to its scenario's state: POST /__admin/reset.
func (s *Server) Reset() (Summary, error) {
	s.reg.BeginWrite()
	defer s.reg.EndWrite()
	s.ctl.swap.Lock()
	defer s.ctl.swap.Unlock()
	return s.switchTo(s.scenario)
}

// LoadScenario replaces the scenario: PUT /__admin/scenario.
func (s *Server) LoadScenario(sc *scenarios.Scenario) (Summary, error) {
	if sc == nil {
		return Summary{}, errors.New("no scenario")
	}
	s.reg.BeginWrite()
	defer s.reg.EndWrite()
	s.ctl.swap.Lock()
	defer s.ctl.swap.Unlock()
	cp := *sc
	cp.Clients = slices.Clone(sc.Clients)
	return s.switchTo(&cp)
}

func (s *Server) adminReset(w http.ResponseWriter, r *http.Request) {
	sum, err := s.Reset()
	if err != nil {
		s.writeLoadError(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, sum)
}

// writeLoadError answers a scenario or state that does not load.
func (s *Server) writeLoadError(w http.ResponseWriter, err error) {
	var le *scenarios.LoadError
	var re *store.RefError
	var se *StateError
	switch {
	case errors.As(err, &le):
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, fmt.Sprintf("the scenario does not load: %d problem(s)", len(le.Problems)), le.Problems...)
	case errors.As(err, &re), errors.As(err, &se):
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, err.Error())
	default:
		s.log.Error("admin", "error", err)
		surface.WriteAdminError(w, http.StatusInternalServerError, AdminInternal, err.Error())
	}
}

// Media types a scenario or rule set may be sent as.
var yamlOrJSON = []string{surface.ContentTypeJSON, "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}

// readAdminBody reads a body of one of the media types, at most limit bytes.
// It answers the request itself and returns false when it cannot.
func readAdminBody(w http.ResponseWriter, r *http.Request, types []string, limit int64) ([]byte, string, bool) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(types, mt) {
		surface.WriteAdminError(w, http.StatusUnsupportedMediaType, AdminUnsupportedMediaType, fmt.Sprintf("send the body as %s", strings.Join(types, " or ")))
		return nil, "", false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if isTooLarge(err) {
			surface.WriteAdminError(w, http.StatusRequestEntityTooLarge, AdminPayloadTooLarge, fmt.Sprintf("the body is larger than %d bytes", limit))
			return nil, "", false
		}
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, "the request body could not be read")
		return nil, "", false
	}
	return body, mt, true
}

// decodeAdminJSON decodes a small JSON body strictly into v.
func decodeAdminJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, _, ok := readAdminBody(w, r, []string{surface.ContentTypeJSON}, MaxAdminBodyBytes)
	if !ok {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, "the body is not the JSON object this operation takes: "+strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	if dec.More() {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, "unexpected data after the JSON object")
		return false
	}
	return true
}

func (s *Server) adminScenario(w http.ResponseWriter, r *http.Request) {
	body, _, ok := readAdminBody(w, r, yamlOrJSON, MaxAdminBodyBytes)
	if !ok {
		return
	}
	var sc *scenarios.Scenario
	var err error
	if name, isBuiltin := builtinRequest(body); isBuiltin {
		sc, err = scenarios.Builtin(name)
		var le *scenarios.LoadError
		if err != nil && !errors.As(err, &le) {
			surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, err.Error())
			return
		}
	} else {
		sc, err = scenarios.Parse("request body", body)
	}
	if err != nil {
		s.writeLoadError(w, err)
		return
	}
	sum, err := s.LoadScenario(sc)
	if err != nil {
		s.writeLoadError(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, sum)
}

// builtinRequest recognises {"builtin": "<name>"} (or "builtin: <name>" in
// YAML): a mapping with that one key (no scenario has a "builtin" key).
func builtinRequest(body []byte) (string, bool) {
	var m map[string]any
	if yaml.Unmarshal(body, &m) != nil || len(m) != 1 {
		return "", false
	}
	v, ok := m["builtin"]
	if !ok {
		return "", false
	}
	return fmt.Sprint(v), true
}

func (s *Server) adminGetState(w http.ResponseWriter, r *http.Request) {
	ds := s.store.Export()
	w.Header().Set("Content-Type", surface.ContentTypeJSON)
	w.WriteHeader(http.StatusOK)
	if err := encodeState(w, ds); err != nil {
		s.log.Error("admin: writing the state", "error", err)
	}
}

func (s *Server) adminPutState(w http.ResponseWriter, r *http.Request) {
	body, _, ok := readAdminBody(w, r, []string{surface.ContentTypeJSON}, MaxStateBytes)
	if !ok {
		return
	}
	ds, err := decodeState(body)
	if err != nil {
		s.writeLoadError(w, err)
		return
	}
	sum, err := s.ImportState(ds)
	if err != nil {
		s.writeLoadError(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, sum)
}

// ImportState replaces every record with the dataset's: PUT /__admin/state.
// Requests being served finish first, and no write is lost between the old
// data and the new. Nothing changes when a reference dangles.
func (s *Server) ImportState(ds *store.Dataset) (Summary, error) {
	s.reg.BeginWrite()
	defer s.reg.EndWrite()
	s.ctl.swap.Lock()
	defer s.ctl.swap.Unlock()
	s.ctl.mu.Lock()
	err := s.loadState(ds)
	s.ctl.mu.Unlock()
	if err != nil {
		return Summary{}, err
	}
	return s.summary(s.scenario, countRecords(ds)), nil
}

func (s *Server) adminSnapshot(w http.ResponseWriter, r *http.Request) {
	info, err := s.SaveState()
	switch {
	case errors.Is(err, ErrNoStateFile):
		surface.WriteAdminError(w, http.StatusConflict, AdminConflict, err.Error())
	case err != nil:
		s.log.Error("admin: snapshot", "error", err)
		surface.WriteAdminError(w, http.StatusInternalServerError, AdminInternal, err.Error())
	default:
		surface.WriteJSON(w, http.StatusOK, info)
	}
}

// JournalPage is the answer of GET /__admin/requests.
type JournalPage struct {
	Requests []JournalEntry `json:"requests"`
	Capacity int            `json:"capacity"`
	Dropped  uint64         `json:"dropped"`
}

func (s *Server) adminRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := RequestFilter{Method: q.Get("method"), PathPrefix: q.Get("pathPrefix"), Status: q.Get("status"), ClientID: q.Get("clientID")}
	if f.Status != "" {
		if err := parseStatusFilter(f.Status); err != nil {
			surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, err.Error())
			return
		}
	}
	entries, dropped := s.ctl.journal.list(f)
	surface.WriteJSON(w, http.StatusOK, JournalPage{Requests: entries, Capacity: s.ctl.journal.capacity(), Dropped: dropped})
}

func (s *Server) adminClearRequests(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, Cleared{Cleared: s.ctl.journal.clear()})
}

func (s *Server) adminRules(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, s.ctl.rules.list())
}

func (s *Server) adminAddRules(w http.ResponseWriter, r *http.Request) {
	body, _, ok := readAdminBody(w, r, yamlOrJSON, MaxAdminBodyBytes)
	if !ok {
		return
	}
	b, le := parseRules(body)
	if le != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, fmt.Sprintf("the rules do not load: %d problem(s)", len(le.Problems)), le.Problems...)
		return
	}
	surface.WriteJSON(w, http.StatusCreated, s.ctl.rules.add(b))
}

func (s *Server) adminRemoveRule(w http.ResponseWriter, r *http.Request) {
	id := surface.PathID(r)
	removed, ok := s.ctl.rules.remove(id)
	if !ok {
		surface.WriteAdminError(w, http.StatusNotFound, AdminNotFound, fmt.Sprintf("no fault or latency rule with id %q; GET %s/faults lists them", id, PrefixAdmin))
		return
	}
	surface.WriteJSON(w, http.StatusOK, removed)
}

func (s *Server) adminClock(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, s.clockState())
}

func (s *Server) adminSetClock(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Now   *string `json:"now"`
		Fixed *bool   `json:"fixed"`
	}
	if !decodeAdminJSON(w, r, &body) {
		return
	}
	if body.Now == nil {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, `"now" is required: an RFC 3339 date-time like 2026-11-16T07:00:00Z`)
		return
	}
	t, err := time.Parse(time.RFC3339Nano, *body.Now)
	if err != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, fmt.Sprintf("now: %q is not an RFC 3339 date-time like 2026-11-16T07:00:00Z", *body.Now))
		return
	}
	if body.Fixed != nil {
		s.clock.setMode(t, *body.Fixed)
	} else {
		s.clock.Set(t)
	}
	surface.WriteJSON(w, http.StatusOK, s.clockState())
}

func (s *Server) adminAdvanceClock(w http.ResponseWriter, r *http.Request) {
	var body struct {
		By *string `json:"by"`
	}
	if !decodeAdminJSON(w, r, &body) {
		return
	}
	if body.By == nil {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, `"by" is required: a Go duration like 90m or 36h`)
		return
	}
	d, err := time.ParseDuration(*body.By)
	if err != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, AdminBadRequest, fmt.Sprintf("by: %q is not a Go duration like 90m, 1h30m or 36h", *body.By))
		return
	}
	s.clock.Advance(d)
	surface.WriteJSON(w, http.StatusOK, s.clockState())
}

func (s *Server) adminResetRateLimits(w http.ResponseWriter, r *http.Request) {
	s.limiter.mu.Lock()
	n := len(s.limiter.buckets)
	s.limiter.mu.Unlock()
	s.limiter.reset()
	surface.WriteJSON(w, http.StatusOK, Cleared{Cleared: n})
}

// adminDeleteRecord is DELETE /__admin/records/{table}/{id}: it deletes one
// record of a store table (a name of GET /__admin/state), as the service's
// own administration would. A record that others still refer to is a 409;
// the deletion is written to the deletion log like any other (an
// interface-A AuditEvent when the record is of an audited kind; decision
// I10-5), with no API client as its author.
func (s *Server) adminDeleteRecord(w http.ResponseWriter, r *http.Request) {
	table := mux.Vars(r)["table"]
	if !store.Deletable(table) {
		surface.WriteAdminError(w, http.StatusNotFound, AdminNotFound, fmt.Sprintf("no table %q whose records can be deleted one by one; they are %s", table, strings.Join(store.DeletableTables, ", ")))
		return
	}
	id := surface.PathID(r)
	var ce *store.ConflictError
	switch err := s.store.Delete(table, id); {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, store.ErrNotFound):
		surface.WriteAdminError(w, http.StatusNotFound, AdminNotFound, fmt.Sprintf("no record %s in %s", id, table))
	case errors.As(err, &ce):
		surface.WriteAdminError(w, http.StatusConflict, AdminConflict, ce.Message)
	default:
		surface.WriteAdminError(w, http.StatusInternalServerError, AdminInternal, err.Error())
	}
}
