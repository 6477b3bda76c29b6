package store_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkSortedPage measures a sorted page of 100 at the default and at the
// large scenario, the store's part alone: "index" walks the sortkey's order
// index (what interface B does), "memory" sorts every record of the table
// by the same key (the alternative the order indexes replace); "equality"
// sorts the records of one school (a sortkey with a selective equality).
func BenchmarkSortedPage(b *testing.B) {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	for _, name := range []string{"default", "large"} {
		b.Run("scenario="+name, func(b *testing.B) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			ds, err := sc.Build(now)
			if err != nil {
				b.Fatal(err)
			}
			st := store.New(func() time.Time { return now })
			if err := st.Load(ds); err != nil {
				b.Fatal(err)
			}
			school := ds.Placements[len(ds.Placements)/2].PlacedAt.ID
			for _, q := range []struct {
				name, table, index string
				desc               bool
			}{
				{"persons/FamilyNameAsc", store.TablePersons, store.IndexFamilyNameOrder, false},
				{"persons/ModifiedDesc", store.TablePersons, store.IndexModified, true},
				{"groups/DisplayNameAsc", store.TableGroups, store.IndexDisplayNameOrder, false},
				{"calendarEvents/StartTimeAsc", store.TableCalendarEvents, store.IndexStartTime, false},
				{"absences/StartTimeDesc", store.TableAbsences, store.IndexStartTime, true},
				{"grades/registeredDateDesc", store.TableGrades, store.IndexRegisteredDate, true},
			} {
				key := st.Schema().OrderKey(q.table, q.index)
				b.Run("index/"+q.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, _, err := st.Read().Page(q.table, q.index, nil, q.desc, nil, 100, nil); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run("memory/"+q.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, _, err := st.Read().SortedPage(q.table, store.IndexID, nil, nil, key, q.desc, nil, 100); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			b.Run("equality/groups?organisation/DisplayNameAsc", func(b *testing.B) {
				key := st.Schema().OrderKey(store.TableGroups, store.IndexDisplayNameOrder)
				span := []store.Span{store.ValueSpan(school)}
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := st.Read().SortedPage(store.TableGroups, store.IndexOrganisation, span, nil, key, false, nil, 100); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("equality/groups?organisation/DisplayNameAsc/walked", func(b *testing.B) {
				at := func(o any) bool { return o.(*model.Group).Organisation.ID == school }
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := st.Read().Page(store.TableGroups, store.IndexDisplayNameOrder, nil, false, nil, 100, at); err != nil {
						b.Fatal(err)
					}
				}
			})
			runtime.GC()
		})
	}
}
