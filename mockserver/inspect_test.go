package mockserver

import "time"

// Inspection helpers of the tests (the server itself never needs them).

// count returns the requests counted for key in its current window.
func (l *rateLimiter) count(key string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.buckets[key]; b != nil && now.Before(b.start.Add(l.window)) {
		return b.count
	}
	return 0
}
