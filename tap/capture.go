package tap

import (
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// CaptureOptions configures Capture.
type CaptureOptions struct {
	// MaxBody is how many bytes of each body an exchange keeps; the rest is
	// forwarded but not kept, and the exchange says it was cut. 0 keeps
	// none.
	MaxBody int
	// Prefixes classify each request's path into a surface.
	Prefixes Prefixes
	// Sink gets every exchange after its answer was written, on the
	// request's goroutine: it must not block.
	Sink func(*Exchange)
}

// Capture wraps a handler and hands every exchange it served to
// opts.Sink, with the first opts.MaxBody bytes of both bodies copied as
// they pass. What the handler and the client see is unchanged: the
// response writer it gets still flushes, hijacks and reports errors
// through http.ResponseController.
func Capture(next http.Handler, opts CaptureOptions) http.Handler {
	return &capturer{next: next, opts: opts}
}

type capturer struct {
	next http.Handler
	opts CaptureOptions
	seq  atomic.Uint64
}

func (c *capturer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, max: c.opts.MaxBody}
	ex := &rec.ex
	ex.Seq = c.seq.Add(1)
	ex.Start = time.Now()
	ex.Method = r.Method
	ex.Surface, ex.Path, _ = c.opts.Prefixes.Classify(r.URL.Path)
	ex.RequestHeader = r.Header
	if r.Body != nil && r.Body != http.NoBody {
		rec.reqBody = teeBody{ReadCloser: r.Body, rec: rec}
		rec.reqBody.buf = newBodyBuffer(r.ContentLength, rec.max)
		r.Body = &rec.reqBody
	}
	// A handler that gives up on a client (http.ErrAbortHandler, as
	// httputil.ReverseProxy does when the client is gone) still leaves an
	// exchange behind.
	defer func() {
		p := recover()
		rec.finish(r, p)
		c.opts.Sink(ex)
		if p != nil {
			panic(p)
		}
	}()
	c.next.ServeHTTP(rec, r)
}

// NoAnswer records, on the exchange that Capture is recording for w, that
// the handler had no answer to give: a proxy whose upstream failed or timed
// out. The exchange then has Status 0 and err as its Err, whatever the
// handler writes to the client instead (a 502 of the proxy's own). For a
// writer that is not Capture's it does nothing.
func NoAnswer(w http.ResponseWriter, err error) {
	for {
		switch x := w.(type) {
		case *recorder:
			x.noAnswer = err.Error()
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}

// recorder is the response writer the wrapped handler writes to, and the
// exchange being recorded (one allocation per request for both).
type recorder struct {
	http.ResponseWriter
	ex      Exchange
	max     int
	wrote   bool // WriteHeader with a final status was called
	body    []byte
	cut     bool
	reqBody teeBody
	// noAnswer is set by NoAnswer.
	noAnswer string
}

func (rec *recorder) WriteHeader(code int) {
	// 1xx answers (100 Continue, 103 Early Hints) pass before the final one.
	if !rec.wrote && (code >= 200 || code == http.StatusSwitchingProtocols) {
		rec.header(code)
	}
	rec.ResponseWriter.WriteHeader(code)
}

// header records the status and a copy of the header as they go out.
func (rec *recorder) header(code int) {
	rec.wrote = true
	rec.ex.Status = code
	h := rec.ResponseWriter.Header()
	rec.ex.ResponseHeader = h.Clone()
	if cl := h.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil {
			rec.body = newBodyBuffer(n, rec.max)
		}
	}
}

func (rec *recorder) Write(p []byte) (int, error) {
	if !rec.wrote {
		rec.header(http.StatusOK)
	}
	rec.body, rec.cut = keep(rec.body, p, rec.max, rec.cut)
	return rec.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the server's writer (Flush,
// Hijack, deadlines).
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// Flush is here because httputil.ReverseProxy and other handlers test for
// http.Flusher directly.
func (rec *recorder) Flush() { _ = http.NewResponseController(rec.ResponseWriter).Flush() }

// finish completes the exchange when the handler has returned (or
// panicked with p).
func (rec *recorder) finish(r *http.Request, p any) {
	ex := &rec.ex
	ex.Duration = time.Since(ex.Start)
	ex.ResponseBody, ex.ResponseTruncated = rec.body, rec.cut
	if rec.reqBody.rec != nil {
		ex.RequestBody = rec.reqBody.buf
		ex.RequestTruncated = rec.reqBody.cut || !rec.reqBody.eof && int64(len(rec.reqBody.buf)) != r.ContentLength
	}
	if rec.noAnswer != "" {
		ex.Status, ex.ResponseHeader, ex.ResponseBody, ex.ResponseTruncated = 0, nil, nil, false
		ex.Err = rec.noAnswer
	} else if p != nil {
		ex.Err = "the answer was cut off: the client went away or the handler gave up"
		if p != http.ErrAbortHandler {
			ex.Err = "the handler panicked"
		}
		ex.ResponseTruncated = true
	}
	if !rec.wrote && p == nil && rec.noAnswer == "" {
		ex.Status = http.StatusOK // a handler that wrote nothing answers 200
		ex.ResponseHeader = rec.ResponseWriter.Header().Clone()
	}
	ex.Query = r.URL.Query()
	ex.URL = requestURL(r)
}

// requestURL is the absolute URL of a server-side request.
func requestURL(r *http.Request) string {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return scheme + r.Host + r.URL.RequestURI()
}

// teeBody keeps the first bytes of a request body as the handler reads it.
type teeBody struct {
	io.ReadCloser
	rec *recorder
	buf []byte
	cut bool
	eof bool
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.buf, t.cut = keep(t.buf, p[:n], t.rec.max, t.cut)
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

// newBodyBuffer allocates once for a body of known length (up to max).
func newBodyBuffer(length int64, limit int) []byte {
	if length <= 0 || limit <= 0 {
		return nil
	}
	return make([]byte, 0, min(length, int64(limit)))
}

// keep appends p to buf up to limit bytes, and reports whether anything
// was left out so far.
func keep(buf, p []byte, limit int, cut bool) ([]byte, bool) {
	room := limit - len(buf)
	if len(p) > room {
		p, cut = p[:max(room, 0)], true
	}
	return append(buf, p...), cut
}
