package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/rules"
)

// TestCoverageTableHolds runs the whole suite (write level, every surface,
// the limited client) against the mock and holds the coverage table of
// docs/conformance.md to what the run reached: every operation the table
// says the runner sends was sent, and every operation sent is in the table
// as sent.
func TestCoverageTableHolds(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.New(mockserver.Options{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id, secret := srv.Credentials()
	lid, lsecret, ok := srv.ReadOnlyClient()
	require.True(t, ok, "the default scenario has a read-only client")
	contract, err := rules.LoadContract(rules.ProfileService)
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[string]bool{}
	cfg := conformance.Config{
		AuthURL: hs.URL, RegisterURL: hs.URL + "/api/v1", BaseURL: hs.URL + "/directory/v1", ExportURL: hs.URL + "/data-export/v1",
		ClientID: id, ClientSecret: secret, LimitedClientID: lid, LimitedClientSecret: lsecret,
		Level: conformance.LevelWrite, Timeout: 30 * time.Second, IDs: idsOf(srv),
		Observe: func(ex *rules.Exchange) {
			// The limited client's writes (403) reach every write once,
			// for the 403 alone: they are not what the table counts.
			if op, _ := contract.Match(ex.Surface, ex.Method, ex.Path); op != nil && ex.Status != 403 {
				mu.Lock()
				seen[op.ID()] = true
				mu.Unlock()
			}
		},
	}
	_, err = conformance.Run(context.Background(), cfg)
	require.NoError(t, err)
	rows, err := conformance.CoverageTable(conformance.ProfileService)
	require.NoError(t, err)
	for _, r := range rows {
		op := r.Operation.ID()
		if r.Reached != "" {
			assert.True(t, seen[op], "the table says %s is sent (by %s), but the run did not send it", op, r.Reached)
		} else {
			assert.False(t, seen[op], "%s was sent, but the table says it is not (add it to conformance.ReachedByChecks)", op)
		}
	}
}

// idsOf is recordIDs as a Config's IDs.
func idsOf(srv *mockserver.Server) map[string][]string {
	args := recordIDs(srv)
	ids := map[string][]string{}
	for i := 0; i+1 < len(args); i += 2 {
		kind, id, _ := strings.Cut(args[i+1], "=")
		ids[kind] = append(ids[kind], id)
	}
	return ids
}
