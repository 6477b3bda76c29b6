// Package tap is the passive driver of skolkit's rules: a reverse proxy
// (net/http/httputil.ReverseProxy) between someone's client and someone's
// server that forwards every request and every answer unchanged, and hands
// a copy of each exchange to a judge that applies the server rules and the
// client rules to it.
//
// It owns:
//
//   - the proxy (tap.go): the request goes to the target as the client sent
//     it, the answer comes back as the target gave it, streamed; nothing is
//     added either way (no X-Forwarded-*, no Date, no sniffed Content-Type,
//     no Accept-Encoding), only the hop-by-hop headers a proxy must drop
//     are dropped, and Host is the target's;
//   - capturing (capture.go): copies of the first bytes of both bodies,
//     taken as they pass, and the exchange completed when the answer is
//     written;
//   - the hand-over to judging: a bounded queue (by count and by bytes) to
//     one judging goroutine; forwarding never waits for it, and what does
//     not fit is counted as dropped and said in the report.
//
// The tap sends no request of its own. It must never import mockserver
// (nor must its tests): end-to-end tests with the mock live in
// cmd/skolkit.
package tap
