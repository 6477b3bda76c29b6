package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func id(kind byte, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", int(kind), n) }

// smallWorld builds a store with n placements spread over 3 units, 4 groups,
// 20 children and 10 owners, with dates and timestamps that collide often.
func smallWorld(t testing.TB, n int, opts ...Option) (*Store, []model.Placement) {
	r := rand.New(rand.NewPCG(1, 2))
	ds := &Dataset{}
	for i := range 3 {
		ds.Organisations = append(ds.Organisations, model.Organisation{ID: id('o', i), DisplayName: fmt.Sprint("Unit ", i), OrganisationType: model.OrganisationTypeSchoolUnit})
	}
	for i := range 30 {
		ds.Persons = append(ds.Persons, model.Person{ID: id('p', i), GivenName: "G", FamilyName: fmt.Sprint(i)})
	}
	for i := range 4 {
		ds.Groups = append(ds.Groups, model.Group{ID: id('g', i), DisplayName: "grp", StartDate: "2020-01-01", GroupType: model.GroupTypeDepartment, Organisation: model.ObjectReference{ID: id('o', i%3)}})
	}
	date := func() model.Date { return model.DateOf(epoch.AddDate(0, 0, r.IntN(20)*15-150)) }
	for i := range n {
		p := model.Placement{
			ID:         id('l', i),
			PlacedAt:   model.ObjectReference{ID: id('o', r.IntN(3))},
			Child:      model.PersonReference{ID: id('p', r.IntN(20))},
			SchoolType: model.SchoolTypeFS,
			StartDate:  date(),
		}
		if r.IntN(4) > 0 {
			p.Group = &model.ObjectReference{ID: id('g', r.IntN(4))}
		}
		for range r.IntN(3) {
			p.Owners = append(p.Owners, model.PersonReference{ID: id('p', 20+r.IntN(10))})
		}
		if r.IntN(3) > 0 {
			p.EndDate = date()
		}
		created := epoch.Add(time.Duration(r.IntN(50)) * time.Hour)
		p.Meta = model.Meta{Created: created, Modified: created.Add(time.Duration(r.IntN(3)) * time.Hour)}
		ds.Placements = append(ds.Placements, p)
	}
	s := New(func() time.Time { return epoch.Add(1000 * time.Hour) }, opts...)
	require.NoError(t, s.Load(ds))
	return s, ds.Placements
}

func randomQuery(r *rand.Rand) PlacementQuery {
	var q PlacementQuery
	pick := func(p int) bool { return r.IntN(100) < p }
	d := func() model.Date { return model.DateOf(epoch.AddDate(0, 0, r.IntN(20)*15-150)) }
	ts := func() *time.Time { t := epoch.Add(time.Duration(r.IntN(50)) * time.Hour); return &t }
	if pick(20) {
		q.Organisation = id('o', r.IntN(3))
	}
	if pick(15) {
		q.Group = id('g', r.IntN(4))
	}
	if pick(10) {
		q.Child = id('p', r.IntN(20))
	}
	if pick(15) {
		q.Owner = id('p', 20+r.IntN(10))
	}
	if pick(25) {
		q.StartOnOrBefore = d()
	}
	if pick(25) {
		q.StartOnOrAfter = d()
	}
	if pick(25) {
		q.EndOnOrBefore = d()
	}
	if pick(25) {
		q.EndOnOrAfter = d()
	}
	if pick(15) {
		q.CreatedBefore = ts()
	}
	if pick(15) {
		q.CreatedAfter = ts()
	}
	if pick(15) {
		q.ModifiedBefore = ts()
	}
	if pick(15) {
		q.ModifiedAfter = ts()
	}
	if pick(60) {
		q.Sort = model.SortKeys[r.IntN(len(model.SortKeys))]
	}
	return q
}

// sortValue is the spec's meaning of each sort key, written independently of
// the index encoding: open-ended placements sort after every end date.
func less(sort model.SortKey, a, b *model.Placement) int {
	end := func(p *model.Placement) string {
		if p.EndDate == "" {
			return "~"
		}
		return string(p.EndDate)
	}
	var c int
	switch sort {
	case model.SortStartDateAsc:
		c = bytes.Compare([]byte(a.StartDate), []byte(b.StartDate))
	case model.SortStartDateDesc:
		c = -bytes.Compare([]byte(a.StartDate), []byte(b.StartDate))
	case model.SortEndDateAsc:
		c = bytes.Compare([]byte(end(a)), []byte(end(b)))
	case model.SortEndDateDesc:
		c = -bytes.Compare([]byte(end(a)), []byte(end(b)))
	case model.SortModifiedDesc:
		c = -a.Meta.Modified.Compare(b.Meta.Modified)
	}
	return c
}

func TestPlacementWalkEqualsBruteForce(t *testing.T) {
	s, all := smallWorld(t, 400)
	assertWalksMatch(t, s, all, rand.New(rand.NewPCG(3, 4)), 600)
	assertIndexesMatchRecords(t, s.Read())
}

// TestWritesKeepIndexes changes a loaded store record by record — new
// placements, changed groups, owners, dates and timestamps, deletes — and
// checks that every index still lists exactly the stored records under their
// values, and that every walk still equals the brute-force answer.
func TestWritesKeepIndexes(t *testing.T) {
	// Tiny pages, so that pages split and fences move all the time.
	s, all := smallWorld(t, 300, tinyPages)
	r := rand.New(rand.NewPCG(5, 6))
	date := func() model.Date { return model.DateOf(epoch.AddDate(0, 0, r.IntN(20)*15-150)) }
	for i := range 400 {
		err := s.Write(func(w *Writer) error {
			for range 1 + r.IntN(3) {
				p := all[r.IntN(len(all))]
				switch r.IntN(5) {
				case 0: // a new placement, its id before or after all others
					p.ID = id([]byte{'a', 'n'}[r.IntN(2)], i*10+r.IntN(10))
				case 1:
					p.Group = &model.ObjectReference{ID: id('g', r.IntN(4))}
				case 2:
					p.Owners = nil
					for range r.IntN(3) {
						p.Owners = append(p.Owners, model.PersonReference{ID: id('p', 20+r.IntN(10))})
					}
				case 3:
					p.StartDate, p.EndDate = date(), ""
				case 4:
					if err := w.Delete(TablePlacements, p.ID); err != nil && !errors.Is(err, ErrNotFound) {
						return err
					}
					continue
				}
				if _, _, err := w.PutPlacement(p); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	stored := s.Export().Placements
	require.NotEmpty(t, stored)
	assert.Equal(t, len(stored), s.Read().Count(TablePlacements))
	assertIndexesMatchRecords(t, s.Read())
	assertWalksMatch(t, s, stored, rand.New(rand.NewPCG(7, 8)), 300)
}

// assertIndexesMatchRecords checks every secondary index of every table:
// walked forwards it gives the key (value, id) of each stored record under
// each of its values, in key order, and walked backwards the same reversed.
func assertIndexesMatchRecords(t *testing.T, sn *Snapshot) {
	t.Helper()
	for _, td := range sn.t.schema.tables {
		// Pages of the table and of each index: not empty, not over maxPage,
		// keys strictly increasing, each at or after its page's fence, and
		// each fence after every key of the pages before.
		for _, index := range append([]string{IndexID}, indexNames(td)...) {
			l := td.layout(index)
			it, err := sn.t.txn.Get(l.table, IndexID)
			require.NoError(t, err)
			prev := ""
			for obj := it.Next(); obj != nil; obj = it.Next() {
				p := obj.(*page)
				require.NotEmpty(t, p.entries, "%s: empty page %q", l.table, p.fence)
				require.LessOrEqual(t, len(p.entries), sn.t.maxPage, "%s: page %q", l.table, p.fence)
				require.True(t, prev == "" || p.fence > prev, "%s: fence %q not after the previous page's keys", l.table, p.fence)
				for _, e := range p.entries {
					key := string(l.appendKey(nil, e.val, td.id(e.rec)))
					require.True(t, key >= p.fence && key > prev, "%s: key %q out of place in page %q after %q", l.table, key, p.fence, prev)
					prev = key
				}
			}
		}
		for i := range td.indexes {
			ix := &td.indexes[i]
			var want []string
			require.NoError(t, sn.t.walk(td, IndexID, nil, false, func(_ []byte, rec any) bool {
				for _, v := range ix.values(rec, nil) {
					want = append(want, v+keySep+td.id(rec)+keySep)
				}
				return true
			}))
			slices.Sort(want)
			var got, back []string
			require.NoError(t, sn.t.walk(td, ix.name, nil, false, func(key []byte, _ any) bool {
				got = append(got, string(key))
				return true
			}))
			require.NoError(t, sn.t.walk(td, ix.name, nil, true, func(key []byte, _ any) bool {
				back = append(back, string(key))
				return true
			}))
			slices.Reverse(back)
			assert.Equal(t, want, got, "%s.%s forwards", td.name, ix.name)
			assert.Equal(t, want, back, "%s.%s backwards", td.name, ix.name)
		}
	}
}

func assertWalksMatch(t *testing.T, s *Store, all []model.Placement, r *rand.Rand, queries int) {
	t.Helper()
	for i := range queries {
		q := randomQuery(r)
		limit := 1 + r.IntN(40)
		var want []*model.Placement
		for j := range all {
			if q.Match(&all[j]) {
				want = append(want, &all[j])
			}
		}
		sn := s.Read()
		var got []*model.Placement
		var cur Cursor
		for pages := 0; ; pages++ {
			require.Less(t, pages, 1000, "walk does not end")
			page, err := sn.Placements(q, cur, limit)
			require.NoError(t, err)
			require.LessOrEqual(t, len(page.Items), limit)
			got = append(got, page.Items...)
			if page.Next == nil {
				break
			}
			require.Len(t, page.Items, limit, "only the last page may be short")
			cur = page.Next
		}
		ids := func(ps []*model.Placement) []string {
			out := make([]string, len(ps))
			for k, p := range ps {
				out[k] = p.ID
			}
			return out
		}
		gotIDs := ids(got)
		require.Len(t, gotIDs, len(want), "query %d %+v", i, q)
		if q.Sort != "" {
			for k := 1; k < len(got); k++ {
				require.LessOrEqual(t, less(q.Sort, got[k-1], got[k]), 0, "query %d %+v not in %s order at %d", i, q, q.Sort, k)
			}
		}
		wantIDs := ids(want)
		slices.Sort(gotIDs)
		slices.Sort(wantIDs)
		require.Equal(t, wantIDs, gotIDs, "query %d %+v", i, q)
	}
}

func TestPutMaintainsMeta(t *testing.T) {
	now := epoch
	s := New(func() time.Time { return now })
	_, _, err := s.PutOrganisation(model.Organisation{ID: id('o', 1), DisplayName: "A", OrganisationType: model.OrganisationTypeSchoolUnit})
	require.NoError(t, err)
	now = now.Add(time.Minute)
	got, created, err := s.PutOrganisation(model.Organisation{ID: id('o', 1), DisplayName: "A", OrganisationType: model.OrganisationTypeSchoolUnit})
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, epoch, got.Meta.Modified, "an unchanged record keeps its modified")
	got, _, err = s.PutOrganisation(model.Organisation{ID: id('o', 1), DisplayName: "B", OrganisationType: model.OrganisationTypeSchoolUnit, Meta: model.Meta{Created: epoch.Add(-time.Hour)}})
	require.NoError(t, err)
	assert.Equal(t, epoch, got.Meta.Created, "created is the store's, not the caller's")
	assert.Equal(t, now, got.Meta.Modified)
	// A fixed clock still moves modified forward on a change.
	got, _, err = s.PutOrganisation(model.Organisation{ID: id('o', 1), DisplayName: "C", OrganisationType: model.OrganisationTypeSchoolUnit})
	require.NoError(t, err)
	assert.Equal(t, now.Add(time.Millisecond), got.Meta.Modified)
}

func TestPutRejectsDanglingReference(t *testing.T) {
	s, _ := smallWorld(t, 1)
	_, _, err := s.PutPlacement(model.Placement{ID: id('l', 999), PlacedAt: model.ObjectReference{ID: id('o', 0)}, Child: model.PersonReference{ID: id('p', 99)}, SchoolType: model.SchoolTypeFS, StartDate: "2026-01-01"})
	var re *RefError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "child.id", re.Field)
}

func TestWalkSnapshotIgnoresLaterWrites(t *testing.T) {
	s, all := smallWorld(t, 50)
	sn := s.Read()
	walkID := s.KeepWalk(sn)
	// Change every placement's start date and add new ones after the walk began.
	for _, p := range all {
		p.StartDate = "2030-01-01"
		_, _, err := s.PutPlacement(p)
		require.NoError(t, err)
	}
	got, kept := s.Walk(walkID)
	require.True(t, kept)
	page, err := got.Placements(PlacementQuery{StartOnOrBefore: "2029-01-01"}, nil, 1000)
	require.NoError(t, err)
	assert.Len(t, page.Items, len(all))
	s.EndWalk(walkID)
	_, kept = s.Walk(walkID)
	assert.False(t, kept)
}

func TestTimeKeyIsTheFixedWidthFormat(t *testing.T) {
	for _, tm := range []time.Time{
		{}, epoch, time.Date(2026, 11, 2, 8, 5, 9, 123456789, time.UTC),
		time.Date(999, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 3, 29, 2, 30, 0, 0, time.FixedZone("CEST", 2*3600)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		assert.Equal(t, tm.UTC().Format("2006-01-02T15:04:05.000000000Z"), timeKey(tm), "%v", tm)
	}
}

func indexNames(td *tableDef) []string {
	var out []string
	for _, ix := range td.indexes {
		out = append(out, ix.name)
	}
	return out
}

func TestCompareConcatIsByteOrder(t *testing.T) {
	parts := []string{"", "a", "ab", "a\x00b", "b", "\x00", "abc", "a\x00"}
	for _, a1 := range parts {
		for _, a2 := range parts {
			for _, b1 := range parts {
				for _, b2 := range parts {
					want := strings.Compare(a1+keySep+a2+keySep, b1+keySep+b2+keySep)
					got := compareConcat(&[4]string{a1, keySep, a2, keySep}, &[4]string{b1, keySep, b2, keySep})
					require.Equal(t, want, got, "%q %q vs %q %q", a1, a2, b1, b2)
				}
			}
		}
	}
}

// TestDeleteRefusesAPersonStillNamedAsReporterOrRegistrar: a person named only
// as an attendance's reporter or an absence's registrar cannot be deleted.
func TestDeleteRefusesAPersonStillNamedAsReporterOrRegistrar(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(ds *Dataset, reporter string)
		want  string
	}{
		{"attendance reporter", func(ds *Dataset, reporter string) {
			ds.Syllabuses = []model.Syllabus{{ID: id('s', 0)}}
			ds.Activities = []model.Activity{eventActivity(id('c', 0), id('o', 0), id('g', 0), id('p', 0))}
			ds.CalendarEvents = []model.CalendarEvent{{ID: id('e', 0), EventRefs: &model.EventRefs{Organisation: model.ObjectReference{ID: id('o', 0)},
				Group: model.ObjectReference{ID: id('g', 0)}, Syllabus: model.ObjectReference{ID: id('s', 0)}, Teacher: model.PersonReference{ID: id('p', 0)},
				Activity: model.ObjectReference{ID: id('c', 0)}}}}
			ds.Attendances = []model.Attendance{{ID: id('a', 0), CalendarEvent: model.ObjectReference{ID: id('e', 0)},
				Student: model.PersonReference{ID: id('p', 1)}, Reporter: &model.PersonReference{ID: reporter}}}
		}, "1 attendance record(s) as reporter"},
		{"absence registrar", func(ds *Dataset, reporter string) {
			ds.Absences = []model.Absence{{ID: id('b', 0), Student: model.PersonReference{ID: id('p', 1)},
				Organisation: model.ObjectReference{ID: id('o', 0)}, RegisteredBy: &model.PersonReference{ID: reporter}}}
		}, "1 absence record(s) as registrar"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &Dataset{
				Organisations: []model.Organisation{{ID: id('o', 0), DisplayName: "Unit", OrganisationType: model.OrganisationTypeSchoolUnit}},
				Persons:       []model.Person{{ID: id('p', 0)}, {ID: id('p', 1)}, {ID: id('p', 2)}},
				Groups:        []model.Group{{ID: id('g', 0), DisplayName: "grp", Organisation: model.ObjectReference{ID: id('o', 0)}}},
			}
			tc.build(ds, id('p', 2))
			s := New(func() time.Time { return epoch })
			require.NoError(t, s.Load(ds))
			err := s.Delete(TablePersons, id('p', 2))
			var conflict *ConflictError
			require.ErrorAs(t, err, &conflict)
			assert.Contains(t, conflict.Message, tc.want)
			_, ok := s.Read().Person(id('p', 2))
			assert.True(t, ok, "the person is still there")
		})
	}
}

// tinyPages makes pages split and fences move all the time.
var tinyPages = WithPageSizes(4, 8)

// TestSchemaRefusesWhatCannotWork: a schema is validated once, when it is
// built, so that a declaration that cannot work is an error then and not a
// wrong answer later.
func TestSchemaRefusesWhatCannotWork(t *testing.T) {
	type widget struct {
		ID    string
		Meta  model.Meta
		Owner string
	}
	decl := func(name string, change func(*Table[widget])) TableDecl {
		k := &Table[widget]{Name: name, ID: func(w *widget) string { return w.ID }, Meta: func(w *widget) *model.Meta { return &w.Meta }}
		if change != nil {
			change(k)
		}
		return k
	}
	_, err := NewSchema(decl("widgets", nil))
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		extra []TableDecl
		want  string
	}{
		{"a name declared twice", []TableDecl{decl(TablePersons, nil)}, `table "persons" is declared twice`},
		{"no id", []TableDecl{decl("widgets", func(k *Table[widget]) { k.ID = nil })}, "declares its Name, ID and Meta"},
		{"an index declared twice", []TableDecl{decl("widgets", func(k *Table[widget]) {
			k.Indexes = []Index[widget]{By("owner", func(w *widget) string { return w.Owner }), By("owner", func(w *widget) string { return w.Owner })}
		})}, `index "owner" is declared twice`},
		{"a reference into a table the schema lacks", []TableDecl{decl("widgets", func(k *Table[widget]) {
			k.Refs = []Ref[widget]{{Field: "owner", To: "gadgets", IDs: One(func(w *widget) string { return w.Owner })}}
		})}, `refers to table "gadgets"`},
		{"a reference's index the table lacks", []TableDecl{decl("widgets", func(k *Table[widget]) {
			k.Refs = []Ref[widget]{{Field: "owner", To: TablePersons, Index: "owner", IDs: One(func(w *widget) string { return w.Owner })}}
		})}, `no index "owner"`},
		{"two tables of one record type", []TableDecl{decl("widgets", nil), decl("gadgets", nil)}, "another table holds records of type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSchema(tc.extra...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestIndexesOfMostlyDistinctValues: an index whose values are mostly
// distinct is built by sorting its entries (distinctEntries), one whose
// values repeat by grouping them; either way its entries are the records'
// values in key order, equal values in id order, after a load of a table
// larger than the sample that decides and of one smaller.
func TestIndexesOfMostlyDistinctValues(t *testing.T) {
	for _, tc := range []struct {
		persons, childrenPerGuardian int
		distinctGuardians            bool
	}{
		{distinctSample * 3, 50, false},
		{distinctSample * 3, 4, false},
		{distinctSample * 3, 1, true},
		{distinctSample / 4, 4, false},
		{distinctSample / 4, 1, true},
	} {
		n := tc.persons
		ds := &Dataset{}
		for i := range n {
			p := model.Person{ID: id('p', i*7919%n), GivenName: "G"}
			// distinct civic numbers but for every tenth person, who
			// shares the previous one's
			p.CivicNo = &model.CivicNo{Value: fmt.Sprintf("2010%08d", i-i%10/9)}
			if g := i / tc.childrenPerGuardian; g != i {
				p.Responsibles = []model.Responsible{{Person: model.PersonReference{ID: id('p', g*7919%n)}}}
			} else if i > 0 {
				p.Responsibles = []model.Responsible{{Person: model.PersonReference{ID: id('p', (i-1)*7919%n)}}}
			}
			ds.Persons = append(ds.Persons, p)
		}
		for _, load := range []func(*Store, *Dataset) error{(*Store).Load, (*Store).LoadOwned} {
			s := New(func() time.Time { return epoch })
			require.NoError(t, load(s, ds))
			assertIndexesMatchRecords(t, s.Read())
			tl := &tableLoad{td: builtinSchema().table(TablePersons)}
			_ = s.Read().t.walk(tl.td, IndexID, nil, false, func(_ []byte, rec any) bool { tl.sorted = append(tl.sorted, rec); return true })
			assert.True(t, tl.mostlyDistinct(tl.td.index(IndexCivicNo)), "%d persons: civic numbers are mostly distinct", n)
			assert.Equal(t, tc.distinctGuardians, tl.mostlyDistinct(tl.td.index(IndexResponsible)),
				"%d persons, %d children a guardian", n, tc.childrenPerGuardian)
		}
	}
}
