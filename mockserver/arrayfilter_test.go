package mockserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The standard declares some list filters as arrays ("en eller flera"):
// several values are alternatives, so the answer to two values is the
// union of the answers to each.
func TestArrayFiltersReadSeveralValuesAsAlternatives(t *testing.T) {
	h := newHarness(t)
	count := func(query string) int {
		t.Helper()
		var page struct {
			Data      []map[string]any `json:"data"`
			PageToken *string          `json:"pageToken"`
		}
		res := h.get(PrefixB + query + "&limit=100000")
		require.Equal(t, http.StatusOK, res.status, res)
		res.decode(&page)
		require.Nil(t, page.PageToken, "one page holds them all: %s", query)
		return len(page.Data)
	}
	for _, tc := range []struct{ path, param, a, b string }{
		{"/groups", "groupType", "Klass", "Undervisning"},
		{"/organisations", "type", "Skolenhet", "Huvudman"},
	} {
		t.Run(tc.path+" "+tc.param, func(t *testing.T) {
			one, other := count(tc.path+"?"+tc.param+"="+tc.a), count(tc.path+"?"+tc.param+"="+tc.b)
			require.Positive(t, one)
			require.Positive(t, other)
			assert.Equal(t, one+other, count(tc.path+"?"+tc.param+"="+tc.a+"&"+tc.param+"="+tc.b))
		})
	}
}
