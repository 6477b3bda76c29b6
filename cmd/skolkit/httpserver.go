package main

import (
	"io"
	"net/http"
	"time"

	"github.com/skolkit/skolkit/mockserver"
)

// Timeouts and limits of the HTTP server of skolkit serve
// (docs/decisions.md#limits). A client that sends its headers too slowly, or its
// body, or that keeps an idle connection, is cut off.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// newHTTPServer returns the server skolkit serve runs the handler with.
func newHTTPServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// pathHealth answers 200 "ok" once skolkit serve is ready: the listener is
// opened only after the scenario's data is built, so any answer means ready.
// Containers and CI jobs poll it before they start their tests.
const pathHealth = "/healthz"

// headerProfile names, in the answer of pathHealth, the profile interface B
// serves (mockserver.ProfileService or ProfileSS12000).
const headerProfile = "Skolkit-Profile"

// withHealth serves pathHealth in front of the mock.
func withHealth(next *mockserver.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == pathHealth && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set(headerProfile, next.Profile())
			_, _ = io.WriteString(w, "ok\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}
