package webhooktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/webhook"
)

// Receiver is a webhook receiver for tests: an HTTP server on a loopback
// port that records every callback posted to it. Point a subscription's
// target at URL, and read what arrived with Calls or Wait. Create it with
// NewReceiver; it closes itself when the test ends.
//
//	rcv := webhooktest.NewReceiver(t)
//	ts.Subscribe(t, rcv.URL, model.ResourceAttendance)
//	// ... change an attendance record ...
//	calls := rcv.Wait(t, 1, 5*time.Second)
type Receiver struct {
	// URL is where callbacks are to be posted: "http://127.0.0.1:PORT/hook".
	URL string
	// Respond, when set, chooses the status of the nth call (n counts from
	// 1); the default answers 200. Set it before the first call arrives.
	Respond func(n int) int

	srv   *httptest.Server
	mu    sync.Mutex
	calls []Callback
	wake  chan struct{}
}

// Callback is one request a Receiver got.
type Callback struct {
	// Time is when it arrived (real time).
	Time time.Time
	// Delivery and Attempt are the Skolkit-Delivery and Skolkit-Attempt
	// headers: the notification and its attempt number.
	Delivery string
	Attempt  int
	// Body is the decoded callback body; Raw the bytes as sent.
	Body webhook.Notification
	Raw  []byte
	// Status is what the receiver answered.
	Status int
	Header http.Header
}

// NewReceiver starts a Receiver for the test.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{wake: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL + "/hook"
	t.Cleanup(r.srv.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	c := Callback{Time: time.Now(), Delivery: req.Header.Get(webhook.HeaderDelivery), Raw: raw, Header: req.Header.Clone()}
	c.Attempt, _ = strconv.Atoi(req.Header.Get(webhook.HeaderAttempt))
	_ = json.Unmarshal(raw, &c.Body)
	r.mu.Lock()
	n := len(r.calls) + 1
	c.Status = http.StatusOK
	if r.Respond != nil {
		c.Status = r.Respond(n)
	}
	r.calls = append(r.calls, c)
	close(r.wake)
	r.wake = make(chan struct{})
	r.mu.Unlock()
	w.WriteHeader(c.Status)
}

// Calls returns every call received so far, in order of arrival.
func (r *Receiver) Calls() []Callback {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Callback(nil), r.calls...)
}

// Delivered returns the calls answered with 2xx.
func (r *Receiver) Delivered() []Callback {
	var out []Callback
	for _, c := range r.Calls() {
		if c.Status >= 200 && c.Status < 300 {
			out = append(out, c)
		}
	}
	return out
}

// Wait waits until at least n calls have arrived and returns them all; the
// test fails when they do not arrive within timeout.
func (r *Receiver) Wait(t testing.TB, n int, timeout time.Duration) []Callback {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		got, wake := len(r.calls), r.wake
		r.mu.Unlock()
		if got >= n {
			return r.Calls()
		}
		select {
		case <-wake:
		case <-deadline.C:
			t.Fatalf("webhook receiver: %d call(s) within %s, want %d", got, timeout, n)
			return nil
		}
	}
}

// Close stops the receiver (it is also closed when the test ends).
func (r *Receiver) Close() { r.srv.Close() }
