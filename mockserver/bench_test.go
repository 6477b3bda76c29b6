package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// benchConfig scales the fixtures around n placements: about one child per
// 25 placements, the other records in proportion.
func benchConfig(n int) fixtures.Config {
	return fixtures.Config{
		Seed: 1, Now: testNow,
		SchoolUnits: 60, Children: max(n/25, 100), Pupils: 500, Staff: 200, GuardiansPerChild: 2,
		Groups: 600, Placements: n, Syllabuses: 50, CalendarEvents: 2000, Attendances: 1000, Absences: 500,
	}
}

// benchServer is a server whose store holds the fixtures for n placements,
// with a token of the default client.
func benchServer(b *testing.B, n int) (*Server, string, *store.Dataset) {
	b.Helper()
	srv, err := New(Options{Now: func() time.Time { return testNow }})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := fixtures.Generate(benchConfig(n))
	if err != nil {
		b.Fatal(err)
	}
	fixtures.Complete(ds, testNow)
	d := store.Dataset(*ds)
	if err := srv.store.Load(&d); err != nil {
		b.Fatal(err)
	}
	id, secret := srv.Credentials()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, PathToken, nil)
	req.SetBasicAuth(id, secret)
	req.Header.Set("Content-Type", surface.ContentTypeForm)
	req.Body = http.NoBody
	req.PostForm = url.Values{"grant_type": {"client_credentials"}}
	req.Form = req.PostForm
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("token: %d %s", rec.Code, rec.Body)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if err := decodeJSON(rec.Body.Bytes(), &tr); err != nil {
		b.Fatal(err)
	}
	return srv, tr.AccessToken, &d
}

func serve(b *testing.B, srv *Server, token, target string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
	}
	return rec
}

// BenchmarkGetPlacementByID measures GET /api/v1/placements/{id} through the
// whole handler stack: bearer auth, contract validation, store read,
// rendering and JSON.
func BenchmarkGetPlacementByID(b *testing.B) {
	srv, token, ds := benchServer(b, 10_000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		serve(b, srv, token, PrefixB+"/placements/"+ds.Placements[i%len(ds.Placements)].ID)
		i++
	}
}

// BenchmarkPlacementListFilteredPage measures one filtered page of 100
// placements (organisation filter, and organisation plus an active-on-a-day
// date filter) at 10k and at 1M stored placements. The index makes the two
// sizes cost about the same.
func BenchmarkPlacementListFilteredPage(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("placements=%d", n), func(b *testing.B) {
			srv, token, ds := benchServer(b, n)
			org := ds.Placements[0].PlacedAt.ID
			for _, q := range []struct{ name, query string }{
				{"organisation", "organisation=" + org},
				{"organisation+active", "organisation=" + org + "&startDate.onOrBefore=2026-11-02&endDate.onOrAfter=2026-11-02"},
				{"startDate.sorted", "startDate.onOrAfter=2025-01-01&sortkey=StartDateAsc"},
			} {
				b.Run(q.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						serve(b, srv, token, PrefixB+"/placements?limit=100&"+q.query)
					}
				})
			}
			runtime.GC()
		})
	}
}

// BenchmarkPlacementReadsAfterAWrite measures the interface-B reads of the
// two benchmarks above when a write came before each: the generation moves
// on, so no answer comes from the response cache, and the page is built from
// the placement memo (each memoised record checked against the snapshot).
// "cold" also empties the memo: every record is rendered and encoded, as
// a read without the memo would.
func BenchmarkPlacementReadsAfterAWrite(b *testing.B) {
	srv, token, ds := benchServer(b, 10_000)
	org := ds.Placements[0].PlacedAt.ID
	for _, c := range []struct {
		name, target string
		cold         bool
	}{
		{"byID", PrefixB + "/placements/" + ds.Placements[0].ID, false},
		{"organisation", PrefixB + "/placements?limit=100&organisation=" + org, false},
		{"organisation,cold", PrefixB + "/placements?limit=100&organisation=" + org, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// a write that changes nothing
				_ = srv.store.Write(func(*store.Writer) error { return nil })
				if c.cold {
					srv.reg.DropPlacementMemo()
				}
				serve(b, srv, token, c.target)
			}
		})
	}
}

// BenchmarkHeapPerPlacement reports the marginal heap cost of one stored
// placement: the record, its strings and its index entries, measured as the
// heap difference between stores of 20k and 120k placements with the same
// other records.
func BenchmarkHeapPerPlacement(b *testing.B) {
	heapWith := func(n int) uint64 {
		ds, err := fixtures.Generate(benchConfig(n))
		if err != nil {
			b.Fatal(err)
		}
		// The lessons and their attendance are the same at both sizes and
		// need their activities (fixtures.Complete); they are left out.
		ds.CalendarEvents, ds.Attendances = nil, nil
		d := store.Dataset(*ds)
		st := store.New(func() time.Time { return testNow })
		if err := st.Load(&d); err != nil {
			b.Fatal(err)
		}
		ds, d = nil, store.Dataset{}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(st)
		return m.HeapAlloc
	}
	cfgSmall, cfgLarge := 20_000, 120_000
	for b.Loop() {
		small := heapWith(cfgSmall)
		large := heapWith(cfgLarge)
		b.ReportMetric(float64(large-small)/float64(cfgLarge-cfgSmall), "heapB/placement")
	}
}

func decodeJSON(data []byte, v any) error { return json.Unmarshal(data, v) }

// searchBenchServer is a server whose store holds 100k students (and some
// other records), with the credentials of a client without a rate limit.
func searchBenchServer(b *testing.B) (srv *Server, id, secret string, ds *store.Dataset) {
	b.Helper()
	srv, err := New(Options{Now: func() time.Time { return testNow }})
	if err != nil {
		b.Fatal(err)
	}
	gen, err := fixtures.Generate(fixtures.Config{
		Seed: 1, Now: testNow,
		SchoolUnits: 60, Children: 1000, Pupils: 100_000, Staff: 500, GuardiansPerChild: 0,
		Groups: 2000, Placements: 1000, Syllabuses: 50, CalendarEvents: 2000, Attendances: 500, Absences: 100,
	})
	if err != nil {
		b.Fatal(err)
	}
	fixtures.Complete(gen, testNow)
	d := store.Dataset(*gen)
	directory.Prepare(&d)
	if err := srv.store.Load(&d); err != nil {
		b.Fatal(err)
	}
	id, secret = srv.Credentials()
	c := srv.clients[id]
	c.RateLimit = 1 << 30
	srv.clients[id] = c
	runtime.GC() // the generator's garbage is not the search's
	return srv, id, secret, &d
}

// benchSearch runs one student search per iteration and reports the matches.
func benchSearch(b *testing.B, srv *Server, id, secret, body string) {
	benchSearchAt(b, srv, id, secret, "/student", body)
}

func benchSearchAt(b *testing.B, srv *Server, id, secret, path, body string) {
	var total int
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, PrefixA+path+"/_search?limit=50", strings.NewReader(body))
		req.Header.Set(surface.HeaderClientID, id)
		req.Header.Set(surface.HeaderClientSecret, secret)
		req.Header.Set("Content-Type", surface.ContentTypeJSON)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
		var page struct {
			Pagination directory.Pagination `json:"pagination"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			b.Fatal(err)
		}
		total = page.Pagination.Total
	}
	b.ReportMetric(float64(total), "matches")
}

// BenchmarkStudentSearchNested measures POST /directory/v1/student/_search
// with a nested filter (three levels, OR inside AND) over 100k students,
// through the whole stack: credentials, rate limit, contract validation of the
// body, parsing the filter, evaluating it on every student, rendering a page.
func BenchmarkStudentSearchNested(b *testing.B) {
	srv, id, secret, _ := searchBenchServer(b)
	benchSearch(b, srv, id, secret, `{"filter": {"notNull": {"dateOfBirth": true}, "orCondition": false, "nestedFilters": [
		{"like": {"lastName": "%son"}, "contains": {"firstName": ["Anna", "Karl"]}, "orCondition": true,
		 "nestedFilters": [{"equals": {"gender": "Female"}, "greaterOrEqual": {"dateOfBirth": "2012-01-01"}, "orCondition": false}]}]}}`)
}

// BenchmarkStudentSearchIdentityNumber measures a student search whose
// filter has an equality on identityNumber (AND a like on the last name) over
// 100k students: the civic-number index finds the candidates.
func BenchmarkStudentSearchIdentityNumber(b *testing.B) {
	srv, id, secret, ds := searchBenchServer(b)
	var no string
	for _, p := range ds.Persons[len(ds.Persons)/2:] {
		if p.CivicNo != nil && p.Directory != nil && slices.Contains(p.Directory.Roles, model.RoleStudent) {
			no = identityNumber(p.CivicNo.Value)
			break
		}
	}
	if no == "" {
		b.Fatal("no student with a civic number")
	}
	benchSearch(b, srv, id, secret, `{"filter": {"equals": {"identityNumber": "`+no+`"}, "like": {"lastName": "%"}, "orCondition": false}}`)
}

// BenchmarkIncrementalSync measures the vendor's incremental-sync query,
// {"filter": {"greaterThan": {"meta": {"updatedAt": T}}, "orCondition":
// false}}, over the built-in large scenario (a municipality: 100 000
// placements, about 55 000 persons), through the whole stack. T is an hour before the scenario's
// clock (few records match): the modified index finds them. "scan" sends the
// same condition inside an OR, which no index serves, for comparison.
//
//	go test -run '^$' -bench BenchmarkIncrementalSync -benchtime 20x ./mockserver/
func BenchmarkIncrementalSync(b *testing.B) {
	sc, err := scenarios.Builtin("large")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Now: func() time.Time { return testNow }, Scenario: sc})
	if err != nil {
		b.Fatal(err)
	}
	id, secret := srv.Credentials()
	c := srv.clients[id]
	c.RateLimit = 1 << 30
	srv.clients[id] = c
	since := testNow.Add(-time.Hour).UTC().Format(time.RFC3339)
	b.Run("student-placement/index-year", func(b *testing.B) {
		year := testNow.AddDate(-1, 0, 0).UTC().Format(time.RFC3339)
		benchSearchAt(b, srv, id, secret, "/student-placement", `{"filter": {"greaterThan": {"meta": {"updatedAt": "`+year+`"}}, "orCondition": false}}`)
	})
	for _, path := range []string{"/student-placement", "/student", "/group"} {
		b.Run(path[1:]+"/index", func(b *testing.B) {
			benchSearchAt(b, srv, id, secret, path, `{"filter": {"greaterThan": {"meta": {"updatedAt": "`+since+`"}}, "orCondition": false}}`)
		})
		b.Run(path[1:]+"/scan", func(b *testing.B) {
			benchSearchAt(b, srv, id, secret, path, `{"filter": {"orCondition": false, "nestedFilters": [{"greaterThan": {"meta": {"updatedAt": "`+since+`"}}, "orCondition": true}]}}`)
		})
	}
}
