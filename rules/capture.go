package rules

import (
	"bytes"
	"io"
	"net/http"
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
	// Client names the client of a request (default: the Client-ID header,
	// else the user of Basic credentials, else the client_id of a token
	// request's form, else "").
	Client func(*http.Request) string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Capture wraps a handler and hands every exchange of a surface, bodies
// copied up to MaxBody bytes, to the sink once the answer is written. The
// request body the handler reads is the one the client sent.
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
	var seq atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		surface, rel, ok := prefixes.Classify(r.URL.Path)
		if !ok || opts.Sink == nil {
			next.ServeHTTP(w, r)
			return
		}
		start := opts.Now()
		ex := &Exchange{
			Surface: surface, Method: r.Method, Path: rel, Query: r.URL.Query(),
			RequestHeader: r.Header.Clone(), Start: start, URL: requestURL(r),
		}
		if r.Body != nil && r.Body != http.NoBody {
			buf, err := io.ReadAll(io.LimitReader(r.Body, int64(opts.MaxBody)+1))
			if len(buf) > opts.MaxBody {
				ex.RequestBody, ex.RequestTruncated = buf[:opts.MaxBody], true
			} else {
				ex.RequestBody = buf
			}
			rest := r.Body
			r.Body = readCloser{io.MultiReader(bytes.NewReader(buf), errReader{err}, rest), rest}
		}
		ex.Client = opts.Client(r)
		rec := &recorder{ResponseWriter: w, max: opts.MaxBody}
		next.ServeHTTP(rec, r)
		ex.Seq = seq.Add(1)
		ex.Status = rec.status
		if ex.Status == 0 {
			ex.Status = http.StatusOK
		}
		ex.ResponseHeader = rec.header
		if ex.ResponseHeader == nil {
			ex.ResponseHeader = w.Header().Clone()
		}
		ex.ResponseBody, ex.ResponseTruncated = rec.body.Bytes(), rec.truncated
		ex.Duration = opts.Now().Sub(start)
		opts.Sink(ex)
	})
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

type readCloser struct {
	io.Reader
	io.Closer
}

// errReader returns the error that cut the copy of the body short (nil:
// nothing, the rest of the body follows).
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// recorder copies what a handler writes.
type recorder struct {
	http.ResponseWriter
	status    int
	header    http.Header
	body      bytes.Buffer
	max       int
	truncated bool
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.header = r.ResponseWriter.Header().Clone()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if room := r.max - r.body.Len(); room > 0 {
		r.body.Write(b[:min(len(b), room)])
		if len(b) > room {
			r.truncated = true
		}
	} else if len(b) > 0 {
		r.truncated = true
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer's Flush and
// deadlines.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
