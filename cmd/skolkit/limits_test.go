package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver"
)

// TestHTTPServerHasTheDocumentedLimits holds the server to the limits that
// docs/decisions.md#limits documents: the tests below observe each mechanism
// with a shortened timeout; this one checks that the values the users read
// are the values the server runs with.
func TestHTTPServerHasTheDocumentedLimits(t *testing.T) {
	doc, err := os.ReadFile("../../docs/decisions.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\| ` + "`skolkit serve`" + ` timeouts \| read header (\d+) s, read (\d+) s, write (\d+) s, idle (\d+) min, headers (\d+) KiB \|`).FindSubmatch(doc)
	require.NotNil(t, m, "docs/decisions.md#limits has no row of skolkit serve's timeouts in the expected form")
	n := func(i int) int {
		v, err := strconv.Atoi(string(m[i]))
		require.NoError(t, err)
		return v
	}
	hs := newHTTPServer(http.NotFoundHandler())
	assert.Equal(t, time.Duration(n(1))*time.Second, hs.ReadHeaderTimeout, "read header")
	assert.Equal(t, time.Duration(n(2))*time.Second, hs.ReadTimeout, "read")
	assert.Equal(t, time.Duration(n(3))*time.Second, hs.WriteTimeout, "write")
	assert.Equal(t, time.Duration(n(4))*time.Minute, hs.IdleTimeout, "idle")
	assert.Equal(t, n(5)<<10, hs.MaxHeaderBytes, "headers")
}

// startLimited serves the mock with newHTTPServer on a loopback port, its
// timeouts shortened by shorten so that the test takes seconds.
func startLimited(t *testing.T, shorten func(*http.Server)) string {
	t.Helper()
	srv, err := mockserver.New(mockserver.Options{JournalSize: -1})
	require.NoError(t, err)
	hs := newHTTPServer(srv)
	shorten(hs)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// drip writes data one byte per interval until the server closes the
// connection or the data runs out. It returns how long the server took to
// close the connection (reading until EOF) and what it answered, or fails
// when the connection is still open after the whole drip.
func drip(t *testing.T, addr, data string, interval time.Duration) (time.Duration, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	start := time.Now()
	closed := make(chan string, 1)
	go func() {
		answer, _ := io.ReadAll(conn) // until the server closes the connection
		closed <- string(answer)
	}()
	for i := range len(data) {
		select {
		case answer := <-closed:
			return time.Since(start), answer
		case <-time.After(interval):
		}
		if _, err := conn.Write([]byte{data[i]}); err != nil {
			break // the server reset the connection
		}
	}
	select {
	case answer := <-closed:
		return time.Since(start), answer
	case <-time.After(3 * interval):
		t.Fatalf("the server kept the connection open while a client sent %d bytes one every %s", len(data), interval)
		return 0, ""
	}
}

func TestSlowHeadersAreCutOff(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	addr := startLimited(t, func(hs *http.Server) { hs.ReadHeaderTimeout = timeout })
	// A slowloris client: a request line and headers, one byte every 200 ms;
	// the whole would take 20 s.
	request := "GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + strings.Repeat("a", 60) + "\r\n\r\n"
	took, answer := drip(t, addr, request, 200*time.Millisecond)
	// drip fails unless the server closes the connection before the
	// request is complete; how soon after the timeout it does is not
	// asserted (a busy machine decides that).
	assert.GreaterOrEqual(t, took, timeout-100*time.Millisecond, "not before the timeout")
	assert.NotContains(t, answer, "200 OK", "the request was never served")
}

func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	const timeout = time.Second
	addr := startLimited(t, func(hs *http.Server) { hs.ReadTimeout = timeout })
	body := "grant_type=client_credentials&client_id=skolkit-client&client_secret=skolkit-secret" + strings.Repeat("&x=1", 20)
	head := fmt.Sprintf("POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", len(body))
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte(head))
	require.NoError(t, err)
	start := time.Now()
	done := make(chan string, 1)
	go func() {
		answer, _ := io.ReadAll(conn)
		done <- string(answer)
	}()
	var answer string
	sent := 0
loop:
	for sent < len(body) {
		select {
		case answer = <-done:
			break loop
		case <-time.After(200 * time.Millisecond):
		}
		if _, err := conn.Write([]byte{body[sent]}); err != nil {
			break
		}
		sent++
	}
	if sent == len(body) {
		t.Fatalf("the server read a body sent one byte every 200 ms for %s", time.Since(start))
	}
	if answer == "" {
		select {
		case answer = <-done:
		case <-time.After(10 * time.Second): // a hang, not a speed target
			t.Fatal("the server did not close the connection")
		}
	}
	assert.NotContains(t, answer, "access_token", "no token for a request whose body never arrived")
}

func TestOversizedHeadersAreRefused(t *testing.T) {
	t.Parallel()
	addr := startLimited(t, func(*http.Server) {})
	for _, tc := range []struct {
		name   string
		size   int
		status int
	}{
		{"headers just under the limit are served", maxHeaderBytes - 1<<10, http.StatusOK},
		{"headers over the limit are refused", maxHeaderBytes + 8<<10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
			req := "GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("a", tc.size) + "\r\n\r\n"
			go func() { _, _ = conn.Write([]byte(req)) }()
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err)
			defer res.Body.Close()
			assert.Equal(t, tc.status, res.StatusCode)
		})
	}
}

func TestIdleConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	const idle = 500 * time.Millisecond
	addr := startLimited(t, func(hs *http.Server) { hs.IdleTimeout = idle })
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = conn.Write([]byte("GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	// The server closes the idle keep-alive connection; the client's own
	// 10 s deadline (a timeout error) would mean it did not.
	_, err = br.ReadByte()
	assert.True(t, errors.Is(err, io.EOF) || err != nil && !isTimeout(err), "the server closed the connection: %v", err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
