package mockserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/skolkit/skolkit/mockserver/mocktest"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/model"
)

// myReceiver is the code under test: an SS 12000 webhook receiver that
// notes which resource types it must fetch again.
type myReceiver struct{ toSync chan []string }

func (m *myReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var n struct {
		ModifiedEntites []string `json:"modifiedEntites"`
		DeletedEntities bool     `json:"deletedEntities"`
	}
	if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if n.DeletedEntities {
		n.ModifiedEntites = append(n.ModifiedEntites, "deletedEntities")
	}
	m.toSync <- n.ModifiedEntites
	w.WriteHeader(http.StatusNoContent)
}

// TestWebhookReceiverExample is the webhook example of README.md: a
// receiver under test subscribes to the mock, a record changes, and the
// mock calls the receiver back.
func TestWebhookReceiverExample(t *testing.T) {
	ts := mocktest.NewTestServer(t)

	// Start the receiver under test on a loopback port (the mock calls back
	// only loopback addresses and the hosts it is told about).
	mine := &myReceiver{toSync: make(chan []string, 10)}
	hook := httptest.NewServer(mine)
	defer hook.Close()

	// Subscribe it to attendance records, as a client would (POST /subscriptions).
	ts.Subscribe(t, hook.URL+"/ss12000/events", model.ResourceAttendance)

	// Change an attendance record: here through interface B's POST /attendances.
	a := ts.Server.Export().Attendances[0]
	body := fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"isReported":true}`, a.CalendarEvent.ID, a.Student.ID)
	cfg := clientcredentials.Config{ClientID: ts.ClientID, ClientSecret: ts.ClientSecret, TokenURL: ts.TokenURL}
	resp, err := cfg.Client(context.Background()).Post(ts.RegisterURL+"/attendances", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// The receiver was called back with what to fetch again.
	select {
	case got := <-mine.toSync:
		assert.Equal(t, []string{"Attendance"}, got)
	case <-time.After(10 * time.Second):
		t.Fatal("no callback")
	}

	// Every attempt is recorded (also at GET /__admin/deliveries).
	ts.WaitIdle(t, 10*time.Second)
	deliveries := ts.Deliveries(webhook.Filter{Target: hook.URL})
	require.Len(t, deliveries, 1)
	assert.Equal(t, http.StatusNoContent, deliveries[0].Status)
	assert.Equal(t, webhook.OutcomeDelivered, deliveries[0].Outcome)
}
