package store

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

// relatedByDefinition lists, in id order, the persons org relates to through
// the kind typ ("" = any), read from the records themselves as SS 12000's
// relationship.entity.type describes each kind.
func relatedByDefinition(ds *Dataset, org, typ string) []string {
	set := map[string]bool{}
	want := func(k string) bool { return typ == "" || typ == k }
	person := map[string]*model.Person{}
	for i := range ds.Persons {
		person[ds.Persons[i].ID] = &ds.Persons[i]
	}
	responsibles := func(child string) {
		for _, r := range person[child].Responsibles {
			set[r.Person.ID] = true
		}
	}
	for _, p := range ds.Persons {
		for _, e := range p.Enrolments {
			if e.EnroledAt.ID != org {
				continue
			}
			if want(RelationEnrolment) {
				set[p.ID] = true
			}
			if want(RelationResponsibleForEnrolment) {
				responsibles(p.ID)
			}
		}
	}
	for _, d := range ds.EmployeePlacements {
		if d.SchoolID == org && want(RelationDuty) {
			set[d.EmployeeID] = true
		}
	}
	for _, pl := range ds.Placements {
		if pl.PlacedAt.ID != org || !model.IsRegisterPlacement(&pl) {
			continue
		}
		if want(RelationPlacementChild) {
			set[pl.Child.ID] = true
		}
		if want(RelationPlacementOwner) {
			for _, o := range pl.Owners {
				set[o.ID] = true
			}
		}
		if want(RelationResponsibleForPlacement) {
			responsibles(pl.Child.ID)
		}
	}
	for _, g := range ds.Groups {
		if g.Organisation.ID != org || !want(RelationGroupMembership) {
			continue
		}
		for _, m := range g.GroupMemberships {
			set[m.Person.ID] = true
		}
	}
	var out []string
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// assertRelatedMatch compares the related persons of every organisation and
// kind, whole and page by page, with the definition.
func assertRelatedMatch(t *testing.T, s *Store) {
	t.Helper()
	ds, sn := s.Export(), s.Read()
	for i := range 3 {
		org := id('o', i)
		for _, typ := range append([]string{""}, RelationTypes...) {
			want := relatedByDefinition(ds, org, typ)
			var got []string
			sn.EachRelatedPerson(org, typ, "", func(id string) bool { got = append(got, id); return true })
			assert.Equal(t, want, got, "organisation %d, kind %q", i, typ)

			var paged []string
			var after Cursor
			for pages := 0; ; pages++ {
				require.Less(t, pages, 100)
				items, next := sn.RelatedPersons(org, typ, after, 3, nil)
				for _, it := range items {
					paged = append(paged, it.(*model.Person).ID)
				}
				if next == nil {
					break
				}
				after = next
			}
			assert.Equal(t, want, paged, "organisation %d, kind %q, pages of 3", i, typ)
		}
	}
	var none []string
	sn.EachRelatedPerson(id('o', 0), "no such kind", "", func(id string) bool { none = append(none, id); return true })
	assert.Empty(t, none, "an unknown kind relates no one")
}

// relationLists reads every relation list of a snapshot.
func relationLists(t *testing.T, sn *Snapshot) map[string][]relCount {
	t.Helper()
	out := map[string][]relCount{}
	it, err := sn.t.txn.Get(tableRelations, IndexID)
	require.NoError(t, err)
	for obj := it.Next(); obj != nil; obj = it.Next() {
		l := obj.(*relationList)
		require.NotEmpty(t, l.ids, "list %q: an empty list is dropped", l.key)
		require.True(t, slices.IsSortedFunc(l.ids, func(a, b relCount) int { return strings.Compare(a.id, b.id) }), "list %q in id order", l.key)
		out[l.key] = l.ids
	}
	return out
}

// assertRelationsAsLoaded: the lists that writes kept, counts included,
// are those a load of the same records builds.
func assertRelationsAsLoaded(t *testing.T, s *Store) {
	t.Helper()
	loaded := New(s.now)
	require.NoError(t, loaded.Load(s.Export()))
	assert.Equal(t, relationLists(t, loaded.Read()), relationLists(t, s.Read()))
}

// TestWritesKeepRelationLists changes, record by record, everything that
// relates a person to an organisation — enrolments, guardians, duties,
// placements (child, owners, school form, unit), group memberships and
// organisations — and checks that the relation lists stay exact (counts
// included: as a load builds them) and answer as the definition does.
func TestWritesKeepRelationLists(t *testing.T) {
	s, all := smallWorld(t, 120, tinyPages)
	r := rand.New(rand.NewPCG(9, 10))
	pid := func() string { return id('p', r.IntN(30)) }
	guardians := func() []model.Responsible {
		var out []model.Responsible
		for range r.IntN(3) {
			out = append(out, model.Responsible{Person: model.PersonReference{ID: id('p', 20+r.IntN(10))}, RelationType: model.RelationType("Vårdnadshavare")})
		}
		return out
	}
	// Some guardians and enrolments from the start.
	require.NoError(t, s.Write(func(w *Writer) error {
		for i := range 20 {
			p, _ := w.Read().Person(id('p', i))
			c := *p
			c.Responsibles = guardians()
			if i%2 == 0 {
				c.Enrolments = []model.Enrolment{{EnroledAt: model.ObjectReference{ID: id('o', i%3)}, SchoolType: model.SchoolTypeGR, StartDate: "2024-08-01"}}
			}
			if _, _, err := w.PutPerson(c); err != nil {
				return err
			}
		}
		return nil
	}))
	assertRelatedMatch(t, s)
	for i := range 300 {
		err := s.Write(func(w *Writer) error {
			sn := w.Read()
			switch r.IntN(7) {
			case 0, 1: // a child's guardians change (interface A's guardians, interface B's responsibles)
				p, _ := sn.Person(id('p', r.IntN(20)))
				c := *p
				c.Responsibles = guardians()
				_, _, err := w.PutPerson(c)
				return err
			case 2: // an enrolment moves, appears or goes
				p, _ := sn.Person(id('p', r.IntN(20)))
				c := *p
				c.Enrolments = nil
				if r.IntN(3) > 0 {
					c.Enrolments = []model.Enrolment{{EnroledAt: model.ObjectReference{ID: id('o', r.IntN(3))}, SchoolType: model.SchoolTypeGR, StartDate: "2024-08-01"}}
				}
				_, _, err := w.PutPerson(c)
				return err
			case 3: // a placement's child, owners, unit or school form change, or it goes
				pl := all[r.IntN(len(all))]
				switch r.IntN(5) {
				case 0:
					pl.Child = model.PersonReference{ID: id('p', r.IntN(20))}
				case 1:
					pl.Owners = []model.PersonReference{{ID: pid()}}
				case 2:
					pl.PlacedAt = model.ObjectReference{ID: id('o', r.IntN(3))}
				case 3:
					pl.SchoolType = []model.SchoolType{model.SchoolTypeFS, model.SchoolTypeGR}[r.IntN(2)]
				default:
					if err := w.Delete(TablePlacements, pl.ID); err != nil && !errors.Is(err, ErrNotFound) {
						return err
					}
					return nil
				}
				_, _, err := w.PutPlacement(pl)
				return err
			case 4: // a new placement
				pl := all[r.IntN(len(all))]
				pl.ID = id('n', i)
				pl.Child = model.PersonReference{ID: id('p', r.IntN(20))}
				_, _, err := w.PutPlacement(pl)
				return err
			case 5: // a duty starts or ends
				d := model.EmployeePlacement{ID: id('d', r.IntN(8)), EmployeeID: pid(), SchoolID: id('o', r.IntN(3)), Roles: []string{"Teacher"}, StartDate: "2024-08-01"}
				if r.IntN(3) == 0 {
					if err := w.Delete(TableEmployeePlacements, d.ID); err != nil && !errors.Is(err, ErrNotFound) {
						return err
					}
					return nil
				}
				_, _, err := w.PutEmployeePlacement(d)
				return err
			default: // a group's members change, or it moves
				g, _ := sn.Group(id('g', r.IntN(4)))
				c := *g
				c.DisplayName = "grp " + c.ID // unique in its school
				if r.IntN(3) == 0 {
					c.Organisation = model.ObjectReference{ID: id('o', r.IntN(3))} // the group moves, members and all
				}
				c.GroupMemberships = nil
				for range r.IntN(4) {
					c.GroupMemberships = append(c.GroupMemberships, model.GroupMembership{Person: model.PersonReference{ID: pid()}})
				}
				_, _, err := w.PutGroup(c)
				return err
			}
		})
		require.NoError(t, err)
		if i%50 == 49 {
			assertIndexesMatchRecords(t, s.Read())
			assertRelationsAsLoaded(t, s)
			assertRelatedMatch(t, s)
		}
	}
}

// TestRelatedPersonsAfterLoad: a load builds the relation lists, the
// guardians' included, as writes keep them.
func TestRelatedPersonsAfterLoad(t *testing.T) {
	s, _ := smallWorld(t, 50)
	require.NoError(t, s.Write(func(w *Writer) error {
		for i := range 20 {
			p, _ := w.Read().Person(id('p', i))
			c := *p
			c.Responsibles = []model.Responsible{{Person: model.PersonReference{ID: id('p', 20+i%10)}, RelationType: "Vårdnadshavare"}}
			if _, _, err := w.PutPerson(c); err != nil {
				return err
			}
		}
		return nil
	}))
	loaded := New(s.now)
	require.NoError(t, loaded.Load(s.Export()))
	assertIndexesMatchRecords(t, loaded.Read())
	assertRelatedMatch(t, loaded)
	var got []string
	loaded.Read().EachRelatedPerson(id('o', 0), RelationResponsibleForPlacement, "", func(id string) bool { got = append(got, id); return true })
	assert.NotEmpty(t, got, "children placed at the unit have guardians")
}
