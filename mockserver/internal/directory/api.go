package directory

import (
	"log/slog"
	"slices"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
)

// API serves interface A and the data export from a surface.Core. Create it
// with New.
type API struct {
	core     *surface.Core
	store    *store.Store
	now      func() time.Time
	log      *slog.Logger
	contract *openapi.Contract
	// resources are interface A's resources (directoryResources).
	resources []*dirResource
}

// New builds interface A and the export over the core; the contract gives
// the searchable fields of each resource. It names, for the store's
// deletion log, what a deleted record was in interface A's terms
// (deletionKinds).
func New(core *surface.Core, contract *openapi.Contract) *API {
	s := &API{core: core, store: core.Store, now: core.Now, log: core.Log, contract: contract}
	s.resources = s.directoryResources()
	s.store.SetDeletionKinds(s.deletionKinds)
	return s
}

// deletionKinds names what a deleted record was, for the deletion log: the
// logged resources that show it (a person once per role, a group, a
// placement with an interface-A view, ...), else nothing (the table's name).
func (s *API) deletionKinds(table string, rec any) []string {
	var out []string
	for _, res := range s.resources {
		if res.logged && res.shows(table, rec) {
			out = append(out, res.schema)
		}
	}
	return out
}

// Scopes are the scopes of interface A and the export: a read and a write
// scope per resource ("<scope>:read", "<scope>:write"), and export:read.
func (s *API) Scopes() []string {
	var out []string
	for _, res := range s.resources {
		for _, sc := range []string{res.scope + ":read", res.scope + ":write"} {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	return append(out, ScopeExportRead)
}

// auditedKinds are the kinds of deletion interface A shows as audit events.
func (s *API) auditedKinds() []string {
	var out []string
	for _, res := range s.resources {
		if res.audited {
			out = append(out, res.schema)
		}
	}
	return out
}

// deviates reports whether the named deviation is switched on.
func (s *API) deviates(name string) bool { return s.core.Deviates(name) }
