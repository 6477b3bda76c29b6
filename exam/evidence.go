package exam

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/skolkit/skolkit/rules"
)

// The exam's evidence of what the client was given: every record the
// mock's answers delivered to it (by list, by id, by lookup, by search), at
// which version and in which round; every deletion it was told of
// (interface B's deletedEntities, interface A's audit events, a 404 by id);
// and every walk of a list it started, with the filters it asked for and
// whether it followed the walk to its end.

// delivery is one record as an answer delivered it.
type delivery struct {
	Version string
	Round   int
	Ex      *Exchange
}

// walk is one walk of a list by the client: its first page and the pages
// that followed it.
type walk struct {
	Key   resourceKey
	Round int
	// Filters are the first page's selection, canonical: the query
	// without paging and presentation parameters, or the search body.
	Filters string
	// Scope is the selection without conditions on when records changed:
	// which records the client reads, for the oracle to read too. Nil
	// means every record of the list.
	Scope *scopeQuery
	// Changes reports that the selection has conditions on when records
	// changed (an incremental read).
	Changes bool
	// Orphan: the walk's first page was not seen (a token from an earlier
	// round).
	Orphan      bool
	First, Last *Exchange
	IDs         map[string]bool
	Complete    bool
	Pages       int
}

// scopeQuery is a selection the oracle can read: query filters of a GET
// list, or the filter of a search.
type scopeQuery struct {
	Query  url.Values
	Search any
}

func (q *scopeQuery) canonical() string {
	if q == nil {
		return ""
	}
	b, _ := json.Marshal(q.Search)
	return q.Query.Encode() + "|" + string(b)
}

// evidence gathers a scene's evidence from its exchanges.
type evidence struct {
	got    map[resourceKey]map[string][]delivery
	gone   map[resourceKey]map[string][]delivery
	walks  []*walk
	tokens map[string]*walk
	open   map[string]*walk
	// authenticated counts per round the requests the mock accepted the
	// client's credentials for.
	authenticated map[int]int
	requests      map[int]int
	// deletedNames maps the members of deletedEntities' data to lists.
	deletedNames map[string]resourceKey
}

func newEvidence(lists []listOp) *evidence {
	e := &evidence{got: map[resourceKey]map[string][]delivery{}, gone: map[resourceKey]map[string][]delivery{},
		tokens: map[string]*walk{}, open: map[string]*walk{}, authenticated: map[int]int{}, requests: map[int]int{},
		deletedNames: map[string]resourceKey{}}
	for _, l := range lists {
		if l.Surface == surfaceB {
			e.deletedNames[pluralNorm(strings.TrimPrefix(string(l.Key), string(surfaceB)+" /"))] = l.Key
		}
	}
	return e
}

// pluralNorm folds a resource name for matching deletedEntities' members
// to list paths: lower case, without a final s (attendanceSchedules and
// /attendanceSchedule, studyPlans and /studyplans), SS 12000's misspelt
// activitites as activities.
func pluralNorm(s string) string {
	s = strings.ToLower(s)
	if s == "activitites" {
		s = "activities"
	}
	return strings.TrimSuffix(s, "s")
}

// auditEvents is interface A's list of deletions.
const auditEvents resourceKey = "A /audit-event"

// Parameters that page or present a list without selecting records.
var pagingParams = []string{"pageToken", "limit", "offset", "expand", "expandReferenceNames", "sortkey"}

// isChangeParam reports whether a query parameter selects by when records
// changed.
func isChangeParam(name string) bool {
	return strings.HasPrefix(name, "meta.") || name == "after"
}

func (e *evidence) add(key resourceKey, r record, round int, ex *Exchange) {
	m := e.got[key]
	if m == nil {
		m = map[string][]delivery{}
		e.got[key] = m
	}
	m[r.ID] = append(m[r.ID], delivery{Version: r.Version, Round: round, Ex: ex})
}

// deleted records that an answer told the client a record is gone.
func (e *evidence) deleted(key resourceKey, id string, round int, ex *Exchange) {
	m := e.gone[key]
	if m == nil {
		m = map[string][]delivery{}
		e.gone[key] = m
	}
	id = strings.ToLower(id)
	m[id] = append(m[id], delivery{Round: round, Ex: ex})
}

// authenticatedRequest reports whether the mock accepted the credentials
// an exchange carried.
func authenticatedRequest(ex *Exchange) bool {
	if ex.Surface != surfaceA && ex.Surface != surfaceB && ex.Surface != surfaceExport {
		return false
	}
	h := ex.RequestHeader
	has := strings.HasPrefix(strings.ToLower(h.Get("Authorization")), "bearer ") || h.Get("Client-Secret") != ""
	return has && ex.Status != 0 && ex.Status != http.StatusUnauthorized
}

// observe takes one exchange of a round into the evidence.
func (e *evidence) observe(ex *Exchange, round int) {
	if ex.Surface != rules.SurfaceAuth && ex.Surface != "" {
		e.requests[round]++
	}
	if authenticatedRequest(ex) {
		e.authenticated[round]++
	}
	segs := strings.Split(strings.Trim(ex.Path, "/"), "/")
	if ex.Surface == "" || ex.Surface == rules.SurfaceAuth || len(segs) == 0 || segs[0] == "" {
		return
	}
	key := keyOf(ex.Surface, ex.Path)
	if ex.Status == http.StatusNotFound && ex.Method == http.MethodGet && len(segs) == 2 {
		e.deleted(key, segs[1], round, ex)
		return
	}
	if ex.Status/100 != 2 || ex.ResponseTruncated {
		return
	}
	switch {
	case ex.Surface == surfaceB && segs[0] == "deletedEntities" && ex.Method == http.MethodGet:
		e.observeDeletedEntities(ex, round)
	case ex.Method == http.MethodGet && len(segs) == 1:
		e.observePage(ex, key, round, nil)
	case ex.Surface != surfaceB && ex.Method == http.MethodPost && len(segs) == 2 && segs[1] == "_search":
		var body any
		if json.Unmarshal(ex.RequestBody, &body) != nil {
			return
		}
		e.observePage(ex, key, round, body)
	case ex.Method == http.MethodGet && len(segs) == 2:
		var v any
		if json.Unmarshal(ex.ResponseBody, &v) == nil {
			if r, ok := recordOf(v); ok {
				e.add(key, r, round, ex)
				e.observeAuditEvents(ex, round, []any{v})
			}
		}
	case ex.Surface == surfaceB && ex.Method == http.MethodPost && len(segs) == 2 && segs[1] == "lookup":
		var vs []any
		if json.Unmarshal(ex.ResponseBody, &vs) == nil {
			for _, v := range vs {
				if r, ok := recordOf(v); ok {
					e.add(key, r, round, ex)
				}
			}
		}
	}
}

// observePage takes a list or search page: its records, and the walk it
// belongs to.
func (e *evidence) observePage(ex *Exchange, key resourceKey, round int, search any) {
	page, ok := readListPage(ex.ResponseBody)
	if !ok {
		return
	}
	for _, r := range page.Records {
		e.add(key, r, round, ex)
	}
	if key == auditEvents {
		var doc struct {
			Data []any `json:"data"`
		}
		if json.Unmarshal(ex.ResponseBody, &doc) == nil {
			e.observeAuditEvents(ex, round, doc.Data)
		}
	}
	var w *walk
	if ex.Surface == surfaceB {
		if tok := ex.Query.Get("pageToken"); tok != "" {
			w = e.tokens[tok]
			delete(e.tokens, tok)
		}
	} else if off, _ := strconv.Atoi(ex.Query.Get("offset")); off > 0 {
		w = e.open[openKey(key, ex, search)]
	}
	if w == nil {
		w = newWalk(key, round, ex, search)
		e.walks = append(e.walks, w)
	}
	w.Last = ex
	w.Pages++
	for _, r := range page.Records {
		w.IDs[r.ID] = true
	}
	switch {
	case ex.Surface == surfaceB:
		w.Complete = page.PageToken == ""
		if page.PageToken != "" {
			e.tokens[page.PageToken] = w
		}
	default:
		off, _ := strconv.Atoi(ex.Query.Get("offset"))
		w.Complete = !page.HasTotal || len(page.Records) == 0 || off+len(page.Records) >= page.Total
		if w.Complete {
			delete(e.open, openKey(key, ex, search))
		} else {
			e.open[openKey(key, ex, search)] = w
		}
	}
}

// openKey identifies an offset walk: its list and its selection.
func openKey(key resourceKey, ex *Exchange, search any) string {
	b, _ := json.Marshal(search)
	return string(key) + "?" + selection(ex.Query).Encode() + "|" + string(b)
}

// selection is a query without its paging and presentation parameters.
func selection(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		if !slices.Contains(pagingParams, k) {
			out[k] = v
		}
	}
	return out
}

func newWalk(key resourceKey, round int, first *Exchange, search any) *walk {
	w := &walk{Key: key, Round: round, First: first, IDs: map[string]bool{}}
	sel := selection(first.Query)
	if first.Surface == surfaceB && first.Query.Get("pageToken") != "" {
		w.Orphan = true
		return w
	}
	if first.Surface != surfaceB && first.Query.Get("offset") != "" && first.Query.Get("offset") != "0" {
		w.Orphan = true
	}
	b, _ := json.Marshal(search)
	w.Filters = sel.Encode() + "|" + string(b)
	scope := &scopeQuery{Query: url.Values{}}
	for k, v := range sel {
		if isChangeParam(k) {
			w.Changes = true
			continue
		}
		scope.Query[k] = v
	}
	if search != nil {
		s, changes := withoutChangeConditions(search)
		w.Changes = w.Changes || changes
		scope.Search = s
	}
	if len(scope.Query) > 0 || scope.Search != nil {
		w.Scope = scope
	}
	return w
}

// withoutChangeConditions removes from an interface-A search body every
// condition on meta (when records were created or changed), and reports
// whether it had one. What is left selects the records the client reads;
// nil when nothing is.
func withoutChangeConditions(body any) (any, bool) {
	m, ok := body.(map[string]any)
	if !ok {
		return body, false
	}
	f, changes := stripMeta(m["filter"])
	if f == nil {
		return nil, changes
	}
	return map[string]any{"filter": f}, changes
}

// stripMeta removes meta from every operator of a filter and its nested
// filters; nil when no condition is left.
func stripMeta(v any) (any, bool) {
	f, ok := v.(map[string]any)
	if !ok {
		return v, false
	}
	out := map[string]any{}
	changes, conditions := false, false
	for k, val := range f {
		switch k {
		case "orCondition":
			out[k] = val
		case "nestedFilters":
			nested, _ := val.([]any)
			var keep []any
			for _, n := range nested {
				s, c := stripMeta(n)
				changes = changes || c
				if s != nil {
					keep = append(keep, s)
				}
			}
			if len(keep) > 0 {
				out[k], conditions = keep, true
			}
		default:
			op, ok := val.(map[string]any)
			if !ok {
				if val != nil {
					out[k], conditions = val, true
				}
				continue
			}
			rest := map[string]any{}
			for field, c := range op {
				if field == "meta" {
					changes = true
					continue
				}
				rest[field] = c
			}
			if len(rest) > 0 {
				out[k], conditions = rest, true
			}
		}
	}
	if !conditions {
		return nil, changes
	}
	return out, changes
}

// observeDeletedEntities takes interface B's list of deleted ids.
func (e *evidence) observeDeletedEntities(ex *Exchange, round int) {
	var doc struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(ex.ResponseBody, &doc) != nil {
		return
	}
	for name, raw := range doc.Data {
		key, ok := e.deletedNames[pluralNorm(name)]
		var ids []string
		if !ok || json.Unmarshal(raw, &ids) != nil {
			continue
		}
		for _, id := range ids {
			e.deleted(key, id, round, ex)
		}
	}
}

// observeAuditEvents takes interface A's audit events of deletions.
func (e *evidence) observeAuditEvents(ex *Exchange, round int, events []any) {
	if keyOf(ex.Surface, ex.Path) != auditEvents {
		return
	}
	for _, v := range events {
		m, ok := v.(map[string]any)
		if !ok || m["type"] != "Delete" {
			continue
		}
		res, _ := m["resource"].(string)
		id, _ := m["resourceID"].(string)
		if res != "" && id != "" {
			e.deleted(resourceKey(string(surfaceA)+" /"+kebab(res)), id, round, ex)
		}
	}
}

// kebab writes an interface-A resource name as its path: StudentPlacement
// as student-placement.
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
