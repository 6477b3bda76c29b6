// Package store keeps the state of one mock server in go-memdb: one table
// per record kind, each declared once (Table, in tables.go: its id and meta,
// where a Dataset keeps its records, its indexes, each named after the
// question it answers, its references and what a deletion does to them,
// whether interface B shows a record), store-maintained meta timestamps, a
// deletion log, a write generation that every commit moves on, and
// snapshot-consistent queries with keyset cursors. Loading and exporting a
// Dataset, reference checks, deletions and their cascades are derived from
// the declarations; a schema may add tables to the built-in ones
// (NewSchema).
//
// The store owns data and queries only. It knows nothing of HTTP, tokens or
// rendering: references are stored with their id alone, and the HTTP layer
// fills displayName and securityMarking when it renders a record.
package store
