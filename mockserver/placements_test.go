package mockserver

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

type placementList struct {
	Data      []model.Placement `json:"data"`
	PageToken *string           `json:"pageToken"`
}

// walk follows pageToken from the first page of the query to the end and
// returns every placement, failing on a duplicate or an endless walk.
func (h *harness) walk(t testing.TB, query string) []model.Placement {
	t.Helper()
	return h.walkWith(t, query, nil)
}

// walkWith is walk with a hook that runs once, after the first page.
func (h *harness) walkWith(t testing.TB, query string, afterFirst func()) []model.Placement {
	t.Helper()
	var all []model.Placement
	seen := map[string]bool{}
	res := h.get(PrefixB + "/placements?" + query)
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10_000, "the walk ends")
		require.Equal(t, http.StatusOK, res.status, res)
		var page placementList
		res.decode(&page)
		for _, p := range page.Data {
			require.False(t, seen[p.ID], "placement %s returned twice", p.ID)
			seen[p.ID] = true
		}
		all = append(all, page.Data...)
		if pages == 0 && afterFirst != nil {
			afterFirst()
		}
		if page.PageToken == nil {
			return all
		}
		res = h.get(PrefixB + "/placements?pageToken=" + url.QueryEscape(*page.PageToken))
	}
}

func ids(ps []model.Placement) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	slices.Sort(out)
	return out
}

// edgeWorld adds an organisation of its own with placements on the date
// boundaries the tests ask about, created and modified at known instants.
type edgeWorld struct {
	org     string
	byName  map[string]string // name → placement id
	created map[string]time.Time
}

func addEdgeWorld(t *testing.T, h *harness) edgeWorld {
	st := h.srv.store
	ds := st.Export()
	var child, owner string
	for _, p := range ds.Placements {
		if len(p.Owners) > 0 {
			child, owner = p.Child.ID, p.Owners[0].ID
			break
		}
	}
	org, _, err := st.PutOrganisation(model.Organisation{ID: uuid.NewString(), DisplayName: "Gränsfallens förskola", OrganisationType: model.OrganisationTypeSchoolUnit, SchoolUnitCode: "99999999"})
	require.NoError(t, err)
	w := edgeWorld{org: org.ID, byName: map[string]string{}, created: map[string]time.Time{}}
	for _, pl := range []struct{ name, start, end string }{
		{"endsOnBoundary", "2026-01-01", "2026-03-31"},
		{"openEnded", "2026-03-31", ""},
		{"oneDay", "2026-04-01", "2026-04-01"},
		{"endedBefore", "2025-08-01", "2026-01-01"},
	} {
		h.clock.Advance(time.Second)
		p, _, err := st.PutPlacement(model.Placement{
			ID: uuid.NewString(), PlacedAt: model.ObjectReference{ID: org.ID}, Child: model.PersonReference{ID: child},
			Owners: []model.PersonReference{{ID: owner}}, SchoolType: model.SchoolTypeFS,
			StartDate: model.Date(pl.start), EndDate: model.Date(pl.end),
		})
		require.NoError(t, err)
		w.byName[pl.name] = p.ID
		w.created[pl.name] = p.Meta.Created
	}
	return w
}

func (w edgeWorld) names(ps []model.Placement) []string {
	var out []string
	for _, p := range ps {
		for n, id := range w.byName {
			if id == p.ID {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestPlacementDateFiltersAreInclusiveAndKeepOpenEndedRecords(t *testing.T) {
	h := newHarness(t)
	w := addEdgeWorld(t, h)
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"no date filter", "", []string{"endedBefore", "endsOnBoundary", "oneDay", "openEnded"}},
		{"endDate.onOrBefore keeps the record ending on the date and open-ended ones", "endDate.onOrBefore=2026-03-31", []string{"endedBefore", "endsOnBoundary", "openEnded"}},
		{"endDate.onOrAfter keeps the record ending on the date and open-ended ones", "endDate.onOrAfter=2026-04-01", []string{"oneDay", "openEnded"}},
		{"endDate.onOrAfter on an end date", "endDate.onOrAfter=2026-03-31", []string{"endsOnBoundary", "oneDay", "openEnded"}},
		{"startDate.onOrBefore includes the date", "startDate.onOrBefore=2026-03-31", []string{"endedBefore", "endsOnBoundary", "openEnded"}},
		{"startDate.onOrAfter includes the date", "startDate.onOrAfter=2026-03-31", []string{"oneDay", "openEnded"}},
		{"active on a day: start on or before and end on or after", "startDate.onOrBefore=2026-03-31&endDate.onOrAfter=2026-03-31", []string{"endsOnBoundary", "openEnded"}},
		{"active on a one-day placement's day", "startDate.onOrBefore=2026-04-01&endDate.onOrAfter=2026-04-01", []string{"oneDay", "openEnded"}},
		{"both endDate bounds", "endDate.onOrAfter=2026-01-02&endDate.onOrBefore=2026-03-31", []string{"endsOnBoundary", "openEnded"}},
		{"empty range", "startDate.onOrAfter=2027-01-01&startDate.onOrBefore=2026-01-01", nil},
	} {
		for _, sort := range append([]model.SortKey{""}, model.SortKeys...) {
			t.Run(fmt.Sprintf("%s sort=%s", tc.name, sort), func(t *testing.T) {
				q := "organisation=" + w.org
				if tc.query != "" {
					q += "&" + tc.query
				}
				if sort != "" {
					q += "&sortkey=" + string(sort)
				}
				assert.Equal(t, tc.want, w.names(h.walk(t, q+"&limit=2")))
				// The same answer when the organisation does not drive the query.
				all := h.walk(t, strings.TrimPrefix(strings.Replace(q, "organisation="+w.org, "", 1), "&")+"&limit=1000")
				var mine []model.Placement
				for _, p := range all {
					if p.PlacedAt.ID == w.org {
						mine = append(mine, p)
					}
				}
				assert.Equal(t, tc.want, w.names(mine))
			})
		}
	}
}

func TestPlacementMetaFiltersIncludeBeforeAndExcludeAfter(t *testing.T) {
	h := newHarness(t)
	w := addEdgeWorld(t, h)
	at := w.created["openEnded"].Format(time.RFC3339Nano)
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"created before is inclusive", "meta.created.before=" + at, []string{"endsOnBoundary", "openEnded"}},
		{"created after is exclusive", "meta.created.after=" + at, []string{"endedBefore", "oneDay"}},
		{"modified before is inclusive", "meta.modified.before=" + at, []string{"endsOnBoundary", "openEnded"}},
		{"modified after is exclusive", "meta.modified.after=" + at, []string{"endedBefore", "oneDay"}},
		{"an offset other than Z means the same instant", "meta.created.before=" + url.QueryEscape(w.created["openEnded"].In(time.FixedZone("CET", 3600)).Format(time.RFC3339Nano)), []string{"endsOnBoundary", "openEnded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, w.names(h.walk(t, "organisation="+w.org+"&"+tc.query)))
		})
	}
	// A change moves modified, and the modified filters follow it.
	h.clock.Advance(10 * time.Minute)
	p, _ := h.srv.store.Read().Placement(w.byName["endsOnBoundary"])
	changed := *p
	changed.Reason = model.PlacementReasons[0]
	_, _, err := h.srv.store.PutPlacement(changed)
	require.NoError(t, err)
	assert.Equal(t, []string{"endedBefore", "endsOnBoundary", "oneDay"}, w.names(h.walk(t, "organisation="+w.org+"&meta.modified.after="+at)))
	assert.Equal(t, []string{"endsOnBoundary", "openEnded"}, w.names(h.walk(t, "organisation="+w.org+"&meta.created.before="+at)), "created does not move")
}

func TestPlacementEqualityFilters(t *testing.T) {
	h := newHarness(t)
	all := h.walk(t, "limit=1000")
	require.NotEmpty(t, all)
	var withGroup, withOwner model.Placement
	for _, p := range all {
		if p.Group != nil && withGroup.ID == "" {
			withGroup = p
		}
		if len(p.Owners) > 0 && withOwner.ID == "" {
			withOwner = p
		}
	}
	require.NotEmpty(t, withGroup.ID)
	require.NotEmpty(t, withOwner.ID)
	for _, tc := range []struct {
		param, value string
		keep         func(p model.Placement) bool
	}{
		{"organisation", all[0].PlacedAt.ID, func(p model.Placement) bool { return p.PlacedAt.ID == all[0].PlacedAt.ID }},
		{"group", withGroup.Group.ID, func(p model.Placement) bool { return p.Group != nil && p.Group.ID == withGroup.Group.ID }},
		{"child", all[0].Child.ID, func(p model.Placement) bool { return p.Child.ID == all[0].Child.ID }},
		{"owner", withOwner.Owners[0].ID, func(p model.Placement) bool {
			return slices.ContainsFunc(p.Owners, func(o model.PersonReference) bool { return o.ID == withOwner.Owners[0].ID })
		}},
		{"child", unknownID, func(model.Placement) bool { return false }},
	} {
		t.Run(tc.param+"="+tc.value, func(t *testing.T) {
			var want []model.Placement
			for _, p := range all {
				if tc.keep(p) {
					want = append(want, p)
				}
			}
			got := h.walk(t, tc.param+"="+tc.value+"&limit=3")
			assert.Equal(t, ids(want), ids(got))
			got = h.walk(t, tc.param+"="+strings.ToUpper(tc.value))
			assert.Equal(t, ids(want), ids(got), "ids match case-insensitively")
		})
	}
}

func TestPlacementSortKeys(t *testing.T) {
	h := newHarness(t)
	addEdgeWorld(t, h)
	end := func(p model.Placement) string {
		if p.EndDate == "" {
			return "9999"
		}
		return string(p.EndDate)
	}
	for _, tc := range []struct {
		sort    model.SortKey
		ordered func(a, b model.Placement) bool
	}{
		{model.SortStartDateAsc, func(a, b model.Placement) bool { return a.StartDate <= b.StartDate }},
		{model.SortStartDateDesc, func(a, b model.Placement) bool { return a.StartDate >= b.StartDate }},
		{model.SortEndDateAsc, func(a, b model.Placement) bool { return end(a) <= end(b) }},
		{model.SortEndDateDesc, func(a, b model.Placement) bool { return end(a) >= end(b) }},
		{model.SortModifiedDesc, func(a, b model.Placement) bool { return !a.Meta.Modified.Before(b.Meta.Modified) }},
	} {
		t.Run(string(tc.sort), func(t *testing.T) {
			for _, q := range []string{"limit=7", "limit=1000", "limit=5&organisation=" + h.srv.store.Export().Placements[0].PlacedAt.ID} {
				got := h.walk(t, q+"&sortkey="+string(tc.sort))
				require.NotEmpty(t, got)
				for i := 1; i < len(got); i++ {
					require.True(t, tc.ordered(got[i-1], got[i]), "%s: %s before %s", q, got[i-1].ID, got[i].ID)
				}
			}
		})
	}
}

func TestPageTokenWalkCoversEveryPlacementOnce(t *testing.T) {
	h := newHarness(t)
	all := h.srv.store.Export().Placements
	require.Greater(t, len(all), defaultPageSize, "the default scenario fills more than one default page")

	res := h.get(PrefixB + "/placements")
	require.Equal(t, http.StatusOK, res.status, res)
	var first placementList
	res.decode(&first)
	assert.Len(t, first.Data, defaultPageSize, "without limit the server pages by its default size")
	require.NotNil(t, first.PageToken)

	for _, limit := range []int{1, 37, 1000} {
		got := h.walk(t, fmt.Sprintf("limit=%d", limit))
		assert.Equal(t, ids(all), ids(got), "limit=%d", limit)
	}
	got := h.walk(t, "")
	assert.Equal(t, ids(all), ids(got))

	res = h.get(PrefixB + "/placements?limit=1000")
	var one placementList
	res.decode(&one)
	assert.Nil(t, one.PageToken, "the last page says null")
	assert.Contains(t, string(res.body), `"pageToken":null`)
}

func TestPageTokenCombinations(t *testing.T) {
	h := newHarness(t)
	res := h.get(PrefixB + "/placements?limit=2&expandReferenceNames=true")
	var page placementList
	res.decode(&page)
	require.NotNil(t, page.PageToken)
	tok := url.QueryEscape(*page.PageToken)

	t.Run("limit may change along the walk", func(t *testing.T) {
		res := h.get(PrefixB + "/placements?limit=5&pageToken=" + tok)
		require.Equal(t, http.StatusOK, res.status, res)
		var next placementList
		res.decode(&next)
		assert.Len(t, next.Data, 5)
		assert.NotEmpty(t, next.Data[0].PlacedAt.DisplayName, "presentation options carry over")
	})
	t.Run("expand may accompany a token", func(t *testing.T) {
		res := h.get(PrefixB + "/placements?expand=child&expandReferenceNames=false&pageToken=" + tok)
		require.Equal(t, http.StatusOK, res.status, res)
		var next placementList
		res.decode(&next)
		require.NotNil(t, next.Data[0].Embedded)
		assert.Empty(t, next.Data[0].PlacedAt.DisplayName)
	})
	for _, filter := range []string{"organisation=" + unknownID, "sortkey=StartDateAsc", "startDate.onOrBefore=2026-01-01", "meta.modified.after=2026-01-01T00:00:00Z", "child=" + unknownID} {
		t.Run("token with "+filter, func(t *testing.T) {
			res := h.get(PrefixB + "/placements?" + filter + "&pageToken=" + tok)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			e := res.errorBody(t)
			assert.Contains(t, e.Message, "pageToken")
			assert.Contains(t, e.Message, strings.SplitN(filter, "=", 2)[0])
		})
	}
	other := newHarness(t)
	forged := base64.RawURLEncoding.EncodeToString([]byte(`{"v":1,"q":{},"c":"YQ","w":""}`)) + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 16))
	altered := []byte(*page.PageToken)
	altered[5] ^= 1
	for name, bad := range map[string]string{
		"altered":                 string(altered),
		"forged":                  forged,
		"truncated":               (*page.PageToken)[:len(*page.PageToken)-3],
		"empty":                   "",
		"garbage":                 "%%%",
		"from another server":     *page.PageToken,
		"signature only":          "." + strings.SplitN(*page.PageToken, ".", 2)[1],
		"payload only":            strings.SplitN(*page.PageToken, ".", 2)[0],
		"very long":               strings.Repeat("A", 4000) + "." + strings.Repeat("B", 4000),
		"signature of other text": strings.SplitN(forged, ".", 2)[0] + "." + strings.SplitN(*page.PageToken, ".", 2)[1],
	} {
		t.Run("token "+name, func(t *testing.T) {
			hh := h
			if name == "from another server" {
				hh = other
			}
			res := hh.get(PrefixB + "/placements?pageToken=" + url.QueryEscape(bad))
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Contains(t, res.errorBody(t).Message, "pageToken")
		})
	}
}

func TestPageTokenWalkIsExactWhileRecordsChange(t *testing.T) {
	h := newHarness(t)
	st := h.srv.store
	for _, q := range []string{"limit=9", "limit=9&sortkey=ModifiedDesc", "limit=9&sortkey=StartDateAsc", "limit=9&endDate.onOrAfter=2025-01-01", "limit=9&sortkey=EndDateDesc&startDate.onOrBefore=2026-06-01"} {
		t.Run(q, func(t *testing.T) {
			// What matches when the walk starts: the unpaged answer now.
			want := h.walk(t, strings.Replace(q, "limit=9", "limit=1000", 1))
			before := st.Export().Placements
			stop := make(chan struct{})
			var wg sync.WaitGroup
			startWriters := func() {
				// Writers create placements that match every query and move
				// existing ones in every sort order while the walk goes on.
				for w := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; ; i++ {
							select {
							case <-stop:
								return
							default:
							}
							p := before[(i*7+w)%len(before)]
							p.ID = uuid.NewString()
							p.StartDate = "2020-01-01"
							_, _, err := st.PutPlacement(p)
							assert.NoError(t, err)
							q := before[(i*11+w)%len(before)]
							q.StartDate = model.DateOf(testNow.AddDate(0, 0, -i%400))
							q.EndDate = ""
							_, _, err = st.PutPlacement(q)
							assert.NoError(t, err)
							h.clock.Advance(time.Millisecond)
						}
					}()
				}
			}
			got := h.walkWith(t, q, startWriters)
			close(stop)
			wg.Wait()
			assert.Equal(t, ids(want), ids(got))
		})
	}
}
