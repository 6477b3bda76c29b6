package rules

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// CaptureOptions configure Capture.
type CaptureOptions struct {
	// Prefixes classify request paths into surfaces (default
	// DefaultPrefixes). Requests of no surface are passed on and not
	// captured.
	Prefixes *Prefixes
	// MaxBody is how many bytes of each body are kept (default 1 MiB); a
	// longer body is marked truncated.
	MaxBody int
	// Sink receives every exchange after its answer has been written. It
	// must not block: hand the exchange to a bounded channel and count
	// what does not fit.
	Sink func(*Exchange)
	// Begin, when set, receives each write of a surface (a request that
	// may change records: not a read, a search, a lookup or a token
	// request) as it arrives, before it is passed on: the exchange Sink
	// receives later, its request line and headers set. A judge told of
	// writes under way (Judge.Begin) does not take a reading that changed
	// during one for a fault. It must not block.
	Begin func(*Exchange)
	// Client names the client of a request (default: the Client-ID header,
	// else the user of Basic credentials, else the client_id of a token
	// request's form, else "").
	Client func(*http.Request) string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Capture wraps a handler and hands every exchange of a surface, bodies
// copied up to MaxBody bytes, to the sink once the answer is written.
//
// Bodies are copied as they pass, never read ahead: the handler reads the
// request body as the client sends it (a proxy streams it on), and the
// client gets each part of the answer as the handler writes it. A request
// body the handler did not read to its end is kept as far as it was read,
// marked truncated. The writer the handler gets still flushes, hijacks and
// sets deadlines through http.ResponseController. A handler that panics
// (http.ErrAbortHandler: the client went away) still leaves its exchange,
// with Err saying so. Capturing costs one allocation for the exchange and
// one per body of known length.
func Capture(next http.Handler, opts CaptureOptions) http.Handler {
	prefixes := DefaultPrefixes()
	if opts.Prefixes != nil {
		prefixes = *opts.Prefixes
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Client == nil {
		opts.Client = DefaultClient
	}
	return &capturer{next: next, opts: opts, prefixes: prefixes}
}

type capturer struct {
	next     http.Handler
	opts     CaptureOptions
	prefixes Prefixes
	seq      atomic.Uint64
}

func (c *capturer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	surface, rel, ok := c.prefixes.Classify(r.URL.Path)
	if !ok || c.opts.Sink == nil {
		c.next.ServeHTTP(w, r)
		return
	}
	rec := &recorder{ResponseWriter: w, max: c.opts.MaxBody, client: c.opts.Client}
	ex := &rec.ex
	ex.Seq = c.seq.Add(1)
	ex.Start = c.opts.Now()
	ex.Surface, ex.Method, ex.Path = surface, r.Method, rel
	ex.RequestHeader = r.Header.Clone() // as sent: a handler may change r.Header
	// As sent too: a handler may rewrite r.URL (the mock's legal variants
	// change the query before the handlers read it).
	ex.Query = r.URL.Query()
	ex.URL = requestURL(r)
	if r.Body != nil && r.Body != http.NoBody {
		rec.reqBody = &teeBody{ReadCloser: r.Body, max: c.opts.MaxBody}
		rec.reqBody.buf = newBodyBuffer(r.ContentLength, c.opts.MaxBody)
		r.Body = rec.reqBody
	}
	if c.opts.Begin != nil && isWriteExchange(ex) {
		c.opts.Begin(ex)
	}
	defer func() {
		p := recover()
		rec.finish(r, p, c.opts.Now())
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
// exchange being recorded (one allocation for both).
type recorder struct {
	http.ResponseWriter
	ex      Exchange
	max     int
	wrote   bool // a final status was written
	body    []byte
	cut     bool
	reqBody *teeBody
	client  func(*http.Request) string // named once the handler is done (it may parse the form)
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
	rec.ex.ResponseHeader = sentHeader(h)
	if cl := h["Content-Length"]; len(cl) == 1 {
		if n, err := strconv.ParseInt(cl[0], 10, 64); err == nil {
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

// Flush is here for handlers that test for http.Flusher directly.
func (rec *recorder) Flush() { _ = http.NewResponseController(rec.ResponseWriter).Flush() }

// finish completes the exchange once the handler has returned (or
// panicked with p).
func (rec *recorder) finish(r *http.Request, p any, now time.Time) {
	ex := &rec.ex
	ex.Duration = now.Sub(ex.Start)
	ex.ResponseBody, ex.ResponseTruncated = rec.body, rec.cut
	if rec.reqBody != nil {
		ex.RequestBody, ex.RequestTruncated = rec.reqBody.seal(r.ContentLength)
	}
	switch {
	case rec.noAnswer != "":
		ex.Status, ex.ResponseHeader, ex.ResponseBody, ex.ResponseTruncated = 0, nil, nil, false
		ex.Err = rec.noAnswer
	case p != nil:
		ex.Err = "the answer was cut off: the client went away or the handler gave up"
		if p != http.ErrAbortHandler {
			ex.Err = "the handler panicked"
		}
		ex.ResponseTruncated = true
	case !rec.wrote: // a handler that wrote nothing answers 200
		ex.Status = http.StatusOK
		ex.ResponseHeader = sentHeader(rec.ResponseWriter.Header())
	}
	ex.Client = rec.client(r)
}

// sentHeader is a copy of the header a handler is sending: without the
// names it set to nil, which net/http leaves out (a Date or Content-Type
// it must not add).
func sentHeader(h http.Header) http.Header {
	out := h.Clone()
	for k, v := range out {
		if v == nil {
			delete(out, k)
		}
	}
	return out
}

// teeBody keeps the first bytes of a request body as the handler reads it.
// A proxy's transport may still read it after the handler has returned:
// seal ends the copy.
type teeBody struct {
	io.ReadCloser
	max    int
	mu     sync.Mutex
	buf    []byte
	cut    bool
	eof    bool
	sealed bool
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.mu.Lock()
	if !t.sealed {
		t.buf, t.cut = keep(t.buf, p[:n], t.max, t.cut)
		t.eof = t.eof || err == io.EOF
	}
	t.mu.Unlock()
	return n, err
}

// seal ends the copy and returns it, and whether it is short of the body:
// cut at the bound, or not read to its end.
func (t *teeBody) seal(length int64) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sealed = true
	return t.buf, t.cut || (!t.eof && int64(len(t.buf)) != length)
}

// newBodyBuffer allocates once for a body of known length (up to limit).
func newBodyBuffer(length int64, limit int) []byte {
	if length <= 0 {
		return nil
	}
	return make([]byte, 0, min(length, int64(limit)))
}

// keep appends p to buf up to limit bytes, and reports whether anything
// was left out so far.
func keep(buf, p []byte, limit int, cut bool) ([]byte, bool) {
	if room := limit - len(buf); len(p) > room {
		p, cut = p[:max(room, 0)], true
	}
	return append(buf, p...), cut
}

// DefaultClient names the client of a request from what it carries: the
// Client-ID header, the user of Basic credentials, or a token request's
// client_id form field (read from the body only when the handler has
// parsed the form).
func DefaultClient(r *http.Request) string {
	if id := r.Header.Get("Client-ID"); id != "" {
		return id
	}
	if user, _, ok := r.BasicAuth(); ok {
		return user
	}
	if r.PostForm != nil {
		return r.PostForm.Get("client_id")
	}
	return ""
}

func requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.RequestURI()
}
