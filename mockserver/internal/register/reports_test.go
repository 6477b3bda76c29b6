package register

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReportRingIsBounded(t *testing.T) {
	r := newReportRing(3)
	for i := range 5 {
		r.add(Report{Path: fmt.Sprint(i)})
	}
	page := r.page()
	assert.Equal(t, uint64(2), page.Dropped)
	assert.Equal(t, []string{"2", "3", "4"}, slices.Collect(func(yield func(string) bool) {
		for _, e := range page.Entries {
			if !yield(e.Path) {
				return
			}
		}
	}))
}
