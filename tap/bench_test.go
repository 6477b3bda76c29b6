package tap

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/skolkit/skolkit/rules"
)

// discard is an observer that judges nothing.
type discard struct{}

func (discard) Observe(*rules.Exchange) {}

// BenchmarkForwarding measures one GET of a 600-byte JSON answer through a
// plain httputil.ReverseProxy and through the tap (capturing and queueing,
// judging nothing), in process: the handlers are called directly with a
// recorder, the upstream is a loopback server. What it shows is the
// capture's own cost (time and allocations per request); the whole
// picture, with the judge, is docs/tap-bench.sh.
func BenchmarkForwarding(b *testing.B) {
	body := `{"id":"0012484c-52b4-45fb-89d7-d20bd756a0ee","` + strings.Repeat("x", 560) + `":1}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "600")
		io.WriteString(w, body[:600])
	}))
	defer up.Close()
	target, _ := url.Parse(up.URL)
	plain := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }, Transport: NewTransport(nil)}
	tp, err := New(Options{Target: target, Observer: discard{}, JudgeShare: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer tp.Close()
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"plain", plain}, {"tap", tp}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, "http://tap.invalid/api/v1/placements/0012484c-52b4-45fb-89d7-d20bd756a0ee", nil)
				req.Header.Set("Authorization", "Bearer abcdefghijklmnop")
				req.Header.Set("Accept", "application/json")
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}
