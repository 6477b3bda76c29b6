package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"
)

// Every table and every secondary index is a run of entries in key order,
// cut into pages. A page is one go-memdb object, keyed by a fence: a key at
// or before its first entry's and after every key of the pages before it. A
// lookup finds the page with the greatest fence at or before the key it
// looks for and searches it. Pages split when they grow past maxPage, so no
// distribution of keys makes one large.
//
// Keys are the ones go-memdb's own indexes would build: a record's id and
// keySep in its table, and the index value, keySep, the id and keySep in a
// secondary index.
//
// Why not go-memdb's own indexes: go-memdb keeps one radix-tree leaf per
// record per index, and every leaf costs two channels, a node and a key —
// ~400 bytes and about nine allocations. At eleven entries per placement
// that was ~5.8 KiB of heap and ~100 µs of load per placement. A page entry
// costs 32 bytes and an append, and go-memdb still holds all state, so its
// transactions, snapshots and copy-on-write are what the store relies on. A
// committed page is never changed: a write transaction copies a page once
// and then changes its copy in place until it commits. See
// docs/performance.md and docs/decisions.md.
//
// A load puts 256 entries in each page, half of the 512 past which a page
// splits in two, so that the first inserts after a load do not split pages
// at once (Store.loadPage and Store.maxPage; WithPageSizes).

// page is a run of entries of one table or index, in key order.
type page struct {
	fence   string
	entries []entry
}

// entry is one record in a page: its value under the index ("" in the
// table's own pages) and the record.
type entry struct {
	val string
	rec any
}

// pageTable is the name of the go-memdb table that holds an index's pages.
func pageTable(table, index string) string { return table + "." + index }

// fenceIndex is the go-memdb index of a pages table: the page's fence.
type fenceIndex struct{}

func (fenceIndex) FromObject(obj any) (bool, []byte, error) {
	return true, []byte(obj.(*page).fence), nil
}

// FromArgs takes a key: a string or a RawKey, used as it is.
func (fenceIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("a fence lookup takes one key, got %d arguments", len(args))
	}
	switch k := args[0].(type) {
	case string:
		return []byte(k), nil
	case RawKey:
		return k, nil
	default:
		return nil, fmt.Errorf("a fence lookup takes a string or RawKey, got %T", args[0])
	}
}

// layout says how the entries of one pages table make their keys.
type layout struct {
	td    *tableDef
	table string // the go-memdb table of the pages
	ix    bool   // a secondary index (value, id) rather than the table (id)
}

func (td *tableDef) layout(index string) layout {
	if index == IndexID {
		return layout{td: td, table: td.name}
	}
	return layout{td: td, table: pageTable(td.name, index), ix: true}
}

// appendKey appends the key of a record with value val and id id.
func (l layout) appendKey(buf []byte, val, id string) []byte {
	if l.ix {
		buf = append(append(buf, val...), keySep...)
	}
	return append(append(buf, id...), keySep...)
}

// compare compares the key of e with the key of (val, id).
func (l layout) compare(e entry, val, id string) int {
	if !l.ix {
		return compareConcat(&[4]string{l.td.id(e.rec), keySep}, &[4]string{id, keySep})
	}
	return compareConcat(&[4]string{e.val, keySep, l.td.id(e.rec), keySep}, &[4]string{val, keySep, id, keySep})
}

// compareKey compares the key of e with k.
func (l layout) compareKey(e entry, k []byte) int {
	if !l.ix {
		return compareParts(k, l.td.id(e.rec), keySep)
	}
	return compareParts(k, e.val, keySep, l.td.id(e.rec), keySep)
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

// compareConcat compares the concatenations of a's parts and b's parts,
// byte by byte, without building them.
func compareConcat(a, b *[4]string) int {
	// Skip the equal leading parts, and settle most cases with one
	// comparison of the first parts that differ.
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(a) {
		return 0
	}
	n := min(len(a[i]), len(b[i]))
	if c := strings.Compare(a[i][:n], b[i][:n]); c != 0 {
		return c
	}
	// One part is a prefix of the other: go on byte by byte.
	ai, aj, bi, bj := i, n, i, n
	for {
		for ai < len(a) && aj == len(a[ai]) {
			ai, aj = ai+1, 0
		}
		for bi < len(b) && bj == len(b[bi]) {
			bi, bj = bi+1, 0
		}
		switch {
		case ai == len(a) && bi == len(b):
			return 0
		case ai == len(a):
			return -1
		case bi == len(b):
			return 1
		}
		if ca, cb := a[ai][aj], b[bi][bj]; ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		aj, bj = aj+1, bj+1
	}
}

// search finds the position of (val, id) in p.
func (l layout) search(p *page, val, id string) (int, bool) {
	return slices.BinarySearchFunc(p.entries, entry{}, func(e, _ entry) int { return l.compare(e, val, id) })
}

// seek returns the position of the first entry of p whose key is at least k.
func (l layout) seek(p *page, k []byte) int {
	i, _ := slices.BinarySearchFunc(p.entries, k, l.compareKey)
	return i
}

// tx is a go-memdb transaction over the store's pages. A write tx owns the
// pages it has copied and changes them in place until it commits.
type tx struct {
	txn    *memdb.Txn
	schema *Schema
	// maxPage is the size past which a page splits.
	maxPage int
	owned   map[*page]struct{}
	// ownedRel are the relation lists the transaction has copied
	// (relations.go).
	ownedRel map[*relationList]struct{}
}

func (s *Store) newTx(write bool) *tx {
	t := &tx{txn: s.db().Txn(write), schema: s.schema, maxPage: s.maxPage}
	if write {
		t.owned = map[*page]struct{}{}
	}
	return t
}

// pageFor returns the page of a pages table that holds the key or would
// take it: the page with the greatest fence at or before the key, or else
// the first page. It returns nil when the table has no pages.
func (t *tx) pageFor(table string, key []byte) *page {
	if it, err := t.txn.ReverseLowerBound(table, IndexID, RawKey(key)); err == nil {
		if p, ok := it.Next().(*page); ok {
			return p
		}
	}
	if it, err := t.txn.Get(table, IndexID); err == nil {
		if p, ok := it.Next().(*page); ok {
			return p
		}
	}
	return nil
}

// get returns the record of a table with the id, or nil.
func (t *tx) get(table, id string) any {
	td := t.schema.table(table)
	if td == nil {
		return nil
	}
	l := td.layout(IndexID)
	p := t.pageFor(l.table, l.appendKey(nil, "", id))
	if p == nil {
		return nil
	}
	if i, found := l.search(p, "", id); found {
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
	follow := td.decl.followHolders(t, id, obj)
	old := t.put(td.layout(IndexID), "", id, obj)
	var vals, oldVals []string
	for i := range td.indexes {
		ix := &td.indexes[i]
		l := td.layout(ix.name)
		vals = ix.values(obj, vals[:0])
		if old != nil {
			oldVals = ix.values(old, oldVals[:0])
			for _, v := range oldVals {
				if !slices.Contains(vals, v) {
					t.drop(l, v, id)
				}
			}
		}
		for _, v := range vals {
			t.put(l, v, id, obj)
		}
	}
	if follow != nil {
		follow()
	}
	return nil
}

// delete removes the record with the id and its index entries; ErrNotFound
// if there is none.
func (t *tx) delete(td *tableDef, id string) error {
	follow := td.decl.followHolders(t, id, nil)
	obj := t.drop(td.layout(IndexID), "", id)
	if obj == nil {
		return ErrNotFound
	}
	var vals []string
	for i := range td.indexes {
		ix := &td.indexes[i]
		l := td.layout(ix.name)
		vals = ix.values(obj, vals[:0])
		for _, v := range vals {
			t.drop(l, v, id)
		}
	}
	if follow != nil {
		follow()
	}
	return nil
}

// put stores the entry (val, id) → obj, and returns the record it replaced,
// if any.
func (t *tx) put(l layout, val, id string, obj any) (old any) {
	key := l.appendKey(nil, val, id)
	p := t.pageFor(l.table, key)
	if p == nil {
		t.own(l.table, &page{fence: string(key), entries: []entry{{val: val, rec: obj}}})
		return nil
	}
	p = t.writable(l.table, p)
	i, found := l.search(p, val, id)
	if found {
		old, p.entries[i].rec = p.entries[i].rec, obj
		return old
	}
	p.entries = slices.Insert(p.entries, i, entry{val: val, rec: obj})
	if i == 0 && string(key) < p.fence {
		// a new first key: the first page's fence moves back to it
		_ = t.txn.Delete(l.table, p)
		p.fence = string(key)
		_ = t.txn.Insert(l.table, p)
	}
	if len(p.entries) > t.maxPage {
		half := len(p.entries) / 2
		e := p.entries[half]
		q := &page{fence: string(l.appendKey(nil, e.val, l.td.id(e.rec))), entries: slices.Clone(p.entries[half:])}
		clear(p.entries[half:])
		p.entries = p.entries[:half]
		t.own(l.table, q)
	}
	return nil
}

// drop removes the entry (val, id) and returns its record, or nil when there
// is none.
func (t *tx) drop(l layout, val, id string) any {
	p := t.pageFor(l.table, l.appendKey(nil, val, id))
	if p == nil {
		return nil
	}
	i, found := l.search(p, val, id)
	if !found {
		return nil
	}
	obj := p.entries[i].rec
	p = t.writable(l.table, p)
	p.entries = slices.Delete(p.entries, i, i+1)
	if len(p.entries) == 0 {
		delete(t.owned, p)
		_ = t.txn.Delete(l.table, p)
	}
	return obj
}

// writable returns p itself when this transaction owns it, and otherwise a
// copy that replaces p in the transaction and that it owns.
func (t *tx) writable(table string, p *page) *page {
	if _, mine := t.owned[p]; mine {
		return p
	}
	c := &page{fence: p.fence, entries: make([]entry, len(p.entries), len(p.entries)+1)}
	copy(c.entries, p.entries)
	t.own(table, c)
	return c
}

func (t *tx) own(table string, p *page) {
	// A pages table's only index is the fence, which cannot fail to index.
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
	l := td.layout(index)
	var it memdb.ResultIterator
	var err error
	var first *page
	start := 0
	switch {
	case from == nil && !desc:
		it, err = t.txn.Get(l.table, IndexID)
	case from == nil:
		it, err = t.txn.GetReverse(l.table, IndexID)
	case !desc:
		// The page that holds from itself has a fence at or before it.
		if first = t.pageFor(l.table, from); first != nil {
			start = l.seek(first, from)
		}
		// A read looks up the pages after it only when the walk gets
		// past it (most pages end inside their first page); a write
		// transaction's walk takes the pages as they are when it starts.
		if t.owned != nil || first == nil {
			it, err = t.txn.LowerBound(l.table, IndexID, RawKey(from))
		}
	default:
		if it, err = t.txn.ReverseLowerBound(l.table, IndexID, RawKey(from)); err != nil {
			return err
		}
		if p, ok := it.Next().(*page); ok {
			// the last entry at or before from
			first, start = p, l.seek(p, from)
			if start == len(p.entries) || l.compareKey(p.entries[start], from) > 0 {
				start--
			}
		}
	}
	if err != nil {
		return err
	}
	step := 1
	if desc {
		step = -1
	}
	var buf []byte
	each := func(p *page, i int) bool {
		for ; i >= 0 && i < len(p.entries); i += step {
			e := p.entries[i]
			buf = l.appendKey(buf[:0], e.val, td.id(e.rec))
			if !fn(buf, e.rec) {
				return false
			}
		}
		return true
	}
	if first != nil && !each(first, start) {
		return nil
	}
	if it == nil {
		if it, err = t.txn.LowerBound(l.table, IndexID, RawKey(from)); err != nil {
			return err
		}
	}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		p := obj.(*page)
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

// count is the number of entries in a pages table.
func (t *tx) count(table string) int {
	it, err := t.txn.Get(table, IndexID)
	if err != nil {
		return 0
	}
	n := 0
	for obj := it.Next(); obj != nil; obj = it.Next() {
		n += len(obj.(*page).entries)
	}
	return n
}

// cut cuts entries in key order into pages of loadPage entries.
func cut(l layout, entries []entry, loadPage int) []*page {
	out := make([]*page, 0, (len(entries)+loadPage-1)/loadPage)
	for start := 0; start < len(entries); start += loadPage {
		chunk := entries[start:min(start+loadPage, len(entries)):min(start+loadPage, len(entries))]
		out = append(out, &page{fence: string(l.appendKey(nil, chunk[0].val, l.td.id(chunk[0].rec))), entries: chunk})
	}
	return out
}
