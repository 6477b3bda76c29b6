package rules

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits bound what one judge remembers. Zero fields take the defaults.
type Limits struct {
	// Walks is how many pageToken and offset walks are followed at once
	// (default 1024), and how many finished walks are kept to compare
	// with.
	Walks int
	// Records is how many record sightings are kept (default 50000).
	Records int
	// Referents is how many records are kept for references to be
	// compared with (default 100000).
	Referents int
	// Writes is how many recent writes are kept (default 4096).
	Writes int
	// Clients is how many clients' histories are kept (default 1024).
	Clients int
	// Findings is how many findings are kept per rule (default 25); the
	// rest are counted.
	Findings int
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Walks, 1024)
	def(&l.Records, 50000)
	def(&l.Referents, 100000)
	def(&l.Writes, 4096)
	def(&l.Clients, 1024)
	def(&l.Findings, 25)
	return l
}

// History is what one judge remembers of the exchanges it has seen,
// bounded by its Limits; each store counts what it dropped. The judge
// records every exchange in it after the rules have judged it, so a rule
// sees the history before the exchange in hand. Rules read it under the
// judge's lock (rules that are not Concurrent).
type History struct {
	// Walks are the pageToken walks under way, by the pageToken that
	// continues them.
	Walks *Bounded[string, *Walk]
	// Finished are the last finished walk of each query (WalkKey), page
	// token and offset walks alike.
	Finished *Bounded[string, *Walk]
	// Offsets are the offset walks (interface A, the export), by query.
	Offsets *Bounded[string, *Walk]
	// Records are the last sighting of each record, by resource, id and
	// presentation.
	Records *Bounded[RecordKey, *Sighting]
	// Referents are what references are compared with: the name and
	// security marking of every record seen, by resource and id.
	Referents *Bounded[RecordRef, *Referent]
	// Clients are the histories of each client.
	Clients *Bounded[string, *ClientHistory]

	writes   []*Exchange // the last successful writes, oldest first
	maxWrite int
	dropped  int // writes forgotten
}

func newHistory(l Limits) *History {
	return &History{
		Walks:     NewBounded[string, *Walk](l.Walks),
		Finished:  NewBounded[string, *Walk](l.Walks),
		Offsets:   NewBounded[string, *Walk](l.Walks),
		Records:   NewBounded[RecordKey, *Sighting](l.Records),
		Referents: NewBounded[RecordRef, *Referent](l.Referents),
		Clients:   NewBounded[string, *ClientHistory](l.Clients),
		maxWrite:  l.Writes,
	}
}

// Dropped says, per store, how many entries were forgotten to stay within
// the limits (only stores that dropped something).
func (h *History) Dropped() map[string]int {
	out := map[string]int{}
	for name, n := range map[string]int{
		"walks": h.Walks.Dropped(), "finished walks": h.Finished.Dropped(), "offset walks": h.Offsets.Dropped(),
		"records": h.Records.Dropped(), "referents": h.Referents.Dropped(), "clients": h.Clients.Dropped(), "writes": h.dropped,
	} {
		if n > 0 {
			out[name] = n
		}
	}
	return out
}

// RecordRef names a record: its surface, resource and id (lower case).
type RecordRef struct {
	Surface  Surface
	Resource string
	ID       string
}

// RecordKey is a record as shown with one presentation.
type RecordKey struct {
	RecordRef
	Presentation Presentation
}

// Sighting is one reading of a record: the record, the exchange it came
// in, and through which kind of operation (list, get, lookup, search,
// create, update).
type Sighting struct {
	Record map[string]any
	Ex     *Exchange
	Op     *Operation
}

// Referent is what a reference to a record is compared with.
type Referent struct {
	// DisplayName is the record's own displayName ("" when it has none).
	DisplayName string
	// SecurityMarking is a person's marking, HasMarking whether the record
	// showed one.
	SecurityMarking string
	HasMarking      bool
	Ex              *Exchange
}

// Walk is a walk of a list: a pageToken walk (a first request, then the
// pageTokens the answers give), or an offset walk (pages of one query at
// increasing offsets).
type Walk struct {
	Client string
	Op     *Operation
	// Key is the walk's query (WalkKey).
	Key string
	// Presentation is the first request's.
	Presentation Presentation
	// Pages are the answers in walk order; Limits the limit each request
	// sent (0: none); Sizes the records each page held.
	Pages  []*Exchange
	Limits []int
	Sizes  []int
	// IDs maps each id to the page it first came on; Order lists them in
	// walk order. For an offset walk Positions maps each position to its
	// id, and Totals are the pagination.total of each page.
	IDs       map[string]int
	Order     []string
	Positions map[int]string
	Totals    []int
	// Repeats are ids that came again on a later page.
	Repeats []string
	// Complete: the last page said nothing more can be fetched (a null
	// pageToken; every position of pagination.total covered).
	Complete bool
}

// Start and End bound the walk in time.
func (w *Walk) Start() time.Time { return w.Pages[0].Start }

// End is when the last page had been read.
func (w *Walk) End() time.Time { return w.Pages[len(w.Pages)-1].End() }

// Total is the last pagination.total of an offset walk (-1: none).
func (w *Walk) Total() int {
	if len(w.Totals) == 0 {
		return -1
	}
	return w.Totals[len(w.Totals)-1]
}

// ClientHistory is what is remembered of one client.
type ClientHistory struct {
	Requests int
	// Last401 and Last429 are the client's last refused answers.
	Last401, Last429 *Exchange
	// Tokens are the access tokens the client was issued, newest last (at
	// most 16).
	Tokens []string
	// Recent5xx are the last 5xx per operation.
	Recent5xx map[string]*Exchange
}

// WriteBetween reports whether a successful write other than a and b was
// seen while or between the two exchanges ran, so that what they show may
// differ legitimately.
func (h *History) WriteBetween(a, b *Exchange) bool {
	from, to := a.Start, a.End()
	if b.Start.Before(from) {
		from = b.Start
	}
	if b.End().After(to) {
		to = b.End()
	}
	for _, w := range h.writes {
		if w == a || w == b {
			continue
		}
		if w.Start.Before(to) && w.End().After(from) {
			return true
		}
	}
	return false
}

// WriteDuring reports whether a successful write was seen from the start
// of the walk to the end of ex.
func (h *History) WriteDuring(w *Walk, ex *Exchange) bool {
	return h.WriteBetween(w.Pages[0], ex)
}

// WalkOf returns the walk an answer continues (nil for a first page, and
// for a page of a walk the history does not know).
func (h *History) WalkOf(o *Observation) *Walk {
	if o.Op == nil {
		return nil
	}
	switch o.Op.Paging {
	case PagingPageToken:
		if tok := o.Query.Get("pageToken"); tok != "" {
			w, _ := h.Walks.Peek(tok)
			return w
		}
	case PagingOffset:
		w, _ := h.Offsets.Peek(WalkKey(o))
		return w
	}
	return nil
}

// SightingOf returns the last sighting of a record with a presentation.
func (h *History) SightingOf(k RecordKey) (*Sighting, bool) { return h.Records.Peek(k) }

// ReferentOf returns what is known of the record a reference points to.
func (h *History) ReferentOf(r RecordRef) (*Referent, bool) { return h.Referents.Peek(r) }

// WalkKey is the query of a walk: the client, the operation, and the
// request's parameters other than paging and presentation (and a search's
// body), canonical.
func WalkKey(o *Observation) string {
	q := url.Values{}
	for k, v := range o.Query {
		if presentation[k] && k != "sortkey" {
			continue
		}
		q[k] = v
	}
	key := o.Client + " " + o.OperationName() + "?" + q.Encode()
	if o.Op != nil && o.Op.Kind == KindSearch {
		key += " " + string(canonicalJSON(o))
	}
	return key
}

func canonicalJSON(o *Observation) []byte {
	v, err := o.RequestJSON()
	if err != nil {
		return o.RequestBody
	}
	b, _ := jsonMarshal(v)
	return b
}

// record remembers what an exchange showed, after the rules judged it.
func (h *History) record(o *Observation) {
	ch := h.client(o.Client)
	ch.Requests++
	switch {
	case o.Status == http.StatusUnauthorized:
		ch.Last401 = o.Exchange
	case o.Status == http.StatusTooManyRequests:
		ch.Last429 = o.Exchange
	case o.Status >= 500:
		if ch.Recent5xx == nil {
			ch.Recent5xx = map[string]*Exchange{}
		}
		ch.Recent5xx[o.OperationName()] = o.Exchange
	}
	if o.Op != nil && o.Op.Kind == KindToken && o.OK() {
		if tok, _ := o.Object()["access_token"].(string); tok != "" {
			ch.Tokens = append(ch.Tokens, tok)
			if len(ch.Tokens) > 16 {
				ch.Tokens = ch.Tokens[1:]
			}
		}
	}
	if !o.OK() {
		return
	}
	if isWrite(o) {
		h.writes = append(h.writes, o.Exchange)
		if len(h.writes) > h.maxWrite {
			h.writes = h.writes[1:]
			h.dropped++
		}
	}
	if o.Op == nil {
		return
	}
	records := o.Records()
	h.recordWalk(o, records)
	if !o.Op.ReadsRecords() {
		return
	}
	pres := o.PresentationOf()
	if o.Op.Paging == PagingPageToken && o.Query.Get("pageToken") != "" && pres == (Presentation{}) {
		// A later page without presentation parameters: what carries over
		// is the server's choice, so the sighting's presentation is
		// unknown and it is not kept for comparison.
		pres.Expand = "?"
	}
	for _, rec := range records {
		id, _ := rec["id"].(string)
		if id == "" {
			continue
		}
		ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}
		if pres.Expand != "?" {
			h.Records.Put(RecordKey{RecordRef: ref, Presentation: pres}, &Sighting{Record: rec, Ex: o.Exchange, Op: o.Op})
		}
		h.noteReferent(ref, rec, o.Exchange)
		if emb, ok := rec["_embedded"].(map[string]any); ok {
			h.noteEmbedded(o, emb)
		}
	}
}

// noteReferent keeps a record's name and marking.
func (h *History) noteReferent(ref RecordRef, rec map[string]any, ex *Exchange) {
	r := &Referent{Ex: ex}
	r.DisplayName, _ = rec["displayName"].(string)
	if m, ok := rec["securityMarking"].(string); ok {
		r.SecurityMarking, r.HasMarking = m, true
	}
	h.Referents.Put(ref, r)
}

// noteEmbedded keeps the persons of an _embedded object (placements embed
// child and owners) as referents of /persons.
func (h *History) noteEmbedded(o *Observation, emb map[string]any) {
	var persons []map[string]any
	for _, v := range emb {
		switch x := v.(type) {
		case map[string]any:
			persons = append(persons, x)
		case []any:
			persons = append(persons, Objects(x)...)
		}
	}
	for _, p := range persons {
		id, _ := p["id"].(string)
		if id == "" {
			continue
		}
		if _, person := p["securityMarking"]; !person {
			continue
		}
		h.noteReferent(RecordRef{Surface: o.Surface, Resource: "/persons", ID: strings.ToLower(id)}, p, o.Exchange)
	}
}

// isWrite reports whether a successful exchange may have changed records.
func isWrite(o *Observation) bool {
	if o.Op != nil {
		switch o.Op.Kind {
		case KindCreate, KindUpdate, KindDelete:
			return true
		case KindList, KindGet, KindLookup, KindSearch, KindToken:
			return false
		}
		return o.Method != http.MethodGet && o.Method != http.MethodHead && o.Op.Resource != ""
	}
	return o.Method != http.MethodGet && o.Method != http.MethodHead && o.Method != http.MethodOptions && o.Surface != SurfaceAuth
}

func (h *History) client(id string) *ClientHistory {
	ch, ok := h.Clients.Get(id)
	if !ok {
		ch = &ClientHistory{}
		h.Clients.Put(id, ch)
	}
	return ch
}

// recordWalk follows pageToken and offset walks.
func (h *History) recordWalk(o *Observation, records []map[string]any) {
	switch o.Op.Paging {
	case PagingPageToken:
		h.recordTokenPage(o, records)
	case PagingOffset:
		h.recordOffsetPage(o, records)
	}
}

func limitOf(o *Observation) int {
	n, _ := o.IntParam("limit")
	return n
}

func (h *History) recordTokenPage(o *Observation, records []map[string]any) {
	var w *Walk
	if tok := o.Query.Get("pageToken"); tok != "" {
		if w, _ = h.Walks.Peek(tok); w == nil {
			return // a walk whose beginning was not seen (or forgotten)
		}
		h.Walks.Delete(tok)
	} else {
		w = &Walk{Client: o.Client, Op: o.Op, Key: WalkKey(o), Presentation: o.PresentationOf(), IDs: map[string]int{}}
	}
	page := len(w.Pages)
	w.Pages = append(w.Pages, o.Exchange)
	w.Limits = append(w.Limits, limitOf(o))
	w.Sizes = append(w.Sizes, len(records))
	for _, rec := range records {
		id, _ := rec["id"].(string)
		id = strings.ToLower(id)
		if _, seen := w.IDs[id]; seen {
			w.Repeats = append(w.Repeats, id)
			continue
		}
		w.IDs[id] = page
		w.Order = append(w.Order, id)
	}
	next, _ := o.Object()["pageToken"].(string)
	if next == "" {
		w.Complete = true
		h.Finished.Put(w.Key, w)
		return
	}
	h.Walks.Put(next, w)
}

func (h *History) recordOffsetPage(o *Observation, records []map[string]any) {
	total, ok := PaginationTotal(o)
	if !ok {
		return
	}
	key := WalkKey(o)
	offset, _ := o.IntParam("offset")
	w, _ := h.Offsets.Get(key)
	if w == nil || offset == 0 && w.Complete || w.Total() != total && offset == 0 {
		w = &Walk{Client: o.Client, Op: o.Op, Key: key, IDs: map[string]int{}, Positions: map[int]string{}}
		h.Offsets.Put(key, w)
	}
	page := len(w.Pages)
	w.Pages = append(w.Pages, o.Exchange)
	w.Limits = append(w.Limits, limitOf(o))
	w.Sizes = append(w.Sizes, len(records))
	w.Totals = append(w.Totals, total)
	for i, rec := range records {
		id, _ := rec["id"].(string)
		id = strings.ToLower(id)
		if prev, ok := w.Positions[offset+i]; ok && prev == id {
			continue // the same position read again (an overlapping page)
		}
		w.Positions[offset+i] = id
		if id == "" {
			continue
		}
		if _, seen := w.IDs[id]; seen {
			w.Repeats = append(w.Repeats, id)
			continue
		}
		w.IDs[id] = page
		w.Order = append(w.Order, id)
	}
	if covered(w.Positions, total) && !w.Complete {
		w.Complete = true
		h.Finished.Put(key, w)
	}
}

// covered reports whether every position below total has been read.
func covered(pos map[int]string, total int) bool {
	if len(pos) < total {
		return false
	}
	for i := range total {
		if _, ok := pos[i]; !ok {
			return false
		}
	}
	return true
}

// PaginationTotal reads pagination.total of an offset page.
func PaginationTotal(o *Observation) (int, bool) {
	pg, _ := o.Object()["pagination"].(map[string]any)
	return IntOf(pg["total"])
}

// IntOf reads an integer JSON value.
func IntOf(v any) (int, bool) {
	switch n := v.(type) {
	case interface{ String() string }: // json.Number
		i, err := strconv.Atoi(n.String())
		return i, err == nil
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	}
	return 0, false
}

// sortedIDs returns a walk's ids, sorted.
func (w *Walk) sortedIDs() []string {
	out := slices.Clone(w.Order)
	slices.Sort(out)
	return out
}
