package store

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

// TestWritesKeepOrderIndexes renames, re-dates and deletes persons and
// groups in tiny pages and checks that every index, the order indexes
// included (an empty value too), still lists exactly the stored records in
// key order, forwards and backwards.
func TestWritesKeepOrderIndexes(t *testing.T) {
	s, _ := smallWorld(t, 40, tinyPages)
	r := rand.New(rand.NewPCG(9, 10))
	names := []string{"", "Åsa", "åsa", "Bo", "Östen", "adam"}
	for i := range 300 {
		err := s.Write(func(w *Writer) error {
			sn := w.Read()
			switch r.IntN(3) {
			case 0: // a person renamed, or given a civic number, or losing it
				p, ok := sn.Person(id('p', r.IntN(30)))
				if !ok {
					return nil
				}
				cp := *p
				cp.GivenName, cp.FamilyName = names[r.IntN(len(names))], names[r.IntN(len(names))]
				cp.CivicNo = nil
				if r.IntN(2) == 0 {
					cp.CivicNo = &model.CivicNo{Value: fmt.Sprintf("2015%08d", r.IntN(100))}
				}
				_, _, err := w.PutPerson(cp)
				return err
			case 1: // a group renamed and re-dated, or a new one
				g := model.Group{ID: id('g', r.IntN(4)), GroupType: model.GroupTypeDepartment, StartDate: "2020-01-01",
					Organisation: model.ObjectReference{ID: id('o', r.IntN(3))}}
				if r.IntN(3) == 0 {
					g.ID = id('h', i)
				}
				g.DisplayName = fmt.Sprint(names[r.IntN(len(names))], i) // unique in its school
				if r.IntN(2) == 0 {
					g.EndDate = model.DateOf(epoch.AddDate(0, 0, r.IntN(40)))
				}
				_, _, err := w.PutGroup(g)
				return err
			default: // a new group deleted again, if any
				var ids []string
				_ = sn.Scan(TableGroups, IndexID, "", func(o any) bool {
					if g := o.(*model.Group); g.ID[0] == 'h' {
						ids = append(ids, g.ID)
					}
					return true
				})
				if len(ids) == 0 {
					return nil
				}
				return w.Delete(TableGroups, ids[r.IntN(len(ids))])
			}
		})
		require.NoError(t, err)
	}
	assertIndexesMatchRecords(t, s.Read())
}
