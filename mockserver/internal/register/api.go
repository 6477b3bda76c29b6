package register

import (
	"crypto/rand"
	"log/slog"
	"slices"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/scenarios"
)

// PrefixB is the path prefix of interface B.
const PrefixB = "/api/v1"

// MaxLookupIDs is the most ids one POST /groups/lookup may ask for.
const MaxLookupIDs = 500

// Options configure an API.
type Options struct {
	// Scenario declares the subscriptions, delivery faults and reports the
	// API starts with (ResetHooks).
	Scenario *scenarios.Scenario
	// SelfCheck makes every read check the placement memo and the response
	// cache against rendering anew, and panic when they differ by a byte
	// (mockserver.Options.SelfCheck).
	SelfCheck bool
	// Webhooks configure the callbacks of subscriptions.
	Webhooks WebhookOptions
	// Resources are resources served beside the SS 12000 resources
	// (builtinResources), over tables of the store's schema. New takes them
	// over.
	Resources []*Resource
}

// API serves interface B from a surface.Core. Create it with New.
type API struct {
	core  *surface.Core
	store *store.Store
	now   func() time.Time
	log   *slog.Logger
	// pageKey signs pageTokens (pagetoken.go).
	pageKey []byte
	// memo keeps the JSON of rendered placements, responses whole
	// interface-B answers of a stable generation of the store (rendermemo.go,
	// views.go). Their zero values are ready.
	memo      placementMemo
	responses responseCache
	// selfChecking is Options.SelfCheck (see selfCheck).
	selfChecking bool
	// hooks: subscriptions, callbacks, log and statistics (subscriptions.go).
	hooks *hooks
	// kinds are the resources served (kinds.go).
	kinds *kinds
}

// New builds interface B over the core: a fresh pageToken key, the
// subscription hub with the scenario's subscriptions, connected to the
// store's commits.
func New(core *surface.Core, opts Options) (*API, error) {
	s := &API{
		core:         core,
		store:        core.Store,
		now:          core.Now,
		log:          core.Log,
		pageKey:      make([]byte, 32),
		selfChecking: opts.SelfCheck,
	}
	if _, err := rand.Read(s.pageKey); err != nil {
		return nil, err
	}
	var err error
	if s.kinds, err = newKinds(core.Store.Schema(), append(builtinResources(), opts.Resources...)); err != nil {
		return nil, err
	}
	s.initHooks(opts)
	return s, nil
}

// deviates reports whether the named deviation is switched on.
func (s *API) deviates(name string) bool { return s.core.Deviates(name) }

// Endpoints are interface B's operations: the resources' and those of
// subscriptions and reports.
func (s *API) Endpoints() []surface.Endpoint {
	return append(s.registerEndpoints(), s.hookEndpoints()...)
}

// Scopes are the scopes of interface B's operations, each once, in the
// order of the operations.
func (s *API) Scopes() []string {
	var out []string
	for _, e := range s.Endpoints() {
		if e.Scope != "" && !slices.Contains(out, e.Scope) {
			out = append(out, e.Scope)
		}
	}
	return out
}
