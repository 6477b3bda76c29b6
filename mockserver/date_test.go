package mockserver

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDateIsTheMocksClock: every answer's Date is the mock's now, which a
// test (or a scenario) may hold still or move, and RateLimit-Reset is a time
// of that clock within the coming hour (docs/decisions.md#date-is-the-mocks-clock).
func TestDateIsTheMocksClock(t *testing.T) {
	h := newHarness(t)
	for _, step := range []time.Duration{0, 90 * time.Minute} {
		h.clock.Advance(step)
		h.token = h.fetchToken(h.srv.Credentials()) // the token lives an hour of the mock's
		now := h.clock.Now()
		for _, path := range []string{PrefixA + "/school?limit=1", PrefixB + "/organisations?limit=1"} {
			res := h.get(path)
			require.Equal(t, http.StatusOK, res.status, res)
			date, err := http.ParseTime(res.header.Get("Date"))
			require.NoError(t, err, res.header.Get("Date"))
			assert.Equal(t, now.UTC().Truncate(time.Second), date.UTC(), "%s: Date is the mock's now", path)
			if strings.HasPrefix(path, PrefixA) {
				ms, err := strconv.ParseInt(res.header.Get("RateLimit-Reset"), 10, 64)
				require.NoError(t, err)
				reset := time.UnixMilli(ms)
				assert.True(t, reset.After(date) && !reset.After(date.Add(time.Hour+time.Second)), "RateLimit-Reset %s within the hour after Date %s", reset, date)
			}
		}
	}
}
