// Package wire holds what the mock does to a request or an answer around
// its handlers: the legal variants (a behaviour the standard or the vendor
// facts allow that the mock does not choose by default) and the deviations
// that live on the wire (a request or an answer changed the way a faulty
// server would change it). It knows HTTP and JSON, never the store: the
// handlers stay free of both, and a behaviour here is the same whatever
// record kind an answer holds.
//
// JSON answers are decoded into a tree that keeps the order of object
// members (Object), changed, and encoded again; an answer no behaviour
// concerns is passed through untouched.
//
// This package imports nothing of skolkit but the names of the deviations.
package wire
