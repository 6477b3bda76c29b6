package store

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// The generic read path of interface B's resource engine: a page of any
// table walked in the order of one of its indexes, over key ranges, with a
// predicate. The placement list (query.go) is one user of it; every other
// SS 12000 resource is another.

// Span is a key range of an index: from Lo (inclusive) to Hi (exclusive); a
// nil bound is open.
type Span = span

// ValueSpan covers the records whose value under an index is v.
func ValueSpan(v string) Span { return valueSpan(v) }

// ValuesFrom covers the records whose value under an index is v or after it.
func ValuesFrom(v string) Span { return rangeSpan(v, "") }

// TimeRangeSpan covers the timestamp keys from lo to hi, both inclusive.
func TimeRangeSpan(lo, hi *time.Time) Span {
	var s span
	if lo != nil {
		s.lo = []byte(timeKey(*lo) + keySep)
	}
	if hi != nil {
		s.hi = []byte(timeKey(*hi) + "\x01")
	}
	return s
}

// TimeKey is the index value of a timestamp (for a sort key of a
// SortedPage).
func TimeKey(t time.Time) string { return timeKey(t) }

// WholeIndex is the span of every key of an index.
var WholeIndex = []Span{{}}

// Get returns the record of a table with the id, if any.
func (sn *Snapshot) Get(table, id string) (any, bool) {
	rec := sn.t.get(table, id)
	return rec, rec != nil
}

// Page walks the index of a table over spans, in key order (desc: reverse
// order), from after the cursor (nil: the beginning), and returns up to limit
// records for which match returns true (nil: every record), each once, and
// the cursor after the last one when more may follow. It stops as soon as it
// has found one match more than the page holds: a page costs the records it
// looks at, not the table.
func (sn *Snapshot) Page(table, index string, spans []Span, desc bool, after Cursor, limit int, match func(any) bool) ([]any, Cursor, error) {
	td := sn.t.schema.table(table)
	if td == nil {
		return nil, nil, fmt.Errorf("store: no table %q", table)
	}
	if index != IndexID && td.index(index) == nil {
		return nil, nil, fmt.Errorf("store: table %q has no index %q", table, index)
	}
	if len(spans) == 0 {
		spans = WholeIndex
	}
	if desc {
		spans = slices.Clone(spans)
		slices.Reverse(spans)
	}
	var items []any
	var next Cursor
	var lastKey []byte
	for _, sp := range spans {
		from, ok := spanStart(sp, after, desc)
		if !ok {
			continue
		}
		err := sn.t.walk(td, index, from, desc, func(key []byte, obj any) bool {
			if !inSpan(key, sp) {
				return false
			}
			if after != nil && bytes.Equal(key, after) {
				return true
			}
			if match != nil && !match(obj) {
				return true
			}
			if len(items) == limit {
				next = Cursor(bytes.Clone(lastKey))
				return false
			}
			items = append(items, obj)
			lastKey = append(lastKey[:0], key...)
			return true
		})
		if err != nil || next != nil {
			return items, next, err
		}
	}
	return items, nil, nil
}

// Records yields the records of a span of an index in key order, read as
// they are consumed (recordCursor), so that a caller that stops early pays
// for the records it took, not for the span.
func (sn *Snapshot) Records(table, index string, span Span) iter.Seq[any] {
	return func(yield func(any) bool) {
		c := &recordCursor{sn: sn, table: table, index: index, span: span}
		for rec := c.head(); rec != nil; rec = c.head() {
			if !yield(rec) {
				return
			}
			c.pop()
		}
	}
}

// recordCursor reads a span of an index in key order with the next record
// at hand: a few records first, then chunks that double up to 256.
type recordCursor struct {
	sn           *Snapshot
	table, index string
	span         Span
	buf          []any
	after        Cursor
	chunk        int
	done         bool
}

// The first and the largest chunk a recordCursor reads.
const (
	recordsFirstChunk = 4
	recordsMaxChunk   = 256
)

// head is the next record, nil when the span has none left.
func (c *recordCursor) head() any {
	if len(c.buf) == 0 && !c.done {
		c.chunk = min(max(2*c.chunk, recordsFirstChunk), recordsMaxChunk)
		c.buf, c.after, _ = c.sn.Page(c.table, c.index, []Span{c.span}, false, c.after, c.chunk, nil)
		c.done = c.after == nil
	}
	if len(c.buf) == 0 {
		return nil
	}
	return c.buf[0]
}

// pop moves past the head.
func (c *recordCursor) pop() { c.buf = c.buf[1:] }

// SortedPage collects every record of the spans of an index, orders them by
// key (then id; desc: both reversed) and returns the page of up to limit
// records after the cursor that match. It costs every record of the spans
// (their keys, sorted), not a page; match is asked only of the records from
// the cursor on until the page is full and one more match is found, so a
// dear predicate costs about a page. The engine uses it where sorting the
// candidates beats walking an order index (few candidates).
func (sn *Snapshot) SortedPage(table, index string, spans []Span, match func(any) bool, key func(any) string, desc bool, after Cursor, limit int) ([]any, Cursor, error) {
	td := sn.t.schema.table(table)
	if td == nil {
		return nil, nil, fmt.Errorf("store: no table %q", table)
	}
	if len(spans) == 0 {
		spans = WholeIndex
	}
	type keyed struct {
		key []byte
		rec any
	}
	var all []keyed
	seen := map[string]bool{}
	for _, sp := range spans {
		err := sn.t.walk(td, index, sp.lo, false, func(k []byte, obj any) bool {
			if !inSpan(k, sp) {
				return false
			}
			id := td.id(obj)
			if index != IndexID {
				if seen[id] {
					return true
				}
				seen[id] = true
			}
			all = append(all, keyed{[]byte(key(obj) + keySep + id + keySep), obj})
			return true
		})
		if err != nil {
			return nil, nil, err
		}
	}
	cmp := func(a, b []byte) int {
		if desc {
			return bytes.Compare(b, a)
		}
		return bytes.Compare(a, b)
	}
	slices.SortFunc(all, func(a, b keyed) int { return cmp(a.key, b.key) })
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(all, []byte(after), func(k keyed, c []byte) int { return cmp(k.key, c) })
		if start < len(all) && bytes.Equal(all[start].key, after) {
			start++
		}
	}
	var items []any
	var last []byte
	for i := start; i < len(all); i++ {
		if match != nil && !match(all[i].rec) {
			continue
		}
		if len(items) == limit {
			return items, Cursor(last), nil
		}
		items = append(items, all[i].rec)
		last = all[i].key
	}
	return items, nil, nil
}

// FoldKey is a sort key of text: case-folded, so that "åsa" and "Åsa" sort
// together.
func FoldKey(s string) string { return strings.ToLower(s) }

// CountSpan counts the entries of an index within a span, up to max: a
// planner's estimate of what an equality costs (it stops at max).
func (sn *Snapshot) CountSpan(table, index string, sp Span, max int) int {
	td := sn.t.schema.table(table)
	if td == nil {
		return 0
	}
	n := 0
	_ = sn.t.walk(td, index, sp.lo, false, func(k []byte, _ any) bool {
		if !inSpan(k, sp) || n >= max {
			return false
		}
		n++
		return true
	})
	return n
}
