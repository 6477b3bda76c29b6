package directory

import (
	"log/slog"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/store"
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
}

// New builds interface A and the export over the core; the contract gives
// the searchable fields of each resource.
func New(core *surface.Core, contract *openapi.Contract) *API {
	return &API{core: core, store: core.Store, now: core.Now, log: core.Log, contract: contract}
}

// deviates reports whether the named deviation is switched on.
func (s *API) deviates(name string) bool { return s.core.Deviates(name) }
