package tap

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/rules"
)

// collector is an observer that keeps what it got.
type collector struct {
	mu   sync.Mutex
	got  []*rules.Exchange
	gate chan struct{} // when set, Observe waits for it
	// entered, when set, gets a value as Observe starts.
	entered chan struct{}
}

func (c *collector) Observe(ex *rules.Exchange) {
	if c.entered != nil {
		c.entered <- struct{}{}
	}
	if c.gate != nil {
		<-c.gate
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, ex)
}

func (c *collector) exchanges() []*rules.Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*rules.Exchange(nil), c.got...)
}

// tapInFront starts a tap in front of target and returns its URL; the
// tap is closed (its queue judged) when the test ends, before obs is read
// by a Cleanup registered earlier.
func tapInFront(t *testing.T, target string, opts Options) (*Tap, string) {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	opts.Target = u
	tp, err := New(opts)
	require.NoError(t, err)
	hs := httptest.NewServer(tp)
	t.Cleanup(func() { hs.Close(); tp.Close() })
	return tp, hs.URL
}

// rawClient sends requests as built, adding nothing (no Accept-Encoding).
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// received is what an upstream saw of one request.
type received struct {
	method, host, requestURI string
	header                   http.Header
	body                     []byte
}

func echoUpstream(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, chan received) {
	seen := make(chan received, 16)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen <- received{r.Method, r.Host, r.RequestURI, r.Header.Clone(), body}
		answer(w, r)
	}))
	t.Cleanup(up.Close)
	return up, seen
}

func TestTheRequestReachesTheTargetAsSent(t *testing.T) {
	up, seen := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	_, tapURL := tapInFront(t, up.URL+"/base", Options{Observer: &collector{}})

	body := `{"civicNos":["190001019999"]}`
	req, err := http.NewRequest(http.MethodPost, tapURL+"/api/v1/persons/lookup?expand=x;y&a=%2F+b", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer abc")
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("X-Forwarded-For", "192.0.2.7")
	req.Header.Set("X-Custom", "one")
	req.Header.Add("X-Custom", "two")
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "dropped: named by Connection")
	resp, err := rawClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	got := <-seen
	assert.Equal(t, http.MethodPost, got.method)
	assert.Equal(t, "/base/api/v1/persons/lookup?expand=x;y&a=%2F+b", got.requestURI, "path joined to the target's, query as sent (even unparsable parameters)")
	assert.Equal(t, strings.TrimPrefix(up.URL, "http://"), got.host, "Host is the target's")
	assert.Equal(t, body, string(got.body))
	assert.Equal(t, []string{"Bearer abc"}, got.header["Authorization"])
	assert.Equal(t, []string{"192.0.2.7"}, got.header["X-Forwarded-For"], "forwarded as sent, nothing appended")
	assert.Equal(t, []string{"one", "two"}, got.header["X-Custom"])
	for _, h := range []string{"X-Hop", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded", "Accept-Encoding"} {
		assert.NotContains(t, got.header, h)
	}
}

func TestTheAnswerReachesTheClientAsGiven(t *testing.T) {
	up, _ := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		// No Date, no Content-Type: the tap must not add them either.
		w.Header()["Date"] = nil
		w.Header()["Content-Type"] = nil
		w.Header().Set("RateLimit-Reset", "1700000000000")
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, "<html>not sniffed</html>")
	})
	obs := &collector{}
	tp, tapURL := tapInFront(t, up.URL, Options{Observer: obs})
	resp, err := rawClient.Get(tapURL + "/api/v1/x")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tp.Close()
	require.Len(t, obs.exchanges(), 1)
	judged := obs.exchanges()[0].ResponseHeader
	assert.NotContains(t, judged, "Date", "the judge sees the header as sent")
	assert.NotContains(t, judged, "Content-Type")
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)
	assert.Equal(t, "<html>not sniffed</html>", string(body))
	assert.NotContains(t, resp.Header, "Date")
	assert.NotContains(t, resp.Header, "Content-Type")
	assert.Equal(t, []string{"a=1", "b=2"}, resp.Header["Set-Cookie"])
	assert.Equal(t, "1700000000000", resp.Header.Get("RateLimit-Reset"))
}

func TestAnswersStreamThrough(t *testing.T) {
	release := make(chan struct{})
	up, _ := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "second\n")
	})
	obs := &collector{}
	_, tapURL := tapInFront(t, up.URL, Options{Observer: obs})
	resp, err := rawClient.Get(tapURL + "/data-export/v1/stream")
	require.NoError(t, err)
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	require.NoError(t, err, "the first part arrives before the target has finished")
	assert.Equal(t, "first\n", line)
	close(release)
	line, err = rd.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "second\n", line)
}

func TestAnHTTPSTargetOverHTTP2(t *testing.T) {
	var proto, host string
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto, host = r.Proto, r.Host
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[]}`)
	}))
	up.EnableHTTP2 = true
	up.StartTLS()
	t.Cleanup(up.Close)
	tr := NewTransport(&tls.Config{RootCAs: up.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs})
	_, tapURL := tapInFront(t, up.URL, Options{Transport: tr, Observer: &collector{}})
	resp, err := rawClient.Get(tapURL + "/api/v1/groups")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, `{"data":[]}`, string(body))
	assert.Equal(t, "HTTP/2.0", proto)
	assert.Equal(t, strings.TrimPrefix(up.URL, "https://"), host)
}

func TestEveryExchangeIsObserved(t *testing.T) {
	up, _ := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1"}`)
	})
	obs := &collector{}
	tp, tapURL := tapInFront(t, up.URL, Options{Observer: obs})
	for _, path := range []string{"/api/v1/persons/1?expand=a&expand=b", "/directory/v1/schools", "/oauth/token", "/elsewhere"} {
		resp, err := rawClient.Post(tapURL+path, "application/x-www-form-urlencoded", strings.NewReader("grant_type=client_credentials"))
		require.NoError(t, err)
		resp.Body.Close()
	}
	tp.Close()
	got := obs.exchanges()
	require.Len(t, got, 3, "a path of no surface is forwarded, not judged")
	assert.Equal(t, Stats{Forwarded: 4, Seen: 3, Judged: 3}, tp.Stats())
	ex := got[0]
	assert.Equal(t, rules.SurfaceB, ex.Surface)
	assert.Equal(t, "/persons/1", ex.Path)
	assert.Equal(t, url.Values{"expand": {"a", "b"}}, ex.Query)
	assert.Equal(t, http.MethodPost, ex.Method)
	assert.Equal(t, "grant_type=client_credentials", string(ex.RequestBody))
	assert.Equal(t, "application/x-www-form-urlencoded", ex.RequestHeader.Get("Content-Type"))
	assert.Equal(t, http.StatusOK, ex.Status)
	assert.Equal(t, "application/json", ex.ResponseHeader.Get("Content-Type"))
	assert.Equal(t, `{"id":"1"}`, string(ex.ResponseBody))
	assert.False(t, ex.RequestTruncated || ex.ResponseTruncated)
	assert.Equal(t, tapURL+"/api/v1/persons/1?expand=a&expand=b", ex.URL)
	assert.Positive(t, ex.Duration)
	assert.Equal(t, rules.SurfaceA, got[1].Surface)
	assert.Equal(t, rules.SurfaceAuth, got[2].Surface)
	seqs := map[uint64]bool{}
	for _, ex := range got {
		seqs[ex.Seq] = true
	}
	assert.Len(t, seqs, 3, "each exchange its own sequence number")
}

func TestBodiesAreCutForTheJudgeOnly(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	up, seen := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, long) })
	obs := &collector{}
	tp, tapURL := tapInFront(t, up.URL, Options{Observer: obs, MaxBody: 100})
	resp, err := rawClient.Post(tapURL+"/api/v1/x", "text/plain", strings.NewReader(long))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, long, string(body), "the client gets the whole answer")
	assert.Equal(t, long, string((<-seen).body), "the target gets the whole request")
	tp.Close()
	got := obs.exchanges()
	require.Len(t, got, 1)
	assert.Equal(t, long[:100], string(got[0].RequestBody))
	assert.Equal(t, long[:100], string(got[0].ResponseBody))
	assert.True(t, got[0].RequestTruncated)
	assert.True(t, got[0].ResponseTruncated)
	assert.Equal(t, uint64(1), tp.Stats().CutBodies)
}

func TestForwardingNeverWaitsForTheJudge(t *testing.T) {
	up, _ := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	obs := &collector{gate: make(chan struct{})}
	tp, tapURL := tapInFront(t, up.URL, Options{Observer: obs, QueueLen: 2})
	for range 10 { // the judge is stuck on the first
		resp, err := rawClient.Get(tapURL + "/api/v1/x")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	st := tp.Stats()
	assert.Equal(t, uint64(10), st.Seen)
	assert.GreaterOrEqual(t, st.Dropped, uint64(7), "one with the judge, two queued, the rest dropped")
	close(obs.gate)
	tp.Close()
	st = tp.Stats()
	assert.Equal(t, st.Seen, st.Judged+st.Dropped)
	assert.Len(t, obs.exchanges(), int(st.Judged))
}

func TestQueuedBytesAreBounded(t *testing.T) {
	up, _ := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, strings.Repeat("y", 600)) })
	obs := &collector{gate: make(chan struct{}), entered: make(chan struct{}, 5)}
	tp, tapURL := tapInFront(t, up.URL, Options{Observer: obs, QueueBytes: 1000})
	for i := range 5 {
		resp, err := rawClient.Get(tapURL + "/api/v1/x")
		require.NoError(t, err)
		resp.Body.Close()
		if i == 0 {
			<-obs.entered
		}
	}
	// The first went to the judge (its bytes no longer queued), one more
	// fits in 1000 bytes, the others do not.
	assert.Equal(t, uint64(3), tp.Stats().Dropped)
	close(obs.gate)
}

func TestATargetThatDoesNotAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	ln.Close()
	obs := &collector{}
	tp, tapURL := tapInFront(t, dead, Options{Observer: obs, ErrorLog: quietLog(t)})
	resp, err := rawClient.Get(tapURL + "/api/v1/x")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Contains(t, string(body), "skolkit tap: the target did not answer")
	tp.Close()
	got := obs.exchanges()
	require.Len(t, got, 1)
	assert.Equal(t, 0, got[0].Status, "no answer of the target's: no status to judge")
	assert.Contains(t, got[0].Err, "connect")
	assert.Nil(t, got[0].ResponseBody)
	assert.Equal(t, uint64(1), tp.Stats().NoAnswer)
}

func TestAClientThatGoesAway(t *testing.T) {
	up, _ := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		for range 100 {
			if _, err := w.Write(make([]byte, 1000)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	})
	obs := &collector{}
	tp, tapURL := tapInFront(t, up.URL, Options{Observer: obs, ErrorLog: quietLog(t)})
	resp, err := rawClient.Get(tapURL + "/data-export/v1/big")
	require.NoError(t, err)
	_, err = io.ReadFull(resp.Body, make([]byte, 1000))
	require.NoError(t, err)
	resp.Body.Close() // gone before the end
	require.Eventually(t, func() bool { return tp.Stats().Seen == 1 }, 5*time.Second, 10*time.Millisecond)
	tp.Close()
	got := obs.exchanges()
	require.Len(t, got, 1)
	assert.True(t, got[0].ResponseTruncated)
	assert.NotEmpty(t, got[0].Err)
}

func TestTheTapsOwnPages(t *testing.T) {
	up, seen := echoUpstream(t, func(w http.ResponseWriter, r *http.Request) {})
	_, tapURL := tapInFront(t, up.URL, Options{Observer: &collector{}})
	resp, err := rawClient.Get(tapURL + PathReport)
	require.NoError(t, err)
	var st Stats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	for path, code := range map[string]int{PathPrefix + "other": http.StatusNotFound, PathStats: http.StatusOK} {
		resp, err := rawClient.Get(tapURL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, code, resp.StatusCode, path)
	}
	resp, err = rawClient.Post(tapURL+PathReport, "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Empty(t, seen, "the tap's pages are never forwarded")
}

func TestATargetMustBeAnHTTPURL(t *testing.T) {
	for _, target := range []string{"", "ftp://host", "/relative", "http://"} {
		u, _ := url.Parse(target)
		_, err := New(Options{Target: u})
		assert.Error(t, err, target)
	}
}

func quietLog(*testing.T) *log.Logger {
	return log.New(io.Discard, "", 0)
}

// fakeClock is a clock that only moves when told.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
func (c *fakeClock) sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.slept = append(c.slept, d)
}

// slowObserver takes a while (by the fake clock) over each exchange.
type slowObserver struct {
	clock *fakeClock
	took  time.Duration
}

func (o slowObserver) Observe(*rules.Exchange) { o.clock.advance(o.took) }

func TestTheJudgeKeepsToItsShare(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	tp, err := New(Options{Target: &url.URL{Scheme: "http", Host: "h"}, Observer: slowObserver{clock, 4 * time.Millisecond}, JudgeShare: 0.2})
	require.NoError(t, err)
	tp.Close() // the real judge goroutine stops; run one on the fake clock
	tp.queue, tp.done, tp.stop = make(chan queued, 10), make(chan struct{}), sync.Once{}
	tp.stopped.Store(false)
	tp.now, tp.sleep = clock.now, clock.sleep
	for range 5 {
		tp.queue <- queued{ex: &rules.Exchange{}}
	}
	go tp.judge()
	require.Eventually(t, func() bool { clock.mu.Lock(); defer clock.mu.Unlock(); return len(clock.slept) == 5 }, 5*time.Second, time.Millisecond)
	tp.Close()
	// 4 ms of judging owe 16 ms of rest at a share of 0.2.
	assert.Equal(t, []time.Duration{16 * time.Millisecond, 16 * time.Millisecond, 16 * time.Millisecond, 16 * time.Millisecond, 16 * time.Millisecond}, clock.slept)
	assert.Equal(t, uint64(5), tp.Stats().Judged)
}

// orderObserver records what the judge was told, in order.
type orderObserver struct {
	mu     sync.Mutex
	events []string
}

func (o *orderObserver) Begin(ex *rules.Exchange) { o.note("begin " + ex.Method + " " + ex.Path) }
func (o *orderObserver) Observe(ex *rules.Exchange) {
	o.note("observe " + ex.Method + " " + ex.Path)
}
func (o *orderObserver) note(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, s)
}

// TestTheJudgeIsToldOfAWriteBeforeTheReadsThatEndDuringIt: a read that
// ends while a write is under way reaches the judge after the write's
// beginning, so that rules comparing readings know of the write.
func TestTheJudgeIsToldOfAWriteBeforeTheReadsThatEndDuringIt(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			close(arrived) // the tap has passed the write on, and begun it
			<-release      // the write's answer waits for the read's
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer target.Close()
	u, _ := url.Parse(target.URL)
	obs := &orderObserver{}
	tp, err := New(Options{Target: u, Observer: obs, JudgeShare: 1})
	require.NoError(t, err)
	front := httptest.NewServer(tp)
	defer front.Close()

	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		resp, err := http.Post(front.URL+"/api/v1/subscriptions", "application/json", strings.NewReader(`{}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-arrived
	resp, err := http.Get(front.URL + "/api/v1/persons")
	require.NoError(t, err)
	resp.Body.Close()
	close(release)
	<-wrote
	front.Close()
	tp.Close()
	assert.Equal(t, []string{"begin POST /subscriptions", "observe GET /persons", "observe POST /subscriptions"}, obs.events)
}
