// Package store keeps the state of one mock server in go-memdb: one table per
// record kind, an index for every question the API asks, store-maintained
// meta timestamps, and snapshot-consistent placement queries with keyset
// cursors.
//
// The store owns data and queries only. It knows nothing of HTTP, tokens or
// rendering: references are stored with their id alone, and the HTTP layer
// fills displayName and securityMarking when it renders a record.
package store
