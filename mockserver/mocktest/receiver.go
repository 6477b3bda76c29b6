package mocktest

import (
	"testing"

	"github.com/skolkit/skolkit/mockserver/webhooktest"
)

// Receiver is a webhook receiver for tests: an HTTP server on a loopback
// port that records every callback posted to it (webhooktest.Receiver).
// Point a subscription's target at URL, and read what arrived with Calls or
// Wait.
//
//	rcv := mocktest.NewReceiver(t)
//	ts.Subscribe(t, rcv.URL, model.ResourceAttendance)
//	// ... change an attendance record ...
//	calls := rcv.Wait(t, 1, 5*time.Second)
type Receiver = webhooktest.Receiver

// Callback is one callback a Receiver got.
type Callback = webhooktest.Callback

// NewReceiver starts a Receiver that closes itself when the test ends.
func NewReceiver(t testing.TB) *Receiver { return webhooktest.NewReceiver(t) }
