package register

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// Interface B's resource engine. Every SS 12000 resource is a description
// (resource, in resources.go): its table, its filters (each served by an
// index or evaluated per record, as the description says), its sort keys,
// its lookup keys and its rendering. One generic path serves every list
// (with its pageToken walk), every record by id and every lookup from those
// descriptions, with the response cache, the lazy walks (views.go) and the
// deviations. A new resource is a description and its rendering, not a
// handler.

// Resource describes one SS 12000 resource: a table of the store served
// as SS 12000 shows it. Build a plain one with Plain; the engine serves
// every description alike (its list, records by id, lookups), and derives
// from it what subscriptions, deletedEntities and references need.
type Resource struct {
	name  string // the path segment: organisations, persons, ...
	noun  string // in messages: "organisation"
	scope string
	table string
	// typ is the SS 12000 resource type of the records (subscriptions'
	// resourceTypes, deletedEntities' entities), deletedKey their member of
	// DeletedEntities.data; a computed list has none.
	typ        model.ResourceType
	deletedKey string
	// displayName is the name a reference to a record shows
	// (expandReferenceNames); nil: none.
	displayName func(sn *store.Snapshot, obj any) string
	// clientWritesHidden: under the deviation a-writes-hidden-in-b, a
	// record an API client created through interface A is not found by id.
	clientWritesHidden bool
	// contract, when set, describes the resource's operations: a resource
	// declared beside SS 12000's brings its own (Plain.Contract).
	contract *openapi3.T
	// list, byID and lookup say which operations SS 12000 has for it.
	list, byID, lookup bool
	// visible reports whether a stored record is part of interface B (nil:
	// every record). The engine sets it from the table's Hidden
	// (store.Table): placements of other school forms are interface A's
	// only.
	visible func(obj any) bool
	// filters are the query parameters that choose records, in the order
	// the planner considers them: the first one present that has an index
	// drives the walk.
	filters []Filter
	// sorts are the sortkey values.
	sorts map[string]Sorting
	// ranged, when set, plans a walk over a range index for the filters
	// present (calendar events by startTime); ok false when it does not
	// apply.
	ranged func(p params) (index string, spans []store.Span, ok bool)
	// required are the parameters SS 12000 requires on every request of the
	// list, pageToken or not: they may accompany a pageToken (and are then
	// ignored: the token carries the walk's).
	required []string
	// lookupKeys are the members of the lookup body other than ids.
	lookupKeys map[string]LookupKey
	// render turns a stored record into its wire form, with the expand
	// values asked for.
	render func(s *API, rd renderer, obj any, expand []string) any
	// plain reports whether the expand values leave the record as the memo
	// renders it; memo appends that JSON (placements only).
	plain func(rd renderer, expand []string) bool
	memo  func(s *API, b []byte, rd renderer, obj any) []byte
	// page replaces the generic planner (placements keep their tuned one).
	page func(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error)
	// compute serves a list that is computed, not stored (aggregated
	// attendance): every item, in a stable order.
	compute func(s *API, sn *store.Snapshot, p params, rd renderer, expand []string, cursor []byte, limit int) (page []any, next []byte)
}

// Filter is a query parameter that chooses records (IDFilter, EvalFilter,
// AnyOf).
type Filter struct {
	param string
	// index serves the filter as an equality on that index of the table;
	// "" evaluates it per record of the walk.
	index string
	// id says the value is an identifier (compared in lower case).
	id bool
	// match reports whether a record passes the filter with the value.
	match func(obj any, v string) bool
	// anyOf says the parameter is an array (schoolTypes): a record passes
	// when one of its values passes. Otherwise every value must pass.
	anyOf bool
}

// Sorting is a sortkey value (Order): an index that has the order (used when no
// equality filter drives the walk), whose values sort the matches in memory
// too, or a key to sort the matches by in memory alone.
type Sorting struct {
	index string
	desc  bool
	key   func(obj any) string
}

// keyOf is the key the matches are sorted by in memory: the order index's
// value, so that sorting and walking the index give the same order and the
// same cursors.
func (so *Sorting) keyOf(sn *store.Snapshot, table string) func(obj any) string {
	if so.key != nil {
		return so.key
	}
	return sn.Schema().OrderKey(table, so.index)
}

// LookupKey finds the records a lookup key value names (ByIndex).
type LookupKey func(sn *store.Snapshot, v string, emit func(obj any))

// params are the filters and sortkey of a list, in canonical order: what a
// pageToken carries.
type params [][2]string

func (p params) get(name string) (string, bool) {
	for _, kv := range p {
		if kv[0] == name {
			return kv[1], true
		}
	}
	return "", false
}

func (p params) all(name string) []string {
	var out []string
	for _, kv := range p {
		if kv[0] == name {
			out = append(out, kv[1])
		}
	}
	return out
}

// paramsOf reads the filters and sortkey of a request. The contract has
// checked every format; timestamps are checked again against the parser the
// filters use.
func (res *Resource) paramsOf(q url.Values) (params, error) {
	var p params
	add := func(name string, lower bool) {
		for _, v := range q[name] {
			if lower {
				v = strings.ToLower(v)
			}
			p = append(p, [2]string{name, v})
		}
	}
	for _, f := range res.filters {
		add(f.param, f.id)
	}
	add(ParamSortKey, false)
	slices.SortStableFunc(p, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for _, kv := range p {
		if strings.HasPrefix(kv[0], "meta.") || strings.Contains(kv[0], "Time.") {
			if _, err := time.Parse(time.RFC3339Nano, kv[1]); err != nil {
				return nil, fmt.Errorf("query parameter %q: %q is not an RFC 3339 date-time", kv[0], kv[1])
			}
		}
	}
	return p, nil
}

// match is the predicate of a walk: visible, and every filter present.
func (res *Resource) match(p params) func(obj any) bool {
	type check struct {
		f  *Filter
		vs []string
	}
	var checks []check
	for i := range res.filters {
		f := &res.filters[i]
		if vs := p.all(f.param); len(vs) > 0 {
			checks = append(checks, check{f, vs})
		}
	}
	return func(obj any) bool {
		if res.visible != nil && !res.visible(obj) {
			return false
		}
		for _, c := range checks {
			if c.f.anyOf {
				if !slices.ContainsFunc(c.vs, func(v string) bool { return c.f.match(obj, v) }) {
					return false
				}
				continue
			}
			for _, v := range c.vs {
				if !c.f.match(obj, v) {
					return false
				}
			}
		}
		return true
	}
}

// pageOf returns a page of the list: the description's own planner, or the
// generic one (pageWith).
func (res *Resource) pageOf(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
	if res.page != nil {
		return res.page(s, sn, p, after, limit)
	}
	return res.pageWith(s, sn, p, after, limit, res.match(p), res.filters)
}

// pageWith is the generic planner with a predicate. It drives the walk by
// the first equality filter present that has an index (a page costs about a
// page of records), else by the sortkey's order index, else by the
// description's range index, else by id; the other filters are evaluated on
// the records walked. A sortkey combined with an equality filter (or with
// the description's range of another index) is served by sortedPage.
func (res *Resource) pageWith(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int, match func(any) bool, filters []Filter) ([]any, store.Cursor, error) {
	var sort *Sorting
	if k, ok := p.get(ParamSortKey); ok && !s.deviates(deviation.SortKeyIgnored) {
		if so, ok := res.sorts[k]; ok {
			sort = &so
		}
	}
	index, spans := "", []store.Span(nil)
	for _, f := range filters {
		// An index serves a filter of one value; the values of an array
		// filter are alternatives, which match evaluates.
		if vs := p.all(f.param); len(vs) == 1 && f.index != "" {
			index, spans = f.index, []store.Span{store.ValueSpan(vs[0])}
			break
		}
	}
	// The description's range (calendar events by startTime) when no
	// equality drives the walk.
	rangeIx, rangeSpans := "", []store.Span(nil)
	if index == "" && res.ranged != nil {
		if ix, sp, ok := res.ranged(p); ok {
			rangeIx, rangeSpans = ix, sp
		}
	}
	switch {
	case index != "" && sort != nil:
		return res.sortedPage(sn, index, spans, sort, match, after, limit)
	case index != "":
		return sn.Page(res.table, index, spans, false, after, limit, match)
	case sort != nil && rangeIx != "" && rangeIx == sort.index:
		return sn.Page(res.table, rangeIx, rangeSpans, sort.desc, after, limit, match)
	case sort != nil && rangeIx != "":
		return res.sortedPage(sn, rangeIx, rangeSpans, sort, match, after, limit)
	case sort != nil && sort.index != "":
		return sn.Page(res.table, sort.index, nil, sort.desc, after, limit, match)
	case sort != nil:
		return sn.SortedPage(res.table, store.IndexID, nil, match, sort.keyOf(sn, res.table), sort.desc, after, limit)
	case rangeIx != "":
		return sn.Page(res.table, rangeIx, rangeSpans, false, after, limit, match)
	}
	return sn.Page(res.table, store.IndexID, nil, false, after, limit, match)
}

// sortedPage serves a sortkey over the candidates that spans of an index
// choose (an equality filter's records, or what a description computed),
// the cheaper of two ways (docs/decisions.md#interface-b-indexes): with C candidates in a
// table of N records, sorting the candidates costs about C; walking the
// sortkey's order index and checking each record (match must test what the
// spans choose) visits about limit·N/C records until a page is full. So it
// sorts when C² ≤ limit·N and walks otherwise, counting the candidates only
// up to that bound: a page costs at most about √(limit·N), and a page when
// the candidates are few or many. Both ways give the same order and the same
// cursors (the sort keys are the order index's values), so a walk may
// change ways between pages.
func (res *Resource) sortedPage(sn *store.Snapshot, index string, spans []store.Span, sort *Sorting, match func(any) bool, after store.Cursor, limit int) ([]any, store.Cursor, error) {
	if sort.index != "" && !fewCandidates(sn, res.table, index, spans, limit) {
		return sn.Page(res.table, sort.index, nil, sort.desc, after, limit, match)
	}
	return sn.SortedPage(res.table, index, spans, match, sort.keyOf(sn, res.table), sort.desc, after, limit)
}

// fewCandidates reports whether the spans of an index hold few enough
// entries that sorting them beats walking an order index (C² ≤ limit·N).
func fewCandidates(sn *store.Snapshot, table, index string, spans []store.Span, limit int) bool {
	bound := 1
	for n := max(limit, 1) * sn.Count(table); bound*bound < n; bound *= 2 {
	}
	c := 0
	for _, sp := range spans {
		if c += sn.CountSpan(table, index, sp, bound-c); c >= bound {
			return false
		}
	}
	return true
}

// listBody is the body of every list: one page and the token of the next.
type listBody struct {
	Data      []any   `json:"data"`
	PageToken *string `json:"pageToken"`
}

// serveList serves GET /<resource>.
func (s *API) serveList(res *Resource) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, hv := responseKeyOf(r), s.stableView(true)
		cached, hit := s.responses.get(hv, key)
		if hit && !s.selfCheck() {
			writeBody(w, http.StatusOK, cached)
			return
		}
		q := r.URL.Query()
		limit := 0
		if v := q.Get(ParamLimit); v != "" {
			limit, _ = strconv.Atoi(v) // the contract has checked it is an integer ≥ 1
		}
		var st PageState
		var sn *store.Snapshot
		var v view
		if q.Has(ParamPageToken) {
			var extra []string
			for k := range q {
				if !slices.Contains(presentationParams, k) && !slices.Contains(res.required, k) {
					extra = append(extra, k)
				}
			}
			if len(extra) > 0 && !s.deviates(deviation.PageTokenWithFilterAccepted) {
				slices.Sort(extra)
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf(
					"pageToken cannot be combined with filters or sortkey (found %s); the token carries the query of its walk, and only limit, expand and expandReferenceNames may accompany it",
					strings.Join(surface.QuoteAll(extra), ", ")))
				return
			}
			var err error
			if st, err = s.DecodePageToken(q.Get(ParamPageToken)); err != nil || st.R != res.name {
				if err == nil {
					err = fmt.Errorf("pageToken belongs to another list (%s), not to %s", st.R, res.name)
				}
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, err.Error())
				return
			}
			if limit == 0 {
				limit = st.Limit
			}
			if q.Has(ParamExpand) {
				st.Expand = q[ParamExpand]
			}
			if q.Has(ParamRefNames) {
				st.Names = refNames(q)
			}
			if st.Walk == "" && st.Gen > 0 {
				sn, v = s.lazyWalk(st.Gen)
			} else {
				sn, _ = s.store.Walk(st.Walk)
			}
		} else {
			p, err := res.paramsOf(q)
			if err != nil {
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, err.Error())
				return
			}
			st = PageState{R: res.name, P: p, Expand: q[ParamExpand], Names: refNames(q), Limit: limit}
			sn, v = s.readView(true)
		}
		limit = s.core.PageSize(limit) // the paging variants' hook (the root's variants.go)
		rd := s.renderer(sn, st.Names)
		if res.compute != nil {
			s.serveComputed(w, r, res, sn, v, key, st, rd, limit)
			return
		}
		items, next, err := res.pageOf(s, sn, st.P, st.Cursor, limit)
		if err != nil {
			s.log.Error("list query", "resource", res.name, "err", err)
			surface.WriteRegisterError(w, http.StatusInternalServerError, surface.CodeInternal, "unexpected server error")
			return
		}
		if st.Repeat != "" {
			if obj, ok := sn.Get(res.table, st.Repeat); ok {
				items = append([]any{obj}, items...)
			}
		}
		var tok *string
		if next != nil {
			if st.Walk == "" && st.Gen == 0 {
				// A walk read at a stable generation needs no snapshot of
				// its own (views.go).
				if v.stable {
					st.Gen = v.gen
				} else {
					st.Walk = s.store.KeepWalk(sn)
				}
			}
			st.Cursor = next
			if s.deviates(deviation.PageTokenRepeatsLast) && len(items) > 0 {
				st.Repeat = sn.Schema().ID(res.table, items[len(items)-1])
			}
			t := s.encodePageToken(st)
			tok = &t
		} else if st.Walk != "" {
			s.store.EndWalk(st.Walk)
		}
		s.writeRecords(w, r, res, rd, items, st.Expand, tok, true, v, key, cached, hit && v == hv)
	}
}

// writeRecords writes a list page (list: {data, pageToken}) or a lookup's
// array, from the memo where the description has one, and keeps the body in
// the response cache.
func (s *API) writeRecords(w http.ResponseWriter, r *http.Request, res *Resource, rd renderer, items []any, expand []string, tok *string, list bool, v view, key responseKey, cached []byte, compare bool) {
	rendered := func() any {
		data := make([]any, len(items))
		for i, obj := range items {
			data[i] = res.render(s, rd, obj, expand)
		}
		if list {
			return listBody{Data: data, PageToken: tok}
		}
		return data
	}
	if res.memo == nil || !res.plain(rd, expand) {
		b := append(marshalJSON(rendered()), '\n')
		if list {
			s.responses.put(v, key, b)
		}
		writeBody(w, http.StatusOK, b)
		return
	}
	// The page is written from the memoised JSON of its records: the bytes
	// encoding/json writes for the rendered records.
	buf := bodyPool.Get().(*[]byte)
	b := (*buf)[:0]
	if list {
		b = append(b, `{"data":`...)
	}
	b = append(b, '[')
	for i, obj := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = res.memo(s, b, rd, obj)
	}
	b = append(b, ']')
	if list {
		b = append(b, `,"pageToken":`...)
		if tok != nil {
			b = appendJSONString(b, *tok)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, '}')
	}
	b = append(b, '\n')
	*buf = b
	if s.selfCheck() {
		s.checkBody(r, b, append(marshalJSON(rendered()), '\n'), cached, compare)
	}
	if list {
		s.responses.put(v, key, b)
	}
	writeBody(w, http.StatusOK, b)
	putBuffer(buf)
}

// serveComputed serves a computed list: the description computes the page
// after the cursor and the cursor after it (nil: the last page).
func (s *API) serveComputed(w http.ResponseWriter, r *http.Request, res *Resource, sn *store.Snapshot, v view, key responseKey, st PageState, rd renderer, limit int) {
	page, next := res.compute(s, sn, st.P, rd, st.Expand, st.Cursor, limit)
	var tok *string
	if next != nil {
		if st.Walk == "" && st.Gen == 0 {
			if v.stable {
				st.Gen = v.gen
			} else {
				st.Walk = s.store.KeepWalk(sn)
			}
		}
		st.Cursor = next
		t := s.encodePageToken(st)
		tok = &t
	} else if st.Walk != "" {
		s.store.EndWalk(st.Walk)
	}
	b := append(marshalJSON(listBody{Data: page, PageToken: tok}), '\n')
	s.responses.put(v, key, b)
	writeBody(w, http.StatusOK, b)
}

// madeByClient reports whether the record with the id was created by an API
// client (through interface A): deviation.AWritesHiddenInB.
func madeByClient(sn *store.Snapshot, table, id string) bool {
	obj, ok := sn.Get(table, id)
	return ok && sn.Schema().Meta(table, obj).CreatedBy != nil
}

// serveByID serves GET /<resource>/{id}.
func (s *API) serveByID(res *Resource) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if res.clientWritesHidden && s.deviates(deviation.AWritesHiddenInB) {
			if sn, _ := s.readView(false); madeByClient(sn, res.table, surface.PathID(r)) {
				s.notFoundRecord(w, res.noun, surface.PathID(r))
				return
			}
		}
		key, hv := responseKeyOf(r), s.stableView(false)
		cached, hit := s.responses.get(hv, key)
		if hit && !s.selfCheck() {
			writeBody(w, http.StatusOK, cached)
			return
		}
		id, q := surface.PathID(r), r.URL.Query()
		sn, v := s.readView(false)
		obj, ok := sn.Get(res.table, id)
		if !ok || (res.visible != nil && !res.visible(obj)) {
			s.notFoundRecord(w, res.noun, id)
			return
		}
		rd := s.renderer(sn, refNames(q))
		expand := q[ParamExpand]
		var b []byte
		if res.memo != nil && res.plain(rd, expand) {
			buf := bodyPool.Get().(*[]byte)
			b = append(res.memo(s, (*buf)[:0], rd, obj), '\n')
			*buf = b
			if s.selfCheck() {
				s.checkBody(r, b, append(marshalJSON(res.render(s, rd, obj, expand)), '\n'), cached, hit && v == hv)
			}
			s.responses.put(v, key, b)
			writeBody(w, http.StatusOK, b)
			putBuffer(buf)
			return
		}
		b = append(marshalJSON(res.render(s, rd, obj, expand)), '\n')
		s.responses.put(v, key, b)
		writeBody(w, http.StatusOK, b)
	}
}

// serveLookup serves POST /<resource>/lookup: the records every key of the
// body names (ids, and the resource's other keys), each once, in the order
// asked (keys in body order: ids first, then the other members by name).
func (s *API) serveLookup(res *Resource) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body map[string]json.RawMessage
		if err := surface.DecodeWhole(r.Body, &body); err != nil {
			surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not a JSON object of identifier arrays, e.g. {\"ids\": [uuid, ...]}")
			return
		}
		keys := map[string][]string{}
		total := 0
		for name, raw := range body {
			var vals []string
			if err := json.Unmarshal(raw, &vals); err != nil {
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("%s: not an array of strings", name))
				return
			}
			keys[name] = vals
			total += len(vals)
		}
		if total > MaxLookupIDs {
			surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("%d keys asked for; at most %d per lookup", total, MaxLookupIDs))
			return
		}
		q := r.URL.Query()
		sn := s.store.Read()
		rd := s.renderer(sn, refNames(q))
		var found []any
		seen := map[string]bool{}
		emit := func(obj any) {
			if res.visible != nil && !res.visible(obj) {
				return
			}
			if id := sn.Schema().ID(res.table, obj); !seen[id] {
				seen[id] = true
				found = append(found, obj)
			}
		}
		for _, id := range keys["ids"] {
			if obj, ok := sn.Get(res.table, strings.ToLower(id)); ok {
				emit(obj)
			}
		}
		names := make([]string, 0, len(keys))
		for name := range keys {
			if name != "ids" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			lk, ok := res.lookupKeys[name]
			if !ok {
				continue // the contract has rejected members it does not know
			}
			for _, val := range keys[name] {
				lk(sn, val, emit)
			}
		}
		if s.deviates(deviation.LookupDropsFirst) && len(found) > 0 {
			found = found[1:]
		}
		s.writeRecords(w, r, res, rd, found, q[ParamExpand], nil, false, view{}, responseKey{}, nil, false)
	}
}

// ByIndex is a lookup key served by an index of a table; lower folds the
// value to lower case first (an identifier).
func ByIndex(table, index string, lower bool) LookupKey {
	return func(sn *store.Snapshot, v string, emit func(obj any)) {
		if lower {
			v = strings.ToLower(v)
		}
		_ = sn.Scan(table, index, v, func(obj any) bool { emit(obj); return true })
	}
}

// registerEndpoints are interface B's operations, from the descriptions.
func (s *API) registerEndpoints() []surface.Endpoint {
	var eps []surface.Endpoint
	for _, res := range s.kinds.all {
		base := PrefixB + "/" + res.name
		add := func(method, path string, h http.HandlerFunc) {
			eps = append(eps, surface.Endpoint{Method: method, Path: path, Kind: surface.Register, Scope: res.scope, Doc: openapi.NameRegister, Spec: res.contract, Handle: h})
		}
		if res.list {
			add(http.MethodGet, base, s.serveList(res))
		}
		if res.byID {
			add(http.MethodGet, base+"/{id}", s.serveByID(res))
		}
		if res.lookup {
			add(http.MethodPost, base+"/lookup", s.serveLookup(res))
		}
	}
	return eps
}

// Filters shared by many resources.

// AnyOf marks a filter whose parameter SS 12000 declares an array ("en
// eller flera"): its values are alternatives.
func AnyOf(f Filter) Filter {
	f.anyOf = true
	return f
}

// IDFilter is an equality filter on identifiers (compared in lower case),
// served by an index of the table ("": evaluated per record): a record
// passes when get lists the value.
func IDFilter(param, index string, get func(obj any) []string) Filter {
	return Filter{param: param, index: index, id: true, match: func(obj any, v string) bool {
		return slices.Contains(get(obj), v)
	}}
}

// EvalFilter is a filter evaluated on each record walked.
func EvalFilter(param string, match func(obj any, v string) bool) Filter {
	return Filter{param: param, match: match}
}

// metaFilters are meta.created.before/after and meta.modified.before/after:
// "before" inclusive, "after" exclusive (docs/decisions.md#filter-bounds).
func metaFilters(meta func(obj any) *model.Meta) []Filter {
	at := func(v string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, v) // the contract has checked the format
		return t
	}
	return []Filter{
		EvalFilter(paramCreatedBef, func(o any, v string) bool { return !meta(o).Created.After(at(v)) }),
		EvalFilter(paramCreatedAft, func(o any, v string) bool { return meta(o).Created.After(at(v)) }),
		EvalFilter(paramModifiedBef, func(o any, v string) bool { return !meta(o).Modified.After(at(v)) }),
		EvalFilter(paramModifiedAft, func(o any, v string) bool { return meta(o).Modified.After(at(v)) }),
	}
}

// dateFilters are startDate.* and endDate.* (inclusive bounds); a record
// without an end date passes both endDate filters
// (docs/decisions.md#filter-bounds).
func dateFilters(start, end func(obj any) model.Date) []Filter {
	return []Filter{
		EvalFilter(paramStartBefore, func(o any, v string) bool { return start(o) <= model.Date(v) }),
		EvalFilter(paramStartAfter, func(o any, v string) bool { return start(o) >= model.Date(v) }),
		EvalFilter(paramEndBefore, func(o any, v string) bool { e := end(o); return e == "" || e <= model.Date(v) }),
		EvalFilter(paramEndAfter, func(o any, v string) bool { e := end(o); return e == "" || e >= model.Date(v) }),
	}
}

// timeFilters are <name>.onOrBefore and <name>.onOrAfter on a timestamp.
func timeFilters(name string, get func(obj any) time.Time) []Filter {
	at := func(v string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, v)
		return t
	}
	return []Filter{
		EvalFilter(name+".onOrBefore", func(o any, v string) bool { return !get(o).After(at(v)) }),
		EvalFilter(name+".onOrAfter", func(o any, v string) bool { return !get(o).Before(at(v)) }),
	}
}

// Order is a sortkey served by an order index of the table (an Ordered
// index of the store's table declaration).
func Order(index string, desc bool) Sorting {
	return Sorting{index: index, desc: desc}
}

// dateOrders are the date sortkeys of a table with startDate and endDate.
func dateOrders() map[string]Sorting {
	return map[string]Sorting{
		"StartDateAsc": Order(store.IndexStartDate, false), "StartDateDesc": Order(store.IndexStartDate, true),
		"EndDateAsc": Order(store.IndexEndDate, false), "EndDateDesc": Order(store.IndexEndDate, true),
	}
}
