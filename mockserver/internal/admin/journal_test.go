package admin

import (
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseStatusFilter(t *testing.T) {
	for s, ok := range map[string]bool{"200": true, "404": true, "599": true, "4xx": true, "1xx": true,
		"600": false, "099": false, "4x": false, "4XX": false, "40": false, "+40": false, "4 0": false, "": false} {
		assert.Equal(t, ok, parseStatusFilter(s) == nil, "%q", s)
	}
}

// BenchmarkJournal1M records one million requests in a journal of the
// default size and reports the heap in use afterwards: it stays at the
// ring's size, whatever the number of requests.
func BenchmarkJournal1M(b *testing.B) {
	const n = 1_000_000
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	j := newJournal(DefaultJournalSize)
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for b.Loop() {
		for i := range n {
			j.add(JournalEntry{
				Time: at, ClientID: "skolkit-client", Method: http.MethodGet, Status: http.StatusOK, DurationMS: 0.25,
				Path:      "/api/v1/placements?limit=100&pageToken=" + strconv.Itoa(i),
				RequestID: strconv.FormatInt(int64(i), 16),
			})
		}
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/entry")
	b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-inuse-MiB")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<10), "heap-growth-KiB")
	if len(j.ring) != DefaultJournalSize || j.seq != uint64(n*b.N) {
		b.Fatal("journal did not record every entry")
	}
}

// BenchmarkJournalledRequest is the cost of one request (a 404, the
// cheapest answer) through the rule checks, with and without the journal.
