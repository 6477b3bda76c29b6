package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/model"
)

// walkSorted walks a list to its end with the limit and returns the ids in
// the order served; between pages it calls between (nil: nothing).
func walkSorted(t *testing.T, h *harness, path, query string, limit int, between func()) []string {
	t.Helper()
	var ids []string
	target := fmt.Sprintf("%s%s?limit=%d&%s", PrefixB, path, limit, query)
	for pages := 0; target != ""; pages++ {
		require.Less(t, pages, 5000, "the walk of %s ends", path)
		res := h.get(target)
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			PageToken *string `json:"pageToken"`
		}
		res.decode(&page)
		require.LessOrEqual(t, len(page.Data), limit, res)
		for _, d := range page.Data {
			ids = append(ids, d.ID)
		}
		target = ""
		if page.PageToken != nil {
			target = PrefixB + path + "?pageToken=" + url.QueryEscape(*page.PageToken)
			if path == "/calendarEvents" {
				target += "&" + wideTime
			}
			if between != nil {
				between()
			}
		}
	}
	return ids
}

// sortedByKey is the brute-force answer of a sortkey: the visible records
// that pass keep, by the sort's key, then id (both reversed when
// descending).
func sortedByKey(sn *store.Snapshot, res *resource, so sorting, keep func(any) bool) []string {
	type keyed struct{ key, id string }
	var all []keyed
	_ = sn.Scan(res.table, store.IndexID, "", func(o any) bool {
		if (res.visible == nil || res.visible(o)) && (keep == nil || keep(o)) {
			all = append(all, keyed{so.key(o) + "\x00" + recordID(o) + "\x00", recordID(o)})
		}
		return true
	})
	slices.SortFunc(all, func(a, b keyed) int {
		if so.desc {
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

func TestEverySortKeyHasAnOrderIndex(t *testing.T) {
	for _, res := range buildResources() {
		for k, so := range res.sorts {
			if res.name == "placements" {
				continue // the placements' own planner (D2)
			}
			assert.NotEmpty(t, so.index, "%s sortkey=%s streams from an order index", res.name, k)
		}
	}
}

func TestEverySortKeyWalksInItsOrderOnce(t *testing.T) {
	h := newHarness(t)
	sn := h.srv.Store().Read()
	for _, res := range buildResources() {
		if !res.list || res.compute != nil || res.name == "placements" {
			continue
		}
		keys := make([]string, 0, len(res.sorts))
		for k := range res.sorts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			t.Run(res.name+"/"+k, func(t *testing.T) {
				want := sortedByKey(sn, res, res.sorts[k], nil)
				require.NotEmpty(t, want, "the default scenario has %s", res.name)
				query := "sortkey=" + k
				if res.name == "calendarEvents" {
					query += "&" + wideTime
				}
				assert.Equal(t, want, walkSorted(t, h, "/"+res.name, query, 7, nil))
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
	byName := func(name string) *resource {
		for _, r := range buildResources() {
			if r.name == name {
				return r
			}
		}
		t.Fatalf("no resource %s", name)
		return nil
	}
	groups, persons := byName("groups"), byName("persons")
	groupAt := func(o any) bool { return asGroup(o).Organisation.ID == school }
	written := 0
	for _, c := range []struct {
		name, path, query, sortkey string
		res                        *resource
		keep                       func(any) bool
		index, value               string
	}{
		{"groups of a school by name", "/groups", "organisation=" + school, "DisplayNameAsc", groups, groupAt, store.IndexOrganisation, school},
		{"groups of a school, last modified first", "/groups", "organisation=" + school, "ModifiedDesc", groups, groupAt, store.IndexOrganisation, school},
		{"groups of a school by end date, descending", "/groups", "organisation=" + school, "EndDateDesc", groups, groupAt, store.IndexOrganisation, school},
		{"persons of an organisation by family name", "/persons", "relationship.organisation=" + school, "FamilyNameAsc", persons, nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sn := h.srv.Store().Read()
			keep := c.keep
			if keep == nil { // the persons the walk finds unsorted
				in := map[string]bool{}
				for _, id := range walkSorted(t, h, c.path, c.query, 1000, nil) {
					in[id] = true
				}
				keep = func(o any) bool { return in[recordID(o)] }
			}
			want := sortedByKey(sn, c.res, c.res.sorts[c.sortkey], keep)
			require.Greater(t, len(want), 3, "the default scenario has records for the filter")
			if c.index != "" {
				span := []store.Span{store.ValueSpan(c.value)}
				require.False(t, fewCandidates(sn, c.res.table, c.index, span, 1), "a page of 1 walks the order index")
				require.True(t, fewCandidates(sn, c.res.table, c.index, span, 1000), "a page of 1000 sorts the candidates")
			}
			query := c.query + "&sortkey=" + c.sortkey
			assert.Equal(t, want, walkSorted(t, h, c.path, query, 1000, nil), "sorted in memory")
			n := 0
			got := walkSorted(t, h, c.path, query, 1, func() {
				// Writes between pages: new groups of the school, first by
				// name and last modified.
				n++
				if n <= 3 {
					written++
					h.createGroup(fmt.Sprintf("AAA %d", written))
				}
			})
			assert.Equal(t, want, got, "walked by the order index, one record a page, writes between pages")
		})
	}
}

func TestOrderKeysAreTheSortKeys(t *testing.T) {
	// The order index of a name folds case: "Åsa" and "åsa" sort together.
	key := store.OrderKey(store.TablePersons, store.IndexGivenNameOrder)
	assert.Equal(t, key(&model.Person{GivenName: "Åsa"}), key(&model.Person{GivenName: "åsa"}))
	end := store.OrderKey(store.TableGroups, store.IndexEndDate)
	assert.Greater(t, end(&model.Group{}), end(&model.Group{EndDate: "2999-12-31"}), "an open end sorts after every date")
	assert.Panics(t, func() { store.OrderKey(store.TableGroups, "nope") })
}

func TestCalendarEventsSortedWithinTheirRange(t *testing.T) {
	h := newHarness(t)
	sn := h.srv.Store().Read()
	var res *resource
	for _, r := range buildResources() {
		if r.name == "calendarEvents" {
			res = r
		}
	}
	ds := h.srv.Store().Export()
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
			want := sortedByKey(sn, res, res.sorts[k], inRange)
			require.NotEmpty(t, want)
			for _, limit := range []int{1, 3, 1000} {
				assert.Equal(t, want, walkSorted(t, h, "/calendarEvents", rangeQuery+"&sortkey="+k, limit, nil), "limit %d", limit)
			}
		})
	}
}

// The two ways of a sortkey with an equality give the same cursors: a walk
// that changes its limit, and so its way, between pages covers each record
// once, in order.
func TestSortedWalkMayChangeWayBetweenPages(t *testing.T) {
	h := newHarness(t)
	school := h.firstSchool()
	var groups *resource
	for _, r := range buildResources() {
		if r.name == "groups" {
			groups = r
		}
	}
	for _, k := range []string{"DisplayNameAsc", "EndDateDesc"} {
		t.Run(k, func(t *testing.T) {
			want := sortedByKey(h.srv.Store().Read(), groups, groups.sorts[k], func(o any) bool { return asGroup(o).Organisation.ID == school })
			require.Greater(t, len(want), 4)
			sn, span := h.srv.Store().Read(), []store.Span{store.ValueSpan(school)}
			require.False(t, fewCandidates(sn, store.TableGroups, store.IndexOrganisation, span, 1), "a page of 1 walks")
			sorts := 2 // the smallest page that sorts
			for !fewCandidates(sn, store.TableGroups, store.IndexOrganisation, span, sorts) {
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
