package admin

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/scenarios"
)

// Options configure a Plane.
type Options struct {
	// JournalSize is how many requests the journal keeps: 0 means
	// DefaultJournalSize, a negative number keeps none.
	JournalSize int
	// Token, when set, is required as "Authorization: Bearer <token>";
	// without it the plane answers only requests to a loopback address.
	Token string
	// Scenario declares the fault and latency rules the plane starts with.
	Scenario *scenarios.Scenario
}

// Plane is the control plane's own machinery: its router behind the access
// guard, the request journal and the fault and latency rules. The
// operations that act on the whole server (reset, scenario, state, clock,
// rate limits, records) and those of other surfaces (subscriptions' deliveries,
// reports) are handed to it as endpoints. Create it with New.
type Plane struct {
	log      *slog.Logger
	now      func() time.Time
	clientOf func(r *http.Request) string
	token    string
	journal  *journal
	rules    ruleSet
	router   http.Handler
	// ops are every operation the router serves.
	ops []surface.AdminEndpoint
}

// New builds the control plane over the core, serving its own operations
// (the journal's and the rules') and ops, each under PrefixAdmin.
func New(core *surface.Core, opts Options, ops []surface.AdminEndpoint) (*Plane, error) {
	size := opts.JournalSize
	if size == 0 {
		size = DefaultJournalSize
	}
	s := &Plane{log: core.Log, now: core.Now, clientOf: core.ClientOf, journal: newJournal(size), token: strings.TrimSpace(opts.Token)}
	s.rules.load(opts.Scenario)
	own := []surface.AdminEndpoint{
		{Method: http.MethodGet, Path: "/requests", Query: []string{"method", "pathPrefix", "status", "clientID"}, Handle: s.adminRequests},
		{Method: http.MethodDelete, Path: "/requests", Handle: s.adminClearRequests},
		{Method: http.MethodGet, Path: "/faults", Handle: s.adminRules},
		{Method: http.MethodPost, Path: "/faults", Handle: s.adminAddRules},
		{Method: http.MethodDelete, Path: "/faults/{id}", Handle: s.adminRemoveRule},
	}
	s.ops = slices.Concat(ops, own)
	if err := s.route(s.ops); err != nil {
		return nil, err
	}
	return s, nil
}

// Endpoints are every operation the plane serves, its own and those handed
// to New.
func (s *Plane) Endpoints() []surface.AdminEndpoint { return s.ops }

// LoadRules replaces the rules with the scenario's (reset, scenario load).
func (s *Plane) LoadRules(sc *scenarios.Scenario) { s.rules.load(sc) }

// RuleCounts counts the fault and the latency rules.
func (s *Plane) RuleCounts() (faults, latency int) { return s.rules.counts() }

// ClearJournal empties the journal and returns how many entries it held.
func (s *Plane) ClearJournal() int { return s.journal.clear() }
