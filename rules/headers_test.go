package rules

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResetProblems(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ms := strconv.FormatInt(now.Add(20*time.Minute).UnixMilli(), 10)
	assert.Empty(t, ResetProblems(ms, now))
	secs := strconv.FormatInt(now.Add(20*time.Minute).Unix(), 10)
	p := ResetProblems(secs, now)
	require.Len(t, p, 1)
	assert.Contains(t, p[0], "epoch seconds instead of milliseconds")
	assert.NotEmpty(t, ResetProblems(strconv.FormatInt(now.Add(3*time.Hour).UnixMilli(), 10), now), "beyond the hour")
	assert.NotEmpty(t, ResetProblems("soon", now))
	h := http.Header{}
	h.Set("RateLimit-Limit", "10")
	h.Set("RateLimit-Remaining", "11")
	h.Set("RateLimit-Reset", ms)
	assert.Equal(t, []string{"RateLimit-Remaining 11 exceeds RateLimit-Limit 10"}, RateLimitProblems(h, now))
	assert.Empty(t, RateLimitProblems(http.Header{}, now), "missing headers are the contract family's to report")
}
