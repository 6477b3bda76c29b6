package admin

import (
	"net/http"
	"testing"
	"time"

	"github.com/skolkit/skolkit/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDelayRangesRepeatWithTheSeed(t *testing.T) {
	sc, err := scenarios.Parse("s.yaml", []byte("name: s\nseed: 9\nbehaviours:\n  latency:\n    - {route: /*, delay: 1ms-30s}\n"))
	require.NoError(t, err)
	draw := func() []time.Duration {
		var rs ruleSet
		rs.load(sc)
		var out []time.Duration
		for range 20 {
			out = append(out, rs.delay(http.MethodGet, "/x"))
		}
		return out
	}
	first := draw()
	assert.Equal(t, first, draw())
	for _, d := range first {
		assert.True(t, d >= time.Millisecond && d <= 30*time.Second, d)
	}
}
