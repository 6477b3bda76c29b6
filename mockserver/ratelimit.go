package mockserver

import (
	"github.com/skolkit/skolkit/scenarios"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
)

// defaultRateLimit is the hourly quota of a client whose scenario names none:
// the vendor documents 1,500 requests per hour per client.
const defaultRateLimit = scenarios.DefaultRateLimit

// rateLimiter counts requests per key in fixed windows that start at a key's
// first request and last one window. Every request counts, answered or
// refused, so Remaining never goes up within a window. It is exact under
// concurrency: one mutex guards the counters.
type rateLimiter struct {
	mu      sync.Mutex
	window  time.Duration
	buckets map[string]*bucket
}

type bucket struct {
	start time.Time
	count int
}

// rateDecision is the outcome of counting one request.
type rateDecision struct {
	allowed   bool
	limit     int
	remaining int
	reset     time.Time
}

func newRateLimiter(window time.Duration) *rateLimiter {
	return &rateLimiter{window: window, buckets: map[string]*bucket{}}
}

// take counts one request for key against quota at now.
func (l *rateLimiter) take(key string, quota int, now time.Time) rateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil || !now.Before(b.start.Add(l.window)) {
		if len(l.buckets) > 100_000 {
			l.expire(now)
		}
		b = &bucket{start: now}
		l.buckets[key] = b
	}
	b.count++
	d := rateDecision{allowed: b.count <= quota, limit: quota, remaining: max(quota-b.count, 0), reset: b.start.Add(l.window)}
	return d
}

// reset clears every counter.
func (l *rateLimiter) reset() {
	l.mu.Lock()
	l.buckets = map[string]*bucket{}
	l.mu.Unlock()
}

func (l *rateLimiter) expire(now time.Time) {
	for k, b := range l.buckets {
		if !now.Before(b.start.Add(l.window)) {
			delete(l.buckets, k)
		}
	}
}

// setHeaders writes the three RateLimit headers; RateLimit-Reset is the end
// of the window as UTC epoch milliseconds. A refused request also gets
// Retry-After in whole seconds (rounded up).
// inSeconds writes RateLimit-Reset in seconds instead (a deviation).
func (d rateDecision) setHeaders(h http.Header, now time.Time, inSeconds bool) {
	h.Set(surface.HeaderRateLimit, strconv.Itoa(d.limit))
	h.Set(surface.HeaderRateRemaining, strconv.Itoa(d.remaining))
	reset := d.reset.UnixMilli()
	if inSeconds {
		reset = d.reset.Unix()
	}
	h.Set(surface.HeaderRateReset, strconv.FormatInt(reset, 10))
	if !d.allowed {
		secs := int64((d.reset.Sub(now) + time.Second - 1) / time.Second)
		h.Set(surface.HeaderRetryAfter, strconv.FormatInt(max(secs, 1), 10))
	}
}
