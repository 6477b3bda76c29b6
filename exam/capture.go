package exam

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/mockserver"
)

// SpecRef is the sentence a finding rests on and where it stands.
type SpecRef struct {
	Section  string `json:"section"`
	Quote    string `json:"quote"`
	Decision string `json:"decision,omitempty"`
}

// Exchange is one request of the client and the mock's answer, as they
// went over the wire.
type Exchange struct {
	Seq               uint64
	Client            string
	Surface           string
	Method            string
	Path              string
	Query             url.Values
	RequestHeader     http.Header
	RequestBody       []byte
	RequestTruncated  bool
	Status            int
	ResponseHeader    http.Header
	ResponseBody      []byte
	ResponseTruncated bool
	Start             time.Time
	Duration          time.Duration
	Err               string
	URL               string
}

// maxCaptureBody is how much of a body the capture keeps: a list page of
// a thousand records fits.
const maxCaptureBody = 8 << 20

// exchangeLog holds the exchanges of one scene, in arrival order.
type exchangeLog struct {
	mu  sync.Mutex
	seq uint64
	all []*Exchange
}

func (l *exchangeLog) add(ex *Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	ex.Seq = l.seq
	l.all = append(l.all, ex)
}

// since returns the exchanges from the nth on.
func (l *exchangeLog) since(n int) []*Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Exchange(nil), l.all[n:]...)
}

func (l *exchangeLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all)
}

// surfaceOf classifies a path: the surface and the path relative to it.
func surfaceOf(path string) (string, string) {
	switch {
	case path == mockserver.PathToken:
		return "auth", path
	case strings.HasPrefix(path, mockserver.PrefixB+"/"):
		return surfaceB, strings.TrimPrefix(path, mockserver.PrefixB)
	case strings.HasPrefix(path, mockserver.PrefixA+"/"):
		return surfaceA, strings.TrimPrefix(path, mockserver.PrefixA)
	case strings.HasPrefix(path, mockserver.PrefixExport+"/"):
		return surfaceExport, strings.TrimPrefix(path, mockserver.PrefixExport)
	}
	return "", path
}

// capture records every exchange that passes it, bodies included (up to
// maxCaptureBody), once the answer is written.
func capture(next http.Handler, client string, base string, sink func(*Exchange)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		var reqBody []byte
		truncated := false
		if r.Body != nil && r.Body != http.NoBody {
			b, _ := io.ReadAll(io.LimitReader(r.Body, maxCaptureBody+1))
			r.Body.Close()
			if len(b) > maxCaptureBody {
				b, truncated = b[:maxCaptureBody], true
			}
			reqBody = b
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		surface, rel := surfaceOf(r.URL.Path)
		ex := &Exchange{Client: client, Surface: surface, Method: r.Method, Path: rel, Query: r.URL.Query(),
			RequestHeader: r.Header.Clone(), RequestBody: reqBody, RequestTruncated: truncated, Start: start,
			URL: base + r.URL.RequestURI()}
		rec := &recorder{ResponseWriter: w}
		defer func() {
			ex.Duration = time.Since(start)
			ex.Status = rec.status
			if rec.status == 0 && r.Context().Err() != nil {
				ex.Err = r.Context().Err().Error()
			} else if rec.status == 0 {
				ex.Status = http.StatusOK
			}
			ex.ResponseHeader = w.Header().Clone()
			ex.ResponseBody, ex.ResponseTruncated = rec.body.Bytes(), rec.truncated
			sink(ex)
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorder passes an answer on and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status    int
	body      bytes.Buffer
	truncated bool
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if room := maxCaptureBody - r.body.Len(); room > 0 {
		r.body.Write(p[:min(len(p), room)])
		r.truncated = r.truncated || len(p) > room
	} else if len(p) > 0 {
		r.truncated = true
	}
	return r.ResponseWriter.Write(p)
}
