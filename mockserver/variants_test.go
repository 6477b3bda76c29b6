package mockserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnknownVariantIsRefusedAtStart(t *testing.T) {
	_, err := New(Options{Variants: []string{"pagetoken-wobble"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown variant "pagetoken-wobble"`)
	assert.Contains(t, err.Error(), VarEmpty404, "the message names the known variants")
}

func TestVariantsCannotBeSwitchedAtRunTime(t *testing.T) {
	h := newHarness(t)
	res := h.admin(http.MethodPost, "/faults", `{"variants":["empty-404"]}`)
	assert.Equal(t, http.StatusBadRequest, res.status, res)
	assert.Contains(t, string(res.body), "variants cannot be switched at run time", res)
}

// The paging variants, as a client sees them.
func TestPageSizeUnderThePagingVariants(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		variants    []string
		want        int
	}{
		{"no limit, no variant", "", nil, defaultPageSize},
		{"small default page", "", []string{VarSmallDefaultPage}, smallPageSize},
		{"small default page keeps an explicit limit", "?limit=40", []string{VarSmallDefaultPage}, 40},
		{"clamped limit", "?limit=5000", []string{VarClampedLimit}, clampedPageSize},
		{"clamped limit keeps a smaller limit", "?limit=3", []string{VarClampedLimit}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.Variants = tc.variants })
			var page struct {
				Data      []map[string]any `json:"data"`
				PageToken *string          `json:"pageToken"`
			}
			res := h.get(PrefixB + "/placements" + tc.query)
			require.Equal(t, http.StatusOK, res.status, res)
			res.decode(&page)
			assert.Len(t, page.Data, tc.want)
			assert.NotNil(t, page.PageToken, "more pages follow")
		})
	}
}
