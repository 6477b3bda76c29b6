package mockserver

import (
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call sends a request with the default client's bearer token (unless the
// header names other credentials) and a JSON body when body is not empty.
func (h *harness) call(method, path, body string, header http.Header) *result {
	h.t.Helper()
	if method == http.MethodPatch && header == nil {
		body = h.withRequired(path, body)
	}
	var req *http.Request
	if body != "" {
		req, _ = http.NewRequest(method, h.ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", surface.ContentTypeJSON)
	} else {
		req, _ = http.NewRequest(method, h.ts.URL+path, nil)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if header.Get("Authorization") == "" && header.Get(surface.HeaderClientID) == "" && header.Get("X-No-Auth") == "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	req.Header.Del("X-No-Auth")
	return h.do(req)
}

// dirError decodes the interface-A error body and checks its shape.
func (r *result) dirError(t testing.TB) surface.DirectoryErrorBody {
	t.Helper()
	var e surface.DirectoryError
	r.decode(&e)
	require.NotEmpty(t, e.Error.Code, r)
	require.NotEmpty(t, e.Error.Message, r)
	require.NotEmpty(t, e.Error.RequestID, r)
	assert.Equal(t, r.header.Get(surface.HeaderRequestID), e.Error.RequestID)
	return e.Error
}

func assertRateHeaders(t testing.TB, h *harness, r *result) {
	t.Helper()
	limit, err := strconv.Atoi(r.header.Get(surface.HeaderRateLimit))
	require.NoError(t, err, "RateLimit-Limit: %s", r)
	remaining, err := strconv.Atoi(r.header.Get(surface.HeaderRateRemaining))
	require.NoError(t, err, "RateLimit-Remaining: %s", r)
	assert.LessOrEqual(t, remaining, limit)
	reset := r.header.Get(surface.HeaderRateReset)
	require.Len(t, reset, 13, "RateLimit-Reset is epoch milliseconds: %s", r)
	ms, err := strconv.ParseInt(reset, 10, 64)
	require.NoError(t, err)
	at := time.UnixMilli(ms)
	now := h.clock.Now()
	assert.True(t, at.After(now) && !at.After(now.Add(time.Hour)), "reset %s within the coming hour of %s", at, now)
}

func legacy(id, secret string) http.Header {
	h := http.Header{}
	h.Set(surface.HeaderClientID, id)
	h.Set(surface.HeaderClientSecret, secret)
	return h
}

func TestDirectoryAuthentication(t *testing.T) {
	h := newHarness(t)
	id, secret := h.srv.Credentials()
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"bearer token", nil, 200},
		{"Client-ID and Client-Secret headers", legacy(id, secret), 200},
		{"no credentials", http.Header{"X-No-Auth": {"1"}}, 401},
		{"wrong secret", legacy(id, secret+"x"), 401},
		{"unknown client", legacy("nobody", secret), 401},
		{"only Client-ID", legacy(id, ""), 401},
		{"garbage bearer", http.Header{"Authorization": {"Bearer nonsense"}}, 401},
		{"basic scheme", http.Header{"Authorization": {"Basic eDp5"}}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call(http.MethodGet, PrefixA+"/school", "", tc.header)
			require.Equal(t, tc.status, res.status, res)
			assertRateHeaders(t, h, res)
			if tc.status == 401 {
				assert.Equal(t, surface.CodeUnauthorized, res.dirError(t).Code)
				assert.Contains(t, res.header.Get("WWW-Authenticate"), "Bearer")
			}
		})
	}
	t.Run("interface B does not take the header method", func(t *testing.T) {
		res := h.call(http.MethodGet, PrefixB+"/placements?limit=1", "", legacy(id, secret))
		require.Equal(t, http.StatusUnauthorized, res.status, res)
	})
	t.Run("the contract is served without credentials", func(t *testing.T) {
		res := h.call(http.MethodGet, PrefixA+"/openapi.json", "", http.Header{"X-No-Auth": {"1"}})
		require.Equal(t, http.StatusOK, res.status, res)
		assertRateHeaders(t, h, res)
	})
}

func TestDirectoryScopes(t *testing.T) {
	h := newHarness(t)
	id, secret := h.srv.Credentials()
	res := h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {"school:read group:read"}}, nil)
	require.Equal(t, http.StatusOK, res.status, res)
	var tr tokenResponse
	res.decode(&tr)
	h.token = tr.AccessToken
	assert.Equal(t, http.StatusOK, h.call(http.MethodGet, PrefixA+"/school", "", nil).status)
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodPost, "/school", `{"title":"A","schoolType":"GR"}`},
		{http.MethodPost, "/group", `{"title":"A","schoolID":"` + unknownID + `"}`},
	} {
		res := h.call(tc.method, PrefixA+tc.path, tc.body, nil)
		require.Equal(t, http.StatusForbidden, res.status, res)
		assert.Equal(t, surface.CodeForbidden, res.dirError(t).Code)
		assertRateHeaders(t, h, res)
	}
}

func TestDirectoryRateLimit(t *testing.T) {
	h := newHarness(t)
	id, _ := h.srv.Credentials()
	c := h.srv.clients[id]
	c.RateLimit = 4
	h.srv.clients[id] = c
	var last int
	for i := range 4 {
		res := h.call(http.MethodGet, PrefixA+"/school?limit=1", "", nil)
		require.Equal(t, http.StatusOK, res.status, res)
		assertRateHeaders(t, h, res)
		remaining, _ := strconv.Atoi(res.header.Get(surface.HeaderRateRemaining))
		if i > 0 {
			assert.Equal(t, last-1, remaining, "Remaining decreases by one a request")
		}
		last = remaining
	}
	res := h.call(http.MethodGet, PrefixA+"/school?limit=1", "", nil)
	require.Equal(t, http.StatusTooManyRequests, res.status, res)
	assert.Equal(t, CodeRateLimited, res.dirError(t).Code)
	retry, err := strconv.Atoi(res.header.Get(surface.HeaderRetryAfter))
	require.NoError(t, err)
	assert.InDelta(t, 3600, retry, 1)
	assert.Equal(t, "0", res.header.Get(surface.HeaderRateRemaining))

	h.clock.Advance(time.Hour)
	h.token = h.fetchToken(h.srv.Credentials())
	res = h.call(http.MethodGet, PrefixA+"/school?limit=1", "", nil)
	require.Equal(t, http.StatusOK, res.status, "a new window after an hour: %s", res)
	assert.Equal(t, "3", res.header.Get(surface.HeaderRateRemaining))
}

func TestRateLimiterIsExactUnderConcurrency(t *testing.T) {
	l := newRateLimiter(time.Hour)
	now := testNow
	const workers, each, quota = 16, 25, 150
	var mu sync.Mutex
	nAllowed, nRefused := 0, 0
	var wg sync.WaitGroup
	remainingSeen := map[int]bool{}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				d := l.take("client:x", quota, now)
				mu.Lock()
				if d.allowed {
					nAllowed++
					assert.False(t, remainingSeen[d.remaining], "remaining %d given twice", d.remaining)
					remainingSeen[d.remaining] = true
				} else {
					nRefused++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, quota, nAllowed)
	assert.Equal(t, workers*each-quota, nRefused)
	assert.Equal(t, workers*each, l.count("client:x", now))
}

func TestDirectoryListPaging(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/school", "/group"} {
		t.Run(path, func(t *testing.T) {
			var first struct {
				Data       []map[string]any     `json:"data"`
				Pagination directory.Pagination `json:"pagination"`
			}
			res := h.call(http.MethodGet, PrefixA+path, "", nil)
			require.Equal(t, http.StatusOK, res.status, res)
			res.decode(&first)
			assert.Equal(t, directory.Pagination{Offset: 0, Limit: 50, Total: first.Pagination.Total}, first.Pagination, "defaults 50/0")
			total := first.Pagination.Total
			require.Positive(t, total)
			seen := map[string]bool{}
			for offset := 0; offset < total; offset += 3 {
				var page struct {
					Data       []map[string]any     `json:"data"`
					Pagination directory.Pagination `json:"pagination"`
				}
				res := h.call(http.MethodGet, fmt.Sprintf("%s%s?limit=3&offset=%d", PrefixA, path, offset), "", nil)
				require.Equal(t, http.StatusOK, res.status, res)
				res.decode(&page)
				assert.Equal(t, total, page.Pagination.Total)
				assert.LessOrEqual(t, len(page.Data), 3)
				for _, item := range page.Data {
					id := item["id"].(string)
					assert.False(t, seen[id], "%s twice", id)
					seen[id] = true
				}
			}
			assert.Len(t, seen, total, "walking offset pages yields total distinct items")
			var past struct {
				Data []any `json:"data"`
			}
			res = h.call(http.MethodGet, fmt.Sprintf("%s%s?offset=%d", PrefixA, path, total+10), "", nil)
			require.Equal(t, http.StatusOK, res.status, res)
			res.decode(&past)
			assert.Empty(t, past.Data)
			assert.Contains(t, string(res.body), `"data":[]`)
		})
	}
	for _, q := range []string{"limit=0", "limit=-1", "limit=abc", "limit=501", "offset=-1", "offset=x", "limit=1&limit=2", "sort=title"} {
		t.Run("bad "+q, func(t *testing.T) {
			res := h.call(http.MethodGet, PrefixA+"/school?"+q, "", nil)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			assert.Equal(t, surface.CodeBadRequest, res.dirError(t).Code)
			assertRateHeaders(t, h, res)
		})
	}
	t.Run("the alternative list shape", func(t *testing.T) {
		h2 := newHarness(t)
		h2.srv.core.ListShape = directory.ListShapeResultArray
		req, _ := http.NewRequest(http.MethodGet, h2.ts.URL+PrefixA+"/school?limit=2", nil)
		req.Header.Set("Authorization", "Bearer "+h2.token)
		resp, err := h2.ts.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var body struct {
			Data struct {
				ResultArray []map[string]any `json:"resultArray"`
			} `json:"data"`
		}
		require.NoError(t, decodeBody(resp, &body))
		assert.Len(t, body.Data.ResultArray, 2)
	})
}

func TestSchoolWrites(t *testing.T) {
	h := newHarness(t)
	res := h.call(http.MethodPost, PrefixA+"/school", `{"title":"Ekskolan","schoolType":"GR","unitCode":"12345678","municipalityCode":"0180"}`, nil)
	require.Equal(t, http.StatusCreated, res.status, res)
	assertRateHeaders(t, h, res)
	var created directory.DirectorySchool
	res.decode(&created)
	assert.Equal(t, PrefixA+"/school/"+created.ID, res.header.Get("Location"))
	assert.Equal(t, "Ekskolan", created.Title)
	assert.Equal(t, created.Meta.CreatedAt, *created.Meta.UpdatedAt)
	clientID, _ := h.srv.Credentials()
	assert.Equal(t, ClientUUID(clientID), *created.Meta.CreatedBy, "meta.createdBy is the client")

	var got directory.DirectorySchool
	h.call(http.MethodGet, res.header.Get("Location"), "", nil).decode(&got)
	assert.Equal(t, created, got, "GET returns what was stored")

	h.clock.Advance(time.Minute)
	res = h.call(http.MethodPatch, PrefixA+"/school/"+created.ID, `{"unitCode":null,"csnSchoolCode":"ABC"}`, nil)
	require.Equal(t, http.StatusOK, res.status, res)
	var patched directory.DirectorySchool
	res.decode(&patched)
	assert.Nil(t, patched.UnitCode, "null clears a nullable field")
	assert.Equal(t, "ABC", *patched.CSNSchoolCode)
	assert.Equal(t, "Ekskolan", patched.Title, "absent fields stay")
	assert.Equal(t, created.Meta.CreatedAt, patched.Meta.CreatedAt)
	assert.True(t, patched.Meta.UpdatedAt.After(*created.Meta.UpdatedAt), "meta.updatedAt moves on a change")

	h.clock.Advance(time.Minute)
	res = h.call(http.MethodPatch, PrefixA+"/school/"+created.ID, `{"csnSchoolCode":"ABC"}`, nil)
	var same directory.DirectorySchool
	res.decode(&same)
	assert.Equal(t, patched.Meta, same.Meta, "meta stays when nothing changed")

	t.Run("the school is a school unit in interface B", func(t *testing.T) {
		o, ok := h.srv.store.Read().Organisation(created.ID)
		require.True(t, ok)
		assert.Equal(t, "Ekskolan", o.DisplayName)
		assert.Equal(t, "Skolenhet", string(o.OrganisationType))
	})

	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
		fields                   []string
	}{
		{"schoolType is not updatable", http.MethodPatch, "/school/" + created.ID, `{"schoolType":"GY"}`, 422, surface.CodeUnprocessable, nil},
		{"id is read-only", http.MethodPatch, "/school/" + created.ID, `{"id":"` + unknownID + `"}`, 422, surface.CodeUnprocessable, nil},
		{"meta is read-only", http.MethodPatch, "/school/" + created.ID, `{"meta":{}}`, 422, surface.CodeUnprocessable, nil},
		{"every violation of a create", http.MethodPost, "/school", `{"schoolType":"XX","unitID":"nope"}`, 422, surface.CodeUnprocessable, []string{"/schoolType", "/unitID"}},
		{"malformed JSON", http.MethodPost, "/school", `{"title":`, 400, surface.CodeBadRequest, nil},
		{"unknown id", http.MethodGet, "/school/" + unknownID, "", 404, surface.CodeNotFound, nil},
		{"unknown id on PATCH", http.MethodPatch, "/school/" + unknownID, `{"title":"x"}`, 404, surface.CodeNotFound, nil},
		{"malformed id", http.MethodGet, "/school/not-a-uuid", "", 400, surface.CodeBadRequest, nil},
		{"schools are not deleted", http.MethodDelete, "/school/" + created.ID, "", 405, surface.CodeBadRequest, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call(tc.method, PrefixA+tc.path, tc.body, nil)
			require.Equal(t, tc.status, res.status, res)
			e := res.dirError(t)
			assert.Equal(t, tc.code, e.Code)
			assertRateHeaders(t, h, res)
			var fields []string
			for _, d := range e.Details {
				fields = append(fields, d.Field)
			}
			for _, f := range tc.fields {
				assert.Contains(t, fields, f)
			}
		})
	}
}

func TestGroupWritesAreSeenThroughInterfaceB(t *testing.T) {
	h := newHarness(t)
	var schools struct {
		Data []directory.DirectorySchool `json:"data"`
	}
	h.call(http.MethodGet, PrefixA+"/school", "", nil).decode(&schools)
	require.GreaterOrEqual(t, len(schools.Data), 2)
	school, other := schools.Data[0].ID, schools.Data[1].ID
	persons := h.srv.store.Export().Persons

	res := h.call(http.MethodPost, PrefixA+"/group", fmt.Sprintf(`{"schoolID":%q,"title":"Blåklockan","category":"Education","types":["Class"],"memberIDs":[%q]}`, school, persons[0].ID), nil)
	require.Equal(t, http.StatusCreated, res.status, res)
	var g directory.DirectoryGroup
	res.decode(&g)
	assert.Equal(t, []string{persons[0].ID}, g.MemberIDs)

	var bg struct {
		DisplayName      string `json:"displayName"`
		GroupType        string `json:"groupType"`
		GroupMemberships []struct {
			Person struct{ ID string }
		} `json:"groupMemberships"`
	}
	res = h.get(PrefixB + "/groups/" + g.ID)
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&bg)
	assert.Equal(t, "Blåklockan", bg.DisplayName)
	assert.Equal(t, "Klass", bg.GroupType, "Class is Klass in SS 12000")
	require.Len(t, bg.GroupMemberships, 1)

	for _, tc := range []struct {
		name, method, body string
		status             int
		field              string
	}{
		{"duplicate title in the same school", http.MethodPost, fmt.Sprintf(`{"schoolID":%q,"title":"blåklockan"}`, school), 409, ""},
		{"unknown school", http.MethodPost, fmt.Sprintf(`{"schoolID":%q,"title":"Ny"}`, unknownID), 422, "/schoolID"},
		{"unknown member", http.MethodPost, fmt.Sprintf(`{"schoolID":%q,"title":"Ny","memberIDs":[%q]}`, school, unknownID), 422, "/memberIDs/0"},
		{"schoolID is not updatable", http.MethodPatch, fmt.Sprintf(`{"schoolID":%q}`, other), 422, ""},
		{"missing required members", http.MethodPost, `{}`, 422, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := PrefixA + "/group"
			if tc.method == http.MethodPatch {
				path += "/" + g.ID
			}
			res := h.call(tc.method, path, tc.body, nil)
			require.Equal(t, tc.status, res.status, res)
			e := res.dirError(t)
			if tc.field != "" {
				require.NotEmpty(t, e.Details)
				assert.Equal(t, tc.field, e.Details[0].Field)
			}
		})
	}
	res = h.call(http.MethodPost, PrefixA+"/group", fmt.Sprintf(`{"schoolID":%q,"title":"Blåklockan"}`, other), nil)
	assert.Equal(t, http.StatusCreated, res.status, "the same title at another school: %s", res)

	h.clock.Advance(time.Minute)
	res = h.call(http.MethodPatch, PrefixA+"/group/"+g.ID, `{"title":"Vitsippan","memberIDs":[]}`, nil)
	require.Equal(t, http.StatusOK, res.status, res)
	var changed map[string]any
	h.get(PrefixB + "/groups/" + g.ID).decode(&changed)
	assert.Equal(t, "Vitsippan", changed["displayName"], "a change through A is read back through B")
	assert.NotContains(t, changed, "groupMemberships")

	res = h.call(http.MethodDelete, PrefixA+"/group/"+g.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	assert.Empty(t, res.body)
	assertRateHeaders(t, h, res)
	assert.Equal(t, http.StatusNotFound, h.call(http.MethodGet, PrefixA+"/group/"+g.ID, "", nil).status)
	assert.Equal(t, http.StatusNotFound, h.get(PrefixB+"/groups/"+g.ID).status, "a group deleted through A is gone from B")
	assert.Equal(t, http.StatusNotFound, h.call(http.MethodDelete, PrefixA+"/group/"+g.ID, "", nil).status)

	t.Run("a group that placements use cannot be deleted", func(t *testing.T) {
		var used string
		for _, p := range h.srv.store.Export().Placements {
			if p.Group != nil {
				used = p.Group.ID
				break
			}
		}
		require.NotEmpty(t, used)
		res := h.call(http.MethodDelete, PrefixA+"/group/"+used, "", nil)
		require.Equal(t, http.StatusConflict, res.status, res)
		assert.Equal(t, surface.CodeConflict, res.dirError(t).Code)
	})
}

func TestDirectorySearch(t *testing.T) {
	h := newHarness(t)
	var all struct {
		Data []directory.DirectoryGroup `json:"data"`
	}
	h.call(http.MethodGet, PrefixA+"/group?limit=500", "", nil).decode(&all)
	require.NotEmpty(t, all.Data)
	school := all.Data[0].SchoolID
	count := func(keep func(directory.DirectoryGroup) bool) (n int) {
		for _, g := range all.Data {
			if keep(g) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		name, filter string
		keep         func(directory.DirectoryGroup) bool
	}{
		{"equals", fmt.Sprintf(`{"equals":{"schoolID":%q},"orCondition":false}`, school), func(g directory.DirectoryGroup) bool { return g.SchoolID == school }},
		{"notEquals", fmt.Sprintf(`{"notEquals":{"schoolID":%q},"orCondition":false}`, school), func(g directory.DirectoryGroup) bool { return g.SchoolID != school }},
		{"or of two", fmt.Sprintf(`{"equals":{"schoolID":%q,"category":"Other"},"orCondition":true}`, school), func(g directory.DirectoryGroup) bool { return g.SchoolID == school || g.Category == "Other" }},
		{"nested", fmt.Sprintf(`{"equals":{"schoolID":%q},"orCondition":false,"nestedFilters":[{"like":{"title":"%%a%%"},"contains":{"types":["Class"]},"orCondition":true}]}`, school),
			func(g directory.DirectoryGroup) bool {
				return g.SchoolID == school && (strings.Contains(strings.ToLower(g.Title), "a") || containsString(g.Types, "Class"))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got struct {
				Data       []directory.DirectoryGroup `json:"data"`
				Pagination directory.Pagination       `json:"pagination"`
			}
			res := h.call(http.MethodPost, PrefixA+"/group/_search?limit=500", `{"filter":`+tc.filter+`}`, nil)
			require.Equal(t, http.StatusOK, res.status, res)
			res.decode(&got)
			assert.Equal(t, count(tc.keep), got.Pagination.Total)
			for _, g := range got.Data {
				assert.True(t, tc.keep(g), "%+v does not satisfy the filter", g)
			}
		})
	}
	for _, tc := range []struct {
		name, body, mention string
		status              int
	}{
		{"unknown field", `{"filter":{"equals":{"titel":"x"},"orCondition":false}}`, "titel", 422},
		{"operator that does not apply", `{"filter":{"greaterThan":{"schoolID":"` + unknownID + `"},"orCondition":false}}`, "schoolID", 422},
		{"orCondition missing", `{"filter":{"equals":{"title":"x"}}}`, "orCondition", 422},
		{"malformed JSON", `{"filter":`, "", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call(http.MethodPost, PrefixA+"/group/_search", tc.body, nil)
			require.Equal(t, tc.status, res.status, res)
			e := res.dirError(t)
			assert.Contains(t, e.Message+fmt.Sprint(e.Details), tc.mention)
		})
	}
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestDirectoryUnknownPathAndMethod(t *testing.T) {
	h := newHarness(t)
	res := h.call(http.MethodGet, PrefixA+"/nothing", "", nil)
	require.Equal(t, http.StatusNotFound, res.status, res)
	assertRateHeaders(t, h, res)
	assert.Equal(t, surface.CodeNotFound, res.dirError(t).Code)
	res = h.call(http.MethodPut, PrefixA+"/group", `{}`, nil)
	require.Equal(t, http.StatusMethodNotAllowed, res.status, res)
	assert.Equal(t, "GET, POST", res.header.Get("Allow"))
	assertRateHeaders(t, h, res)
}
