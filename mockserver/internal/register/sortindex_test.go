package register

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every sortkey of the descriptions names the order index it walks
// (docs/decisions.md#interface-b-indexes):
// none is sorted in memory over a whole table.
func TestEverySortKeyHasAnOrderIndex(t *testing.T) {
	for _, res := range builtinResources() {
		for k, so := range res.sorts {
			if res.name == "placements" {
				continue // the placements' own planner
			}
			if res.name == "calendarEvents" && k == "ModifiedDesc" {
				assert.Empty(t, so.index, "sorted within the required startTime range")
				continue
			}
			assert.NotEmpty(t, so.index, "%s sortkey=%s streams from an order index", res.name, k)
		}
	}
}
