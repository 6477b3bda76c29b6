package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"
)

// Secondary indexes are kept as posting lists: for each index value (or, for
// a bucketed index, each bucket of values) one posting object holds the
// records with that value, in key order. The postings of an index are the
// records of a go-memdb table of their own ("table.index"), keyed by the
// value, so they share go-memdb's snapshots and transactions with the records
// they list.
//
// Why not go-memdb's own indexes: go-memdb keeps one radix-tree leaf per
// record per index, and every leaf costs two channels, a node and a key,
// ~400 bytes and several allocations. At ten index entries per placement that
// was ~5.8 KiB and ~100 µs per placement on load. A posting entry costs 32
// bytes and an append. See docs/performance.md.
//
// Keys are the same as go-memdb's would be: an index value, keySep, the
// record id, keySep. A posting's key is the index value and keySep (a plain
// index) or the first bytes of the value (a bucketed index); the rest of the
// value is kept per entry.

// posting lists the records of one index value or bucket, ordered by
// (sub, record id). It is immutable once its transaction commits: a write
// transaction copies a posting before it changes it (see tx.mutable).
type posting struct {
	key     string
	entries []entry
}

// entry is one record in a posting. Its full index key is the posting's key,
// then sub and keySep when sub is not empty, then the record's id and keySep.
type entry struct {
	sub string
	rec any
}

// postingTable is the name of the go-memdb table that holds an index's
// postings.
func postingTable(table, index string) string { return table + "." + index }

// postingKeyIndex is the go-memdb index of a postings table: the posting's
// key, byte for byte.
type postingKeyIndex struct{}

func (postingKeyIndex) FromObject(obj any) (bool, []byte, error) {
	return true, []byte(obj.(*posting).key), nil
}

// FromArgs takes a posting key (a string, used as it is) or a RawKey.
func (postingKeyIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) == 1 {
		if k, ok := args[0].(string); ok {
			return []byte(k), nil
		}
	}
	return fieldIndex{}.FromArgs(args...)
}

// split returns the posting key and the entry sub-key of an index value:
// for a plain index the value and keySep, and no sub-key; for a bucketed one
// the value's first bytes and the rest (both share v's memory).
func (ix *indexDef) split(v string) (key, sub string) {
	if k := ix.bucketKey(v); k != "" {
		return k, v[len(k):]
	}
	return v + keySep, ""
}

// bucketKey is the posting key of v in a bucketed index, or "" when v has
// a posting of its own.
func (ix *indexDef) bucketKey(v string) string {
	if ix.bucket > 0 {
		// the bucket is counted from the start of the value's last part
		n := strings.LastIndex(v, keySep) + 1 + ix.bucket
		if n < len(v) {
			return v[:n]
		}
	}
	return ""
}

// subSep is what follows an entry's sub-key in its full key: keySep, which
// ends the value, unless the posting key already holds the whole value.
func subSep(sub string) string {
	if sub == "" {
		return ""
	}
	return keySep
}

// search finds the position of (sub, id) in p's entries.
func (p *posting) search(td *tableDef, sub, id string) (int, bool) {
	return slices.BinarySearchFunc(p.entries, entry{}, func(e, _ entry) int {
		if c := strings.Compare(e.sub, sub); c != 0 {
			return c
		}
		return strings.Compare(td.id(e.rec), id)
	})
}

// hasPrefix reports whether k begins with prefix.
func hasPrefix(k []byte, prefix string) bool {
	return len(k) >= len(prefix) && string(k[:len(prefix)]) == prefix
}

// compareParts compares the concatenation of parts with k.
func compareParts(k []byte, parts ...string) int {
	for _, part := range parts {
		for i := 0; i < len(part); i++ {
			if len(k) == 0 {
				return 1
			}
			if part[i] != k[0] {
				if part[i] < k[0] {
					return -1
				}
				return 1
			}
			k = k[1:]
		}
	}
	if len(k) > 0 {
		return -1
	}
	return 0
}

// tx is a go-memdb transaction with the store's posting indexes. A write tx
// owns the postings it has copied and changes them in place until it
// commits.
type tx struct {
	txn   *memdb.Txn
	owned map[*posting]struct{}
}

func newTx(db *memdb.MemDB, write bool) *tx {
	t := &tx{txn: db.Txn(write)}
	if write {
		t.owned = map[*posting]struct{}{}
	}
	return t
}

// get returns the record of a table with the id, or nil.
func (t *tx) get(table, id string) any {
	p := t.pageFor(table, id)
	if p == nil {
		return nil
	}
	if i, found := p.search(tableDefs[table], "", id); found {
		return p.entries[i].rec
	}
	return nil
}

// insert stores obj, replacing the record with the same id, and updates the
// table's indexes.
func (t *tx) insert(td *tableDef, obj any) error {
	id := td.id(obj)
	if id == "" {
		return fmt.Errorf("%s: record without id", td.name)
	}
	old := t.putRecord(td, id, obj)
	var vals, oldVals []string
	for i := range td.indexes {
		ix := &td.indexes[i]
		vals = ix.values(obj, vals[:0])
		if old != nil {
			oldVals = ix.values(old, oldVals[:0])
			for _, v := range oldVals {
				if !slices.Contains(vals, v) {
					t.unpost(td, ix, v, id)
				}
			}
		}
		for _, v := range vals {
			t.post(td, ix, v, id, obj)
		}
	}
	return nil
}

// delete removes obj (a stored record) and its index entries.
func (t *tx) delete(td *tableDef, obj any) error {
	id := td.id(obj)
	if !t.dropRecord(td, id) {
		return ErrNotFound
	}
	var vals []string
	for i := range td.indexes {
		ix := &td.indexes[i]
		vals = ix.values(obj, vals[:0])
		for _, v := range vals {
			t.unpost(td, ix, v, id)
		}
	}
	return nil
}

// post puts (or replaces) the record's entry under value v.
func (t *tx) post(td *tableDef, ix *indexDef, v, id string, obj any) {
	key, sub := ix.split(v)
	p := t.mutable(postingTable(td.name, ix.name), key, true)
	i, found := p.search(td, sub, id)
	if found {
		p.entries[i].rec = obj
		return
	}
	p.entries = slices.Insert(p.entries, i, entry{sub: sub, rec: obj})
}

// unpost removes the record's entry under value v.
func (t *tx) unpost(td *tableDef, ix *indexDef, v, id string) {
	key, sub := ix.split(v)
	pt := postingTable(td.name, ix.name)
	p := t.mutable(pt, key, false)
	if p == nil {
		return
	}
	i, found := p.search(td, sub, id)
	if !found {
		return
	}
	p.entries = slices.Delete(p.entries, i, i+1)
	if len(p.entries) == 0 {
		delete(t.owned, p)
		_ = t.txn.Delete(pt, p)
	}
}

// mutable returns the posting with the key that this transaction may change
// in place: the one it already copied, or a fresh copy of the committed one,
// or (with create) a new empty one. It returns nil when there is none and
// create is false.
func (t *tx) mutable(table, key string, create bool) *posting {
	obj, _ := t.txn.First(table, IndexID, key)
	if p, ok := obj.(*posting); ok {
		return t.writable(table, p)
	}
	if !create {
		return nil
	}
	c := &posting{key: key}
	t.own(table, c)
	return c
}

// writable returns p itself when this transaction owns it, and otherwise a
// copy that replaces p in the transaction and that it owns.
func (t *tx) writable(table string, p *posting) *posting {
	if _, mine := t.owned[p]; mine {
		return p
	}
	c := &posting{key: p.key, entries: make([]entry, len(p.entries), len(p.entries)+1)}
	copy(c.entries, p.entries)
	t.own(table, c)
	return c
}

func (t *tx) own(table string, p *posting) {
	// A postings table's only index is the key, which cannot fail to index.
	_ = t.txn.Insert(table, p)
	t.owned[p] = struct{}{}
}

// walk visits the records of a table in the order of an index: ascending
// from the key from (inclusive; nil: from the first key), or with desc
// descending from it (inclusive; nil: from the last key). fn gets each
// record's full index key (valid only during the call) and the record, and
// stops the walk by returning false. A record with several values under the
// index is visited once per value.
func (t *tx) walk(td *tableDef, index string, from []byte, desc bool, fn func(key []byte, rec any) bool) error {
	l := postingLayout{td: td}
	table := td.name
	if index != IndexID {
		l.table = postingTable(td.name, index)
	} else {
		l.table, l.paged = td.name, true
	}
	table = l.table
	var it memdb.ResultIterator
	var err error
	var first *posting
	start := 0
	switch {
	case from == nil && !desc:
		it, err = t.txn.Get(table, IndexID)
	case from == nil:
		it, err = t.txn.GetReverse(table, IndexID)
	case !desc:
		// The posting that holds from itself has a key at or before it.
		var back memdb.ResultIterator
		if back, err = t.txn.ReverseLowerBound(table, IndexID, RawKey(from)); err != nil {
			return err
		}
		if p, ok := back.Next().(*posting); ok && l.mayHold(p, from) {
			first, start = p, l.seek(p, from)
		}
		it, err = t.txn.LowerBound(table, IndexID, RawKey(from))
	default:
		if it, err = t.txn.ReverseLowerBound(table, IndexID, RawKey(from)); err != nil {
			return err
		}
		if p, ok := it.Next().(*posting); ok {
			first, start = p, len(p.entries)-1
			if l.mayHold(p, from) {
				// the last entry at or before from
				start = l.seek(p, from)
				if start == len(p.entries) || l.compare(from, p, p.entries[start]) > 0 {
					start--
				}
			}
		}
	}
	if err != nil {
		return err
	}
	var buf []byte
	each := func(p *posting, i int) bool {
		step := 1
		if desc {
			step = -1
		}
		for ; i >= 0 && i < len(p.entries); i += step {
			buf = l.appendKey(buf[:0], p, p.entries[i])
			if !fn(buf, p.entries[i].rec) {
				return false
			}
		}
		return true
	}
	if first != nil && !each(first, start) {
		return nil
	}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		p := obj.(*posting)
		if p == first {
			continue
		}
		i := 0
		if desc {
			i = len(p.entries) - 1
		}
		if !each(p, i) {
			return nil
		}
	}
	return nil
}

// postingLayout says how the postings of one go-memdb table make up an
// index: a secondary index's postings (each entry's key is the posting's
// key, its sub-key and its id), or a table's record pages (each entry's key
// is its id; a page's key is a fence at or before its first id).
type postingLayout struct {
	td    *tableDef
	table string
	paged bool
}

func (l postingLayout) appendKey(buf []byte, p *posting, e entry) []byte {
	if !l.paged {
		buf = append(append(append(buf, p.key...), e.sub...), subSep(e.sub)...)
	}
	return append(append(buf, l.td.id(e.rec)...), keySep...)
}

// mayHold reports whether p, the last posting whose key is at or before k,
// can hold entries whose keys are at or after k.
func (l postingLayout) mayHold(p *posting, k []byte) bool { return l.paged || hasPrefix(k, p.key) }

// compare compares the key of e, an entry of p, with k.
func (l postingLayout) compare(k []byte, p *posting, e entry) int {
	if l.paged {
		return compareParts(k, l.td.id(e.rec), keySep)
	}
	return compareParts(k[len(p.key):], e.sub, subSep(e.sub), l.td.id(e.rec), keySep)
}

// seek returns the position of the first entry of p whose key is at least k.
func (l postingLayout) seek(p *posting, k []byte) int {
	i, _ := slices.BinarySearchFunc(p.entries, k, func(e entry, k []byte) int { return l.compare(k, p, e) })
	return i
}

// scan visits the records whose first index value is prefix ("" = every
// record the index holds), in index order.
func (t *tx) scan(td *tableDef, index, prefix string, fn func(rec any) bool) error {
	if prefix == "" {
		return t.walk(td, index, nil, false, func(_ []byte, rec any) bool { return fn(rec) })
	}
	pk := []byte(prefix + keySep)
	return t.walk(td, index, pk, false, func(key []byte, rec any) bool {
		return bytes.HasPrefix(key, pk) && fn(rec)
	})
}
