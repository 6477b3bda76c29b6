package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

func TestDeletionLog(t *testing.T) {
	now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	s := New(func() time.Time { return now })
	s.SetDeletionKinds(func(table string, rec any) []string {
		if g, ok := rec.(*model.Group); ok {
			return []string{"Group:" + g.DisplayName}
		}
		return nil
	})
	school := model.Organisation{ID: "o1", DisplayName: "Ekskolan", OrganisationType: model.OrganisationTypeSchoolUnit}
	_, _, err := s.PutOrganisation(school)
	require.NoError(t, err)
	for i, id := range []string{"g1", "g2", "g3"} {
		_, _, err := s.PutGroup(model.Group{ID: id, DisplayName: "7" + string(rune('A'+i)), Organisation: model.ObjectReference{ID: "o1"}, GroupType: model.GroupTypeClass})
		require.NoError(t, err)
	}

	require.NoError(t, s.WriteBy("client-1", func(w *Writer) error { return w.Delete(TableGroups, "g1") }))
	now = now.Add(time.Hour)
	require.NoError(t, s.Delete(TableGroups, "g2"))
	now = now.Add(time.Hour)
	require.NoError(t, s.Write(func(w *Writer) error { return w.Tombstone(TableOrganisations, "o1", "School") }))
	assert.ErrorIs(t, s.Delete(TableGroups, "nope"), ErrNotFound, "a failed delete leaves no tombstone")

	sn := s.Read()
	all := sn.Tombstones(time.Time{})
	require.Len(t, all, 3)
	assert.Equal(t, []string{"g1", "g2", "o1"}, []string{all[0].RecordID, all[1].RecordID, all[2].RecordID}, "in time order")
	assert.Equal(t, "Group:7A", all[0].Kind, "the kind function names the deleted record")
	assert.Equal(t, TableGroups, all[0].Table)
	require.NotNil(t, all[0].DeletedBy)
	assert.Equal(t, "client-1", *all[0].DeletedBy)
	assert.Nil(t, all[1].DeletedBy, "a write without an actor")
	assert.Equal(t, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), all[1].DeletedAt)

	since := sn.Tombstones(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	require.Len(t, since, 2, "since is inclusive")
	assert.Equal(t, "g2", since[0].RecordID)

	kinds := sn.Tombstones(time.Time{}, "School", "Group:7B")
	require.Len(t, kinds, 2)
	assert.Equal(t, []string{"g2", "o1"}, []string{kinds[0].RecordID, kinds[1].RecordID})
	assert.Empty(t, sn.Tombstones(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "School"))

	got, ok := sn.Tombstone(all[2].ID)
	require.True(t, ok)
	assert.Equal(t, "School", got.Kind)

	// The log is part of the state: it survives a dump and load, and a load
	// of other data replaces it.
	ds := s.Export()
	require.Len(t, ds.Tombstones, 3)
	s2 := New(func() time.Time { return now })
	require.NoError(t, s2.Load(ds))
	assert.Len(t, s2.Read().Tombstones(time.Time{}), 3)
	require.NoError(t, s2.Load(&Dataset{}))
	assert.Empty(t, s2.Read().Tombstones(time.Time{}))
}
