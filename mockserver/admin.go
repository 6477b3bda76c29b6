package mockserver

import (
	"errors"
	"fmt"
	"github.com/skolkit/skolkit/fixtures"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/admin"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

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

	stateFile string
}

// initControl sets up the control plane from the options.
func (s *Server) initControl(opts Options) error {
	s.ctl.stateFile = opts.StateFile
	var err error
	s.plane, err = admin.New(s.core, admin.Options{JournalSize: opts.JournalSize, Token: opts.AdminToken, Scenario: s.scenario}, s.adminEndpoints())
	return err
}

// useScenario takes the clients, token lifetime and list shape of a
// scenario. The caller holds ctl.mu for writing (or owns the server).
func (s *Server) useScenario(sc *scenarios.Scenario) {
	s.scenario = sc
	s.clients = map[string]client{}
	s.first = client{}
	for i, c := range sc.Clients {
		scopes := s.expandScopes(c.Scopes)
		cl := client{ID: c.ID, Secret: c.Secret, Scopes: scopes, RateLimit: c.Quota()}
		s.clients[c.ID] = cl
		if i == 0 {
			s.first = cl
		}
	}
	s.tokenTTL = time.Duration(sc.Lifetime()) * time.Second
	s.core.ListShape = directory.ListShapeData
	if sc.ListShape == scenarios.ListShapeResultArray {
		s.core.ListShape = directory.ListShapeResultArray
	}
}

func (s *Server) adminEndpoints() []surface.AdminEndpoint {
	return append(s.reg.AdminEndpoints(), []surface.AdminEndpoint{
		{Method: http.MethodGet, Path: "/openapi.json", Open: true, Handle: s.serveDoc(openapi.NameAdmin)},
		{Method: http.MethodPost, Path: "/reset", Handle: s.adminReset},
		{Method: http.MethodPut, Path: "/scenario", Handle: s.adminScenario},
		{Method: http.MethodGet, Path: "/state", Handle: s.adminGetState},
		{Method: http.MethodPut, Path: "/state", Handle: s.adminPutState},
		{Method: http.MethodPost, Path: "/snapshot", Handle: s.adminSnapshot},
		{Method: http.MethodGet, Path: "/clock", Handle: s.adminClock},
		{Method: http.MethodPut, Path: "/clock", Handle: s.adminSetClock},
		{Method: http.MethodPost, Path: "/clock/advance", Handle: s.adminAdvanceClock},
		{Method: http.MethodPost, Path: "/ratelimits/reset", Handle: s.adminResetRateLimits},
		{Method: http.MethodDelete, Path: "/records/{table}/{id}", Handle: s.adminDeleteRecord},
	}...)
}

// Summary is the answer of the operations that change the whole state.
type Summary struct {
	Scenario string `json:"scenario"`
	// Profile is the profile interface B serves (profile.go).
	Profile string         `json:"profile"`
	Seed    int64          `json:"seed"`
	Clock   ClockState     `json:"clock"`
	Records map[string]int `json:"records"`
	Faults  int            `json:"faults"`
	Latency int            `json:"latency"`
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
	f, l := s.plane.RuleCounts()
	return Summary{Scenario: sc.Name, Profile: s.profile, Seed: sc.Seed, Clock: s.clockState(), Records: records, Faults: f, Latency: l}
}

// restart puts the clock back to how newClock made it for a scenario:
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
	if sc != s.scenario {
		// A scenario no client can log in to would lock every client out.
		if err := sc.CheckLogin(); err != nil {
			return Summary{}, err
		}
	}
	profile, err := s.profileOf(sc)
	if err != nil {
		return Summary{}, &scenarios.LoadError{File: sc.Name, Problems: []scenarios.Problem{{File: sc.Name, Path: "profile", Message: err.Error()}}}
	}
	ds, err := sc.Build(s.clock.startOf(sc.Clock.Now))
	if err != nil {
		return Summary{}, err
	}
	d := store.Dataset(*ds)
	prepareDirectory(sc, &d, s.clock.startOf(sc.Clock.Now))
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
		s.profile = profile
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
	s.plane.LoadRules(sc)
	s.reg.ResetHooks(sc)
	s.plane.ClearJournal()
	s.limiter.reset()
	return s.summary(sc, s.state().count(&d)), nil
}

// Reset puts the server back to its scenario's state: POST /__admin/reset.
func (s *Server) Reset() (Summary, error) {
	s.ctl.swap.Lock()
	defer s.ctl.swap.Unlock()
	return s.switchTo(s.scenario)
}

// LoadScenario replaces the scenario: PUT /__admin/scenario.
func (s *Server) LoadScenario(sc *scenarios.Scenario) (Summary, error) {
	if sc == nil {
		return Summary{}, errors.New("no scenario")
	}
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
	var rule *store.RuleError
	var rec *store.RecordError
	switch {
	case errors.As(err, &le):
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("the scenario does not load: %d problem(s)", len(le.Problems)), le.Problems...)
	case errors.As(err, &re), errors.As(err, &se), errors.As(err, &rule), errors.As(err, &rec):
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, err.Error())
	default:
		s.log.Error("admin", "error", err)
		surface.WriteAdminError(w, http.StatusInternalServerError, surface.AdminInternal, err.Error())
	}
}

func (s *Server) adminScenario(w http.ResponseWriter, r *http.Request) {
	body, _, ok := admin.ReadBody(w, r, admin.YAMLOrJSON, admin.MaxAdminBodyBytes)
	if !ok {
		return
	}
	var sc *scenarios.Scenario
	var err error
	if name, isBuiltin := builtinRequest(body); isBuiltin {
		sc, err = scenarios.Builtin(name)
		var le *scenarios.LoadError
		if err != nil && !errors.As(err, &le) {
			surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, err.Error())
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
	if err := s.state().encode(w, ds); err != nil {
		s.log.Error("admin: writing the state", "error", err)
	}
}

func (s *Server) adminPutState(w http.ResponseWriter, r *http.Request) {
	body, _, ok := admin.ReadBody(w, r, []string{surface.ContentTypeJSON}, maxStateBytes)
	if !ok {
		return
	}
	ds, err := s.state().decode(body)
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
func (s *Server) ImportState(ds *fixtures.Dataset) (Summary, error) {
	s.ctl.swap.Lock()
	defer s.ctl.swap.Unlock()
	s.ctl.mu.Lock()
	err := s.loadState(ds)
	s.ctl.mu.Unlock()
	if err != nil {
		return Summary{}, err
	}
	return s.summary(s.scenario, s.state().count(ds)), nil
}

func (s *Server) adminSnapshot(w http.ResponseWriter, r *http.Request) {
	info, err := s.SaveState()
	switch {
	case errors.Is(err, ErrNoStateFile):
		surface.WriteAdminError(w, http.StatusConflict, surface.AdminConflict, err.Error())
	case err != nil:
		s.log.Error("admin: snapshot", "error", err)
		surface.WriteAdminError(w, http.StatusInternalServerError, surface.AdminInternal, err.Error())
	default:
		surface.WriteJSON(w, http.StatusOK, info)
	}
}

func (s *Server) adminClock(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, s.clockState())
}

func (s *Server) adminSetClock(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Now   *string `json:"now"`
		Fixed *bool   `json:"fixed"`
	}
	if !admin.DecodeJSON(w, r, &body) {
		return
	}
	if body.Now == nil {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, `"now" is required: an RFC 3339 date-time like 2026-11-16T07:00:00Z`)
		return
	}
	t, err := time.Parse(time.RFC3339Nano, *body.Now)
	if err != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("now: %q is not an RFC 3339 date-time like 2026-11-16T07:00:00Z", *body.Now))
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
	if !admin.DecodeJSON(w, r, &body) {
		return
	}
	if body.By == nil {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, `"by" is required: a Go duration like 90m or 36h`)
		return
	}
	d, err := time.ParseDuration(*body.By)
	if err != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("by: %q is not a Go duration like 90m, 1h30m or 36h", *body.By))
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
	surface.WriteJSON(w, http.StatusOK, surface.Cleared{Cleared: n})
}

// adminDeleteRecord is DELETE /__admin/records/{table}/{id}: it deletes one
// record of a store table (a name of GET /__admin/state), as the service's
// own administration would. A record that others still refer to is a 409;
// the deletion is written to the deletion log like any other (an
// interface-A AuditEvent when the record is of an audited kind:
// docs/decisions.md#deletion-log), with no API client as its author.
func (s *Server) adminDeleteRecord(w http.ResponseWriter, r *http.Request) {
	table := r.PathValue("table")
	if deletable := s.store.Schema().Deletable(); !slices.Contains(deletable, table) {
		surface.WriteAdminError(w, http.StatusNotFound, surface.AdminNotFound, fmt.Sprintf("no table %q whose records can be deleted one by one; they are %s", table, strings.Join(deletable, ", ")))
		return
	}
	id := surface.PathID(r)
	var ce *store.ConflictError
	switch err := s.store.Delete(table, id); {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, store.ErrNotFound):
		surface.WriteAdminError(w, http.StatusNotFound, surface.AdminNotFound, fmt.Sprintf("no record %s in %s", id, table))
	case errors.As(err, &ce):
		surface.WriteAdminError(w, http.StatusConflict, surface.AdminConflict, ce.Message)
	default:
		surface.WriteAdminError(w, http.StatusInternalServerError, surface.AdminInternal, err.Error())
	}
}
