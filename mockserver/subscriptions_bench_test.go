package mockserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
)

// BenchmarkCallbackLatency measures one change (POST /attendances) and the
// wait for its callback at the receiver: the default 50 ms coalescing
// window, and none.
func BenchmarkCallbackLatency(b *testing.B) {
	for _, bc := range []struct {
		name     string
		coalesce time.Duration
	}{{"default-window", 0}, {"no-window", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			h := newHarness(b, func(o *Options) { o.Webhooks.Coalesce = bc.coalesce })
			b.Cleanup(h.srv.Close)
			rcv := webhooktest.NewReceiver(b)
			h.subscribe(b, rcv.URL, model.ResourceAttendance)
			body := attendanceBody(b, h.srv.store.Export())
			b.ResetTimer()
			for i := range b.N {
				res := h.postJSON(PrefixB+"/attendances", body)
				require.Equal(b, http.StatusOK, res.status, res)
				rcv.Wait(b, i+1, 30*time.Second)
			}
		})
	}
}
