package mockserver

import (
	"sync"
	"time"
)

// Clock is the server's notion of now. It follows a base clock (the real
// one, or a test's) shifted by an offset, or stands still at a fixed instant
// when the scenario fixes it; Set and Advance move it either way, so tests
// can reach token expiry, rate-limit windows and date boundaries without
// waiting.
type Clock struct {
	mu     sync.Mutex
	base   func() time.Time
	fixed  bool
	at     time.Time     // the instant when fixed
	offset time.Duration // added to base when not fixed
}

// newClock returns a clock that follows base, or stands at fixedAt when
// fixedAt is not zero.
func newClock(base func() time.Time, fixedAt time.Time) *Clock {
	if base == nil {
		base = time.Now
	}
	return &Clock{base: base, fixed: !fixedAt.IsZero(), at: fixedAt}
}

// Now returns the current instant.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fixed {
		return c.at
	}
	return c.base().Add(c.offset)
}

// Set moves the clock to t; a fixed clock stays fixed, a running one runs on from t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fixed {
		c.at = t
		return
	}
	c.offset = t.Sub(c.base())
}

// Advance moves the clock forward by d (backward for a negative d).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fixed {
		c.at = c.at.Add(d)
		return
	}
	c.offset += d
}

// Fixed reports whether the clock stands still.
func (c *Clock) Fixed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fixed
}
