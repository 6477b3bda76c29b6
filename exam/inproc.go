package exam

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
)

// inProcess is an http.RoundTripper that serves every request with a
// handler in this process, without a connection: the exam's own requests to
// its mock (the oracle's reads, the scene's writes) take no port and never
// pass the capture that records the client's traffic.
type inProcess struct{ h http.Handler }

var loopback net.Addr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	// The request arrives from and on the loopback address, as the
	// control plane wants its callers (mockserver/internal/admin's guard).
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, loopback))
	if req.RemoteAddr == "" {
		req.RemoteAddr = "127.0.0.1:1"
	}
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
