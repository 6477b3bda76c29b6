package register

// POST /log/ and POST /statistics/ of SS 12000: a client reports
// an event or the counts of a synchronisation. The contract validates the
// entry (LogEntry, StatisticsEntry); the server keeps the newest MaxReports
// of each kind, readable at GET /__admin/logs and /__admin/statistics.

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
)

// MaxReports is how many log entries, and how many statistics entries, the
// server keeps.
const MaxReports = 1000

// Report is one kept log or statistics entry.
type Report struct {
	// Seq numbers the entries of a kind from 1.
	Seq uint64 `json:"seq"`
	// Time is when the entry arrived, by the mock's clock.
	Time time.Time `json:"time"`
	// ClientID is the client whose token sent it.
	ClientID string `json:"clientID"`
	// Path is the path it was posted to (with or without the slash).
	Path string `json:"path"`
	// Entry is the body as the client sent it.
	Entry json.RawMessage `json:"entry"`
}

// ReportPage is the answer of GET /__admin/logs and /__admin/statistics.
type ReportPage struct {
	Entries  []Report `json:"entries"`
	Capacity int      `json:"capacity"`
	Dropped  uint64   `json:"dropped"`
}

type reportRing struct {
	mu      sync.Mutex
	max     int
	seq     uint64
	dropped uint64
	items   []Report
}

func newReportRing(max int) *reportRing { return &reportRing{max: max} }

func (r *reportRing) add(rep Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	rep.Seq = r.seq
	if len(r.items) == r.max {
		copy(r.items, r.items[1:])
		r.items = r.items[:len(r.items)-1]
		r.dropped++
	}
	r.items = append(r.items, rep)
}

func (r *reportRing) page() ReportPage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ReportPage{Entries: append([]Report{}, r.items...), Capacity: r.max, Dropped: r.dropped}
}

func (r *reportRing) clear() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.items)
	r.items, r.dropped = nil, 0
	return n
}

// Logs returns the log entries clients posted (POST /log/), oldest first.
func (s *API) Logs() []Report { return s.hooks.logs.page().Entries }

// Statistics returns the statistics entries clients posted (POST
// /statistics/), oldest first.
func (s *API) Statistics() []Report { return s.hooks.stats.page().Entries }

func (s *API) postLog(w http.ResponseWriter, r *http.Request) { s.keepReport(w, r, s.hooks.logs) }

func (s *API) postStatistics(w http.ResponseWriter, r *http.Request) {
	s.keepReport(w, r, s.hooks.stats)
}

// keepReport keeps a validated entry and answers 201 without a body, as
// SS 12000 documents.
func (s *API) keepReport(w http.ResponseWriter, r *http.Request, ring *reportRing) {
	var raw json.RawMessage
	if err := surface.DecodeWhole(r.Body, &raw); err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not one JSON value: "+err.Error())
		return
	}
	ring.add(Report{Time: s.now().UTC(), ClientID: s.core.ClientOf(r), Path: r.URL.Path, Entry: raw})
	w.WriteHeader(http.StatusCreated)
}

func (s *API) adminReports(ring func() *reportRing) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { surface.WriteJSON(w, http.StatusOK, ring().page()) }
}

func (s *API) adminClearReports(ring func() *reportRing) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		surface.WriteJSON(w, http.StatusOK, surface.Cleared{Cleared: ring().clear()})
	}
}
