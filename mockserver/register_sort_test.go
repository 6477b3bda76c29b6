package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// These tests judge interface B's sorted lists through HTTP against a
// brute-force order computed from the store: each sortkey's order index
// (docs/decisions.md#interface-b-indexes) is named here, independently of
// the engine's descriptions.

// sortedLists are the tables of interface B's lists that have a sortkey
// (the placements have their own planner and tests).
var sortedLists = map[string]string{
	"/organisations": store.TableOrganisations, "/persons": store.TablePersons, "/duties": store.TableEmployeePlacements,
	"/groups": store.TableGroups, "/programmes": store.TableProgrammes, "/studyplans": store.TableStudyPlans,
	"/syllabuses": store.TableSyllabuses, "/schoolUnitOfferings": store.TableSchoolUnitOfferings,
	"/activities": store.TableActivities, "/calendarEvents": store.TableCalendarEvents, "/grades": store.TableGrades,
	"/absences": store.TableAbsences, "/resources": store.TableResources, "/rooms": store.TableRooms,
}

// orderIndexOf is the order index a sortkey walks, and whether backwards.
func orderIndexOf(t *testing.T, sortkey string) (string, bool) {
	t.Helper()
	desc := strings.HasSuffix(sortkey, "Desc")
	field := strings.TrimSuffix(strings.TrimSuffix(sortkey, "Desc"), "Asc")
	index, ok := map[string]string{
		"Modified": store.IndexModified, "StartDate": store.IndexStartDate, "EndDate": store.IndexEndDate,
		"StartTime": store.IndexStartTime, "registeredDate": store.IndexRegisteredDate,
		"DisplayName": store.IndexDisplayNameOrder, "GivenName": store.IndexGivenNameOrder,
		"FamilyName": store.IndexFamilyNameOrder, "CivicNo": store.IndexCivicNoOrder, "Name": store.IndexNameOrder,
		"Code": store.IndexCodeOrder, "SubjectName": store.IndexSubjectNameOrder, "SubjectCode": store.IndexSubjectCodeOrder,
		"CourseName": store.IndexCourseNameOrder, "CourseCode": store.IndexCourseCodeOrder,
		"SubjectDesignation": store.IndexSubjectDesignationOrder,
	}[field]
	require.True(t, ok, "sortkey %s: name its order index in orderIndexOf", sortkey)
	return index, desc
}

// contractSortKeys lists, for each list of the contract with a sortkey, the
// sortkey's values.
func contractSortKeys(t *testing.T, h *harness) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for path, item := range h.srv.Contract().Doc(openapi.NameRegister).Paths.Map() {
		if item.Get == nil || strings.Contains(path, "{") {
			continue
		}
		for _, p := range item.Get.Parameters {
			if p.Value == nil || p.Value.Name != "sortkey" || p.Value.Schema == nil || p.Value.Schema.Value == nil {
				continue
			}
			for _, v := range p.Value.Schema.Value.Enum {
				out[path] = append(out[path], fmt.Sprint(v))
			}
		}
	}
	require.NotEmpty(t, out, "the contract declares sortkeys")
	return out
}

// idOf is a stored record's id.
func idOf(o any) string { return reflect.ValueOf(o).Elem().FieldByName("ID").String() }

// shownByB reports whether interface B shows a stored record of its lists.
func shownByB(o any) bool {
	if g, ok := o.(*model.Grade); ok {
		return g.RegisterVisible()
	}
	return true
}

// sortedByIndex is the brute-force answer of a sortkey: the records of the
// table B shows that pass keep, by their value under the order index, then
// id (both reversed when descending).
func sortedByIndex(sn *store.Snapshot, table, index string, desc bool, keep func(any) bool) []string {
	var key func(any) string
	if table == store.TableCalendarEvents && index == store.IndexModified {
		// no order index: sorted within the required startTime range
		key = func(o any) string { return store.TimeKey(o.(*model.CalendarEvent).Meta.Modified) }
	} else {
		key = sn.Schema().OrderKey(table, index)
	}
	type keyed struct{ key, id string }
	var all []keyed
	_ = sn.Scan(table, store.IndexID, "", func(o any) bool {
		if shownByB(o) && (keep == nil || keep(o)) {
			all = append(all, keyed{key(o) + "\x00" + idOf(o) + "\x00", idOf(o)})
		}
		return true
	})
	slices.SortFunc(all, func(a, b keyed) int {
		if desc {
			return bytes.Compare([]byte(b.key), []byte(a.key))
		}
		return bytes.Compare([]byte(a.key), []byte(b.key))
	})
	ids := make([]string, len(all))
	for i, k := range all {
		ids[i] = k.id
	}
	return ids
}

// walkSorted walks a list to its end with the limit and returns the ids in
// the order served; between pages it calls between (nil: nothing). The
// calendar events' required range goes along with every later page (the
// query carries it on the first).
func walkSorted(t *testing.T, h *harness, path, query string, limit int, between func()) []string {
	t.Helper()
	if path == "/calendarEvents" {
		return walkPages(t, h, path, query, wideTime, limit, between)
	}
	return walkPages(t, h, path, query, "", limit, between)
}

// sortsCandidates is the planner's rule (docs/decisions.md#interface-b-indexes):
// with c records matching the
// equality in a table of n, a page of limit sorts them when c² ≤ limit·n
// and walks the order index otherwise.
func sortsCandidates(c, n, limit int) bool { return c*c <= limit*n }

func TestEverySortKeyWalksInItsOrderOnce(t *testing.T) {
	h := newHarness(t)
	sn := h.srv.store.Read()
	lists := contractSortKeys(t, h)
	paths := make([]string, 0, len(lists))
	for p := range lists {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		if path == "/placements" {
			continue // their own planner and tests
		}
		table, ok := sortedLists[path]
		require.True(t, ok, "%s has a sortkey: name its table in sortedLists", path)
		for _, k := range lists[path] {
			t.Run(path+"/"+k, func(t *testing.T) {
				index, desc := orderIndexOf(t, k)
				want := sortedByIndex(sn, table, index, desc, nil)
				require.NotEmpty(t, want, "the default scenario has %s", path)
				query := "sortkey=" + k
				if path == "/calendarEvents" {
					query += "&" + wideTime
				}
				assert.Equal(t, want, walkSorted(t, h, path, query, 7, nil))
			})
		}
	}
}

// A sortkey with an equality filter: walked by the order index when the
// filter's records are many for the page, sorted when they are few; both
// give the brute-force order, and a walk covers its snapshot exactly once
// even when records are written between its pages.
func TestSortKeyWithAnEqualityFilterWalksOnce(t *testing.T) {
	h := newHarness(t)
	school := h.firstSchool()
	groupAt := func(o any) bool { return o.(*model.Group).Organisation.ID == school }
	written := 0
	for _, c := range []struct {
		name, path, query, sortkey string
		table                      string
		keep                       func(any) bool
	}{
		{"groups of a school by name", "/groups", "organisation=" + school, "DisplayNameAsc", store.TableGroups, groupAt},
		{"groups of a school, last modified first", "/groups", "organisation=" + school, "ModifiedDesc", store.TableGroups, groupAt},
		{"groups of a school by end date, descending", "/groups", "organisation=" + school, "EndDateDesc", store.TableGroups, groupAt},
		{"persons of an organisation by family name", "/persons", "relationship.organisation=" + school, "FamilyNameAsc", store.TablePersons, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sn := h.srv.store.Read()
			keep := c.keep
			if keep == nil { // the persons the walk finds unsorted
				in := map[string]bool{}
				for _, id := range walkSorted(t, h, c.path, c.query, 1000, nil) {
					in[id] = true
				}
				keep = func(o any) bool { return in[idOf(o)] }
			}
			index, desc := orderIndexOf(t, c.sortkey)
			want := sortedByIndex(sn, c.table, index, desc, keep)
			require.Greater(t, len(want), 3, "the default scenario has records for the filter")
			n := sn.Count(c.table)
			require.False(t, sortsCandidates(len(want), n, 1), "a page of 1 walks the order index")
			require.True(t, sortsCandidates(len(want), n, 1000), "a page of 1000 sorts the candidates")
			query := c.query + "&sortkey=" + c.sortkey
			assert.Equal(t, want, walkSorted(t, h, c.path, query, 1000, nil), "sorted in memory")
			pages := 0
			got := walkSorted(t, h, c.path, query, 1, func() {
				// Writes between pages: new groups of the school, first by
				// name and last modified.
				pages++
				if pages <= 3 {
					written++
					h.createGroup(fmt.Sprintf("AAA %d", written))
				}
			})
			assert.Equal(t, want, got, "walked by the order index, one record a page, writes between pages")
		})
	}
}

// The two ways of a sortkey with an equality give the same cursors: a walk
// that changes its limit, and so its way, between pages covers each record
// once, in order.
func TestSortedWalkMayChangeWayBetweenPages(t *testing.T) {
	h := newHarness(t)
	school := h.firstSchool()
	for _, k := range []string{"DisplayNameAsc", "EndDateDesc"} {
		t.Run(k, func(t *testing.T) {
			sn := h.srv.store.Read()
			index, desc := orderIndexOf(t, k)
			want := sortedByIndex(sn, store.TableGroups, index, desc, func(o any) bool { return o.(*model.Group).Organisation.ID == school })
			require.Greater(t, len(want), 4)
			n := sn.Count(store.TableGroups)
			require.False(t, sortsCandidates(len(want), n, 1), "a page of 1 walks")
			sorts := 2 // the smallest page that sorts
			for !sortsCandidates(len(want), n, sorts) {
				sorts++
			}
			require.Less(t, sorts, len(want), "a page that sorts leaves more to walk")
			var got []string
			target := PrefixB + "/groups?limit=1&organisation=" + school + "&sortkey=" + k
			for i := 0; target != ""; i++ {
				res := h.get(target)
				require.Equal(t, http.StatusOK, res.status, res)
				var page struct {
					Data []struct {
						ID string `json:"id"`
					} `json:"data"`
					PageToken *string `json:"pageToken"`
				}
				res.decode(&page)
				for _, d := range page.Data {
					got = append(got, d.ID)
				}
				target = ""
				if page.PageToken != nil {
					limit := []int{sorts, 1}[i%2] // sort, walk, sort, ...
					target = fmt.Sprintf("%s/groups?limit=%d&pageToken=%s", PrefixB, limit, url.QueryEscape(*page.PageToken))
				}
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestOrderKeysAreTheSortKeys(t *testing.T) {
	// The order index of a name folds case: "Åsa" and "åsa" sort together.
	schema, err := store.NewSchema()
	require.NoError(t, err)
	key := schema.OrderKey(store.TablePersons, store.IndexGivenNameOrder)
	assert.Equal(t, key(&model.Person{GivenName: "Åsa"}), key(&model.Person{GivenName: "åsa"}))
	end := schema.OrderKey(store.TableGroups, store.IndexEndDate)
	assert.Greater(t, end(&model.Group{}), end(&model.Group{EndDate: "2999-12-31"}), "an open end sorts after every date")
	assert.Nil(t, schema.OrderKey(store.TableGroups, "nope"))
}

func TestCalendarEventsSortedWithinTheirRange(t *testing.T) {
	h := newHarness(t)
	sn := h.srv.store.Read()
	ds := h.srv.store.Export()
	require.NotEmpty(t, ds.CalendarEvents)
	from := ds.CalendarEvents[len(ds.CalendarEvents)/2].StartTime
	to := from.AddDate(0, 0, 7)
	inRange := func(o any) bool {
		st := o.(*model.CalendarEvent).StartTime
		return !st.Before(from) && !st.After(to)
	}
	rangeQuery := url.Values{"startTime.onOrAfter": {from.Format(time.RFC3339Nano)}, "startTime.onOrBefore": {to.Format(time.RFC3339Nano)}}.Encode()
	for _, k := range []string{"ModifiedDesc", "StartTimeAsc", "StartTimeDesc"} {
		t.Run(k, func(t *testing.T) {
			index, desc := orderIndexOf(t, k)
			want := sortedByIndex(sn, store.TableCalendarEvents, index, desc, inRange)
			require.NotEmpty(t, want)
			for _, limit := range []int{1, 3, 1000} {
				assert.Equal(t, want, walkSorted(t, h, "/calendarEvents", rangeQuery+"&sortkey="+k, limit, nil), "limit %d", limit)
			}
		})
	}
}

// The calendar events of a group, a school or a duty, sorted by each key:
// found through the activities of the group, school or duty,
// walked or sorted depending on the page, always in the brute-force order.
func TestCalendarEventsOfAGroupSchoolOrDutySorted(t *testing.T) {
	h := newHarness(t)
	sn := h.srv.store.Read()
	ds := h.srv.store.Export()
	require.NotEmpty(t, ds.CalendarEvents)
	ev := ds.CalendarEvents[len(ds.CalendarEvents)/2]
	acts := map[string]model.Activity{}
	for _, a := range ds.Activities {
		acts[a.ID] = a
	}
	duty := acts[ev.Activity.ID].Teachers[0].Duty.ID
	ce := func(o any) *model.CalendarEvent { return o.(*model.CalendarEvent) }
	teaches := func(o any) bool {
		return slices.ContainsFunc(acts[ce(o).Activity.ID].Teachers, func(d model.DutyAssignment) bool { return d.Duty.ID == duty })
	}
	for _, c := range []struct {
		name, query string
		keep        func(any) bool
	}{
		{"of a group", "group=" + ev.Group.ID, func(o any) bool { return ce(o).Group.ID == ev.Group.ID }},
		{"of a school", "organisation=" + ev.Organisation.ID, func(o any) bool { return ce(o).Organisation.ID == ev.Organisation.ID }},
		{"of a school and a duty", "organisation=" + ev.Organisation.ID + "&teacher=" + duty,
			func(o any) bool { return ce(o).Organisation.ID == ev.Organisation.ID && teaches(o) }},
		{"of a group and an activity", "group=" + ev.Group.ID + "&activity=" + ev.Activity.ID,
			func(o any) bool { return ce(o).Group.ID == ev.Group.ID && ce(o).Activity.ID == ev.Activity.ID }},
	} {
		for _, k := range []string{"ModifiedDesc", "StartTimeAsc", "StartTimeDesc"} {
			t.Run(c.name+"/"+k, func(t *testing.T) {
				index, desc := orderIndexOf(t, k)
				want := sortedByIndex(sn, store.TableCalendarEvents, index, desc, c.keep)
				require.Greater(t, len(want), 3, "the default scenario has events for the filter")
				for _, limit := range []int{1, 3, 1000} {
					assert.Equal(t, want, walkSorted(t, h, "/calendarEvents", c.query+"&"+wideTime+"&sortkey="+k, limit, nil), "limit %d", limit)
				}
			})
		}
	}
}
