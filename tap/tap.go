package tap

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skolkit/skolkit/rules"
)

// Defaults of Options.
const (
	// DefaultMaxBody is how much of each body the tap keeps for the judge:
	// enough for a page of a hundred expanded records.
	DefaultMaxBody = 1 << 20
	// DefaultQueueLen is how many exchanges may wait for the judge: a
	// burst's worth. A judge behind for longer drops either way; a deeper
	// queue would only hold more memory and judge later.
	DefaultQueueLen = 1024
	// DefaultQueueBytes bounds the bodies of the exchanges waiting for the
	// judge.
	DefaultQueueBytes = 16 << 20
	// DefaultJudgeShare is the share of one core the judge may use.
	DefaultJudgeShare = 0.25
)

// PathPrefix is the tap's own part of the URL space: requests under it are
// answered by the tap and never forwarded.
const PathPrefix = "/__tap/"

// PathReport serves the live report (GET), PathStats the tap's counters
// (GET, JSON Stats).
const (
	PathReport = PathPrefix + "report"
	PathStats  = PathPrefix + "stats"
)

// Observer gets the exchanges the tap saw, one at a time, on the tap's one
// judging goroutine.
type Observer interface {
	Observe(*rules.Exchange)
}

// Beginner is an Observer told of each write as it arrives, in the order
// of the queue (so before the exchanges that ended after it began), and
// later observes it once it has its answer.
type Beginner interface {
	Begin(*rules.Exchange)
}

// queued is an item of the judging queue: an exchange with its answer, or
// a write that has begun.
type queued struct {
	ex    *rules.Exchange
	begin bool
}

// Options configures a Tap.
type Options struct {
	// Target is the server's base URL (http or https). A request for
	// /api/v1/x goes to Target's path joined with /api/v1/x, with the
	// query as sent.
	Target *url.URL
	// Transport sends the requests to the target; nil: NewTransport(nil).
	Transport http.RoundTripper
	// Observer judges what the tap saw; nil: the tap only forwards.
	Observer Observer
	// MaxBody is how many bytes of each body the observer gets
	// (DefaultMaxBody when 0, none when negative). The whole body is always
	// forwarded; a body cut for the observer is marked so.
	MaxBody int
	// QueueLen and QueueBytes bound the exchanges waiting for the observer
	// (DefaultQueueLen and DefaultQueueBytes when 0). An exchange that
	// would exceed either is not judged and counted as dropped.
	QueueLen   int
	QueueBytes int64
	// JudgeShare is the share of one core's time the judging goroutine
	// may use, averaged over a few milliseconds (DefaultJudgeShare when 0;
	// 1: as much as it needs). Forwarding keeps the rest of the machine; a
	// judge that falls behind queues, then drops.
	JudgeShare float64
	// Prefixes say which paths are which surface (DefaultPrefixes when
	// zero).
	Prefixes rules.Prefixes
	// Summary writes the live report served at PathReport; nil: the
	// tap's counters, as at PathStats.
	Summary http.HandlerFunc
	// ErrorLog gets the proxy's errors (the target unreachable); nil: the
	// standard logger.
	ErrorLog *log.Logger
}

// Tap is a reverse proxy that judges what passes through it. Forwarding
// never waits for judging: exchanges are queued for one judging goroutine
// with bounded room, and what does not fit is counted, not judged.
type Tap struct {
	opts    Options
	handler http.Handler
	queue   chan queued
	done    chan struct{}
	stopped atomic.Bool
	stop    sync.Once

	// now and sleep are the judge's clock (tests replace them).
	now   func() time.Time
	sleep func(time.Duration)

	queuedBytes atomic.Int64
	forwarded   atomic.Uint64
	seen        atomic.Uint64
	judged      atomic.Uint64
	dropped     atomic.Uint64
	cut         atomic.Uint64
	noAnswer    atomic.Uint64
}

// Stats are the tap's counters.
type Stats struct {
	// Forwarded counts the requests forwarded to the target.
	Forwarded uint64 `json:"forwarded"`
	// Seen counts those of a surface (the others are forwarded, not
	// judged: a favicon, a health check).
	Seen uint64 `json:"seen"`
	// Judged counts those the observer got.
	Judged uint64 `json:"judged"`
	// Dropped counts those the observer never got: the judge was behind
	// (its queue full) or the tap was stopping.
	Dropped uint64 `json:"dropped"`
	// CutBodies counts the exchanges with a body longer than MaxBody: the
	// observer got its first MaxBody bytes.
	CutBodies uint64 `json:"cutBodies"`
	// NoAnswer counts the exchanges the target did not answer (refused,
	// reset, timed out): the client got a 502 from the tap.
	NoAnswer uint64 `json:"noAnswer"`
}

// New returns a tap in front of opts.Target. Its judging goroutine runs
// until Close.
func New(opts Options) (*Tap, error) {
	if opts.Target == nil || opts.Target.Host == "" || (opts.Target.Scheme != "http" && opts.Target.Scheme != "https") {
		return nil, errors.New("the target must be an absolute http:// or https:// URL")
	}
	if opts.Transport == nil {
		opts.Transport = NewTransport(nil)
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	} else if opts.MaxBody < 0 {
		opts.MaxBody = 0
	}
	if opts.QueueLen <= 0 {
		opts.QueueLen = DefaultQueueLen
	}
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = DefaultQueueBytes
	}
	if opts.JudgeShare <= 0 {
		opts.JudgeShare = DefaultJudgeShare
	}
	opts.JudgeShare = min(opts.JudgeShare, 1)
	if opts.Prefixes == (rules.Prefixes{}) {
		opts.Prefixes = rules.DefaultPrefixes()
	}
	t := &Tap{opts: opts, done: make(chan struct{}), now: time.Now, sleep: time.Sleep}
	proxy := newProxy(opts.Target, opts.Transport, opts.ErrorLog)
	if opts.Observer == nil {
		t.handler = proxy
		close(t.done)
		return t, nil
	}
	t.queue = make(chan queued, opts.QueueLen)
	capture := rules.CaptureOptions{MaxBody: opts.MaxBody, Prefixes: &opts.Prefixes, Sink: t.enqueue}
	if _, ok := opts.Observer.(Beginner); ok {
		capture.Begin = t.enqueueBegin
	}
	t.handler = rules.Capture(proxy, capture)
	go t.judge()
	return t, nil
}

// ServeHTTP forwards the request to the target, or answers it when it is
// the tap's own (under PathPrefix).
func (t *Tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, PathPrefix) {
		t.serveOwn(w, r)
		return
	}
	// The server adds Date and a sniffed Content-Type to answers without
	// them; an answer passes through the tap as the target gave it.
	h := w.Header()
	h["Date"], h["Content-Type"] = nil, nil
	t.forwarded.Add(1)
	t.handler.ServeHTTP(w, r)
}

// Stats returns the counters so far.
func (t *Tap) Stats() Stats {
	return Stats{Forwarded: t.forwarded.Load(), Seen: t.seen.Load(), Judged: t.judged.Load(), Dropped: t.dropped.Load(),
		CutBodies: t.cut.Load(), NoAnswer: t.noAnswer.Load()}
}

// Close stops judging: the exchanges already queued are judged (at full
// speed: nothing is forwarded any more), later ones are counted as
// dropped. Call it once the listener is shut down; it
// returns when the observer has seen its last exchange.
func (t *Tap) Close() {
	t.stop.Do(func() {
		if t.queue == nil {
			return
		}
		t.stopped.Store(true)
		t.queue <- queued{} // after everything queued so far
		<-t.done
		for {
			select {
			case q := <-t.queue: // queued while stopping
				if q.ex != nil && !q.begin {
					t.dropped.Add(1)
				}
			default:
				return
			}
		}
	})
}

// enqueue hands an exchange to the judging goroutine without waiting.
func (t *Tap) enqueue(ex *rules.Exchange) {
	t.seen.Add(1)
	if ex.ResponseTruncated || ex.RequestTruncated {
		t.cut.Add(1)
	}
	if ex.Status == 0 {
		t.noAnswer.Add(1)
	}
	size := int64(len(ex.RequestBody) + len(ex.ResponseBody))
	if t.stopped.Load() || t.queuedBytes.Add(size) > t.opts.QueueBytes {
		t.queuedBytes.Add(-size)
		t.dropped.Add(1)
		return
	}
	select {
	case t.queue <- queued{ex: ex}:
	default:
		t.queuedBytes.Add(-size)
		t.dropped.Add(1)
	}
}

// enqueueBegin tells the judging goroutine, in the queue's order, that a
// write has begun. When the queue is full the judge is not told (it then
// judges as if the write had not been under way, which is the exchange's
// own answer's fate too when the queue stays full).
func (t *Tap) enqueueBegin(ex *rules.Exchange) {
	if t.stopped.Load() {
		return
	}
	select {
	case t.queue <- queued{ex: ex, begin: true}:
	default:
	}
}

// judge is the one goroutine that feeds the observer. It keeps to its
// share of a core: for each stretch of judging it owes a rest in
// proportion, which time spent waiting for exchanges pays first. After
// each exchange it yields its processor to the requests waiting for one.
func (t *Tap) judge() {
	defer close(t.done)
	restPerBusy := (1 - t.opts.JudgeShare) / t.opts.JudgeShare
	var owed time.Duration
	for {
		waited := t.now()
		q := <-t.queue
		if q.ex == nil {
			return
		}
		if q.begin {
			t.opts.Observer.(Beginner).Begin(q.ex)
			continue
		}
		ex := q.ex
		start := t.now()
		owed = max(owed-start.Sub(waited), 0)
		t.queuedBytes.Add(-int64(len(ex.RequestBody) + len(ex.ResponseBody)))
		t.opts.Observer.Observe(ex)
		t.judged.Add(1)
		end := t.now()
		owed += time.Duration(float64(end.Sub(start)) * restPerBusy)
		// Requests waiting for a processor go first; once stopping, nothing
		// is forwarded, and the judge drains its queue without resting.
		runtime.Gosched()
		if owed > minRest && !t.stopped.Load() {
			t.sleep(owed)
			owed = max(owed-t.now().Sub(end), 0)
		}
	}
}

// minRest is the shortest rest the judge takes (shorter sleeps cost more
// than they give back).
const minRest = 2 * time.Millisecond

func (t *Tap) serveOwn(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != PathReport && r.URL.Path != PathStats {
		http.Error(w, fmt.Sprintf("skolkit tap: no such page; the tap serves GET %s and GET %s, and forwards everything outside %s", PathReport, PathStats, PathPrefix), http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "skolkit tap: the report is read with GET", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == PathReport && t.opts.Summary != nil {
		t.opts.Summary(w, r)
		return
	}
	writeJSON(w, t.Stats())
}

// newProxy is the reverse proxy the tap forwards with: the request goes
// to the target as the client sent it (Host becomes the target's, so that
// virtual hosts and TLS names match; hop-by-hop headers go, as RFC 9110
// section 7.6.1 requires of a proxy; no header is added), and the answer
// comes back as the target gave it, streamed.
func newProxy(target *url.URL, transport http.RoundTripper, errorLog *log.Logger) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			if target.RawQuery == "" {
				pr.Out.URL.RawQuery = pr.In.URL.RawQuery // unparsable parameters too
			}
			for _, h := range forwardingHeaders {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
		},
		Transport: transport,
		// Answers of unknown length (and event streams) are flushed as
		// they come, whatever this says; others as the buffer fills.
		FlushInterval: 0,
		ErrorLog:      errorLog,
		BufferPool:    bufferPool{},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			rules.NoAnswer(w, err)
			if errorLog != nil {
				errorLog.Printf("skolkit tap: %s %s: %v", r.Method, r.URL.Path, err) // the path only: a query may carry a token
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "skolkit tap: the target did not answer: %v\n", err)
		},
	}
}

// forwardingHeaders are the headers httputil.ReverseProxy strips before
// Rewrite; the tap forwards them as the client sent them.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"}

// NewTransport returns a transport for the tap (and for a plain proxy it
// is compared with): connections kept alive to the target, HTTP/2 when
// the target speaks it over TLS, and nothing added to the requests (no
// Accept-Encoding: the answer reaches the client as the target encoded
// it). tlsConfig may be nil.
func NewTransport(tlsConfig *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		TLSClientConfig:       tlsConfig,
	}
}

// bufferPool lends the proxy its copy buffers.
type bufferPool struct{}

var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (bufferPool) Get() []byte  { return *copyBuffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { copyBuffers.Put(&b) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
