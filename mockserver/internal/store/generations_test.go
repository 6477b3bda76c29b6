package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

func TestEveryCommitMovesTheGenerationOn(t *testing.T) {
	s, _ := smallWorld(t, 10)
	gen := func() uint64 {
		t.Helper()
		g, stable := s.Generation(false)
		require.True(t, stable, "no commit is under way")
		return g
	}
	g0 := gen()
	assert.NotZero(t, g0)
	assert.Equal(t, g0, gen(), "reads do not move it")

	_, _, err := s.PutPerson(model.Person{ID: id('p', 99), GivenName: "New", FamilyName: "Person"})
	require.NoError(t, err)
	g1 := gen()
	assert.Greater(t, g1, g0, "a write moves it")

	require.NoError(t, s.Write(func(*Writer) error { return nil }))
	g2 := gen()
	assert.Greater(t, g2, g1, "a commit moves it even when it changed nothing")

	require.Error(t, s.Write(func(w *Writer) error {
		_, _, err := w.PutPerson(model.Person{ID: id('p', 98), GivenName: "Gone"})
		require.NoError(t, err)
		return assert.AnError
	}))
	assert.Equal(t, g2, gen(), "a write that is not committed leaves it")

	require.NoError(t, s.Load(&Dataset{}))
	g3 := gen()
	assert.Greater(t, g3, g2, "a load moves it")

	other := New(func() time.Time { return epoch })
	other.CopyFrom(s)
	assert.Greater(t, func() uint64 { g, _ := other.Generation(false); return g }(), uint64(0))
	s.CopyFrom(other)
	assert.Greater(t, gen(), g3, "a copy moves it")
}

func TestALazyWalksGenerationIsKeptByTheNextCommit(t *testing.T) {
	s, _ := smallWorld(t, 10)
	newID := id('p', 99)

	sn, g, stable := s.ReadView(true)
	require.True(t, stable)
	_, had := sn.Person(newID)
	require.False(t, had)
	assert.False(t, s.KeptGeneration(g), "nothing is kept before a commit")

	live, stable := s.GenerationView(g)
	assert.True(t, stable, "the store is still at the walk's generation")
	_, had = live.Person(newID)
	assert.False(t, had)

	_, _, err := s.PutPerson(model.Person{ID: newID, GivenName: "New", FamilyName: "Person"})
	require.NoError(t, err)
	assert.True(t, s.KeptGeneration(g), "the commit kept the generation a lazy walk began at")

	kept, stable := s.GenerationView(g)
	assert.False(t, stable)
	_, had = kept.Person(newID)
	assert.False(t, had, "the walk reads its generation, not the write")
	_, now := s.Read().Person(newID)
	assert.True(t, now)

	_, g2, _ := s.ReadView(false)
	_, _, err = s.PutPerson(model.Person{ID: id('p', 97), GivenName: "Another", FamilyName: "Person"})
	require.NoError(t, err)
	assert.False(t, s.KeptGeneration(g2), "a generation no walk began at is not kept")
}
