package rules

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A scenario is exchanges a judge sees in order, the rule that must or
// must not find something in them, and what its finding says.
type scenario struct {
	name    string
	profile Profile
	rule    string
	exs     func(t *testing.T) []*Exchange
	fails   string // part of the first finding; "" when the rule must find nothing
	nothing bool   // the rule must have judged nothing
}

func runScenarios(t *testing.T, cases []scenario) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.profile
			if p == "" {
				p = ProfileService
			}
			found, cov := judgeOne(t, p, tc.rule, tc.exs(t)...)
			if tc.fails == "" {
				assert.Empty(t, found)
				assert.Equal(t, tc.nothing, cov.Nothing(), "whether the rule had something to judge")
				return
			}
			if assert.NotEmpty(t, found) {
				assert.Contains(t, found[0], tc.fails)
			}
		})
	}
}

func page(token any, items ...any) obj {
	if items == nil {
		items = []any{}
	}
	return obj{"data": items, "pageToken": token}
}

func ps(ids ...int) []any {
	var out []any
	for _, n := range ids {
		out = append(out, placement(id(n)))
	}
	return out
}

// aPage is an interface A list page.
func aPage(offset, limit, total int, items ...any) obj {
	return obj{"data": items, "pagination": obj{"offset": offset, "limit": limit, "total": total}}
}

func school(n int, mods ...func(obj)) obj {
	s := obj{"id": id(n), "title": "School " + itoa(n), "schoolType": "GR", "meta": obj{"createdAt": "2024-01-01T08:00:00Z", "updatedAt": "2024-01-02T08:00:00Z"}}
	for _, m := range mods {
		m(s)
	}
	return s
}

func TestPagingRules(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "a later page within a limit that changed during the walk", rule: "paging.page-within-limit", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?limit=3", 200, page("t1", ps(1, 2, 3)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t1&limit=1", 200, page(nil, ps(4)...)),
			}
		}},
		{name: "a later page over the limit sent with it", rule: "paging.page-within-limit", fails: "holds 2 records with limit=1", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?limit=3", 200, page("t1", ps(1, 2, 3)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t1&limit=1", 200, page(nil, ps(4, 5)...)),
			}
		}},
		{name: "pages smaller than asked are legal", rule: "paging.page-within-limit", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/groups?limit=50", 200, page(nil))}
		}},
		{name: "an answer that is not a page is not judged as one", rule: "paging.page-within-limit", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements?limit=1", 200, ps(1, 2, 3))}
		}},
		{name: "answers that are not pages make no walk", rule: "paging.walk-without-repeats", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements?limit=1", 200, ps(1, 1))}
		}},
		{name: "answers that are not pages make no walks to compare", rule: "paging.walks-agree", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements?limit=1", 200, ps(1)), mkEx(t, "GET /api/v1/placements?limit=2", 200, ps(2))}
		}},
		{name: "a later page repeats a record", rule: "paging.walk-without-repeats", fails: "repeats 1 records", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?limit=2", 200, page("t1", ps(1, 2)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t1", 200, page(nil, ps(2, 3)...)),
			}
		}},
		{name: "a pageToken comes back", rule: "paging.walk-without-repeats", fails: "the walk loops", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?limit=1", 200, page("t1", ps(1)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t1", 200, page("t2", ps(2)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t2", 200, page("t1", ps(3)...)),
			}
		}},
		{name: "two walks of one query with different limits agree", rule: "paging.walks-agree", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, ps(1, 2, 3)...)),
				mkEx(t, "GET /api/v1/placements?limit=2", 200, page("t1", ps(3, 1)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t1&limit=2", 200, page(nil, ps(2)...)),
			}
		}},
		{name: "a walk that skips a record", rule: "paging.walks-agree", fails: "1 missing", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, ps(1, 2, 3)...)),
				mkEx(t, "GET /api/v1/placements?limit=1", 200, page("t1", ps(1)...)),
				mkEx(t, "GET /api/v1/placements?pageToken=t1&limit=1", 200, page(nil, ps(3)...)),
			}
		}},
		{name: "offset pages that say one more than exists", rule: "paging.total-matches-walk", fails: "yields 2 distinct records", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school?limit=2&offset=0", 200, aPage(0, 2, 3, school(1), school(2))),
				mkEx(t, "GET /directory/v1/school?limit=2&offset=2", 200, aPage(2, 2, 3, school(1))),
			}
		}},
		{name: "an offset walk whose limit changes", rule: "paging.total-matches-walk", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school?limit=2&offset=0", 200, aPage(0, 2, 3, school(1), school(2))),
				mkEx(t, "GET /directory/v1/school?limit=1&offset=2", 200, aPage(2, 1, 3, school(3))),
			}
		}},
		{name: "a short offset page leaves a gap", rule: "paging.offset-page-full", fails: "holds 1 items", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /directory/v1/school?limit=2", 200, aPage(0, 2, 5, school(1)))}
		}},
		{name: "a walk in startDate order", rule: "paging.sort-order", exs: func(t *testing.T) []*Exchange {
			at := func(n int, d string) any { return placement(id(n), func(p obj) { p["startDate"] = d }) }
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?sortkey=StartDateAsc&limit=2", 200, page("t1", at(1, "2024-01-01"), at(2, "2024-02-01"))),
				mkEx(t, "GET /api/v1/placements?pageToken=t1", 200, page(nil, at(3, "2024-02-01"), at(4, "2024-03-01"))),
			}
		}},
		{name: "a later page out of order", rule: "paging.sort-order", fails: `comes after one with startDate "2024-02-01"`, exs: func(t *testing.T) []*Exchange {
			at := func(n int, d string) any { return placement(id(n), func(p obj) { p["startDate"] = d }) }
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?sortkey=StartDateAsc&limit=2", 200, page("t1", at(1, "2024-01-01"), at(2, "2024-02-01"))),
				mkEx(t, "GET /api/v1/placements?pageToken=t1", 200, page(nil, at(3, "2024-01-15"))),
			}
		}},
		{name: "family names in the order every collation gives", rule: "paging.sort-order", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/persons?sortkey=FamilyNameAsc&limit=2", 200, page("t1", person(1, "Andersson"), person(2, "Berg"))),
				mkEx(t, "GET /api/v1/persons?pageToken=t1", 200, page(nil, person(3, "berg"), person(4, "Åberg"), person(5, "Östlund"))),
			}
		}},
		{name: "family names where the collations disagree are not judged", rule: "paging.sort-order", nothing: true, exs: func(t *testing.T) []*Exchange {
			// Each pair in the order one collation gives and another does
			// not: German (Ä as A) and Swedish (Ä after Z), bytes (upper
			// case first) and case folded, spaces read and skipped.
			var out []*Exchange
			for _, pair := range [][2]string{{"Ängel", "Zorro"}, {"Zorro", "Ängel"}, {"anna", "Bertil"}, {"Bertil", "anna"}, {"Anna Karin", "Annabel"}, {"Annabel", "Anna Karin"}} {
				out = append(out, mkEx(t, "GET /api/v1/persons?sortkey=FamilyNameAsc", 200, page(nil, person(1, pair[0]), person(2, pair[1]))))
			}
			return out
		}},
		{name: "a later page of family names out of every order", rule: "paging.sort-order", fails: `(familyName "Andersson") comes after one with familyName "Östlund"`, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/persons?sortkey=FamilyNameAsc&limit=2", 200, page("t1", person(1, "Berg"), person(2, "Östlund"))),
				mkEx(t, "GET /api/v1/persons?pageToken=t1", 200, page(nil, person(4, "Andersson"))),
			}
		}},
		{name: "codes in descending order", rule: "paging.sort-order", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/syllabuses?sortkey=SubjectCodeDesc", 200, page(nil, syllabus(1, "SVE"), syllabus(2, "MAT"), syllabus(3, "ENG")))}
		}},
		{name: "codes ascending where descending was asked", rule: "paging.sort-order", fails: "with sortkey=SubjectCodeDesc", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/syllabuses?sortkey=SubjectCodeDesc", 200, page(nil, syllabus(1, "ENG"), syllabus(2, "MAT")))}
		}},
		{name: "civic numbers, the persons without one at the end", rule: "paging.sort-order", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/persons?sortkey=CivicNoAsc", 200, page(nil, civic(1, "200101012383"), civic(2, "201001012384"), person(3, "Berg")))}
		}},
		{name: "civic numbers, the persons without one at both ends", rule: "paging.sort-order", fails: "both before and after", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/persons?sortkey=CivicNoAsc", 200, page(nil, person(3, "Berg"), civic(1, "200101012383"), person(4, "Berg")))}
		}},
		{name: "modified order by instant, whatever the offset", rule: "paging.sort-order", exs: func(t *testing.T) []*Exchange {
			at := func(n int, m string) any {
				return placement(id(n), func(p obj) { p["meta"] = obj{"created": "2024-01-01T00:00:00Z", "modified": m} })
			}
			return []*Exchange{mkEx(t, "GET /api/v1/placements?sortkey=ModifiedDesc", 200, page(nil, at(1, "2024-03-01T10:00:00+01:00"), at(2, "2024-03-01T08:30:00Z")))}
		}},
	})
}

func TestFiltersRules(t *testing.T) {
	withEnd := func(n int, start, end string) any {
		return placement(id(n), func(p obj) {
			p["startDate"] = start
			if end != "" {
				p["endDate"] = end
			}
		})
	}
	group := func(n int, typ string) any {
		return obj{"id": id(n), "meta": obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-01-01T00:00:00Z"}, "displayName": "G", "groupType": typ, "organisation": obj{"id": id(900)}}
	}
	runScenarios(t, []scenario{
		{name: "open-ended placements kept by an endDate bound", rule: "filters.records-match", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements?endDate.onOrBefore=2024-06-30", 200, page(nil, withEnd(1, "2024-01-01", "2024-06-30"), withEnd(2, "2024-01-01", "")))}
		}},
		{name: "a record past an inclusive bound", rule: "filters.records-match", fails: "does not satisfy endDate.onOrBefore=2024-06-30", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements?endDate.onOrBefore=2024-06-30", 200, page(nil, withEnd(1, "2024-01-01", "2024-07-01")))}
		}},
		{name: "a later page judged by the walk's first query", rule: "filters.records-match", fails: "startDate.onOrAfter=2024-03-01", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?startDate.onOrAfter=2024-03-01&limit=1", 200, page("t1", withEnd(1, "2024-03-01", ""))),
				mkEx(t, "GET /api/v1/placements?pageToken=t1", 200, page(nil, withEnd(2, "2024-02-01", ""))),
			}
		}},
		{name: "meta.modified.after is exclusive, compared as an instant", rule: "filters.records-match", fails: "meta.modified.after", exs: func(t *testing.T) []*Exchange {
			at := placement(id(1), func(p obj) {
				p["meta"] = obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-02-01T09:00:00+01:00"}
			})
			return []*Exchange{mkEx(t, "GET /api/v1/placements?meta.modified.after=2024-02-01T08:00:00Z", 200, page(nil, at))}
		}},
		{name: "every value of a multi-valued filter", rule: "filters.records-match", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/groups?groupType=Klass&groupType=Undervisning", 200, page(nil, group(1, "Klass"), group(2, "Undervisning")))}
		}},
		{name: "every part of a name in one of the names, in any case", rule: "filters.records-match", exs: func(t *testing.T) []*Exchange {
			// SS 12000's own example: [ "Pa", "gens" ] matches Palle Girgensohn.
			palle := obj{"id": id(1), "givenName": "Palle", "familyName": "Girgensohn"}
			anna := obj{"id": id(2), "givenName": "Anna", "middleName": "Pauline", "familyName": "Gensler"}
			return []*Exchange{mkEx(t, "GET /api/v1/persons?nameContains=Pa&nameContains=GENS", 200, page(nil, palle, anna))}
		}},
		{name: "a name that holds only one of the parts", rule: "filters.records-match", fails: `does not satisfy nameContains=Pa&nameContains=gens (givenName is ["Palle"], middleName is null, familyName is ["Persson"])`, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/persons?nameContains=Pa&nameContains=gens", 200, page(nil, obj{"id": id(1), "givenName": "Palle", "familyName": "Persson"}))}
		}},
		{name: "a name part whose record is left out", rule: "filters.keeps-every-match", fails: "leaves out 1 records", exs: func(t *testing.T) []*Exchange {
			palle := obj{"id": id(1), "givenName": "Palle", "familyName": "Girgensohn"}
			return []*Exchange{
				mkEx(t, "GET /api/v1/persons", 200, page(nil, palle, obj{"id": id(2), "givenName": "Eva", "familyName": "Berg"})),
				mkEx(t, "GET /api/v1/persons?nameContains=pa", 200, page(nil)),
			}
		}},
		{name: "identifiers and principal names that match", rule: "filters.records-match", exs: func(t *testing.T) []*Exchange {
			p := obj{"id": id(1), "givenName": "Kim", "familyName": "Berg", "eduPersonPrincipalNames": []any{"kim@skola.se"},
				"externalIdentifiers": []any{obj{"value": "kimber01", "context": "https://ad.skola.se/elev", "globallyUnique": false}}}
			return []*Exchange{
				mkEx(t, "GET /api/v1/persons?eduPersonPrincipalName=kim@skola.se", 200, page(nil, p)),
				mkEx(t, "GET /api/v1/persons?identifier.value=kimber01&identifier.context=https://ad.skola.se/elev", 200, page(nil, p)),
			}
		}},
		{name: "a principal name that matches with case folded alone is not judged", rule: "filters.records-match", nothing: true, exs: func(t *testing.T) []*Exchange {
			p := obj{"id": id(1), "givenName": "Kim", "familyName": "Berg", "eduPersonPrincipalNames": []any{"Kim@Skola.se"}}
			return []*Exchange{mkEx(t, "GET /api/v1/persons?eduPersonPrincipalName=kim@skola.se", 200, page(nil, p, obj{"id": id(2), "givenName": "Eva", "familyName": "Berg"}))}
		}},
		{name: "an identifier of another context", rule: "filters.records-match", fails: "does not satisfy identifier.context=https://ad.skola.se/elev", exs: func(t *testing.T) []*Exchange {
			p := obj{"id": id(1), "givenName": "Kim", "familyName": "Berg", "externalIdentifiers": []any{obj{"value": "kimber01", "context": "https://ad.skola.se/personal"}}}
			return []*Exchange{mkEx(t, "GET /api/v1/persons?identifier.context=https://ad.skola.se/elev", 200, page(nil, p))}
		}},
		{name: "events of the group's activities, the activities seen", rule: "filters.records-match", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/activities", 200, page(nil, activity(10, 20), activity(11, 21))),
				mkEx(t, "GET /api/v1/calendarEvents?group="+id(20)+"&startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2999-01-01T00:00:00Z", 200, page(nil, event(1, 10, nil))),
			}
		}},
		{name: "an event of another group's activity", rule: "filters.records-match", fails: "does not satisfy group=" + id(20), exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/activities", 200, page(nil, activity(10, 20), activity(11, 21))),
				mkEx(t, "GET /api/v1/calendarEvents?group="+id(20)+"&startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2999-01-01T00:00:00Z", 200, page(nil, event(1, 10, nil), event(2, 11, nil))),
			}
		}},
		{name: "an event whose activity was not seen is not judged", rule: "filters.records-match", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/calendarEvents?group="+id(20), 200, page(nil, event(2, 11, nil)))}
		}},
		{name: "a student named by an event's exception is not judged", rule: "filters.records-match", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/activities", 200, page(nil, activity(11, 21))),
				mkEx(t, "GET /api/v1/groups", 200, page(nil, obj{"id": id(21), "displayName": "G", "groupMemberships": []any{obj{"person": obj{"id": id(40)}}}})),
				mkEx(t, "GET /api/v1/calendarEvents?student="+id(41), 200, page(nil, event(2, 11, []any{obj{"student": obj{"id": id(41)}, "participates": false}}))),
			}
		}},
		{name: "a student of none of the activity's groups", rule: "filters.records-match", fails: "does not satisfy student=" + id(41), exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/activities", 200, page(nil, activity(11, 21))),
				mkEx(t, "GET /api/v1/groups", 200, page(nil, obj{"id": id(21), "displayName": "G", "groupMemberships": []any{obj{"person": obj{"id": id(40)}}}})),
				mkEx(t, "GET /api/v1/calendarEvents?student="+id(41)+"&startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2999-01-01T00:00:00Z", 200, page(nil, event(2, 11, nil))),
			}
		}},
		{name: "an event of the group's activity left out", rule: "filters.keeps-every-match", fails: "leaves out 1 records", exs: func(t *testing.T) []*Exchange {
			q := "startTime.onOrAfter=2000-01-01T00:00:00Z&startTime.onOrBefore=2999-01-01T00:00:00Z"
			return []*Exchange{
				mkEx(t, "GET /api/v1/activities", 200, page(nil, activity(10, 20), activity(11, 21))),
				mkEx(t, "GET /api/v1/calendarEvents?"+q, 200, page(nil, event(1, 10, nil), event(2, 11, nil))),
				mkEx(t, "GET /api/v1/calendarEvents?group="+id(20)+"&"+q, 200, page(nil)),
			}
		}},
		{name: "activities of an element under the organisation asked for", rule: "filters.records-match", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/organisations", 200, page(nil, org(1, 0), org(2, 1), org(3, 2))),
				mkEx(t, "GET /api/v1/activities?organisation="+id(1), 200, page(nil, inOrg(activity(10, 20), 1), inOrg(activity(11, 21), 3))),
			}
		}},
		{name: "an activity of an element outside the organisation asked for", rule: "filters.records-match", fails: "does not satisfy organisation=" + id(2), exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/organisations", 200, page(nil, org(1, 0), org(2, 1), org(3, 1))),
				mkEx(t, "GET /api/v1/activities?organisation="+id(2), 200, page(nil, inOrg(activity(11, 21), 3))),
			}
		}},
		{name: "an activity whose element's parents were not all seen is not judged", rule: "filters.records-match", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/organisations?limit=1", 200, page(nil, org(3, 4))),
				mkEx(t, "GET /api/v1/activities?organisation="+id(2), 200, page(nil, inOrg(activity(11, 21), 3))),
			}
		}},
		{name: "a duty at an element under the organisation left out", rule: "filters.keeps-every-match", fails: "leaves out 1 records", exs: func(t *testing.T) []*Exchange {
			duty := func(n, at int) obj {
				return obj{"id": id(n), "meta": obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-01-01T00:00:00Z"}, "person": obj{"id": id(70)}, "dutyAt": obj{"id": id(at)}, "dutyRole": "Lärare", "startDate": "2024-01-01"}
			}
			return []*Exchange{
				mkEx(t, "GET /api/v1/organisations", 200, page(nil, org(1, 0), org(2, 1))),
				mkEx(t, "GET /api/v1/duties", 200, page(nil, duty(50, 1), duty(51, 2))),
				mkEx(t, "GET /api/v1/duties?organisation="+id(1), 200, page(nil, duty(50, 1))),
			}
		}},
		{name: "a filter the record cannot show is not judged", rule: "filters.records-match", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/calendarEvents?teacher="+id(5)+"&startTime.onOrAfter=2000-01-01T00:00:00Z", 200, page(nil))}
		}},
		{name: "a filter that keeps only the first of two values", rule: "filters.keeps-every-match", fails: "leaves out 1 records", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/groups", 200, page(nil, group(1, "Klass"), group(2, "Undervisning"), group(3, "Mentor"))),
				mkEx(t, "GET /api/v1/groups?groupType=Klass&groupType=Undervisning", 200, page(nil, group(1, "Klass"))),
			}
		}},
		{name: "an endDate filter that drops the open-ended", rule: "filters.keeps-every-match", fails: "leaves out 1 records", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, withEnd(1, "2024-01-01", "2024-03-01"), withEnd(2, "2024-01-01", ""))),
				mkEx(t, "GET /api/v1/placements?endDate.onOrAfter=2024-02-01", 200, page(nil, withEnd(1, "2024-01-01", "2024-03-01"))),
			}
		}},
		{name: "a search condition that is ignored", rule: "filters.records-match", fails: "does not satisfy the filter", exs: func(t *testing.T) []*Exchange {
			body := obj{"filter": obj{"equals": obj{"schoolType": "GY"}, "orCondition": false}}
			return []*Exchange{mkEx(t, "POST /directory/v1/school/_search", 200, aPage(0, 50, 1, school(1)), withRequestBody("application/json", body))}
		}},
		{name: "a search that leaves out a match of the list", rule: "filters.keeps-every-match", fails: "leaves out 1 records", exs: func(t *testing.T) []*Exchange {
			body := obj{"filter": obj{"equals": obj{"schoolType": "GR"}, "orCondition": false}}
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school?limit=50", 200, aPage(0, 50, 2, school(1), school(2))),
				mkEx(t, "POST /directory/v1/school/_search", 200, aPage(0, 50, 1, school(1)), withRequestBody("application/json", body)),
			}
		}},
	})
}

func TestRepresentationRules(t *testing.T) {
	embedded := func(p obj) {
		p["_embedded"] = obj{"child": obj{"id": id(9), "securityMarking": "Ingen", "givenName": "A"}}
		p["child"] = obj{"id": id(9), "securityMarking": "Ingen"}
	}
	runScenarios(t, []scenario{
		{name: "a record the same in the list and by id, members in another order and offset", rule: "representation.same-everywhere", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)))),
				mkEx(t, "GET /api/v1/placements/"+id(1), 200, placement(id(1), func(p obj) {
					p["meta"] = obj{"modified": "2024-02-01T09:00:00+01:00", "created": "2024-01-01T09:00:00.000+01:00"}
				})),
			}
		}},
		{name: "a list that shows a member otherwise", rule: "representation.same-everywhere", fails: "reads differently", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)))),
				mkEx(t, "POST /api/v1/placements/lookup", 200, []any{placement(id(1), func(p obj) { p["startDate"] = "2024-01-02" })}, withRequestBody("application/json", obj{"ids": []string{id(1)}})),
			}
		}},
		{name: "a write between two readings", rule: "representation.same-everywhere", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school/"+id(1), 200, school(1)),
				mkEx(t, "PATCH /directory/v1/school/"+id(1), 200, school(1, func(s obj) { s["title"] = "New" }), withRequestBody("application/json", obj{"title": "New"})),
				mkEx(t, "GET /directory/v1/school/"+id(1), 200, school(1, func(s obj) { s["title"] = "New" })),
			}
		}},
		{name: "expand that changes meta.modified", rule: "representation.presentation-only-adds", fails: "meta.modified", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements/"+id(1), 200, placement(id(1))),
				mkEx(t, "GET /api/v1/placements/"+id(1)+"?expand=child", 200, placement(id(1), embedded, func(p obj) {
					p["meta"] = obj{"created": "2024-01-01T08:00:00Z", "modified": "2025-01-01T00:00:00Z"}
				})),
			}
		}},
		{name: "expand honoured by a lookup", rule: "representation.expand-honoured", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "POST /api/v1/placements/lookup?expand=child", 200, []any{placement(id(1), embedded)}, withRequestBody("application/json", obj{"ids": []string{id(1)}}))}
		}},
		{name: "expand ignored by a lookup", rule: "representation.expand-honoured", fails: "no _embedded.child", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "POST /api/v1/placements/lookup?expand=child", 200, []any{placement(id(1))}, withRequestBody("application/json", obj{"ids": []string{id(1)}}))}
		}},
		{name: "expand on a later page under the standard is not judged", profile: ProfileSS12000, rule: "representation.expand-honoured", nothing: true, exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements?limit=1", 200, page("t1", placement(id(1)))),
				mkEx(t, "GET /api/v1/placements?pageToken=t1&expand=child", 200, page(nil, placement(id(2)))),
			}
		}},
		{name: "displayName without expandReferenceNames", rule: "representation.reference-names-only-when-asked", fails: "carries displayName", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements/"+id(1), 200, placement(id(1), func(p obj) { p["placedAt"] = obj{"id": id(7), "displayName": "Skolan"} }))}
		}},
		{name: "a listed record that is not there by id", rule: "representation.listed-records-readable", fails: "answered 404", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)))),
				mkEx(t, "GET /api/v1/placements/"+id(1), 404, obj{"code": "NotFound", "message": "no"}),
			}
		}},
		{name: "a lookup that drops a record seen in the list", rule: "representation.lookup-exact", fails: "left out", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)), placement(id(2)))),
				mkEx(t, "POST /api/v1/placements/lookup", 200, []any{placement(id(2))}, withRequestBody("application/json", obj{"ids": []string{id(1), id(2), id(3)}})),
			}
		}},
		{name: "a lookup of records some of which do not exist", rule: "representation.lookup-exact", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)))),
				mkEx(t, "POST /api/v1/placements/lookup", 200, []any{placement(id(1))}, withRequestBody("application/json", obj{"ids": []string{id(1), id(3)}})),
			}
		}},
		{name: "an embedded member nobody asked for", rule: "representation.embeds-only-what-was-asked", fails: "embeds child", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements/"+id(1), 200, placement(id(1), embedded))}
		}},
	})
}

func TestReferencesRules(t *testing.T) {
	person := func(n int, marking string) obj {
		return obj{"id": id(n), "meta": obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-01-01T00:00:00Z"}, "givenName": "A", "familyName": "B", "securityMarking": marking}
	}
	runScenarios(t, []scenario{
		{name: "a reference that agrees with the person read later", rule: "references.security-marking-agrees", exs: func(t *testing.T) []*Exchange {
			p := person(0, "Ingen")
			p["id"] = "20000000-0000-4000-8000-000000000001"
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)))),
				mkEx(t, "GET /api/v1/persons/20000000-0000-4000-8000-000000000001", 200, p),
			}
		}},
		{name: "a person read after a reference that says otherwise", rule: "references.security-marking-agrees", fails: "securityMarking", exs: func(t *testing.T) []*Exchange {
			p := person(0, "Skyddad folkbokföring")
			p["id"] = "20000000-0000-4000-8000-000000000001"
			return []*Exchange{
				mkEx(t, "GET /api/v1/placements", 200, page(nil, placement(id(1)))),
				mkEx(t, "GET /api/v1/persons/20000000-0000-4000-8000-000000000001", 200, p),
			}
		}},
		{name: "a reference that contradicts the embedded person", rule: "references.security-marking-agrees", fails: "securityMarking", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements/"+id(1)+"?expand=child", 200, placement(id(1), func(p obj) {
				p["child"] = obj{"id": id(9), "securityMarking": "Ingen"}
				p["_embedded"] = obj{"child": obj{"id": id(9), "securityMarking": "Sekretessmarkering"}}
			}))}
		}},
		{name: "a person reference without a marking under the service's spec", rule: "references.person-marking-present", fails: "carries securityMarking null", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements/"+id(1), 200, placement(id(1), func(p obj) { p["child"] = obj{"id": id(9)} }))}
		}},
		{name: "a group reference named otherwise than the group", rule: "references.display-name-agrees", fails: "displayName", exs: func(t *testing.T) []*Exchange {
			g := obj{"id": id(5), "meta": obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-01-01T00:00:00Z"}, "displayName": "Blå", "groupType": "Avdelning", "organisation": obj{"id": id(900)}}
			return []*Exchange{
				mkEx(t, "GET /api/v1/groups/"+id(5), 200, g),
				mkEx(t, "GET /api/v1/placements/"+id(1)+"?expandReferenceNames=true", 200, placement(id(1), func(p obj) { p["group"] = obj{"id": id(5), "displayName": "Gul"} })),
			}
		}},
		{name: "a referenced group that is not there", rule: "references.resolve", fails: "answered 404", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /api/v1/groups", 200, page(nil, obj{"id": id(6), "meta": obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-01-01T00:00:00Z"}})),
				mkEx(t, "GET /api/v1/placements/"+id(1), 200, placement(id(1), func(p obj) { p["group"] = obj{"id": id(5)} })),
				mkEx(t, "GET /api/v1/groups/"+id(5), 404, obj{"code": "NotFound", "message": "no"}),
			}
		}},
	})
}

func TestWritesAndHeadersRules(t *testing.T) {
	rl := func(limit, remaining int, reset int64) exOpt {
		return func(e *Exchange) {
			e.ResponseHeader.Set("RateLimit-Limit", itoa(limit))
			e.ResponseHeader.Set("RateLimit-Remaining", itoa(remaining))
			e.ResponseHeader.Set("RateLimit-Reset", itoa(int(reset)))
			e.ResponseHeader.Set("Date", e.Start.UTC().Format(http.TimeFormat))
		}
	}
	reset := clock.Add(30 * time.Minute).UnixMilli()
	runScenarios(t, []scenario{
		{name: "an update read back by id, its date-time written with an offset", rule: "writes.read-back", exs: func(t *testing.T) []*Exchange {
			sent := obj{"title": "T", "startedAt": "2024-05-01T10:00:00Z"}
			return []*Exchange{
				mkEx(t, "PATCH /directory/v1/school/"+id(1), 200, school(1, func(s obj) { s["title"] = "T"; s["startedAt"] = "2024-05-01T12:00:00+02:00" }), withRequestBody("application/json", sent)),
				mkEx(t, "GET /directory/v1/school/"+id(1), 200, school(1, func(s obj) { s["title"] = "T"; s["startedAt"] = "2024-05-01T10:00:00.000Z"; s["extra"] = 1 })),
			}
		}},
		{name: "a list that shows an updated member as null", rule: "writes.read-back", fails: "phoneNumber1 sent", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "POST /directory/v1/school", 201, school(1, func(s obj) { s["phoneNumber1"] = "070" }), withRequestBody("application/json", obj{"title": "School 1", "phoneNumber1": "070"})),
				mkEx(t, "GET /directory/v1/school?limit=50", 200, aPage(0, 50, 1, school(1, func(s obj) { s["phoneNumber1"] = nil }))),
			}
		}},
		{name: "a value the contract lists refused", rule: "writes.enum-values-accepted", fails: `refused /gender = "Other"`, exs: func(t *testing.T) []*Exchange {
			body := obj{"firstName": "A", "lastName": "B", "gender": "Other"}
			answer := obj{"error": obj{"code": "UnprocessableEntity", "message": "no", "requestID": "r", "details": []any{obj{"field": "/gender", "message": "not accepted"}}}}
			return []*Exchange{mkEx(t, "POST /directory/v1/student", 422, answer, withRequestBody("application/json", body))}
		}},
		{name: "a body with a charset refused", rule: "writes.media-type-parameters", fails: "answered 415", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "POST /api/v1/groups/lookup", 415, obj{"code": "x", "message": "y"}, withRequestBody("application/json; charset=utf-8", obj{"ids": []string{id(1)}}))}
		}},
		{name: "Remaining falls within a window", rule: "headers.ratelimit-window", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 10, reset)),
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 9, reset)),
			}
		}},
		{name: "Remaining grows within a window", rule: "headers.ratelimit-window", fails: "grew from 9 to 10", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 9, reset)),
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 10, reset)),
			}
		}},
		{name: "a window whose end slides", rule: "headers.ratelimit-window", fails: "the window's end moves", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 10, reset)),
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 9, reset+2000)),
			}
		}},
		{name: "a new window", rule: "headers.ratelimit-window", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 1, reset)),
				mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 1499, reset+3600000)),
			}
		}},
		{name: "Reset in seconds", rule: "headers.ratelimit-values", fails: "epoch seconds instead of milliseconds", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /directory/v1/school", 200, aPage(0, 50, 0), rl(1500, 10, reset/1000))}
		}},
		{name: "a charset other than UTF-8", rule: "headers.json-utf8", fails: "iso-8859-1", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements", 200, page(nil), withResponseHeader("Content-Type", "application/json; charset=iso-8859-1"))}
		}},
		{name: "406 to an Accept with parameters", rule: "headers.accept-parameters", fails: "answered 406", exs: func(t *testing.T) []*Exchange {
			return []*Exchange{mkEx(t, "GET /api/v1/placements", 406, obj{"code": "x", "message": "y"}, withRequestHeader("Accept", "application/json; charset=utf-8"))}
		}},
	})
}

func person(n int, family string) obj {
	return obj{"id": id(n), "givenName": "Kim", "familyName": family}
}

func civic(n int, no string) obj {
	p := person(n, "Berg")
	p["civicNo"] = obj{"value": no, "nationality": "SE"}
	return p
}

func syllabus(n int, code string) obj { return obj{"id": id(n), "subjectCode": code} }

// org is an organisation element under parent (0: the top).
func org(n, parent int) obj {
	o := obj{"id": id(n), "displayName": "O", "organisationType": "Skolenhet", "meta": obj{"created": "2024-01-01T00:00:00Z", "modified": "2024-01-01T00:00:00Z"}}
	if parent != 0 {
		o["parentOrganisation"] = obj{"id": id(parent)}
	}
	return o
}

// inOrg gives an activity its organisation element.
func inOrg(a obj, n int) obj {
	a["organisation"] = obj{"id": id(n)}
	return a
}

func activity(n, group int) obj {
	return obj{"id": id(n), "displayName": "A", "groups": []any{obj{"id": id(group)}}, "teachers": []any{obj{"duty": obj{"id": id(group + 100)}}}}
}

func event(n, activity int, studentExceptions []any) obj {
	e := obj{"id": id(n), "activity": obj{"id": id(activity)}, "startTime": "2025-01-01T08:00:00Z", "endTime": "2025-01-01T09:00:00Z"}
	if studentExceptions != nil {
		e["studentExceptions"] = studentExceptions
	}
	return e
}
