package mockserver

import (
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkRegisterListFilteredPage measures a filtered page of the SS 12000
// resources added in issue 11 at the default and at the large scenario,
// after a write each time (no answer from the response cache): the engine's
// index-driven walk makes the two sizes cost about the same.
func BenchmarkRegisterListFilteredPage(b *testing.B) {
	for _, name := range []string{"default", "large"} {
		b.Run("scenario="+name, func(b *testing.B) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			srv, err := New(Options{Scenario: sc, Now: func() time.Time { return testNow }})
			if err != nil {
				b.Fatal(err)
			}
			p := &inproc{srv: srv}
			p.id, p.secret = srv.Credentials()
			p.token = p.fetchToken(b)
			ds := srv.Store().Export()
			pl := ds.Placements[len(ds.Placements)/2]
			ev := ds.CalendarEvents[len(ds.CalendarEvents)/2]
			for _, q := range []struct{ name, target string }{
				{"persons?civicNo", "/persons?civicNo=" + ds.Persons[len(ds.Persons)/2].CivicNo.Value},
				{"groups?organisation", "/groups?limit=100&organisation=" + pl.PlacedAt.ID},
				{"duties?organisation", "/duties?limit=100&organisation=" + ev.Organisation.ID},
				{"calendarEvents?activity", "/calendarEvents?limit=100&activity=" + ev.Activity.ID + "&" + url.Values{"startTime.onOrAfter": {"2000-01-01T00:00:00Z"}, "startTime.onOrBefore": {"2100-01-01T00:00:00Z"}}.Encode()},
				{"attendanceSchedule?placement", "/attendanceSchedule?placement=" + pl.ID},
				{"organisations", "/organisations?limit=100"},
			} {
				b.Run(q.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						srv.beginWrite() // a write that changes nothing: no cached answer
						srv.endWrite()
						rec := p.serve(p.request("GET", PrefixB+q.target, nil, ""))
						if rec.Code != 200 {
							b.Fatalf("%s: %d %s", q.target, rec.Code, rec.Body)
						}
					}
				})
			}
			runtime.GC()
		})
	}
}

// BenchmarkRegisterSortedPage measures a sorted page (sortkey, limit 100) at
// the default and at the large scenario, after a write each time (no answer
// from the response cache): every sortkey walks an order index, so the two
// sizes cost about the same (docs/decisions.md, BB15). The store's
// BenchmarkSortedPage measures the walk alone against sorting in memory.
func BenchmarkRegisterSortedPage(b *testing.B) {
	for _, name := range []string{"default", "large"} {
		b.Run("scenario="+name, func(b *testing.B) {
			sc, err := scenarios.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			srv, err := New(Options{Scenario: sc, Now: func() time.Time { return testNow }})
			if err != nil {
				b.Fatal(err)
			}
			p := &inproc{srv: srv}
			p.id, p.secret = srv.Credentials()
			p.token = p.fetchToken(b)
			ds := srv.Store().Export()
			school := ds.Placements[len(ds.Placements)/2].PlacedAt.ID
			wide := url.Values{"startTime.onOrAfter": {"2000-01-01T00:00:00Z"}, "startTime.onOrBefore": {"2100-01-01T00:00:00Z"}}.Encode()
			from := ds.CalendarEvents[len(ds.CalendarEvents)/2].StartTime
			week := url.Values{"startTime.onOrAfter": {from.Format(time.RFC3339)}, "startTime.onOrBefore": {from.AddDate(0, 0, 7).Format(time.RFC3339)}}.Encode()
			for _, q := range []struct{ name, resource, query, sortkey string }{
				{"persons?sortkey=FamilyNameAsc", "persons", "", "FamilyNameAsc"},
				{"persons?sortkey=ModifiedDesc", "persons", "", "ModifiedDesc"},
				{"groups?sortkey=DisplayNameAsc", "groups", "", "DisplayNameAsc"},
				{"groups?organisation&sortkey=DisplayNameAsc", "groups", "organisation=" + school, "DisplayNameAsc"},
				{"duties?organisation&sortkey=StartDateAsc", "duties", "organisation=" + school, "StartDateAsc"},
				{"persons?relationship.organisation&sortkey=FamilyNameAsc", "persons", "relationship.organisation=" + school, "FamilyNameAsc"},
				{"calendarEvents?sortkey=ModifiedDesc", "calendarEvents", wide, "ModifiedDesc"},
				{"calendarEvents?week&sortkey=ModifiedDesc", "calendarEvents", week, "ModifiedDesc"},
				{"calendarEvents?week&sortkey=StartTimeAsc", "calendarEvents", week, "StartTimeAsc"},
				{"absences?sortkey=StartTimeDesc", "absences", "", "StartTimeDesc"},
			} {
				target := PrefixB + "/" + q.resource + "?limit=100&sortkey=" + q.sortkey
				if q.query != "" {
					target += "&" + q.query
				}
				b.Run(q.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						srv.beginWrite() // a write that changes nothing: no cached answer
						srv.endWrite()
						rec := p.serve(p.request("GET", target, nil, ""))
						if rec.Code != 200 {
							b.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
						}
					}
				})
			}
			runtime.GC()
		})
	}
}
