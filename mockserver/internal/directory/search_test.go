package directory

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/mockserver/internal/search"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// The reference evaluation: how _search read a record before it read the
// stored records through getters. It renders the wire record and reads its
// JSON members by reflection. The tests below prove that the getters, the
// index lookups and the page rendering give exactly what it gives.

// structRecord exposes a wire struct's JSON members to the search filter:
// strings, booleans, integers (as int64), string lists, and nil for null.
func structRecord(v any) search.Record {
	rv := reflect.Indirect(reflect.ValueOf(v))
	return search.RecordFunc(func(field string) (any, bool) {
		fv, ok := wireMember(rv, field)
		if !ok {
			return nil, false
		}
		return plainValue(fv)
	})
}

// wireMember finds a member of a wire struct by its JSON name, a dotted name
// reaching into nested objects ("meta.updatedAt"). A nil object on the way
// gives a nil pointer value (null).
func wireMember(rv reflect.Value, field string) (reflect.Value, bool) {
	for {
		name, rest, nested := strings.Cut(field, ".")
		i, ok := jsonFields(rv.Type())[name]
		if !ok {
			return reflect.Value{}, false
		}
		fv := rv.Field(i)
		if !nested {
			return fv, true
		}
		for fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				return reflect.Zero(reflect.PointerTo(reflect.TypeOf(""))), true
			}
			fv = fv.Elem()
		}
		if fv.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		rv, field = fv, rest
	}
}

var jsonFieldCache sync.Map // reflect.Type → map[string]int

func jsonFields(t reflect.Type) map[string]int {
	if m, ok := jsonFieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	jsonFieldCache.Store(t, m)
	return m
}

func plainValue(v reflect.Value) (any, bool) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	if t, ok := v.Interface().(time.Time); ok {
		return t.UTC().Format(time.RFC3339Nano), true
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return v.Int(), true
	case reflect.Slice:
		out := make([]string, v.Len())
		for i := range v.Len() {
			out[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return out, true
	}
	return nil, false
}

// bruteForceSearch is the reference search: every record of the resource in
// list order rendered, filtered through structRecord, paged. It returns the
// body a search must answer.
func bruteForceSearch(t testing.TB, api *API, res *dirResource, body string, limit, offset int) []byte {
	t.Helper()
	f, violations, err := search.Parse([]byte(body), res.fields)
	require.NoError(t, err)
	require.Empty(t, violations)
	sn := api.store.Read()
	items := []any{}
	total := 0
	res.scan(sn, func(rec any) bool {
		wire := res.render(sn, rec)
		if !f.Match(structRecord(wire)) {
			return true
		}
		if total >= offset && total < offset+limit {
			items = append(items, wire)
		}
		total++
		return true
	})
	out, err := json.Marshal(map[string]any{"data": items, "pagination": Pagination{Offset: offset, Limit: limit, Total: total}})
	require.NoError(t, err)
	return out
}

// searchDataset is a generated data set with the awkward records a search
// must get right added: Swedish letters in both cases (and the Kelvin sign,
// which folds to k), empty and missing values, civic numbers and unit codes
// shared by several records, records created at the same instant (the list
// orders them by id) and in other time zones, a person with two roles, a
// school code that an organisation which is not a School also has, archived
// placements with date-times off UTC.
func searchDataset(t testing.TB) *store.Dataset {
	t.Helper()
	gen, err := fixtures.Generate(fixtures.Config{
		Seed: 7, Now: testNow, SchoolUnits: 6, Children: 40, Pupils: 90, Staff: 40, GuardiansPerChild: 2,
		Groups: 60, Placements: 80, Syllabuses: 10, CalendarEvents: 300, Attendances: 50, Absences: 20, Units: 3,
	})
	require.NoError(t, err)
	fixtures.Complete(gen, testNow) // the activities of the lessons, as a scenario gets them
	ds := store.Dataset(*gen)
	PrepareGenerated(&ds)
	// A unit without a description, and a deletion log: audit events of
	// every kind, by a client and by nobody, and tombstones that are no
	// audit events.
	for i := range ds.Organisations {
		if o := &ds.Organisations[i]; o.Unit != nil {
			o.Unit.Description = nil
			o.Unit.External = &model.External{SourceID: ptr("U-1")}
			break
		}
	}
	by := ClientUUID("skolkit-client")
	audited := []string{"Group", "Guardian", "Employee", "EmployeePlacement", "Student", "StudentPlacement"}
	for i, kind := range append(audited, "GradeElementary", "syllabuses", "Student", "Group") {
		tb := model.Tombstone{ID: uuid.NewSHA1(uuid.Nil, []byte(kind+strconv.Itoa(i))).String(), Table: "t", RecordID: uuid.NewSHA1(uuid.Nil, []byte(kind)).String(),
			Kind: kind, DeletedAt: testNow.Add(-time.Duration(i) * time.Hour)}
		if i%2 == 0 {
			tb.DeletedBy = &by
		}
		ds.Tombstones = append(ds.Tombstones, tb)
	}

	byRole := map[model.PersonRole][]*model.Person{}
	for i := range ds.Persons {
		p := &ds.Persons[i]
		for _, r := range p.Directory.Roles {
			byRole[r] = append(byRole[r], p)
		}
	}
	for _, r := range []model.PersonRole{model.RoleStudent, model.RoleEmployee, model.RoleGuardian} {
		require.GreaterOrEqual(t, len(byRole[r]), 8, "persons with role %s", r)
	}
	same := testNow.Add(-48 * time.Hour)
	stockholmSame := same.In(stockholm) // the same instant, another zone
	for _, r := range []model.PersonRole{model.RoleStudent, model.RoleEmployee, model.RoleGuardian} {
		ps := byRole[r]
		ps[0].GivenName, ps[0].FamilyName, ps[0].Sex = "Åsa", "Öberg", "Kvinna"
		ps[1].GivenName, ps[1].FamilyName, ps[1].Sex, ps[1].BirthDate = "ÅSA", "öberg-Ärlig", "", ""
		ps[2].GivenName, ps[2].FamilyName, ps[2].CivicNo = "\u212Aarl", "Ångström", nil
		ps[2].Emails = []model.Email{{Value: "", Type: "Privat"}, {Value: "karl@exempel.se", Type: "Privat"}}
		ps[2].EduPersonPrincipalNames = nil
		ps[3].GivenName, ps[3].FamilyName = "Märta", "Lindqvist"
		ps[3].PhoneNumbers = nil
		ps[3].Sex = "Okänt"
		// Three records with one civic number, created at the same instant
		// (one of them written in another zone): the list orders them by id.
		shared := &model.CivicNo{Value: "19991231" + string(r[:2]) + "99"}
		for i, p := range ps[4:7] {
			p.CivicNo = &model.CivicNo{Value: shared.Value}
			p.Meta.Created = same
			if i == 1 {
				p.Meta.Created = stockholmSame
			}
		}
		ps[7].CivicNo = &model.CivicNo{Value: shared.Value + "0"} // the shared number and more
		ps[7].Directory.IdentityTemporary = true
	}
	// A student who is a guardian too, with a civic number another student has.
	st, gu := byRole[model.RoleStudent], byRole[model.RoleGuardian]
	gu[0].Directory.Roles = append(gu[0].Directory.Roles, model.RoleStudent)
	gu[0].CivicNo = &model.CivicNo{Value: st[4].CivicNo.Value}

	var schools []*model.Organisation
	var notSchool *model.Organisation
	for i := range ds.Organisations {
		o := &ds.Organisations[i]
		if o.Directory != nil {
			schools = append(schools, o)
		} else {
			notSchool = o
		}
	}
	require.GreaterOrEqual(t, len(schools), 4)
	require.NotNil(t, notSchool)
	schools[0].DisplayName, schools[0].SchoolUnitCode = "Ängsskolan", "55555555"
	schools[1].DisplayName, schools[1].SchoolUnitCode = "ängsskolan Norra", "55555555"
	schools[1].Meta.Created = schools[0].Meta.Created
	schools[2].SchoolUnitCode, schools[2].MunicipalityCode = "", ""
	notSchool.SchoolUnitCode = "55555555"

	for i := range ds.Groups {
		g := &ds.Groups[i]
		switch i % 5 {
		case 0:
			g.Directory = &model.GroupExtra{Category: "Education", Types: []string{}, ModeratorIDs: nil}
		case 1:
			g.Directory = &model.GroupExtra{Category: "Other", Types: []string{"Class", "Mentor"}, ModeratorIDs: []string{st[0].ID}}
			g.DisplayName = "Öva " + g.DisplayName
		case 2:
			g.GroupMemberships = append(g.GroupMemberships, g.GroupMemberships...) // each member twice
		}
	}

	var n int
	archived := time.Date(2025, 6, 30, 23, 59, 59, 123456789, time.FixedZone("", 2*3600))
	for i := range ds.Placements {
		p := &ds.Placements[i]
		if p.Directory == nil {
			continue
		}
		switch n % 4 {
		case 0:
			at := archived
			p.Directory.ArchivedAt = &at
			year := "3"
			p.Directory.SchoolYear = &year
		case 1:
			lang := "Svenska"
			p.Directory.MotherTongue, p.Directory.HasChildcare = &lang, true
		}
		n++
	}
	require.Greater(t, n, 4, "student placements")
	for i := range ds.EmployeePlacements {
		p := &ds.EmployeePlacements[i]
		switch i % 3 {
		case 0:
			pct, title := 80, "Lärare i åk 1–3"
			p.EmploymentPercent, p.Title = &pct, &title
		case 1:
			pct := 100
			p.EmploymentPercent, p.EndDate = &pct, "2026-06-30"
			at := archived
			p.ArchivedAt = &at
		}
	}
	require.Greater(t, len(ds.EmployeePlacements), 4, "employee placements")
	return &ds
}

// searchHarness is a harness whose store holds searchDataset, and the
// searchable resources with their fields.
func searchHarness(t testing.TB) (*harness, []*dirResource) {
	t.Helper()
	h := newHarness(t)
	require.NoError(t, h.core.Store.Load(searchDataset(t)))
	var out []*dirResource
	for _, res := range h.api.directoryResources() {
		if !res.canSearch {
			continue
		}
		f, err := searchFields(h.api.contract.Doc("directory"), res.schema)
		require.NoError(t, err)
		res.fields = f
		out = append(out, res)
	}
	require.Len(t, out, 9)
	return h, out
}

// records returns the resource's stored records in list order.
func records(sn *store.Snapshot, res *dirResource) []any {
	var out []any
	res.scan(sn, func(rec any) bool { out = append(out, rec); return true })
	return out
}

// TestSearchGettersMatchRender proves the getters: for every searchable
// resource, every record and every field that has a getter, the getter gives
// what the reference reads from the rendered wire record; and every
// searchable field has a getter.
func TestSearchGettersMatchRender(t *testing.T) {
	h, resources := searchHarness(t)
	sn := h.core.Store.Read()
	for _, res := range resources {
		t.Run(res.schema, func(t *testing.T) {
			require.NoError(t, res.checkGetters())
			recs := records(sn, res)
			require.NotEmpty(t, recs)
			r, set := res.getters.bind(sn)
			for _, rec := range recs {
				set(rec)
				want := structRecord(res.render(sn, rec))
				for _, name := range res.getters.names() {
					_, onWire := wireMember(reflect.ValueOf(res.render(sn, rec)), name)
					require.True(t, onWire, "getter %q is not a member of %s", name, res.schema)
					gv, gok := r.Value(name)
					if tm, ok := gv.(time.Time); ok { // an instant: compare as the wire's text
						gv = tm.UTC().Format(time.RFC3339Nano)
					}
					wv, wok := want.Value(name)
					require.Equal(t, wok, gok, "%s.%s null-ness of %+v", res.schema, name, rec)
					require.Equal(t, wv, gv, "%s.%s of %+v", res.schema, name, rec)
				}
			}
		})
	}
}

// TestSearchMatchesBruteForce sends searches through HTTP and compares each
// answer, byte for byte as JSON, with the reference search: hand-written
// filters (nested AND/OR/NOT, like, contains, nulls, dates, date-times,
// Swedish letters, equalities that drive an index) and generated ones, each
// with the whole result and with a page of it.
func TestSearchMatchesBruteForce(t *testing.T) {
	h, resources := searchHarness(t)
	sn := h.core.Store.Read()
	byPath := map[string]*dirResource{}
	for _, res := range resources {
		byPath[res.path] = res
	}
	person := func(role model.PersonRole, i int) *model.Person {
		var out []*model.Person
		for _, rec := range records(sn, byPath["/"+string(role)]) {
			out = append(out, rec.(*model.Person))
		}
		return out[i]
	}
	sharedStudent := "19991231-st99"
	hand := []struct {
		path, filter string
		indexed      bool // the filter's equalities drive an index lookup
	}{
		{"/student", `{"orCondition":false}`, false},
		{"/student", `{"orCondition":true}`, false},
		{"/student", `{"equals":{"identityNumber":"` + sharedStudent + `"},"orCondition":false}`, true},
		{"/student", `{"equals":{"identityNumber":"` + sharedStudent + `"},"orCondition":true}`, false},
		{"/student", `{"equals":{"identityNumber":"` + sharedStudent + `","firstName":"nobody"},"orCondition":false}`, true},
		{"/student", `{"equals":{"identityNumber":"` + sharedStudent + `"},"orCondition":false,"nestedFilters":[{"like":{"lastName":"%"},"null":{"gender":true},"orCondition":true}]}`, true},
		{"/student", `{"equals":{"identityNumber":"19991231st990"},"orCondition":false}`, false},
		{"/student", `{"equals":{"identityNumber":"19991231st99"},"orCondition":false}`, false},
		{"/student", `{"equals":{"identityNumber":"19991231-st9"},"orCondition":false}`, false},
		{"/student", `{"equals":{"identityNumber":""},"orCondition":false}`, false},
		{"/student", `{"equals":{"identityNumber":"` + identityNumber(person(model.RoleStudent, 10).CivicNo.Value) + `"},"orCondition":false}`, true},
		{"/student", `{"notEquals":{"identityNumber":"` + sharedStudent + `"},"orCondition":false}`, false},
		{"/student", `{"like":{"firstName":"åsa"},"orCondition":false}`, false},
		{"/student", `{"like":{"lastName":"ÖBERG%"},"orCondition":false}`, false},
		{"/student", `{"contains":{"lastName":["Öberg","Karlsson","ärl"]},"orCondition":false}`, false},
		{"/student", `{"like":{"firstName":"karl"},"orCondition":false}`, false},
		{"/student", `{"like":{"firstName":"_arl"},"orCondition":false}`, false},
		{"/student", `{"notLike":{"firstName":"%a%"},"notContains":{"lastName":["Öberg"]},"orCondition":false}`, false},
		{"/student", `{"null":{"gender":true,"dateOfBirth":true},"orCondition":true}`, false},
		{"/student", `{"null":{"emailAddress1":true},"notNull":{"emailAddress2":true},"orCondition":false}`, false},
		{"/student", `{"null":{"gender":false},"notNull":{"phoneNumber1":false},"orCondition":false}`, false},
		{"/student", `{"equals":{"gender":"Other"},"orCondition":false}`, false},
		{"/student", `{"notEquals":{"gender":"Female"},"orCondition":false}`, false},
		{"/student", `{"greaterOrEqual":{"dateOfBirth":"2015-01-01"},"smallerThan":{"dateOfBirth":"2018-06-30"},"orCondition":false}`, false},
		{"/student", `{"contains":{"dateOfBirth":["2016-05-17","2012-12-07"]},"orCondition":false}`, false},
		{"/student", `{"equals":{"identityTemporary":true},"orCondition":false}`, false},
		{"/student", `{"equals":{"id":"` + strings.ToUpper(person(model.RoleStudent, 3).ID) + `"},"orCondition":false}`, false},
		{"/student", `{"notNull":{"dateOfBirth":true},"orCondition":false,"nestedFilters":[
			{"like":{"lastName":"%son"},"contains":{"firstName":["Åsa","Karl"]},"orCondition":true,
			 "nestedFilters":[{"equals":{"gender":"Female"},"greaterOrEqual":{"dateOfBirth":"2012-01-01"},"orCondition":false}]}]}`, false},
		{"/student", `{"orCondition":true,"nestedFilters":[
			{"equals":{"identityNumber":"` + sharedStudent + `"},"orCondition":false},
			{"like":{"firstName":"å%"},"orCondition":false},
			{"orCondition":false,"nestedFilters":[{"notContains":{"lastName":["Öberg"]},"orCondition":false},{"null":{"eduPersonPrincipalName":true},"orCondition":false}]}]}`, false},
		{"/employee", `{"equals":{"identityNumber":"19991231-em99"},"orCondition":false}`, true},
		{"/student", `{"equals":{"identityNumber":"19991231-em99"},"orCondition":false}`, true},
		{"/employee", `{"like":{"emailAddress1":"%@%"},"notContains":{"firstName":["Åsa"]},"orCondition":false}`, false},
		{"/guardian", `{"equals":{"identityNumber":"19991231-gu99"},"orCondition":false}`, true},
		{"/guardian", `{"equals":{"identityNumber":"` + identityNumber(person(model.RoleStudent, 4).CivicNo.Value) + `"},"orCondition":false}`, true},
		{"/student", `{"equals":{"identityNumber":"` + identityNumber(person(model.RoleStudent, 4).CivicNo.Value) + `"},"orCondition":false}`, true},
		{"/guardian", `{"like":{"lastName":"%ö%"},"orCondition":true,"nestedFilters":[{"equals":{"firstName":"Märta"},"orCondition":false}]}`, false},
		{"/school", `{"equals":{"unitCode":"55555555"},"orCondition":false}`, true},
		{"/school", `{"equals":{"unitCode":"55555555","title":"Ängsskolan"},"orCondition":false}`, true},
		{"/school", `{"equals":{"unitCode":"5555555"},"orCondition":false}`, true},
		{"/school", `{"like":{"title":"ÄNGS%"},"orCondition":false}`, false},
		{"/school", `{"null":{"unitCode":true},"orCondition":true,"nestedFilters":[{"notNull":{"unitID":true},"notEquals":{"schoolType":"GR"},"orCondition":false}]}`, false},
		{"/school", `{"notNull":{"unitID":true},"orCondition":false}`, false},
		{"/group", `{"contains":{"types":["Class"]},"orCondition":false}`, false},
		{"/group", `{"notContains":{"types":["Mentor","Childcare"]},"orCondition":false}`, false},
		{"/group", `{"contains":{"moderatorIDs":["` + strings.ToUpper(person(model.RoleStudent, 0).ID) + `"]},"orCondition":false}`, false},
		{"/group", `{"like":{"title":"öva%"},"orCondition":false}`, false},
		{"/group", `{"equals":{"category":"Education"},"orCondition":true,"nestedFilters":[{"null":{"memberIDs":true},"orCondition":false}]}`, false},
		{"/student-placement", `{"notNull":{"archivedAt":true},"orCondition":false}`, false},
		{"/student-placement", `{"equals":{"archivedAt":"2025-06-30T21:59:59.123456789Z"},"orCondition":false}`, false},
		{"/student-placement", `{"equals":{"archivedAt":"2025-06-30T23:59:59.123456789+02:00"},"orCondition":false}`, false},
		{"/student-placement", `{"greaterThan":{"archivedAt":"2025-06-30T21:59:59Z"},"orCondition":false}`, false},
		{"/student-placement", `{"smallerOrEqual":{"archivedAt":"2025-06-30T23:59:59.123456789+02:00"},"orCondition":false}`, false},
		{"/student", `{"greaterThan":{"meta":{"updatedAt":"2024-01-01T00:00:00Z"}},"contains":{"address":{"postalCity":["Umeå","Obbola"]}},"orCondition":false}`, true},
		{"/student", `{"greaterThan":{"meta":{"updatedAt":"2024-01-01T00:00:00Z"}},"orCondition":true}`, false},
		{"/student-placement", `{"greaterOrEqual":{"meta":{"updatedAt":"2025-06-01T00:00:00+02:00"}},"orCondition":false}`, true},
		{"/group", `{"greaterThan":{"meta":{"updatedAt":"2025-01-01T00:00:00Z"}},"smallerThan":{"meta":{"createdAt":"2026-01-01T00:00:00Z"}},"orCondition":false}`, true},
		{"/employee-placement", `{"greaterThan":{"meta":{"updatedAt":"2024-01-01T00:00:00Z"}},"orCondition":false}`, true},
		{"/school", `{"greaterThan":{"meta":{"updatedAt":"2024-01-01T00:00:00Z"}},"orCondition":false}`, true},
		{"/unit", `{"greaterThan":{"meta":{"updatedAt":"2024-01-01T00:00:00Z"}},"orCondition":false}`, true},
		{"/guardian", `{"greaterThan":{"meta":{"updatedAt":"2026-10-01T00:00:00Z"}},"orCondition":false}`, true},
		{"/student", `{"null":{"meta":{"createdBy":true}},"notNull":{"address":{"municipalityCode":true}},"orCondition":false}`, false},
		{"/group", `{"equals":{"memberIDs":"` + person(model.RoleStudent, 0).ID + `"},"orCondition":false}`, false},
		{"/student-placement", `{"equals":{"schoolYear":"3"},"orCondition":false}`, false},
		{"/student-placement", `{"equals":{"hasChildcare":true,"motherTongue":"Svenska"},"orCondition":false}`, false},
		{"/student-placement", `{"null":{"endDate":true},"orCondition":true,"nestedFilters":[{"smallerOrEqual":{"startDate":"2026-01-01"},"orCondition":false}]}`, false},
		{"/employee-placement", `{"greaterThan":{"employmentPercent":79},"smallerOrEqual":{"employmentPercent":80},"orCondition":false}`, false},
		{"/employee-placement", `{"null":{"employmentPercent":true},"orCondition":false}`, false},
		{"/employee-placement", `{"notEquals":{"employmentPercent":100},"orCondition":false}`, false},
		{"/employee-placement", `{"contains":{"title":["ÅK 1","Lärare"]},"orCondition":false}`, false},
		{"/employee-placement", `{"equals":{"endDate":"2026-06-30"},"notNull":{"archivedAt":true},"orCondition":false}`, false},
	}
	pages := []string{"", "?limit=500", "?limit=2", "?limit=2&offset=1", "?limit=3&offset=2", "?offset=1000"}
	for i, tc := range hand {
		res := byPath[tc.path]
		require.NotNil(t, res, tc.path)
		body := `{"filter":` + tc.filter + `}`
		f, violations, err := search.Parse([]byte(body), res.fields)
		require.NoError(t, err, tc.filter)
		require.Empty(t, violations, tc.filter)
		assert.Equal(t, tc.indexed, res.candidates(sn, f) != nil, "hand filter %d: index lookup", i)
		for _, q := range pages {
			checkSearch(t, h, res, body, q)
		}
	}

	// Generated filters, the same every run.
	rng := rand.New(rand.NewPCG(12000, 2))
	for _, res := range resources {
		g := newFilterGen(rng, res, records(sn, res), sn)
		for i := range 60 {
			filter := g.filter(1)
			if len(res.lookups) > 0 && i%3 == 0 { // drive the index
				l := res.lookups[0]
				filter = fmt.Sprintf(`{"equals":{%q:%s},"orCondition":false,"nestedFilters":[%s]}`, l.field, g.value(res.fields[l.field]), filter)
			}
			body := `{"filter":` + filter + `}`
			q := fmt.Sprintf("?limit=%d&offset=%d", 1+rng.IntN(8), rng.IntN(6))
			checkSearch(t, h, res, body, "?limit=500")
			checkSearch(t, h, res, body, q)
		}
	}
}

// checkSearch sends one search and compares the answer with the reference.
func checkSearch(t *testing.T, h *harness, res *dirResource, body, query string) {
	t.Helper()
	limit, offset := DirectoryDefaultLimit, 0
	if query != "" {
		for _, kv := range strings.Split(strings.TrimPrefix(query, "?"), "&") {
			k, v, _ := strings.Cut(kv, "=")
			var n int
			_, _ = fmt.Sscan(v, &n)
			switch k {
			case "limit":
				limit = n
			case "offset":
				offset = n
			}
		}
	}
	got := h.send(http.MethodPost, PrefixA+res.path+"/_search"+query, body)
	require.Equal(t, http.StatusOK, got.Code, "%s %s: %s", res.path, body, got.Body)
	want := bruteForceSearch(t, h.api, res, body, limit, offset)
	require.JSONEq(t, string(want), got.Body.String(), "%s%s %s", res.path, query, body)
}

// TestSearchCandidatesOutsideTimeKeyRange checks the fallback: a candidate
// created outside the years 0-9999 (where the list index's time text is no
// longer in time order) makes the search scan instead.
func TestSearchCandidatesOutsideTimeKeyRange(t *testing.T) {
	h, resources := searchHarness(t)
	var students *dirResource
	for _, res := range resources {
		if res.path == "/student" {
			students = res
		}
	}
	sn := h.core.Store.Read()
	f, _, err := search.Parse([]byte(`{"filter":{"equals":{"identityNumber":"19991231-st99"},"orCondition":false}}`), students.fields)
	require.NoError(t, err)
	require.Len(t, students.candidates(sn, f), 4) // three students and the guardian who is a student too

	ds := searchDataset(t)
	for i := range ds.Persons {
		if p := &ds.Persons[i]; p.CivicNo != nil && p.CivicNo.Value == "19991231st99" {
			p.Meta.Created = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			break
		}
	}
	st := store.New(h.core.Now)
	require.NoError(t, st.Load(ds))
	assert.Nil(t, students.candidates(st.Read(), f), "falls back to the scan")
}

// FuzzSearchMatchesBruteForce sends arbitrary search bodies, limits and
// offsets to every search of the search data set, in process, and requires
// each body the filter language accepts to get exactly the reference's
// answer. Run it with
//
//	go test -run '^$' -fuzz '^FuzzSearchMatchesBruteForce$' -fuzztime 60s ./mockserver/directory/
func FuzzSearchMatchesBruteForce(f *testing.F) {
	h, resources := searchHarness(f)
	for _, seed := range []struct {
		res           uint8
		body          string
		limit, offset uint8
	}{
		{2, `{"filter":{"equals":{"identityNumber":"19991231-st99"},"orCondition":false}}`, 2, 1},
		{2, `{"filter":{"equals":{"identityNumber":"19991231-em99"},"like":{"firstName":"%"},"orCondition":false}}`, 50, 0},
		{3, `{"filter":{"equals":{"identityNumber":"19991231-em99"},"orCondition":false}}`, 1, 2},
		{2, `{"filter":{"like":{"firstName":"åsa"},"orCondition":true,"nestedFilters":[{"contains":{"lastName":["Öberg"]},"orCondition":false}]}}`, 10, 0},
		{2, `{"filter":{"null":{"gender":true},"notNull":{"dateOfBirth":false},"orCondition":false}}`, 5, 0},
		{0, `{"filter":{"equals":{"unitCode":"55555555"},"orCondition":false}}`, 1, 1},
		{0, `{"filter":{"null":{"unitCode":true},"orCondition":true}}`, 9, 0},
		{1, `{"filter":{"contains":{"types":["Class"]},"notContains":{"memberIDs":["00000000-0000-4000-8000-000000000000"]},"orCondition":false}}`, 20, 3},
		{5, `{"filter":{"greaterThan":{"archivedAt":"2025-06-30T21:59:59Z"},"like":{"startDate":"2024-%"},"orCondition":true}}`, 30, 0},
		{6, `{"filter":{"smallerOrEqual":{"employmentPercent":80},"null":{"title":true},"orCondition":true}}`, 7, 1},
	} {
		f.Add(seed.res, seed.body, seed.limit, seed.offset)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string, limit, offset uint8) {
		res := resources[int(which)%len(resources)]
		if _, violations, err := search.Parse([]byte(body), res.fields); err != nil || len(violations) > 0 {
			return // the language's errors: FuzzDirectoryBodies and mockserver/search
		}
		l, o := 1+int(limit)%DirectoryMaxLimit, int(offset)
		req := httptest.NewRequest(http.MethodPost, fmt.Sprintf("%s%s/_search?limit=%d&offset=%d", PrefixA, res.path, l, o), strings.NewReader(body))
		req.Header.Set("Content-Type", surface.ContentTypeJSON)
		rec := httptest.NewRecorder()
		h.handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusUnprocessableEntity {
			return // refused before the filter was read (in production, by the contract)
		}
		require.Equal(t, http.StatusOK, rec.Code, "%s %s", res.path, body)
		require.JSONEq(t, string(bruteForceSearch(t, h.api, res, body, l, o)), rec.Body.String(), "%s %s", res.path, body)
	})
}

// filterGen makes random filters for one resource from the values its
// records have, so that they match some records and not others.
type filterGen struct {
	rng    *rand.Rand
	fields []search.Field
	values map[string][]string // field → texts its records have (lists: elements)
}

func newFilterGen(rng *rand.Rand, res *dirResource, recs []any, sn *store.Snapshot) *filterGen {
	g := &filterGen{rng: rng, values: map[string][]string{}}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range res.fields {
			if !yield(n) {
				return
			}
		}
	}) {
		g.fields = append(g.fields, res.fields[name])
	}
	for _, rec := range recs {
		r := structRecord(res.render(sn, rec))
		for _, f := range g.fields {
			v, ok := r.Value(f.Name)
			if !ok || v == nil {
				continue
			}
			switch x := v.(type) {
			case string:
				g.values[f.Name] = append(g.values[f.Name], x)
			case []string:
				g.values[f.Name] = append(g.values[f.Name], x...)
			case int64:
				g.values[f.Name] = append(g.values[f.Name], fmt.Sprint(x))
			}
		}
	}
	return g
}

func (g *filterGen) pick(ss []string) string { return ss[g.rng.IntN(len(ss))] }

// sample is a value one of the records has, or another one now and then.
func (g *filterGen) sample(f search.Field, other string) string {
	if vs := g.values[f.Name]; len(vs) > 0 && g.rng.IntN(5) > 0 {
		return g.pick(vs)
	}
	return other
}

// text makes a contains or like value from a record's text.
func (g *filterGen) text(f search.Field, like bool) string {
	s := []rune(g.sample(f, g.pick([]string{"å", "Ö", "ä", "son", "2026", "x"})))
	if len(s) > 0 {
		i := g.rng.IntN(len(s))
		j := i + 1 + g.rng.IntN(len(s)-i)
		if g.rng.IntN(3) == 0 {
			i, j = 0, len(s)
		}
		s = s[i:j]
	}
	out := string(s)
	switch g.rng.IntN(3) {
	case 0:
		out = strings.ToUpper(out)
	case 1:
		out = strings.ToLower(out)
	}
	if like {
		switch g.rng.IntN(5) {
		case 0:
			out = "%" + out + "%"
		case 1:
			out += "%"
		case 2:
			out = "%" + out
		case 3:
			if r, size := utf8.DecodeRuneInString(out); r != utf8.RuneError && size > 0 {
				out = "_" + out[size:]
			}
		}
	}
	return out
}

// value makes the JSON value of an equals, notEquals or order condition
// (on a list: one element).
func (g *filterGen) value(f search.Field) string {
	switch f.Kind {
	case search.UUIDList:
		return g.value(search.Field{Name: f.Name, Kind: search.UUID})
	case search.StringList:
		if len(f.Enum) > 0 {
			return quoteString(g.pick(f.Enum))
		}
		return quoteString(g.sample(f, "x"))
	case search.Enum:
		return quoteString(g.pick(f.Enum))
	case search.UUID:
		v := g.sample(f, "00000000-0000-4000-8000-000000000000")
		if g.rng.IntN(3) == 0 {
			v = strings.ToUpper(v)
		}
		return quoteString(v)
	case search.Bool:
		return fmt.Sprint(g.rng.IntN(2) == 0)
	case search.Int:
		var n int
		_, _ = fmt.Sscan(g.sample(f, "50"), &n)
		return fmt.Sprint(n + g.rng.IntN(3) - 1)
	case search.Date:
		return quoteString(g.sample(f, fmt.Sprintf("20%02d-%02d-%02d", 10+g.rng.IntN(17), 1+g.rng.IntN(12), 1+g.rng.IntN(28))))
	case search.DateTime:
		v := g.sample(f, "2026-01-01T00:00:00Z")
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil && g.rng.IntN(2) == 0 {
			v = t.In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano)
		}
		return quoteString(v)
	}
	return quoteString(g.sample(f, g.pick([]string{"", "Åsa", "öberg", "x"})))
}

// filter makes a filter at the level depth.
func (g *filterGen) filter(depth int) string {
	members := map[string][]string{} // operator → "field": value
	for range g.rng.IntN(4) {
		f := g.fields[g.rng.IntN(len(g.fields))]
		op := search.Op(g.rng.IntN(12))
		if !search.Applies(op, f.Kind) || f.Ops != 0 && !f.Ops.Has(op) {
			continue
		}
		var v string
		switch op {
		case search.OpNull, search.OpNotNull:
			v = fmt.Sprint(g.rng.IntN(4) > 0)
		case search.OpContains, search.OpNotContains:
			var items []string
			for range g.rng.IntN(3) + 1 {
				switch f.Kind {
				case search.StringList:
					if len(f.Enum) > 0 {
						items = append(items, quoteString(g.pick(f.Enum)))
					} else {
						items = append(items, quoteString(g.sample(f, "x")))
					}
				default:
					items = append(items, g.value(f))
				}
			}
			v = "[" + strings.Join(items, ",") + "]"
		case search.OpLike, search.OpNotLike:
			v = quoteString(g.text(f, true))
		default:
			v = g.value(f)
		}
		// A nested field is written inside its group's object; one field
		// per group and operator keeps the generator simple.
		group, name, nested := strings.Cut(f.Name, ".")
		key := quoteString(group)
		if slices.ContainsFunc(members[op.String()], func(m string) bool { return strings.HasPrefix(m, key+":") }) {
			continue
		}
		if nested {
			v = "{" + quoteString(name) + ":" + v + "}"
		}
		members[op.String()] = append(members[op.String()], key+":"+v)
	}
	var parts []string
	for _, op := range slices.Sorted(func(yield func(string) bool) {
		for k := range members {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, quoteString(op)+":{"+strings.Join(members[op], ",")+"}")
	}
	parts = append(parts, fmt.Sprintf(`"orCondition":%v`, g.rng.IntN(2) == 0))
	if depth < 3 && g.rng.IntN(2) == 0 {
		var nested []string
		for range 1 + g.rng.IntN(3) {
			nested = append(nested, g.filter(depth+1))
		}
		parts = append(parts, `"nestedFilters":[`+strings.Join(nested, ",")+"]")
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func quoteString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSearchAfterWrites checks that searches, through the index and through
// the scan, see records created, changed and deleted through interface A.
func TestSearchAfterWrites(t *testing.T) {
	h, resources := searchHarness(t)
	byPath := map[string]*dirResource{}
	for _, res := range resources {
		byPath[res.path] = res
	}
	students, schools := byPath["/student"], byPath["/school"]
	no := newIdentity()
	filters := []string{
		`{"filter":{"equals":{"identityNumber":"` + no + `"},"orCondition":false}}`,
		`{"filter":{"equals":{"identityNumber":"` + no + `","firstName":"Östen"},"orCondition":false}}`,
		`{"filter":{"like":{"firstName":"öST%"},"orCondition":false}}`,
	}
	check := func(wantTotal ...int) {
		t.Helper()
		for i, body := range filters {
			checkSearch(t, h, students, body, "")
			var page struct{ Pagination Pagination }
			decode(t, h.send(http.MethodPost, PrefixA+"/student/_search", body), &page)
			assert.Equal(t, wantTotal[i], page.Pagination.Total, body)
		}
	}
	check(0, 0, 0)
	id := h.mustCreate(t, "/student", `{"identityNumber":"`+no+`","firstName":"Test","lastName":"Elev"}`)
	check(1, 0, 0)
	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/student/"+id, `{"identityNumber":"`+no+`","firstName":"Östen","lastName":"Elev"}`).Code)
	check(1, 1, 1)
	require.Equal(t, http.StatusNoContent, h.send(http.MethodDelete, PrefixA+"/student/"+id, "").Code)
	check(0, 0, 0)

	h.advance(time.Minute) // after every generated record
	school := h.mustCreate(t, "/school", `{"title":"Åby skola","schoolType":"GR","unitCode":"55555555"}`)
	body := `{"filter":{"equals":{"unitCode":"55555555"},"orCondition":false}}`
	checkSearch(t, h, schools, body, "")
	var page struct {
		Data []DirectorySchool
	}
	decode(t, h.send(http.MethodPost, PrefixA+"/school/_search", body), &page)
	require.Len(t, page.Data, 3)
	assert.Equal(t, school, page.Data[2].ID, "the new school comes last: it was created last")
}
