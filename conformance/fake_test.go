package conformance

// A small fake of the service, written in the test from the spec (never the
// mock): the token endpoint, interface B's placement list with its filters,
// sort keys and page tokens, placements and groups by id, the group lookup,
// and interface A's school and group lists, searches and group writes with
// rate-limit headers. Deviations can be switched on to prove that the checks
// catch them.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/rules"
)

const (
	fakeClient = "fake-client"
	fakeSecret = "fake-secret-0123456789"
	fakeToken  = "fake-access-token-abcdef"
)

// deviations the fake can be told to make: names of package deviation
// (the mock's named deviations), each switched on when true. The fake
// implements only some of them: the kill matrix of cmd/skolkit proves the
// suite against the mock's own.
type deviations map[string]bool

type fakePlacement struct {
	id, placedAt, group, child, start, end string
	owners                                 []string
	created, modified                      time.Time
}

type fake struct {
	dev        deviations
	placements []fakePlacement
	schools    []map[string]any
	mu         sync.Mutex
	groups     []map[string]any
	units      []map[string]any
	persons    map[string]*[]map[string]any // "/student", "/employee", "/guardian"
	audit      []map[string]any
	remaining  int
	windowEnd  time.Time // the end of the rate-limit window, fixed at the first request
	nextID     int
	// skew sets the fake's clock apart from this host's: its Date header
	// and RateLimit-Reset follow it.
	skew time.Duration
}

// aMeta is interface A's meta (the vendor's Meta).
func aMeta(t time.Time) map[string]any {
	s := t.Format("2006-01-02T15:04:05.000Z")
	return map[string]any{"createdAt": s, "createdBy": nil, "updatedAt": s, "updatedBy": nil}
}

func uuidN(kind, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", kind, n) }

func newFake(dev deviations) *fake {
	f := &fake{dev: dev, remaining: 1500}
	base := time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < 30; i++ {
		p := fakePlacement{
			id:       uuidN(1, i),
			placedAt: uuidN(2, i%3),
			group:    uuidN(3, i%4),
			child:    uuidN(4, i%10),
			owners:   []string{uuidN(5, i%6), uuidN(5, 6+i%2)},
			start:    base.AddDate(0, 0, 10*(i%12)).Format(time.DateOnly),
			created:  base.Add(time.Duration(i) * time.Hour),
			modified: base.Add(time.Duration(i*7%30) * time.Hour).Add(48 * time.Hour),
		}
		if i%3 != 0 {
			p.end = base.AddDate(1, 0, 15*(i%9)).Format(time.DateOnly)
		}
		f.placements = append(f.placements, p)
	}
	for i := 0; i < 2; i++ {
		f.units = append(f.units, map[string]any{
			"id": uuidN(10, i), "meta": aMeta(base.Add(time.Duration(i) * time.Hour)), "title": fmt.Sprintf("Förvaltning %d", i), "description": nil, "external": nil,
		})
	}
	for i := 0; i < 7; i++ {
		f.schools = append(f.schools, map[string]any{
			"id": uuidN(6, i), "meta": aMeta(base.Add(time.Duration(i) * time.Hour)), "title": fmt.Sprintf("Skola %c", 'A'+i),
			"schoolType": []string{"GR", "GY", "FS"}[i%3], "unitCode": nil, "external": nil, "unitID": uuidN(10, i%2), "csnSchoolCode": nil, "municipalityCode": nil,
		})
	}
	for i := 0; i < 12; i++ {
		f.groups = append(f.groups, map[string]any{
			"id": uuidN(3, i), "meta": aMeta(base.Add(time.Duration(i) * time.Hour)), "title": fmt.Sprintf("Grupp %d", i), "schoolID": uuidN(6, i%7),
			"category": []string{"Education", "Other"}[i%2], "types": []any{[]any{"Class"}, []any{}, []any{"Mentor", "Class"}}[i%3], "moderatorIDs": []any{}, "memberIDs": []any{}, "external": nil,
		})
	}
	f.persons = map[string]*[]map[string]any{}
	for k, path := range []string{"/student", "/employee", "/guardian"} {
		var ps []map[string]any
		for i := 0; i < 3; i++ {
			ps = append(ps, map[string]any{
				"id": uuidN(11+k, i), "meta": aMeta(base), "identityNumber": fmt.Sprintf("2010010%d-%d23%d", i+1, k, i), "firstName": "F", "lastName": "L",
			})
		}
		f.persons[path] = &ps
	}
	return f
}

func fakeMeta(t time.Time) map[string]any {
	s := t.Format("2006-01-02T15:04:05.000Z")
	return map[string]any{"created": s, "modified": s}
}

func (f *fake) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func bErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"code": http.StatusText(status), "message": msg})
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/oauth/token":
		f.token(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/v1/"):
		if r.Header.Get("Authorization") != "Bearer "+fakeToken {
			w.Header().Set("WWW-Authenticate", `Bearer realm="fake"`)
			bErr(w, 401, "no token")
			return
		}
		f.serveB(w, r, strings.TrimPrefix(r.URL.Path, "/api/v1"))
	case strings.HasPrefix(r.URL.Path, "/directory/v1/"):
		f.rateLimit(w)
		if r.Header.Get("Authorization") != "Bearer "+fakeToken {
			aErr(w, 401, "Unauthorized")
			return
		}
		f.serveA(w, r, strings.TrimPrefix(r.URL.Path, "/directory/v1"))
	default:
		http.NotFound(w, r)
	}
}

func (f *fake) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	id, secret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, secret = u, p
	}
	if !f.dev[deviation.TokenCacheable] {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
	}
	switch {
	case r.PostForm.Get("grant_type") == "":
		writeJSON(w, 400, map[string]any{"error": "invalid_request"})
	case r.PostForm.Get("grant_type") != "client_credentials":
		writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
	case id != fakeClient || secret != fakeSecret:
		w.Header().Set("WWW-Authenticate", `Basic realm="fake"`)
		writeJSON(w, 401, map[string]any{"error": "invalid_client"})
	default:
		writeJSON(w, 200, map[string]any{"access_token": fakeToken, "token_type": "Bearer", "expires_in": 3600})
	}
}

// --- interface B ---

func (f *fake) render(p fakePlacement, q url.Values) map[string]any {
	names := q.Get("expandReferenceNames") == "true" || f.dev[deviation.DisplayNameAlways]
	ref := func(id string, person bool) map[string]any {
		m := map[string]any{"id": id}
		if names {
			m["displayName"] = "Namn " + id[len(id)-3:]
			for i := 0; i < 4; i++ {
				if uuidN(3, i) == id {
					m["displayName"] = fmt.Sprintf("Avdelning %d", i)
				}
			}
		}
		if person {
			m["securityMarking"] = "Ingen"
		}
		return m
	}
	modified := p.modified
	var owners []any
	for _, o := range p.owners {
		owners = append(owners, ref(o, true))
	}
	m := map[string]any{
		"id": p.id, "placedAt": ref(p.placedAt, false), "group": ref(p.group, false), "child": ref(p.child, true),
		"owners": owners, "schoolType": "FS", "startDate": p.start,
	}
	if p.end != "" {
		m["endDate"] = p.end
	}
	if exp := q["expand"]; len(exp) > 0 {
		emb := map[string]any{}
		if slices.Contains(exp, "child") {
			emb["child"] = map[string]any{"id": p.child, "meta": fakeMeta(p.created), "givenName": "Barn", "familyName": "Fake"}
		}
		if slices.Contains(exp, "owners") {
			var os []any
			for _, o := range p.owners {
				os = append(os, map[string]any{"id": o, "meta": fakeMeta(p.created), "givenName": "Vuxen", "familyName": "Fake"})
			}
			emb["owners"] = os
		}
		m["_embedded"] = emb
		if f.dev[deviation.ExpandChangesModified] {
			modified = modified.Add(time.Minute)
		}
	}
	m["meta"] = map[string]any{"created": p.created.Format("2006-01-02T15:04:05.000Z"), "modified": modified.Format("2006-01-02T15:04:05.000Z")}
	return m
}

var filterParams = []string{"startDate.onOrBefore", "startDate.onOrAfter", "endDate.onOrBefore", "endDate.onOrAfter", "organisation", "group", "child", "owner",
	"meta.created.before", "meta.created.after", "meta.modified.before", "meta.modified.after", "sortkey"}

func (f *fake) keep(p fakePlacement, q url.Values) bool {
	open := p.end == ""
	if d := q.Get("startDate.onOrBefore"); d != "" && p.start > d {
		return false
	}
	if d := q.Get("startDate.onOrAfter"); d != "" && p.start < d {
		return false
	}
	for _, k := range []string{"endDate.onOrBefore", "endDate.onOrAfter"} {
		d := q.Get(k)
		if d == "" {
			continue
		}
		if open {
			if f.dev[deviation.EndDateFilterDropsOpenEnded] {
				return false
			}
			continue
		}
		if (k == "endDate.onOrBefore" && p.end > d) || (k == "endDate.onOrAfter" && p.end < d) {
			return false
		}
	}
	for k, v := range map[string]string{"organisation": p.placedAt, "group": p.group, "child": p.child} {
		if x := q.Get(k); x != "" && x != v {
			return false
		}
	}
	if x := q.Get("owner"); x != "" && !slices.Contains(p.owners, x) {
		return false
	}
	for k, tm := range map[string]time.Time{"meta.created": p.created, "meta.modified": p.modified} {
		if x := q.Get(k + ".before"); x != "" {
			b, _ := time.Parse(time.RFC3339Nano, x)
			if tm.After(b) {
				return false
			}
		}
		if x := q.Get(k + ".after"); x != "" {
			a, _ := time.Parse(time.RFC3339Nano, x)
			if tm.Before(a) || (tm.Equal(a) && !f.dev[deviation.MetaAfterInclusive]) {
				return false
			}
		}
	}
	return true
}

func (f *fake) serveB(w http.ResponseWriter, r *http.Request, path string) {
	q := r.URL.Query()
	if f.dev[deviation.MultiValueFirstOnly] {
		for k, vs := range q {
			q[k] = vs[:1]
		}
	}
	switch {
	case path == "/placements":
		f.listPlacements(w, q)
	case strings.HasPrefix(path, "/placements/"):
		id := strings.TrimPrefix(path, "/placements/")
		if !isUUID(id) {
			bErr(w, 400, "bad id")
			return
		}
		for _, p := range f.placements {
			if p.id == id {
				writeJSON(w, 200, f.render(p, q))
				return
			}
		}
		bErr(w, 404, "no such placement")
	case path == "/groups/lookup":
		var body struct {
			IDs []string `json:"ids"`
		}
		if json.NewDecoder(r.Body).Decode(&body) != nil || body.IDs == nil || len(body.IDs) > 500 {
			bErr(w, 400, "bad lookup")
			return
		}
		out := []any{}
		drop := f.dev[deviation.LookupDropsFirst]
		for _, id := range body.IDs {
			if !isUUID(id) {
				bErr(w, 400, "bad id")
				return
			}
			if g := f.bGroup(id, q); g != nil {
				if drop {
					drop = false // leave out the first existing group
					continue
				}
				out = append(out, g)
			}
		}
		writeJSON(w, 200, out)
	case path == "/groups":
		f.listGroups(w, q)
	case strings.HasPrefix(path, "/groups/"):
		id := strings.TrimPrefix(path, "/groups/")
		if !isUUID(id) {
			bErr(w, 400, "bad id")
			return
		}
		if g := f.bGroup(id, q); g != nil {
			writeJSON(w, 200, g)
			return
		}
		bErr(w, 404, "no such group")
	default:
		id := path[strings.LastIndex(path, "/")+1:]
		if strings.Count(path, "/") == 1 {
			bErr(w, 404, "no such resource")
			return
		}
		if !isUUID(id) {
			bErr(w, 400, "bad id")
			return
		}
		bErr(w, 404, "not found")
	}
}

// listGroups is the standard's group list, paged with an offset token:
// limit, meta.modified.before/after, sortkey=ModifiedDesc,
// expandReferenceNames.
func (f *fake) listGroups(w http.ResponseWriter, q url.Values) {
	offset := 0
	if v := q.Get("pageToken"); v != "" {
		// The token carries the query of its walk and the offset.
		tq, err := url.ParseQuery(v)
		if err != nil {
			bErr(w, 400, "bad pageToken")
			return
		}
		offset, _ = strconv.Atoi(tq.Get("offset"))
		tq.Del("offset")
		if l := q.Get("limit"); l != "" {
			tq.Set("limit", l)
		}
		if n := q.Get("expandReferenceNames"); n != "" {
			tq.Set("expandReferenceNames", n)
		}
		q = tq
	}
	var all []map[string]any
	for i := 0; i < 4; i++ {
		g := f.bGroup(uuidN(3, i), q)
		if orgs := q["organisation"]; len(orgs) > 0 && !slices.Contains(orgs, g["organisation"].(map[string]any)["id"].(string)) {
			continue
		}
		created, _ := time.Parse(time.RFC3339, g["meta"].(map[string]any)["created"].(string))
		if v := q.Get("meta.created.before"); v != "" {
			if b, _ := time.Parse(time.RFC3339Nano, v); created.After(b) {
				continue
			}
		}
		if v := q.Get("meta.created.after"); v != "" {
			if a, _ := time.Parse(time.RFC3339Nano, v); !created.After(a) {
				continue
			}
		}
		mod, _ := time.Parse(time.RFC3339, g["meta"].(map[string]any)["modified"].(string))
		if v := q.Get("meta.modified.before"); v != "" {
			b, _ := time.Parse(time.RFC3339Nano, v)
			if mod.After(b) {
				continue
			}
		}
		if v := q.Get("meta.modified.after"); v != "" {
			a, _ := time.Parse(time.RFC3339Nano, v)
			if mod.Before(a) || (mod.Equal(a) && !f.dev[deviation.MetaAfterInclusive]) {
				continue
			}
		}
		all = append(all, g)
	}
	if q.Get("sortkey") == "ModifiedDesc" && !f.dev[deviation.SortKeyIgnored] {
		slices.Reverse(all)
	}
	limit := 2
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	end := min(offset+limit, len(all))
	var tok any
	if end < len(all) {
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Del("limit")
		next.Set("offset", strconv.Itoa(end))
		tok = next.Encode()
	}
	writeJSON(w, 200, map[string]any{"data": all[min(offset, len(all)):end], "pageToken": tok})
}

func (f *fake) bGroup(id string, q url.Values) map[string]any {
	for i := 0; i < 4; i++ {
		if uuidN(3, i) == id {
			org := map[string]any{"id": uuidN(2, i%3)}
			member := map[string]any{"id": uuidN(4, i), "securityMarking": "Ingen"}
			if q.Get("expandReferenceNames") == "true" || f.dev[deviation.DisplayNameAlways] {
				org["displayName"] = "Förskolan"
				member["displayName"] = "Barn"
			}
			return map[string]any{"id": id, "meta": fakeMeta(time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC)), "displayName": fmt.Sprintf("Avdelning %d", i),
				"startDate": "2024-01-01", "groupType": "Avdelning", "organisation": org,
				"groupMemberships": []any{map[string]any{"person": member, "startDate": "2024-01-01"}}}
		}
	}
	return nil
}

func (f *fake) listPlacements(w http.ResponseWriter, q url.Values) {
	limit := 10
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			bErr(w, 400, "bad limit")
			return
		}
		limit = min(n, 1000) // SS 12000: no maximum; a larger limit gets a full page
	}
	offset := 0
	if tok := q.Get("pageToken"); tok != "" {
		for _, k := range filterParams {
			if q.Has(k) && !f.dev[deviation.PageTokenWithFilterAccepted] {
				bErr(w, 400, "pageToken cannot be combined with "+k)
				return
			}
		}
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		orig, off, ok := strings.Cut(string(raw), "#")
		if err != nil || !ok {
			bErr(w, 400, "unknown pageToken")
			return
		}
		offset, _ = strconv.Atoi(off)
		q2, _ := url.ParseQuery(orig)
		q2["expand"], q2["expandReferenceNames"] = q["expand"], q["expandReferenceNames"]
		q = q2
	}
	for _, k := range []string{"startDate.onOrBefore", "startDate.onOrAfter", "endDate.onOrBefore", "endDate.onOrAfter"} {
		if v := q.Get(k); v != "" && !rules.IsDate(v) {
			bErr(w, 400, "bad date")
			return
		}
	}
	var sel []fakePlacement
	for _, p := range f.placements {
		if f.keep(p, q) {
			sel = append(sel, p)
		}
	}
	key := q.Get("sortkey")
	if f.dev[deviation.SortKeyIgnored] && slices.Contains([]string{"StartDateAsc", "StartDateDesc", "EndDateAsc", "EndDateDesc", "ModifiedDesc"}, key) {
		key = ""
	}
	switch key {
	case "":
	case "StartDateAsc", "StartDateDesc":
		sort.SliceStable(sel, func(i, j int) bool {
			return (sel[i].start < sel[j].start) == (key == "StartDateAsc") && sel[i].start != sel[j].start
		})
	case "EndDateAsc", "EndDateDesc":
		asc := key == "EndDateAsc"
		sort.SliceStable(sel, func(i, j int) bool {
			a, b := sel[i].end, sel[j].end
			if a == b {
				return false
			}
			if a == "" || b == "" {
				return (b == "") == asc
			}
			return (a < b) == asc
		})
	case "ModifiedDesc":
		sort.SliceStable(sel, func(i, j int) bool { return sel[i].modified.After(sel[j].modified) })
	default:
		bErr(w, 400, "bad sortkey")
		return
	}
	end := min(offset+limit, len(sel))
	var data []any
	for _, p := range sel[min(offset, len(sel)):end] {
		data = append(data, f.render(p, q))
	}
	if f.dev[deviation.PageTokenRepeatsLast] && offset > 0 && offset <= len(sel) {
		data = append([]any{f.render(sel[offset-1], q)}, data...)
	}
	if data == nil {
		data = []any{}
	}
	var next any
	if end < len(sel) {
		orig := url.Values{}
		for _, k := range filterParams {
			if q.Has(k) {
				orig[k] = q[k]
			}
		}
		next = base64.RawURLEncoding.EncodeToString([]byte(orig.Encode() + "#" + strconv.Itoa(end)))
	}
	writeJSON(w, 200, map[string]any{"data": data, "pageToken": next})
}

// --- interface A ---

func aErr(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": code, "requestID": "req-1"}})
}

func (f *fake) rateLimit(w http.ResponseWriter) {
	now := time.Now().Add(f.skew)
	f.mu.Lock()
	f.remaining--
	rem := f.remaining
	if f.windowEnd.IsZero() {
		f.windowEnd = now.Add(30 * time.Minute)
	}
	reset := f.windowEnd
	f.mu.Unlock()
	if f.skew != 0 {
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	}
	w.Header().Set("RateLimit-Limit", "1500")
	w.Header().Set("RateLimit-Remaining", strconv.Itoa(rem))
	if f.dev[deviation.RateLimitResetInSeconds] {
		w.Header().Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	} else {
		w.Header().Set("RateLimit-Reset", strconv.FormatInt(reset.UnixMilli(), 10))
	}
}

func (f *fake) serveA(w http.ResponseWriter, r *http.Request, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var coll *[]map[string]any
	var rest string
	switch {
	case path == "/school" || strings.HasPrefix(path, "/school/"):
		coll, rest = &f.schools, strings.TrimPrefix(path, "/school")
	case path == "/group" || strings.HasPrefix(path, "/group/"):
		coll, rest = &f.groups, strings.TrimPrefix(path, "/group")
	case path == "/unit" || strings.HasPrefix(path, "/unit/"):
		coll, rest = &f.units, strings.TrimPrefix(path, "/unit")
	case path == "/audit-event" || strings.HasPrefix(path, "/audit-event/"):
		coll, rest = &f.audit, strings.TrimPrefix(path, "/audit-event")
	case f.persons[path] != nil:
		coll = f.persons[path]
	case strings.Count(path, "/") == 2 && f.persons[path[:strings.LastIndex(path, "/")]] != nil:
		base := path[:strings.LastIndex(path, "/")]
		coll, rest = f.persons[base], strings.TrimPrefix(path, base)
	default:
		aErr(w, 404, "NotFound")
		return
	}
	q := r.URL.Query()
	switch {
	case rest == "" && r.Method == http.MethodGet:
		f.aList(w, q, *coll)
	case rest == "/_search" && r.Method == http.MethodPost:
		var body map[string]any
		if json.NewDecoder(r.Body).Decode(&body) != nil {
			aErr(w, 400, "BadRequest")
			return
		}
		filter, ok := body["filter"].(map[string]any)
		if !ok {
			aErr(w, 422, "UnprocessableEntity")
			return
		}
		var sel []map[string]any
		for _, it := range *coll {
			if rules.MatchSearch(filter, it) {
				sel = append(sel, it)
			}
		}
		f.aList(w, q, sel)
	case rest == "" && r.Method == http.MethodPost:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if _, ok := body["title"].(string); !ok {
			aErr(w, 422, "UnprocessableEntity")
			return
		}
		f.nextID++
		body["id"] = uuidN(9, f.nextID)
		body["meta"] = aMeta(time.Now().UTC())
		*coll = append(*coll, body)
		writeJSON(w, 201, body)
	default:
		id := strings.TrimPrefix(rest, "/")
		if !isUUID(id) {
			aErr(w, 400, "BadRequest")
			return
		}
		i := slices.IndexFunc(*coll, func(m map[string]any) bool { return m["id"] == id })
		if i < 0 {
			aErr(w, 404, "NotFound")
			return
		}
		switch r.Method {
		case http.MethodGet:
			writeJSON(w, 200, (*coll)[i])
		case http.MethodPatch:
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			if t, ok := body["title"]; ok {
				if _, ok := t.(string); !ok {
					aErr(w, 422, "UnprocessableEntity")
					return
				}
			}
			rec := (*coll)[i]
			if f.dev[deviation.PatchReplaces] && coll == &f.schools {
				rec = map[string]any{"id": rec["id"], "meta": rec["meta"]}
			}
			for k, v := range body {
				rec[k] = v
			}
			meta := rec["meta"].(map[string]any)
			rec["meta"] = map[string]any{"createdAt": meta["createdAt"], "createdBy": nil, "updatedAt": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "updatedBy": nil}
			(*coll)[i] = rec
			writeJSON(w, 200, rec)
		case http.MethodDelete:
			*coll = slices.Delete(*coll, i, i+1)
			if !f.dev[deviation.AuditEventMissing] {
				f.nextID++
				now := time.Now().UTC()
				f.audit = append(f.audit, map[string]any{"id": uuidN(12, f.nextID), "meta": aMeta(now), "timestamp": now.Format("2006-01-02T15:04:05.000Z"),
					"resource": "Group", "resourceID": id, "type": "Delete"})
			}
			if f.dev[deviation.RateLimitHeadersMissingOn204] {
				w.Header().Del("RateLimit-Limit")
				w.Header().Del("RateLimit-Remaining")
				w.Header().Del("RateLimit-Reset")
			}
			if f.dev[deviation.DeleteNot204] {
				writeJSON(w, 200, map[string]any{"deleted": id})
				return
			}
			w.WriteHeader(204)
		}
	}
}

func (f *fake) aList(w http.ResponseWriter, q url.Values, items []map[string]any) {
	limit, offset := 50, 0
	var err error
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 {
			aErr(w, 400, "BadRequest")
			return
		}
		if f.dev[deviation.ListLimitIgnored] {
			limit = 50
		}
	}
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			aErr(w, 400, "BadRequest")
			return
		}
	}
	total := len(items)
	page := items[min(offset, total):min(offset+limit, total)]
	if f.dev[deviation.PaginationTotalWrong] {
		total++
	}
	data := []any{}
	for _, it := range page {
		data = append(data, it)
	}
	writeJSON(w, 200, map[string]any{"data": data, "pagination": map[string]any{"offset": offset, "limit": limit, "total": total}})
}

// fakeConfig points a run at a fake server.
// testTimeout is the runner's timeout of a request in the tests whose
// servers answer at once: a bound against a hang, never a speed target, so
// that a busy machine cannot fail them.
const testTimeout = 2 * time.Minute

func fakeConfig(url string, include ...string) Config {
	return Config{
		AuthURL: url, RegisterURL: url + "/api/v1", BaseURL: url + "/directory/v1",
		ClientID: fakeClient, ClientSecret: fakeSecret, Include: include, Level: LevelWrite,
		Timeout: testTimeout,
	}
}
