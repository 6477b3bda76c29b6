// Package webhook owns the SS 12000 subscriptions of one mock server and the
// delivery of their callbacks: subscription records and their expiry, the
// allow-list of callback targets, a delivery queue that coalesces bursts of
// changes, bounded retries on a fixed back-off schedule, delivery faults
// (drop, delay, duplicate), and a bounded record of every attempt.
//
// It knows nothing of the store, of HTTP routing or of tokens: the server
// tells a Hub which resource types changed (Hub.Changed) and serves the
// subscription operations from the Hub's methods. Delivering never blocks
// the caller of Changed.
package webhook
