package mocktest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/model"
)

func TestReceiverRecordsWhatIsPostedAndAnswersAsTold(t *testing.T) {
	rcv := NewReceiver(t)
	rcv.Respond = func(n int) int {
		if n == 1 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
	for range 2 {
		resp, err := http.Post(rcv.URL, "application/json", strings.NewReader(`{"modifiedEntites": ["Attendance"]}`))
		require.NoError(t, err)
		resp.Body.Close()
	}
	calls := rcv.Wait(t, 2, 10*time.Second)
	require.Len(t, calls, 2)
	assert.Equal(t, http.StatusServiceUnavailable, calls[0].Status)
	assert.Equal(t, http.StatusOK, calls[1].Status)
	assert.Len(t, rcv.Calls(), 2)
	assert.Len(t, rcv.Delivered(), 1)
	rcv.Close() // and again when the test ends
	_, err := http.Post(rcv.URL, "application/json", strings.NewReader(`{}`))
	assert.Error(t, err, "closed")
}

func TestSubscribeThroughTheTestServer(t *testing.T) {
	ts := NewTestServer(t, WithWebhooks(mockserver.WebhookOptions{Retry: []time.Duration{}}))
	rcv := NewReceiver(t)
	sub := ts.Subscribe(t, rcv.URL, model.ResourceAttendance)
	assert.NotEmpty(t, sub.ID)
	ts.WaitIdle(t, 10*time.Second)
	assert.Empty(t, ts.Deliveries(webhook.Filter{Target: rcv.URL}), "nothing changed, nothing sent")
}
