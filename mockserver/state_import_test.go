package mockserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestImportedStateIsTakenAsItIs(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	require.NotEmpty(t, ds.EmployeePlacements, "the default scenario derives employee placements for its staff")
	ds.EmployeePlacements = nil
	_, err := h.srv.ImportState(ds)
	require.NoError(t, err)
	assert.Empty(t, h.srv.store.Export().EmployeePlacements, "an import with no employee placements keeps none")
}
