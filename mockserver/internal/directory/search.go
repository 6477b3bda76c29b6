package directory

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/search"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// How interface A's _search evaluates a filter.
//
// A filter is evaluated on the stored model records, not on their wire
// records: each searchable resource has a table of getters, one per
// searchable field, that read the field's value straight from the stored
// record as the resource's render function would show it. Only the records
// on the returned page are rendered. TestSearchGettersMatchRender proves,
// field by field and record by record, that each getter gives what the
// wire record has; New fails when a searchable field (a member of the
// contract's per-operator filter schemas) has no getter.
//
// When the filter has an equality on a field that a store index holds
// exactly (a person's identityNumber, a school's unitCode), the candidates
// are looked up in that index instead of scanning every record, and put in
// the list's order (meta.created, then id, the order of the resource's list
// index); every candidate must still pass the filter. UUID fields (id,
// schoolID, ...) are left to the scan: their equality ignores case, and a
// stored id is not known to be in lower case (an imported state may have
// others), so an index lookup could miss a match.

// fieldSet is the getters of one resource's searchable fields.
type fieldSet interface {
	// has reports whether the field has a getter.
	has(field string) bool
	// names lists the fields that have a getter, in byte order.
	names() []string
	// bind returns a search.Record over one stored record at a time, and
	// the function that points it at a record. The pair serves one search.
	bind(sn *store.Snapshot) (search.Record, func(rec any))
}

// getter reads one searchable field of a stored record of type T. It returns
// the value the wire record has, of the types the search package expects:
// string for strings, enums, UUIDs, dates (YYYY-MM-DD) and date-times (RFC
// 3339 in UTC, as the wire record's JSON has them), bool, int64, []string;
// ok=false for null.
type getter[T any] func(sn *store.Snapshot, rec *T) (v any, ok bool)

// fieldGetters maps the searchable fields of a resource to their getters.
type fieldGetters[T any] map[string]getter[T]

func (g fieldGetters[T]) has(field string) bool {
	_, ok := g[field]
	return ok
}

func (g fieldGetters[T]) names() []string {
	out := make([]string, 0, len(g))
	for name := range g {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func (g fieldGetters[T]) bind(sn *store.Snapshot) (search.Record, func(rec any)) {
	r := &storedRecord[T]{sn: sn, get: g}
	return r, func(rec any) { r.rec = rec.(*T) }
}

// storedRecord is the search.Record of one stored record.
type storedRecord[T any] struct {
	sn  *store.Snapshot
	get fieldGetters[T]
	rec *T
}

func (r *storedRecord[T]) Value(field string) (any, bool) {
	get, ok := r.get[field]
	if !ok {
		return nil, false
	}
	return get(r.sn, r.rec)
}

// checkGetters reports a searchable field that has no getter.
func (res *dirResource) checkGetters() error {
	if !res.canSearch {
		return nil
	}
	var missing []string
	for name := range res.fields {
		if res.getters == nil || !res.getters.has(name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("mockserver: the searchable fields %s of %s have no getter (mockserver/directory/search.go)", strings.Join(missing, ", "), res.schema)
	}
	return nil
}

// matcher returns the filter's test of a stored record, for one search.
func (res *dirResource) matcher(sn *store.Snapshot, f *search.Filter) func(rec any) bool {
	r, set := res.getters.bind(sn)
	return func(rec any) bool {
		set(rec)
		return f.Match(r)
	}
}

// equalityLookup is a store index that holds one searchable field's value
// exactly as the wire record shows it, for every record of the resource whose
// value is not empty: an equals condition on the field can look its
// candidates up in the index.
type equalityLookup struct {
	field        string // the searchable field
	table, index string // the store index whose value is the field's
	// key, when set, turns the field's value into the index's ("" when the
	// value cannot be in the index).
	key func(value string) string
	// member reports whether an object of the table is a record of the
	// resource (one its scan yields).
	member func(obj any) bool
	// listOrder returns the keys of the resource's list order: meta.created,
	// then id.
	listOrder func(obj any) (created time.Time, id string)
}

// sinceLookup is the store's time index of the resource's meta.updatedAt
// (IndexModified of its table): the incremental-sync query
// {"greaterThan": {"meta": {"updatedAt": T}}} walks it from T instead of
// scanning every record.
type sinceLookup struct {
	table  string
	member func(obj any) bool
	// listOrder is as for equalityLookup.
	listOrder func(obj any) (created time.Time, id string)
}

// candidates returns the records that may match the filter, in list order,
// when an index can find them; nil when the records are to be scanned. Every
// record that matches is a candidate (the index holds every non-empty value,
// and Filter.Equalities says which values a match must have; the modified
// index holds every record, and Filter.LowerBounds says from when a match
// was updated); the list order is the documented order of the resource's
// list index, meta.createdAt then id.
func (res *dirResource) candidates(sn *store.Snapshot, f *search.Filter) []any {
	eq := f.Equalities()
	for _, l := range res.lookups {
		value, ok := eq[l.field]
		if ok && l.key != nil {
			if value = l.key(value); value == "" {
				return nil // not a value the index holds: scan
			}
		}
		if !ok || value == "" { // "" would scan the whole index, and is not in it
			continue
		}
		return inListOrder(l.member, l.listOrder, 0, func(fn func(any) bool) { _ = sn.Scan(l.table, l.index, value, fn) })
	}
	if l := res.since; l != nil {
		if bound, ok := f.LowerBounds()["meta.updatedAt"]; ok && bound.UTC().Year() >= 0 && bound.UTC().Year() <= 9999 {
			return inListOrder(l.member, l.listOrder, maxSinceCandidates, func(fn func(any) bool) {
				_ = sn.ScanSince(l.table, store.IndexModified, bound, fn)
			})
		}
	}
	return nil
}

// maxSinceCandidates bounds the records a meta.updatedAt bound looks up in
// the modified index: past it, sorting the candidates into list order costs
// more than scanning the list (an early bound matches most records), and the
// search scans instead.
const maxSinceCandidates = 5000

// inListOrder collects the records a scan yields that are members of the
// resource, in list order; nil (scan instead) when one was created outside
// the years 0-9999, where the list index's time text is not in time order,
// or when there are more than limit of them (0: no limit).
func inListOrder(member func(any) bool, listOrder func(any) (time.Time, string), limit int, scan func(fn func(any) bool)) []any {
	out := []any{}
	inOrder := true
	scan(func(obj any) bool {
		if !member(obj) {
			return true
		}
		if limit > 0 && len(out) >= limit {
			inOrder = false
			return false
		}
		if created, _ := listOrder(obj); created.UTC().Year() < 0 || created.UTC().Year() > 9999 {
			inOrder = false
			return false
		}
		out = append(out, obj)
		return true
	})
	if !inOrder {
		return nil
	}
	slices.SortStableFunc(out, func(a, b any) int {
		ca, ia := listOrder(a)
		cb, ib := listOrder(b)
		if c := ca.Compare(cb); c != 0 {
			return c
		}
		return strings.Compare(ia, ib)
	})
	return out
}

// Helpers for getters: each mirrors how render makes a wire member and how
// the search reads it.

// textField is a string member that render always has (possibly "").
func textField(s string) (any, bool) { return s, true }

// optText is a member that render makes with strPtr: "" is null.
func optText(s string) (any, bool) {
	if s == "" {
		return nil, false
	}
	return s, true
}

// ptrText is a *string member that render copies: nil is null, "" is not.
func ptrText(s *string) (any, bool) {
	if s == nil {
		return nil, false
	}
	return *s, true
}

// ptrTime is a *time.Time member: the search reads it as the RFC 3339 text
// in UTC.
func ptrTime(t *time.Time) (any, bool) {
	if t == nil {
		return nil, false
	}
	return t.UTC().Format(time.RFC3339Nano), true
}

// ptrInt is a *int member.
func ptrInt(n *int) (any, bool) {
	if n == nil {
		return nil, false
	}
	return int64(*n), true
}

// list is a list member: never null (an empty list is not null, and a nil
// one is rendered as an empty one).
func list(ss []string) (any, bool) {
	if ss == nil {
		ss = []string{}
	}
	return ss, true
}

// withRecordGetters adds to a resource's getters those of the members every
// interface-A record has: meta's four fields and external's two (for
// resources with an external member: ext not nil).
func withRecordGetters[T any](g fieldGetters[T], meta func(*T) *model.Meta, ext func(*T) *model.External) fieldGetters[T] {
	out := fieldGetters[T]{}
	for k, v := range g {
		out[k] = v
	}
	out["meta.createdAt"] = func(_ *store.Snapshot, r *T) (any, bool) { return timeText(meta(r).Created) }
	out["meta.updatedAt"] = func(_ *store.Snapshot, r *T) (any, bool) { return timeText(meta(r).Modified) }
	out["meta.createdBy"] = func(_ *store.Snapshot, r *T) (any, bool) { return ptrText(meta(r).CreatedBy) }
	out["meta.updatedBy"] = func(_ *store.Snapshot, r *T) (any, bool) { return ptrText(meta(r).UpdatedBy) }
	if ext != nil {
		out["external.source"] = func(_ *store.Snapshot, r *T) (any, bool) {
			if e := ext(r); e != nil {
				return ptrText(e.Source)
			}
			return nil, false
		}
		out["external.sourceID"] = func(_ *store.Snapshot, r *T) (any, bool) {
			if e := ext(r); e != nil {
				return ptrText(e.SourceID)
			}
			return nil, false
		}
	}
	return out
}

// timeText is a date-time member that render always has. The search reads a
// time.Time as the instant it is (no text to format and parse again: the
// incremental-sync query evaluates meta.updatedAt on every record it scans).
func timeText(t time.Time) (any, bool) { return t, true }
