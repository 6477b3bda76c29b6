package register

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every sortkey of the descriptions names the order index it walks (BB15):
// none is sorted in memory over a whole table.
func TestEverySortKeyHasAnOrderIndex(t *testing.T) {
	for _, res := range builtinResources() {
		for k, so := range res.sorts {
			if res.name == "placements" {
				continue // the placements' own planner (D2)
			}
			if res.name == "calendarEvents" && k == "ModifiedDesc" {
				assert.Empty(t, so.index, "sorted within the required startTime range (BB15)")
				continue
			}
			assert.NotEmpty(t, so.index, "%s sortkey=%s streams from an order index", res.name, k)
		}
	}
}
