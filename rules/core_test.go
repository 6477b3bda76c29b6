package rules

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrefixesClassify(t *testing.T) {
	p := DefaultPrefixes()
	for _, tc := range []struct {
		name, path string
		surface    Surface
		rel        string
		ok         bool
	}{
		{"token endpoint", "/oauth/token", SurfaceAuth, "/oauth/token", true},
		{"interface A record", "/directory/v1/school/abc", SurfaceA, "/school/abc", true},
		{"interface B list", "/api/v1/placements", SurfaceB, "/placements", true},
		{"interface B root", "/api/v1", SurfaceB, "/", true},
		{"export", "/data-export/v1/attendance", SurfaceExport, "/attendance", true},
		{"a prefix is a whole segment", "/api/v10/placements", "", "", false},
		{"control plane", "/__admin/reset", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, rel, ok := p.Classify(tc.path)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.surface, s)
			assert.Equal(t, tc.rel, rel)
		})
	}
}

func TestContractMatch(t *testing.T) {
	c, err := LoadContract(ProfileService)
	require.NoError(t, err)
	for _, tc := range []struct {
		name         string
		s            Surface
		method, path string
		template     string
		kind         Kind
		params       map[string]string
	}{
		{"a literal segment wins over a template", SurfaceB, "POST", "/groups/lookup", "/groups/lookup", KindLookup, nil},
		{"a record by id", SurfaceB, "GET", "/groups/0b3c6a44-8f4e-4d5e-9a55-3c1b2f6a7d10", "/groups/{id}", KindGet, map[string]string{"id": "0b3c6a44-8f4e-4d5e-9a55-3c1b2f6a7d10"}},
		{"a list", SurfaceB, "GET", "/placements", "/placements", KindList, nil},
		{"a search", SurfaceA, "POST", "/school/_search", "/school/_search", KindSearch, nil},
		{"a transition", SurfaceA, "PATCH", "/student-placement/x/restore", "/student-placement/{id}/restore", KindUpdate, map[string]string{"id": "x"}},
		{"the token endpoint", SurfaceAuth, "POST", "/oauth/token", "/oauth/token", KindToken, nil},
		{"an unknown path", SurfaceB, "GET", "/nothing", "", "", nil},
		{"an unknown method", SurfaceB, "DELETE", "/placements", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op, params := c.Match(tc.s, tc.method, tc.path)
			if tc.template == "" {
				assert.Nil(t, op)
				return
			}
			require.NotNil(t, op)
			assert.Equal(t, tc.template, op.Path)
			assert.Equal(t, tc.kind, op.Kind)
			assert.Equal(t, tc.params, params)
		})
	}
}

func TestOperationsDeriveFromTheContract(t *testing.T) {
	c, err := LoadContract(ProfileService)
	require.NoError(t, err)
	list := c.Operation(SurfaceB, "GET", "/placements")
	require.NotNil(t, list)
	assert.Equal(t, PagingPageToken, list.Paging)
	assert.Equal(t, "/placements", list.Resource)
	assert.ElementsMatch(t, []string{"child", "owners"}, list.Expand)
	assert.True(t, list.ReferenceNames)
	assert.Contains(t, list.SortKeys, "ModifiedDesc")
	byParam := map[string]Filter{}
	for _, f := range list.Filters {
		byParam[f.Param] = f
	}
	assert.Equal(t, Filter{Param: "startDate.onOrBefore", Field: "startDate", Compare: CompareOnOrBefore, Format: "date", Derived: "name"}, byParam["startDate.onOrBefore"])
	assert.Equal(t, CompareAfter, byParam["meta.modified.after"].Compare)
	assert.Equal(t, "meta.modified", byParam["meta.modified.after"].Field)
	assert.Equal(t, "child.id", byParam["child"].Field, "a reference member compares its id")

	get := c.Operation(SurfaceB, "GET", "/placements/{id}")
	require.NotNil(t, get)
	assert.Equal(t, "object", get.Records)
	assert.Equal(t, PagingOffset, c.Operation(SurfaceA, "GET", "/school").Paging)
	assert.Equal(t, "array", c.Operation(SurfaceB, "POST", "/groups/lookup").Records)
	for _, op := range c.Operations() {
		assert.NotEqual(t, Surface("admin"), op.Surface, "the control plane is not part of what is judged")
	}
}

func TestCaptureHandsOverEveryExchange(t *testing.T) {
	var mu sync.Mutex
	var got []*Exchange
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		// A handler may rewrite the request (the mock's legal variants
		// do): the exchange is what the client sent.
		r.URL.RawQuery = "expand=rewritten"
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"echo":` + string(body) + `}`))
	})
	srv := httptest.NewServer(Capture(handler, CaptureOptions{MaxBody: 16, Sink: func(e *Exchange) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}}))
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/api/v1/groups/lookup?expand=assignmentRoles", "application/json", strings.NewReader(`{"ids":["a","b","c","d"]}`))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, `{"echo":{"ids":["a","b","c","d"]}}`, string(body), "the handler reads the whole body the client sent")
	resp, err = http.Get(srv.URL + "/__admin/requests")
	require.NoError(t, err)
	resp.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1, "requests of no surface are not captured")
	e := got[0]
	assert.Equal(t, SurfaceB, e.Surface)
	assert.Equal(t, "/groups/lookup", e.Path)
	assert.Equal(t, "assignmentRoles", e.Query.Get("expand"))
	assert.True(t, strings.HasSuffix(e.URL, "/api/v1/groups/lookup?expand=assignmentRoles"), e.URL)
	assert.Equal(t, http.StatusCreated, e.Status)
	assert.Equal(t, `{"ids":["a","b",`, string(e.RequestBody))
	assert.True(t, e.RequestTruncated)
	assert.Equal(t, `{"echo":{"ids":[`, string(e.ResponseBody))
	assert.True(t, e.ResponseTruncated)
	assert.Equal(t, "application/json", e.ResponseHeader.Get("Content-Type"))
	assert.NotZero(t, e.Seq)
}

func TestBoundedEvictsTheLeastRecentlyUsed(t *testing.T) {
	b := NewBounded[string, int](2)
	b.Put("a", 1)
	b.Put("b", 2)
	b.Get("a")
	b.Put("c", 3)
	_, ok := b.Peek("b")
	assert.False(t, ok, "b was the least recently used")
	v, ok := b.Peek("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	assert.Equal(t, 2, b.Len())
	assert.Equal(t, 1, b.Dropped())
}

func TestCatalogueIsComplete(t *testing.T) {
	rs := Catalogue()
	require.NotEmpty(t, rs)
	for _, r := range rs {
		assert.NoError(t, validRule(r), r.ID)
	}
}

func TestJudgeIsSafeForConcurrentUse(t *testing.T) {
	j := judge(t, ProfileService)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for k := range 20 {
				j.Observe(mkEx(t, "GET /api/v1/placements?limit=1", 200, obj{"data": []any{placement(id(i*100 + k))}, "pageToken": nil}))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 160, j.Coverage().Exchanges)
}

func TestNothingSeenIsNeverAPass(t *testing.T) {
	j := judge(t, ProfileService, "contract.A.response")
	j.Observe(mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{}, "pageToken": nil}))
	c := coverageOf(j, "contract.A.response")
	assert.True(t, c.Nothing())
	assert.Equal(t, "no exchange of an operation it concerns was seen", c.Reason())
}

func TestHistoryDropsWhatDoesNotFit(t *testing.T) {
	j, err := NewJudge(Config{Rules: []*Rule{Lookup("dates.rfc3339")}, Limits: Limits{Records: 2}})
	require.NoError(t, err)
	j.Observe(mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{placement(id(1)), placement(id(2)), placement(id(3))}, "pageToken": nil}))
	assert.Equal(t, 1, j.Coverage().Dropped["records"])
}
