// Package webhooktest starts webhook receivers for tests, as net/http/httptest
// starts servers: a Receiver listens on a loopback port and records every
// SS 12000 subscription callback posted to it.
//
// It owns only the receiving side; it must not import mockserver, so that the
// mock's own tests and package mocktest can both use it.
package webhooktest
