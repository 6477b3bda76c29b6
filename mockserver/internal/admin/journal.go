package admin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
)

// DefaultJournalSize is how many requests the journal keeps when
// Options.JournalSize is 0.
const DefaultJournalSize = 1000

// Caps on what one journal entry keeps, so that the journal's memory stays
// bounded whatever the requests look like.
const (
	journalMaxPath   = 2048
	journalMaxMethod = 32
	journalMaxClient = 256
)

// statusClientGone is the status the journal records for a request whose
// client went away before it was answered (nginx's convention).
const statusClientGone = 499

// JournalEntry is one request in the journal.
type JournalEntry struct {
	// Seq increases by one per request the server journals.
	Seq uint64 `json:"seq"`
	// Time is the server's clock when the request arrived.
	Time time.Time `json:"time"`
	// ClientID is the client the request names: by its bearer token, its
	// Client-ID header or, on the token endpoint, its credentials; empty
	// when it names none.
	ClientID string `json:"clientID"`
	Method   string `json:"method"`
	// Path is the path and query as sent, cut at 2048 bytes.
	Path   string `json:"path"`
	Status int    `json:"status"`
	// DurationMS is the wall time from arrival to the end of the answer.
	DurationMS float64 `json:"durationMs"`
	// RequestID is the X-Request-ID of the answer, when it has one.
	RequestID string `json:"requestID,omitempty"`
}

// RequestFilter selects journal entries; empty fields select every entry.
type RequestFilter struct {
	// Method matches case-insensitively.
	Method string
	// PathPrefix is a prefix of the path with query.
	PathPrefix string
	// Status is a status (404) or a class (4xx); empty for any.
	Status string
	// ClientID matches exactly.
	ClientID string
}

// parseStatusFilter checks a status filter: a status from 100 to 599, or a
// class from 1xx to 5xx.
func parseStatusFilter(s string) error {
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	if len(s) == 3 && s[0] >= '1' && s[0] <= '5' && (s[1:] == "xx" || digit(s[1]) && digit(s[2])) {
		return nil
	}
	return fmt.Errorf("status %q is neither a status like 404 nor a class like 4xx", s)
}

func (f RequestFilter) match(e *JournalEntry) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, e.Method) {
		return false
	}
	if f.PathPrefix != "" && !strings.HasPrefix(e.Path, f.PathPrefix) {
		return false
	}
	if f.ClientID != "" && f.ClientID != e.ClientID {
		return false
	}
	if f.Status != "" {
		st := strconv.Itoa(e.Status)
		if strings.HasSuffix(f.Status, "xx") {
			return len(st) == 3 && st[0] == f.Status[0]
		}
		return st == f.Status
	}
	return true
}

// journal is a ring buffer of the last requests. Its memory is bounded by
// its capacity: an entry's strings are capped, and a new entry overwrites
// the oldest once the ring is full.
type journal struct {
	mu      sync.Mutex
	ring    []JournalEntry
	next    int // where the next entry goes
	full    bool
	seq     uint64
	dropped uint64
}

func newJournal(size int) *journal {
	if size < 0 {
		size = 0
	}
	return &journal{ring: make([]JournalEntry, size)}
}

func (j *journal) add(e JournalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	if len(j.ring) == 0 {
		return
	}
	e.Seq = j.seq
	if j.full {
		j.dropped++
	}
	j.ring[j.next] = e
	j.next++
	if j.next == len(j.ring) {
		j.next, j.full = 0, true
	}
}

// list returns the matching entries, oldest first, and how many entries
// were pushed out since the last clear.
func (j *journal) list(f RequestFilter) ([]JournalEntry, uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []JournalEntry{}
	visit := func(es []JournalEntry) {
		for i := range es {
			if f.match(&es[i]) {
				out = append(out, es[i])
			}
		}
	}
	if j.full {
		visit(j.ring[j.next:])
	}
	visit(j.ring[:j.next])
	return out, j.dropped
}

// clear empties the journal and returns how many entries it held.
func (j *journal) clear() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := j.next
	if j.full {
		n = len(j.ring)
	}
	clear(j.ring)
	j.next, j.full, j.dropped = 0, false, 0
	return n
}

func (j *journal) capacity() int { return len(j.ring) }

// Requests returns the journal entries that match the filter, oldest first:
// what GET /__admin/requests answers, for Go tests.
func (s *Plane) Requests(f RequestFilter) []JournalEntry {
	out, _ := s.journal.list(f)
	return out
}

// Recorder is the ResponseWriter of a journalled request: it remembers the
// status answered.
type Recorder struct {
	http.ResponseWriter
	status int
	// Panicked is set when the handler panicked (the journal records 500).
	Panicked bool
}

func (r *Recorder) WriteHeader(code int) {
	if r.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *Recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(p)
}

// Flush lets handlers that stream flush through the recorder.
func (r *Recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the underlying writer.
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Begin starts the journal entry of a request; Finish completes and stores it.
func (s *Plane) Begin(r *http.Request) JournalEntry {
	return JournalEntry{
		Time:     s.now(),
		ClientID: capString(s.clientOf(r), journalMaxClient),
		Method:   capString(r.Method, journalMaxMethod),
		Path:     capString(r.URL.RequestURI(), journalMaxPath),
	}
}

func (s *Plane) Finish(e JournalEntry, rec *Recorder, r *http.Request, start time.Time) {
	switch {
	case rec.Panicked:
		e.Status = http.StatusInternalServerError
	case rec.status != 0:
		e.Status = rec.status
	case r.Context().Err() != nil:
		e.Status = statusClientGone
	default:
		e.Status = http.StatusOK // net/http's answer to a handler that writes nothing
	}
	e.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	e.RequestID = rec.Header().Get(surface.HeaderRequestID)
	s.journal.add(e)
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// JournalPage is the answer of GET /__admin/requests.
type JournalPage struct {
	Requests []JournalEntry `json:"requests"`
	Capacity int            `json:"capacity"`
	Dropped  uint64         `json:"dropped"`
}

func (s *Plane) adminRequests(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := RequestFilter{Method: q.Get("method"), PathPrefix: q.Get("pathPrefix"), Status: q.Get("status"), ClientID: q.Get("clientID")}
	if f.Status != "" {
		if err := parseStatusFilter(f.Status); err != nil {
			surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, err.Error())
			return
		}
	}
	entries, dropped := s.journal.list(f)
	surface.WriteJSON(w, http.StatusOK, JournalPage{Requests: entries, Capacity: s.journal.capacity(), Dropped: dropped})
}

func (s *Plane) adminClearRequests(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, surface.Cleared{Cleared: s.journal.clear()})
}
