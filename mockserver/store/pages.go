package store

import "slices"

// A table's records are kept in pages: go-memdb objects (postings without
// sub-keys) of up to maxPage records each, in id order, keyed by a fence id
// that is at or before every id the page holds and after every id of the
// pages before it. A lookup finds the page with the greatest fence at or
// before the id and searches it. Keeping a few hundred records per go-memdb
// object, rather than one, is what makes a bulk load cheap: go-memdb's radix
// tree costs several allocations per object inserted. Pages split when they
// grow past maxPage, so no id distribution makes them large.
var (
	// loadPage is how many records Load puts in each page: half of maxPage,
	// so that the first inserts after a load do not split pages at once.
	loadPage = 256
	// maxPage is the size past which a page splits in two.
	maxPage = 512
) // variables only so that tests can make pages tiny

// pageFor returns the page of a table that holds id or would take it: the
// page with the greatest fence at or before id, or else the first page. It
// returns nil when the table is empty.
func (t *tx) pageFor(table, id string) *posting {
	if it, err := t.txn.ReverseLowerBound(table, IndexID, id); err == nil {
		if p, ok := it.Next().(*posting); ok {
			return p
		}
	}
	if it, err := t.txn.Get(table, IndexID); err == nil {
		if p, ok := it.Next().(*posting); ok {
			return p
		}
	}
	return nil
}

// putRecord stores obj under id in its page, and returns the record it
// replaced, if any.
func (t *tx) putRecord(td *tableDef, id string, obj any) (old any) {
	p := t.pageFor(td.name, id)
	if p == nil {
		t.own(td.name, &posting{key: id, entries: []entry{{rec: obj}}})
		return nil
	}
	p = t.writable(td.name, p)
	i, found := p.search(td, "", id)
	if found {
		old, p.entries[i].rec = p.entries[i].rec, obj
		return old
	}
	p.entries = slices.Insert(p.entries, i, entry{rec: obj})
	if id < p.key {
		// a new first id: the first page's fence moves back to it
		_ = t.txn.Delete(td.name, p)
		p.key = id
		_ = t.txn.Insert(td.name, p)
	}
	if len(p.entries) > maxPage {
		half := len(p.entries) / 2
		q := &posting{key: td.id(p.entries[half].rec), entries: slices.Clone(p.entries[half:])}
		clear(p.entries[half:])
		p.entries = p.entries[:half]
		t.own(td.name, q)
	}
	return nil
}

// dropRecord removes the record with the id from its page, and reports
// whether there was one.
func (t *tx) dropRecord(td *tableDef, id string) bool {
	p := t.pageFor(td.name, id)
	if p == nil {
		return false
	}
	if _, found := p.search(td, "", id); !found {
		return false
	}
	p = t.writable(td.name, p)
	i, _ := p.search(td, "", id)
	p.entries = slices.Delete(p.entries, i, i+1)
	if len(p.entries) == 0 {
		delete(t.owned, p)
		_ = t.txn.Delete(td.name, p)
	}
	return true
}

// pages cuts records sorted by id into pages of loadPage records.
func pages(td *tableDef, sorted []any) []*posting {
	out := make([]*posting, 0, (len(sorted)+loadPage-1)/loadPage)
	for start := 0; start < len(sorted); start += loadPage {
		chunk := sorted[start:min(start+loadPage, len(sorted))]
		entries := make([]entry, len(chunk))
		for i, rec := range chunk {
			entries[i].rec = rec
		}
		out = append(out, &posting{key: td.id(chunk[0]), entries: entries})
	}
	return out
}
