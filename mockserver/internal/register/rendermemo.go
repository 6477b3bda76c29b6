package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// placementMemo keeps the JSON of rendered placements, so that a page of 100
// placements is mostly copying bytes instead of rendering and encoding 100
// records by reflection.
//
// Stored records are immutable (a write stores a new record), so an entry is
// keyed by the record's pointer and the renderer options that change its
// JSON. The JSON also depends on the records the placement refers to (the
// security marking of the child and the owners; with reference names the
// names of the organisation, group and persons), which are written on their
// own. An entry therefore keeps the pointers of the records its JSON was
// rendered from, and a hit is used only when the snapshot being served holds
// the same records: a changed person, organisation or group makes it a miss
// whoever wrote it (a request, the admin API, or a Go test through Store()).
// Expanded placements (_embedded) are not memoised.
//
// The key holds the placement pointer, so a memoised record is not freed and
// its address cannot be reused by another record while the entry exists. The
// memo is bounded by the bytes it holds; when full it starts again empty.
type placementMemo struct {
	entries sync.Map // memoKey → *memoEntry
	size    atomic.Int64
}

// placementMemoBytes bounds a server's placement memo: about 50,000
// placements of the default scenario's size.
const placementMemoBytes = 32 << 20

type memoKey struct {
	p         *model.Placement
	names     bool
	noMarking bool
}

type memoEntry struct {
	child  *model.Person
	owners []*model.Person
	org    *model.Organisation // only with reference names
	group  *model.Group        // only with reference names
	json   []byte
}

// memoEntryOverhead approximates an entry's memory besides its JSON.
const memoEntryOverhead = 160

// appendPlacement appends the JSON of p as rd renders it without expand:
// byte for byte what encoding/json (HTML escaping off) writes for
// rd.placement(p, placementExpand{}).
func (m *placementMemo) appendPlacement(dst []byte, rd renderer, p *model.Placement) []byte {
	key := memoKey{p: p, names: rd.names, noMarking: rd.noMarking}
	if v, ok := m.entries.Load(key); ok {
		if e := v.(*memoEntry); e.current(rd, p) {
			return append(dst, e.json...)
		}
	}
	e := m.render(rd, p)
	if old, loaded := m.entries.Swap(key, e); loaded {
		m.size.Add(-old.(*memoEntry).cost())
	}
	if m.size.Add(e.cost()) > placementMemoBytes {
		m.entries.Clear()
		m.size.Store(0)
	}
	return append(dst, e.json...)
}

// current reports whether the snapshot of rd holds the records e was
// rendered from.
func (e *memoEntry) current(rd renderer, p *model.Placement) bool {
	if c, _ := rd.sn.Person(p.Child.ID); c != e.child {
		return false
	}
	if len(p.Owners) != len(e.owners) {
		return false
	}
	for i, o := range p.Owners {
		if op, _ := rd.sn.Person(o.ID); op != e.owners[i] {
			return false
		}
	}
	if rd.names {
		if o, _ := rd.sn.Organisation(p.PlacedAt.ID); o != e.org {
			return false
		}
		if p.Group != nil {
			if g, _ := rd.sn.Group(p.Group.ID); g != e.group {
				return false
			}
		}
	}
	return true
}

func (e *memoEntry) cost() int64 { return int64(len(e.json)+8*len(e.owners)) + memoEntryOverhead }

// render renders p and notes the records the rendering read. The snapshot
// does not change, so the renderer's own lookups find the same records.
func (m *placementMemo) render(rd renderer, p *model.Placement) *memoEntry {
	e := &memoEntry{}
	e.child, _ = rd.sn.Person(p.Child.ID)
	if len(p.Owners) > 0 {
		e.owners = make([]*model.Person, len(p.Owners))
		for i, o := range p.Owners {
			e.owners[i], _ = rd.sn.Person(o.ID)
		}
	}
	if rd.names {
		e.org, _ = rd.sn.Organisation(p.PlacedAt.ID)
		if p.Group != nil {
			e.group, _ = rd.sn.Group(p.Group.ID)
		}
	}
	e.json = marshalJSON(rd.placement(p, placementExpand{}))
	return e
}

// marshalJSON encodes v as surface.WriteJSON does, without the final newline.
func marshalJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the model types always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// bodyPool recycles response buffers.
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledBody keeps an occasional huge page (limit=1000) out of the pool.
const maxPooledBody = 1 << 20

// writeBody writes a JSON body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", surface.ContentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// putBuffer returns a buffer taken from bodyPool.
func putBuffer(buf *[]byte) {
	if cap(*buf) <= maxPooledBody {
		*buf = (*buf)[:0]
		bodyPool.Put(buf)
	}
}

// selfCheck reports whether the interface-B reads check what the memo and the
// cache give against rendering anew (Options.SelfCheck).
func (s *API) selfCheck() bool { return s.selfChecking }

// checkBody is the self-check of Options.SelfCheck: the body built
// from memoised records must equal what encoding/json writes for the
// rendered records, and a cached response must equal the body built now
// (when both are of the same generation: compare says so).
func (s *API) checkBody(r *http.Request, built, legacy, cached []byte, compare bool) {
	if !bytes.Equal(built, legacy) {
		fmt.Fprintf(os.Stderr, "self-check: %s %s: memoised body differs\n", r.Method, r.URL)
		panic(fmt.Sprintf("self-check: %s %s: memoised body differs from encoding/json's:\n%s\n%s", r.Method, r.URL, built, legacy))
	}
	if compare && !bytes.Equal(built, cached) {
		fmt.Fprintf(os.Stderr, "self-check: %s %s: cached response differs\n", r.Method, r.URL)
		panic(fmt.Sprintf("self-check: %s %s: cached response of a stable generation differs from the answer now:\n%s\n%s", r.Method, r.URL, cached, built))
	}
}

// appendJSONString appends s as encoding/json writes it when s needs no
// escaping (page tokens are base64url and "."), and through encoding/json
// otherwise.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return append(dst, marshalJSON(s)...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// responseCache keeps whole interface-B response bodies of one stable
// generation of the store (views.go), keyed by the request's path and
// query: the same request at the same generation gets the same bytes. It
// holds one generation at a time and at most responseCacheBytes of it.
type responseCache struct {
	cur atomic.Pointer[responseGen]
}

type responseGen struct {
	gen     uint64
	entries sync.Map // responseKey → []byte
	size    atomic.Int64
}

type responseKey struct{ path, query string }

// responseCacheBytes bounds a server's response cache.
const responseCacheBytes = 16 << 20

func responseKeyOf(r *http.Request) responseKey {
	return responseKey{path: r.URL.EscapedPath(), query: r.URL.RawQuery}
}

func (c *responseCache) get(v view, k responseKey) ([]byte, bool) {
	if !v.stable {
		return nil, false
	}
	cur := c.cur.Load()
	if cur == nil || cur.gen != v.gen {
		return nil, false
	}
	b, ok := cur.entries.Load(k)
	if !ok {
		return nil, false
	}
	return b.([]byte), true
}

// put keeps a copy of body as the answer to k at the view's generation.
func (c *responseCache) put(v view, k responseKey, body []byte) {
	if !v.stable {
		return
	}
	cur := c.cur.Load()
	for cur == nil || cur.gen < v.gen {
		if c.cur.CompareAndSwap(cur, &responseGen{gen: v.gen}) {
			cur = c.cur.Load()
			break
		}
		cur = c.cur.Load()
	}
	if cur.gen != v.gen {
		return
	}
	if cur.size.Add(int64(len(body))+int64(len(k.path)+len(k.query))) > responseCacheBytes {
		return
	}
	cur.entries.Store(k, bytes.Clone(body))
}
