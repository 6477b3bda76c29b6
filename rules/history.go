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
// records every exchange in it before the rules that read it judge the
// exchange, so such a rule sees the walk the exchange belongs to and the
// records it shows beside the earlier ones (Sighting.Prev, SightingsOf).
// Rules read it under the judge's lock (rules that are not Concurrent).
type History struct {
	// Walks are the pageToken walks under way, by the pageToken that
	// continues them.
	Walks *Bounded[string, *Walk]
	// Finished are the last two finished walks of each query (WalkKey),
	// page token and offset walks alike, the newest last.
	Finished *Bounded[string, []*Walk]
	// Offsets are the offset walks (interface A, the export), by query.
	Offsets *Bounded[string, *Walk]
	// Records are the last sighting of each record, by resource, id and
	// presentation.
	Records *Bounded[RecordKey, *Sighting]
	// Referents are what references are compared with: the name and
	// security marking of every record seen, by resource and id.
	Referents *Bounded[RecordRef, *Referent]
	// Referrers are the references seen to each record (the last four).
	Referrers *Bounded[RecordRef, []*Reference]
	// Presentations are the presentations each record was seen with.
	Presentations *Bounded[RecordRef, []Presentation]
	// Written is the last write of each record: what the request sent.
	Written *Bounded[RecordRef, *Write]
	// Clients are the histories of each client.
	Clients *Bounded[string, *ClientHistory]

	// offered are the resources some answer showed records of: a 404 of
	// another resource may mean the server does not offer it at all.
	offered map[RecordRef]bool

	writes   []*Exchange             // the last successful writes, oldest first
	pending  map[*Exchange]time.Time // writes sent whose answers have not been seen, and when
	maxWrite int
	dropped  int // writes forgotten
}

func newHistory(l Limits) *History {
	return &History{
		Walks:         NewBounded[string, *Walk](l.Walks),
		Finished:      NewBounded[string, []*Walk](l.Walks),
		Offsets:       NewBounded[string, *Walk](l.Walks),
		Records:       NewBounded[RecordKey, *Sighting](l.Records),
		Referents:     NewBounded[RecordRef, *Referent](l.Referents),
		Referrers:     NewBounded[RecordRef, []*Reference](l.Referents),
		Presentations: NewBounded[RecordRef, []Presentation](l.Records),
		Written:       NewBounded[RecordRef, *Write](l.Records),
		Clients:       NewBounded[string, *ClientHistory](l.Clients),
		maxWrite:      l.Writes,
		pending:       map[*Exchange]time.Time{},
		offered:       map[RecordRef]bool{},
	}
}

// Dropped says, per store, how many entries were forgotten to stay within
// the limits (only stores that dropped something).
func (h *History) Dropped() map[string]int {
	out := map[string]int{}
	for name, n := range map[string]int{
		"walks": h.Walks.Dropped(), "finished walks": h.Finished.Dropped(), "offset walks": h.Offsets.Dropped(),
		"records": h.Records.Dropped(), "referents": h.Referents.Dropped(), "clients": h.Clients.Dropped(), "writes": h.dropped,
		"references": h.Referrers.Dropped(), "presentations": h.Presentations.Dropped(), "written records": h.Written.Dropped(),
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
// create, update). Prev is the reading before it with the same
// presentation (one deep).
type Sighting struct {
	Record       map[string]any
	Ex           *Exchange
	Op           *Operation
	Presentation Presentation
	// From is when what the reading shows may have been read: its request's
	// start, or for a page of a walk the walk's first request's (a server
	// may serve a walk from a snapshot taken then).
	From time.Time
	Prev *Sighting
}

// Reference is one reference seen in a record: its members and where.
type Reference struct {
	Object map[string]any
	Path   string // in the record that holds it ("child", "owners[1]")
	Holder RecordRef
	Ex     *Exchange
}

// Write is the last successful create or update of a record: the members
// its request sent.
type Write struct {
	Sent map[string]any
	Ex   *Exchange
}

// sighting is the write as a reading of the record.
func (w *Write) sighting() *Sighting { return &Sighting{Ex: w.Ex, From: w.Ex.Start} }

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
	// Repeats are ids that came again on a later page; PageRepeats those
	// of the newest page. TokenAgain: a pageToken came back a second
	// time (the walk loops).
	Repeats     []string
	PageRepeats []string
	TokenAgain  bool
	tokens      map[string]bool
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
	for w, start := range h.pending {
		if w != a && w != b && start.Before(b.End()) {
			return true
		}
	}
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

// WalkOf returns the walk an answer belongs to (its pages up to and
// including it), nil when it is no page of a walk the history knows.
func (h *History) WalkOf(o *Observation) *Walk { return o.walk }

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
	switch o.Op.Kind {
	case KindCreate, KindUpdate:
		h.noteWrite(o, records)
	case KindDelete:
		if id := o.PathParams["id"]; id != "" {
			h.Written.Delete(RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)})
		}
	}
	if !o.Op.ReadsRecords() {
		return
	}
	if len(records) > 0 && len(h.offered) < 1024 {
		h.offered[RecordRef{Surface: o.Surface, Resource: o.Op.Resource}] = true
	}
	pres, known := o.Presentation()
	for _, rec := range records {
		id, _ := rec["id"].(string)
		if id == "" {
			continue
		}
		ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}
		if known {
			key := RecordKey{RecordRef: ref, Presentation: pres}
			s := &Sighting{Record: rec, Ex: o.Exchange, Op: o.Op, Presentation: pres, From: o.Start}
			if o.walk != nil {
				s.From = o.walk.First().Start
			}
			if prev, ok := h.Records.Peek(key); ok {
				s.Prev = &Sighting{Record: prev.Record, Ex: prev.Ex, Op: prev.Op, Presentation: prev.Presentation, From: prev.From}
			}
			h.Records.Put(key, s)
			o.sightings = append(o.sightings, s)
			ps, _ := h.Presentations.Peek(ref)
			if !slices.Contains(ps, pres) {
				h.Presentations.Put(ref, append(slices.Clone(ps), pres))
			}
		}
		h.noteReferent(ref, rec, o.Exchange)
		for _, r := range ReferencesIn(rec, o.Op.References) {
			if r.Target == "" {
				continue
			}
			id, _ := r.Object["id"].(string)
			target := RecordRef{Surface: o.Surface, Resource: r.Target, ID: strings.ToLower(id)}
			list, _ := h.Referrers.Peek(target)
			list = append(slices.Clone(list), &Reference{Object: r.Object, Path: r.Path, Holder: ref, Ex: o.Exchange})
			if len(list) > 4 {
				list = list[len(list)-4:]
			}
			h.Referrers.Put(target, list)
		}
		if emb, ok := rec["_embedded"].(map[string]any); ok {
			h.noteEmbedded(o, emb)
		}
	}
}

// noteWrite keeps what a successful create or update sent.
func (h *History) noteWrite(o *Observation, records []map[string]any) {
	v, err := o.RequestJSON()
	sent, ok := v.(map[string]any)
	if err != nil || !ok {
		return
	}
	id := o.PathParams["id"]
	if o.Op.Kind == KindCreate && len(records) == 1 {
		id, _ = records[0]["id"].(string)
	}
	if id == "" {
		return
	}
	h.Written.Put(RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}, &Write{Sent: sent, Ex: o.Exchange})
}

// Offered reports whether some answer has shown records of a resource.
func (h *History) Offered(s Surface, resource string) bool {
	return h.offered[RecordRef{Surface: s, Resource: resource}]
}

// SightingsOf returns the readings of a record under every presentation
// it was seen with.
func (h *History) SightingsOf(ref RecordRef) []*Sighting {
	ps, _ := h.Presentations.Peek(ref)
	var out []*Sighting
	for _, p := range ps {
		if s, ok := h.Records.Peek(RecordKey{RecordRef: ref, Presentation: p}); ok {
			out = append(out, s)
		}
	}
	return out
}

// Changed reports whether a record may have changed between two readings
// of it: a successful write of that record (its id in the path) on any
// surface, or, when the record shows other records (interface B's
// references and _embedded), any write, seen while or between them; or
// the earlier reading was a write that the later one may have begun
// before.
func (h *History) Changed(earlier, later *Sighting, ref RecordRef) bool {
	if isWriteExchange(earlier.Ex) && later.From.Before(earlier.Ex.End()) {
		return true
	}
	from, to := earlier.From, earlier.Ex.End()
	if later.From.Before(from) {
		from = later.From
	}
	if later.Ex.End().After(to) {
		to = later.Ex.End()
	}
	affects := func(w *Exchange) bool {
		return ref.Surface == SurfaceB || strings.Contains(strings.ToLower(w.Path), ref.ID)
	}
	for _, w := range h.writes {
		if w == earlier.Ex || w == later.Ex || !w.Start.Before(to) || !w.End().After(from) {
			continue
		}
		if affects(w) {
			return true
		}
	}
	for w, start := range h.pending {
		if start.Before(to) && affects(w) {
			return true // under way: it may have taken effect already
		}
	}
	return false
}

// isWriteExchange: a request that may change records (neither a read nor
// a token request).
func isWriteExchange(e *Exchange) bool {
	switch e.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return e.Surface != SurfaceAuth && !strings.HasSuffix(e.Path, "/_search") && !strings.HasSuffix(e.Path, "/lookup")
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

// recordWalk follows pageToken and offset walks. An answer that is not a
// page of the contract's shape is no step of a walk: a walk of it would be
// judged on records it does not have.
func (h *History) recordWalk(o *Observation, records []map[string]any) {
	if o.Op.Paging != PagingNone && !o.IsPage() {
		if tok := o.Query.Get("pageToken"); tok != "" {
			h.Walks.Delete(tok) // followed: the walk ends here, neither complete nor abandoned
		}
		return
	}
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
		pres, _ := o.Presentation()
		w = &Walk{Client: o.Client, Op: o.Op, Key: WalkKey(o), Presentation: pres, IDs: map[string]int{}, tokens: map[string]bool{}}
	}
	h.addPage(w, o, records, 0)
	next, _ := o.Object()["pageToken"].(string)
	if next == "" {
		w.Complete = true
		h.finish(w)
		return
	}
	if w.tokens[next] {
		w.TokenAgain = true
		return
	}
	w.tokens[next] = true
	h.Walks.Put(next, w)
}

// addPage adds a page to a walk: its records at their positions (offset
// walks), ids first seen and repeated.
func (h *History) addPage(w *Walk, o *Observation, records []map[string]any, offset int) {
	page := len(w.Pages)
	w.Pages = append(w.Pages, o.Exchange)
	w.Limits = append(w.Limits, limitOf(o))
	w.Sizes = append(w.Sizes, len(records))
	w.PageRepeats = nil
	for i, rec := range records {
		id, _ := rec["id"].(string)
		id = strings.ToLower(id)
		if w.Positions != nil {
			if prev, ok := w.Positions[offset+i]; ok && prev == id {
				continue // the same position read again (an overlapping page)
			}
			w.Positions[offset+i] = id
		}
		if id == "" {
			continue
		}
		if _, seen := w.IDs[id]; seen {
			w.Repeats = append(w.Repeats, id)
			w.PageRepeats = append(w.PageRepeats, id)
			continue
		}
		w.IDs[id] = page
		w.Order = append(w.Order, id)
	}
	o.walk = w
}

// finish keeps a complete walk among the last two of its query.
func (h *History) finish(w *Walk) {
	prev, _ := h.Finished.Peek(w.Key)
	list := append(slices.Clone(prev), w)
	if len(list) > 2 {
		list = list[len(list)-2:]
	}
	h.Finished.Put(w.Key, list)
}

// FinishedWalks returns every finished walk the history keeps, least
// recently finished first.
func (h *History) FinishedWalks() []*Walk {
	var out []*Walk
	h.Finished.Each(func(_ string, ws []*Walk) bool {
		out = append(out, ws...)
		return true
	})
	return out
}

func (h *History) recordOffsetPage(o *Observation, records []map[string]any) {
	total, ok := PaginationTotal(o)
	if !ok {
		return
	}
	key := WalkKey(o)
	offset, _ := o.IntParam("offset")
	w, _ := h.Offsets.Get(key)
	if w == nil || offset == 0 || w.Complete || w.Total() != total {
		w = &Walk{Client: o.Client, Op: o.Op, Key: key, IDs: map[string]int{}, Positions: map[int]string{}}
		h.Offsets.Put(key, w)
	}
	w.Totals = append(w.Totals, total)
	h.addPage(w, o, records, offset)
	if covered(w.Positions, total) {
		w.Complete = true
		h.finish(w)
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

// First is the walk's first request.
func (w *Walk) First() *Exchange { return w.Pages[0] }

// Last reports whether o is the walk's newest page.
func (w *Walk) Last(o *Observation) bool { return w.Pages[len(w.Pages)-1] == o.Exchange }
