package mockserver

import (
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// BenchmarkRegisterListFilteredPage measures a filtered page of the SS 12000
// resources at the default and at the large scenario,
// after a write each time (no answer from the response cache): the engine's
// index-driven walk makes the two sizes cost about the same. Pages are of 10
// records, which both scenarios fill for every list but duties and
// organisations, so that the two sizes render the same amount.
func BenchmarkRegisterListFilteredPage(b *testing.B) {
	for _, name := range []string{"default", "large"} {
		b.Run("scenario="+name, func(b *testing.B) {
			srv, p := builtinBenchServer(b, name)
			ds := srv.store.Export()
			pl := ds.Placements[len(ds.Placements)/2]
			ev := ds.CalendarEvents[len(ds.CalendarEvents)/2]
			all := url.Values{"startTime.onOrAfter": {"2000-01-01T00:00:00Z"}, "startTime.onOrBefore": {"2100-01-01T00:00:00Z"}}.Encode()
			day := ev.StartTime.UTC().Truncate(24 * time.Hour)
			oneDay := url.Values{"startTime.onOrAfter": {day.Format(time.RFC3339)}, "startTime.onOrBefore": {day.Add(24 * time.Hour).Format(time.RFC3339)}}.Encode()
			// the date of a lesson with attendance records
			att := ds.Attendances[len(ds.Attendances)/2]
			var attDay string
			for _, e := range ds.CalendarEvents {
				if e.ID == att.CalendarEvent.ID {
					attDay = string(model.DateOf(e.StartTime.UTC()))
				}
			}
			var ids []string
			for i := range 10 {
				ids = append(ids, `"`+ds.CalendarEvents[i*len(ds.CalendarEvents)/10].ID+`"`)
			}
			for _, q := range []struct{ name, method, target, body string }{
				{"persons?civicNo", "GET", "/persons?civicNo=" + ds.Persons[len(ds.Persons)/2].CivicNo.Value, ""},
				{"persons?relationship.organisation", "GET", "/persons?limit=10&relationship.organisation=" + pl.PlacedAt.ID, ""},
				{"persons?relationship.organisation&type=responsibleFor.placement&endDate", "GET", "/persons?limit=10&relationship.entity.type=responsibleFor.placement&relationship.endDate.onOrAfter=2020-01-01&relationship.organisation=" + pl.PlacedAt.ID, ""},
				{"groups?organisation", "GET", "/groups?limit=10&organisation=" + pl.PlacedAt.ID, ""},
				{"duties?organisation", "GET", "/duties?limit=10&organisation=" + ev.Organisation.ID, ""},
				{"calendarEvents?activity", "GET", "/calendarEvents?limit=10&activity=" + ev.Activity.ID + "&" + all, ""},
				{"calendarEvents?group", "GET", "/calendarEvents?limit=10&group=" + ev.Group.ID + "&" + all, ""},
				{"calendarEvents?organisation", "GET", "/calendarEvents?limit=10&organisation=" + ev.Organisation.ID + "&" + all, ""},
				{"calendarEvents?startTime (one day)", "GET", "/calendarEvents?limit=10&" + oneDay, ""},
				{"calendarEvents/{id}", "GET", "/calendarEvents/" + ev.ID, ""},
				{"calendarEvents/lookup (10 ids)", "POST", "/calendarEvents/lookup", `{"ids": [` + strings.Join(ids, ",") + `]}`},
				{"attendanceSchedule?placement", "GET", "/attendanceSchedule?placement=" + pl.ID, ""},
				{"organisations", "GET", "/organisations?limit=10", ""},
				{"aggregatedAttendance (one day)", "GET", "/aggregatedAttendance?limit=10&startDate=" + attDay + "&endDate=" + attDay, ""},
				{"aggregatedAttendance (every date)", "GET", "/aggregatedAttendance?limit=10&startDate=2000-01-01&endDate=2100-01-01", ""},
			} {
				b.Run(q.name, func(b *testing.B) {
					b.ReportAllocs()
					size := 0
					for b.Loop() {
						// a write that changes nothing: no cached answer
						_ = srv.store.Write(func(*store.Writer) error { return nil })
						var body []byte
						var ct string
						if q.body != "" {
							body, ct = []byte(q.body), "application/json"
						}
						rec := p.serve(p.request(q.method, PrefixB+q.target, body, ct))
						if rec.Code != 200 {
							b.Fatalf("%s: %d %s", q.target, rec.Code, rec.Body)
						}
						size = rec.Body.Len()
					}
					// what the page holds: a page of larger records costs more
					b.ReportMetric(float64(size), "body-bytes")
				})
			}
			runtime.GC()
		})
	}
}

// BenchmarkRegisterSortedPage measures a sorted page (sortkey, limit 100) at
// the default and at the large scenario, after a write each time (no answer
// from the response cache): every sortkey walks an order index, so the two
// sizes cost about the same (docs/decisions.md#interface-b-indexes). The store's
// BenchmarkSortedPage measures the walk alone against sorting in memory.
func BenchmarkRegisterSortedPage(b *testing.B) {
	for _, name := range []string{"default", "large"} {
		b.Run("scenario="+name, func(b *testing.B) {
			srv, p := builtinBenchServer(b, name)
			ds := srv.store.Export()
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
						// a write that changes nothing: no cached answer
						_ = srv.store.Write(func(*store.Writer) error { return nil })
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

// builtinBenchServer starts the built-in scenario in process, at testNow, with a
// token fetched for its client.
func builtinBenchServer(b *testing.B, scenario string) (*Server, *inproc) {
	b.Helper()
	sc, err := scenarios.Builtin(scenario)
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
	return srv, p
}
