package store

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/model"
)

// The deletion log. Every Writer.Delete, of any table, through any surface,
// writes a model.Tombstone in the same transaction: the deleted record's id,
// its table, what it was (its kind), the server clock's time and the API
// client that deleted it (nil for the control plane). Tombstones are kept in
// TableTombstones, indexed by deletion time (IndexDeletedAt) and by kind and
// time (IndexKindDeletedAt); they go with the rest of the state on a reset
// or a scenario load, and travel with it in the state file.
//
// Readers ask for the tombstones since a time, of some kinds
// (Snapshot.Tombstones), or for one by its id (Snapshot.Tombstone).
// Interface A's audit events are the view of the six kinds it audits;
// SS 12000's deleted entities can be served from the same log.

// SetDeletionKinds sets the function that names what a deleted record was:
// one tombstone is written per name it returns; nil or no names mean the
// table's name. rec is the stored record (a pointer to a model type). Call
// it before the store is used.
func (s *Store) SetDeletionKinds(fn func(table string, rec any) []string) { s.kinds = fn }

// Tombstone records, in the writer's transaction, that the record with id
// in table went away as kind without (necessarily) being deleted from the
// store: for a record that leaves one view but stays in others. Delete calls
// it for every record it deletes.
func (w *Writer) Tombstone(table, id, kind string) error { return w.tombstone(table, id, kind, false) }

// tombstone writes a tombstone; hidden marks a record interface B never
// showed (Table.Hidden), whose deletion it does not list.
func (w *Writer) tombstone(table, id, kind string, hidden bool) error {
	t := model.Tombstone{ID: uuid.NewString(), Table: table, RecordID: id, Kind: kind, DeletedAt: w.now, DeletedBy: w.by, RegisterHidden: hidden}
	return w.t.insert(w.t.schema.table(TableTombstones), &t)
}

// Tombstones returns the tombstones whose deletion time is at or after since
// (the zero time: all), of the given kinds (none: every kind), in order of
// deletion time, then id. The walk starts at since in the time index, so its
// cost is the number of tombstones returned (per kind), not the size of the
// log.
func (sn *Snapshot) Tombstones(since time.Time, kinds ...string) []*model.Tombstone {
	var out []*model.Tombstone
	from := timeKey(since)
	if since.IsZero() {
		from = ""
	}
	collect := func(index, prefix string) {
		var start []byte
		if prefix+from != "" {
			start = []byte(prefix + from)
		}
		_ = sn.t.walk(sn.t.schema.table(TableTombstones), index, start, false, func(key []byte, rec any) bool {
			if !bytes.HasPrefix(key, []byte(prefix)) {
				return false
			}
			out = append(out, rec.(*model.Tombstone))
			return true
		})
	}
	if len(kinds) == 0 {
		collect(IndexDeletedAt, "")
		return out
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		if !seen[k] {
			seen[k] = true
			collect(IndexKindDeletedAt, k+keySep)
		}
	}
	if len(seen) > 1 {
		sortTombstones(out)
	}
	return out
}

// Tombstone returns the tombstone with the id.
func (sn *Snapshot) Tombstone(id string) (*model.Tombstone, bool) {
	return getAs[model.Tombstone](sn.t, TableTombstones, id)
}

func sortTombstones(ts []*model.Tombstone) {
	slices.SortFunc(ts, func(a, b *model.Tombstone) int {
		if c := a.DeletedAt.Compare(b.DeletedAt); c != 0 {
			return c
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

// ScanSince calls fn, until it returns false, with the records of a table
// whose value under a time index (one of timeKey values: IndexModified, the
// ...ByCreated indexes, IndexDeletedAt) is at or after since, in the index's
// order. Its cost is the number of records visited.
func (sn *Snapshot) ScanSince(table, index string, since time.Time, fn func(obj any) bool) error {
	td := sn.t.schema.table(table)
	if td == nil {
		return fmt.Errorf("store: no table %q", table)
	}
	return sn.t.walk(td, index, []byte(timeKey(since)), false, func(_ []byte, rec any) bool { return fn(rec) })
}
