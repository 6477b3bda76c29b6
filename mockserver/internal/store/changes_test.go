package store

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

func TestOnCommitReportsWhatEachCommittedWriteChanged(t *testing.T) {
	s, _ := smallWorld(t, 5)
	var got []Change
	s.OnCommit(func(c Change) { got = append(got, c) })
	sn := s.Read()
	org, ok := sn.Organisation(id('o', 0))
	require.True(t, ok)

	// a new record and a changed one in one transaction
	require.NoError(t, s.Write(func(w *Writer) error {
		if _, _, err := w.PutPerson(model.Person{ID: id('p', 99), GivenName: "Ny", FamilyName: "Person"}); err != nil {
			return err
		}
		o := *org
		o.DisplayName = "Renamed"
		_, _, err := w.PutOrganisation(o)
		return err
	}))
	require.Len(t, got, 1)
	assert.Equal(t, map[string][]string{TablePersons: {id('p', 99)}, TableOrganisations: {id('o', 0)}}, got[0].Put)
	assert.Empty(t, got[0].Deleted)
	assert.Equal(t, []string{TableOrganisations, TablePersons}, got[0].Tables())
	assert.False(t, got[0].At.IsZero())

	// putting a record unchanged changes nothing: no report
	o, _ := s.Read().Organisation(id('o', 0))
	_, _, err := s.PutOrganisation(*o)
	require.NoError(t, err)
	assert.Len(t, got, 1)

	// a delete
	require.NoError(t, s.Delete(TablePersons, id('p', 99)))
	require.Len(t, got, 2)
	assert.Equal(t, map[string][]string{TablePersons: {id('p', 99)}}, got[1].Deleted)

	// a transaction that fails reports nothing, even what it wrote first
	err = s.Write(func(w *Writer) error {
		_, _, err := w.PutPerson(model.Person{ID: id('p', 98), GivenName: "A", FamilyName: "B"})
		require.NoError(t, err)
		return errors.New("no")
	})
	require.Error(t, err)
	assert.Len(t, got, 2)

	// a dangling reference is refused before anything is reported
	_, _, err = s.PutAttendance(model.Attendance{ID: id('a', 1), CalendarEvent: model.ObjectReference{ID: id('c', 1)}, Student: model.PersonReference{ID: id('p', 1)}})
	var re *RefError
	require.ErrorAs(t, err, &re)
	assert.Len(t, got, 2)

	// a load replaces everything
	require.NoError(t, s.Load(&Dataset{}))
	require.Len(t, got, 3)
	assert.True(t, got[2].All)

	s.OnCommit(nil)
	require.NoError(t, s.Load(&Dataset{}))
	assert.Len(t, got, 3)
}
