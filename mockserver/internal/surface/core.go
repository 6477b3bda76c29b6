package surface

import (
	"log/slog"
	"net/http"
	"time"
	_ "time/tzdata" // Europe/Stockholm on machines without a zone database

	"github.com/skolkit/skolkit/mockserver/internal/store"
)

// Core is the state every surface of one Server serves from. The
// composition root (package mockserver) builds one per Server and hands it to
// each surface; a surface keeps the pointer, so a scenario load that replaces
// Deviations is seen by every surface at once.
type Core struct {
	// Store holds the data; the pointer never changes (a scenario load
	// copies into it).
	Store *store.Store
	// Now is the server's clock.
	Now func() time.Time
	// Log receives errors and debug lines; never nil.
	Log *slog.Logger
	// Deviations are the named deviations switched on. The root replaces the
	// map, under its scenario lock, when a scenario loads; requests read it
	// under the same lock.
	Deviations map[string]bool
	// ListShape is how interface-A lists nest their items (a scenario's
	// behaviour, replaced with Deviations).
	ListShape string
	// PageSize is the page size for a requested limit (0: none): the hook
	// point of the paging variants, which the root owns.
	PageSize func(limit int) int
	// ClientOf names the client a request comes from (as the journal does).
	ClientOf func(r *http.Request) string
}

// Deviates reports whether the named deviation is switched on.
func (c *Core) Deviates(name string) bool { return c.Deviations[name] }

// Stockholm is the time zone the service's days are in.
var Stockholm = func() *time.Location {
	if loc, err := time.LoadLocation("Europe/Stockholm"); err == nil {
		return loc
	}
	return time.FixedZone("CET", 3600)
}()
