package mocktest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/model"
)

// WithWebhooks configures the callbacks of subscriptions: a fast retry
// schedule for a test of a failing receiver, hosts to allow, ...
func WithWebhooks(o mockserver.WebhookOptions) TestOption {
	return func(ts *TestServer) { ts.Options.Webhooks = o }
}

// Subscribe creates a subscription to the resource types with callbacks to
// target, through POST /subscriptions as a client would, and returns it.
// The test fails when the server refuses it.
func (ts *TestServer) Subscribe(t testing.TB, target string, types ...model.ResourceType) webhook.Subscription {
	t.Helper()
	req := webhook.CreateSubscription{Name: t.Name(), Target: target}
	for _, rt := range types {
		req.ResourceTypes = append(req.ResourceTypes, webhook.ResourceTypeRef{Resource: rt})
	}
	body, _ := json.Marshal(req)
	r, _ := http.NewRequest(http.MethodPost, ts.RegisterURL+"/subscriptions", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+ts.token(t))
	resp, err := ts.Client().Do(r)
	if err != nil {
		t.Fatalf("mocktest: POST /subscriptions: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("mocktest: POST /subscriptions: %d %s", resp.StatusCode, b)
	}
	var sub webhook.Subscription
	if err := json.Unmarshal(b, &sub); err != nil {
		t.Fatalf("mocktest: POST /subscriptions: %v", err)
	}
	return sub
}

// token returns an access token of the scenario's first client.
func (ts *TestServer) token(t testing.TB) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {ts.ClientID}, "client_secret": {ts.ClientSecret}}
	resp, err := ts.Client().Post(ts.TokenURL, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatalf("mocktest: token: %v", err)
	}
	defer resp.Body.Close()
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || tr.AccessToken == "" {
		t.Fatalf("mocktest: token: status %d, %v", resp.StatusCode, err)
	}
	return tr.AccessToken
}

// Deliveries returns the recorded delivery attempts the filter selects (the
// same records as GET /__admin/deliveries).
func (ts *TestServer) Deliveries(f webhook.Filter) []webhook.Attempt {
	list, _ := ts.Server.Webhooks().Attempts(f)
	return list
}

// WaitIdle waits until no callback is pending or being delivered; the test
// fails when that takes longer than timeout.
func (ts *TestServer) WaitIdle(t testing.TB, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ts.Server.Webhooks().Idle() {
		if time.Now().After(deadline) {
			t.Fatalf("mocktest: callbacks still under way after %s", timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
