package mockserver

import (
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// TestConcurrencyInvariants runs goroutines for about two seconds that mix
// interface-A creates, updates and deletes of groups and students, lists
// and searches of groups, interface-B pageToken walks and token requests,
// and then checks what must hold whatever the interleaving:
//
//   - every interface-A list page is consistent with its own total;
//   - afterwards pagination.total of /group equals the groups in the store,
//     and the store holds the groups it started with plus those created less
//     those deleted;
//   - no pageToken walk returned a record twice or missed one: each walk is
//     compared with the unpaged answer taken right before its first page,
//     over the placements of one organisation (the writers write only
//     groups and persons, so they cannot change which placements match);
//   - the rate limiter counted every interface-A request exactly once: each
//     saw a distinct RateLimit-Remaining, and the counter equals their number.
func TestConcurrencyInvariants(t *testing.T) {
	const quota = 1 << 30
	p := newInproc(t, quota)
	org, orgPlacements := busiestOrganisation(t, p.srv)
	require.Greater(t, orgPlacements, 10, "the walk needs several pages")
	initialGroups := len(p.srv.store.Export().Groups)
	p.srv.limiter.reset()

	var (
		mu        sync.Mutex
		remaining []int // RateLimit-Remaining of every interface-A answer
		failures  []string
		stats     = map[string]int{}
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	count := func(what string, n int) {
		mu.Lock()
		stats[what] += n
		mu.Unlock()
	}
	// call serves one request; interface-A answers have their Remaining noted.
	call := func(token, method, target string, body []byte) (int, []byte) {
		req := p.request(method, target, body, "")
		if body != nil {
			req.Header.Set("Content-Type", surface.ContentTypeJSON)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		rec := p.serve(req)
		if strings.HasPrefix(target, PrefixA+"/") {
			n, err := strconv.Atoi(rec.Header().Get(surface.HeaderRateRemaining))
			if err != nil {
				fail("%s %s: RateLimit-Remaining %q", method, target, rec.Header().Get(surface.HeaderRateRemaining))
			}
			mu.Lock()
			remaining = append(remaining, n)
			mu.Unlock()
		}
		if rec.Code >= 500 {
			fail("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
		}
		return rec.Code, rec.Body.Bytes()
	}

	deadline := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	worker := func(seed uint64, fn func(rng *rand.Rand, i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 6))
			for i := 0; i == 0 || time.Now().Before(deadline); i++ {
				fn(rng, i)
			}
		}()
	}

	// Group writers: create, rename and delete their own groups.
	for w := range 2 {
		var mine []string
		worker(uint64(w), func(rng *rand.Rand, i int) {
			switch {
			case len(mine) == 0 || rng.IntN(3) == 0:
				body := fmt.Sprintf(`{"title":"cc-%d-%d","schoolID":%q}`, w, i, org)
				st, b := call(p.token, http.MethodPost, PrefixA+"/group", []byte(body))
				if st != http.StatusCreated {
					fail("create group: %d %s", st, b)
					return
				}
				var g struct{ ID string }
				_ = json.Unmarshal(b, &g)
				mine = append(mine, g.ID)
				count("group created", 1)
			case rng.IntN(2) == 0:
				id := mine[rng.IntN(len(mine))]
				st, b := call(p.token, http.MethodPatch, PrefixA+"/group/"+id, fmt.Appendf(nil, `{"title":"cc-%d-%d-renamed"}`, w, i))
				if st != http.StatusOK {
					fail("rename group: %d %s", st, b)
				}
				count("group renamed", 1)
			default:
				k := rng.IntN(len(mine))
				st, b := call(p.token, http.MethodDelete, PrefixA+"/group/"+mine[k], nil)
				if st != http.StatusNoContent {
					fail("delete group: %d %s", st, b)
					return
				}
				mine = slices.Delete(mine, k, k+1)
				count("group deleted", 1)
			}
		})
	}

	// A person writer: creates students and renames them.
	var students []string
	studentNo := map[string]int{} // the i each student was created with
	worker(10, func(rng *rand.Rand, i int) {
		if len(students) == 0 || rng.IntN(2) == 0 {
			body := fmt.Sprintf(`{"identityNumber":"20100101-%04d","firstName":"Cc","lastName":"Elev %d"}`, i, i)
			st, b := call(p.token, http.MethodPost, PrefixA+"/student", []byte(body))
			if st != http.StatusCreated {
				fail("create student: %d %s", st, b)
				return
			}
			var s struct{ ID string }
			_ = json.Unmarshal(b, &s)
			students = append(students, s.ID)
			studentNo[s.ID] = i
			count("student created", 1)
			return
		}
		id := students[rng.IntN(len(students))]
		if st, b := call(p.token, http.MethodPatch, PrefixA+"/student/"+id, fmt.Appendf(nil, `{"identityNumber":"20100101-%04d","firstName":"Cc%d","lastName":"Elev %d"}`, studentNo[id], i, studentNo[id])); st != http.StatusOK {
			fail("rename student: %d %s", st, b)
		}
		count("student renamed", 1)
	})

	// Listers: every page of groups agrees with its own total.
	for w := range 2 {
		worker(20+uint64(w), func(rng *rand.Rand, i int) {
			limit := 1 + rng.IntN(directory.DirectoryMaxLimit)
			offset := rng.IntN(initialGroups + 20)
			target := fmt.Sprintf("%s/group?limit=%d&offset=%d", PrefixA, limit, offset)
			var st int
			var b []byte
			if i%2 == 0 {
				st, b = call(p.token, http.MethodGet, target, nil)
			} else {
				filter := fmt.Sprintf(`{"filter":{"equals":{"schoolID":%q},"orCondition":false}}`, org)
				st, b = call(p.token, http.MethodPost, strings.Replace(target, "/group?", "/group/_search?", 1), []byte(filter))
			}
			if st != http.StatusOK {
				fail("%s: %d %s", target, st, b)
				return
			}
			var page struct {
				Data       []json.RawMessage    `json:"data"`
				Pagination directory.Pagination `json:"pagination"`
			}
			if err := json.Unmarshal(b, &page); err != nil {
				fail("%s: %v", target, err)
				return
			}
			if want := min(limit, max(page.Pagination.Total-offset, 0)); len(page.Data) != want {
				fail("%s: %d items, but total %d says %d", target, len(page.Data), page.Pagination.Total, want)
			}
			count("list pages", 1)
		})
	}

	// Token requesters: each new token is used for the next lists.
	tokenWorker := func(rng *rand.Rand, i int) {
		form := url.Values{"grant_type": {grantClientCredentials}, "client_id": {p.id}, "client_secret": {p.secret}}
		req := p.request(http.MethodPost, PathToken, []byte(form.Encode()), surface.ContentTypeForm)
		req.Header.Del("Authorization")
		rec := p.serve(req)
		if rec.Code != http.StatusOK {
			fail("token: %d %s", rec.Code, rec.Body.String())
			return
		}
		var tr tokenResponse
		_ = json.Unmarshal(rec.Body.Bytes(), &tr)
		count("tokens", 1)
		if st, b := call(tr.AccessToken, http.MethodGet, PrefixA+"/school?limit=1", nil); st != http.StatusOK {
			fail("with a new token: %d %s", st, b)
		}
	}
	worker(30, tokenWorker)

	// Walkers: interface-B pageToken walks over one organisation's
	// placements, each compared with the unpaged answer just before it.
	for w := range 2 {
		worker(40+uint64(w), func(rng *rand.Rand, i int) {
			query := "organisation=" + org
			if i%2 == 1 {
				query += "&sortkey=" + []string{"StartDateAsc", "EndDateDesc", "ModifiedDesc"}[rng.IntN(3)]
			}
			st, b := call(p.token, http.MethodGet, PrefixB+"/placements?limit="+strconv.Itoa(maxPageSize)+"&"+query, nil)
			if st != http.StatusOK {
				fail("unpaged %s: %d %s", query, st, b)
				return
			}
			want, next, err := ccPlacementIDs(b)
			if err != nil {
				fail("unpaged %s: %v", query, err)
				return
			}
			if next != nil {
				fail("the organisation has more than %d placements", maxPageSize)
				return
			}
			limit := 1 + rng.IntN(max(orgPlacements/3, 1))
			target := PrefixB + "/placements?limit=" + strconv.Itoa(limit) + "&" + query
			var got []string
			pages := 0
			for {
				st, b := call(p.token, http.MethodGet, target, nil)
				if st != http.StatusOK {
					fail("walk %s page %d: %d %s", query, pages, st, b)
					return
				}
				ids, tok, err := ccPlacementIDs(b)
				if err != nil {
					fail("walk %s: %v", query, err)
					return
				}
				got = append(got, ids...)
				pages++
				if tok == nil {
					break
				}
				target = PrefixB + "/placements?pageToken=" + url.QueryEscape(*tok)
			}
			seen := map[string]bool{}
			for _, id := range got {
				if seen[id] {
					fail("walk %s (limit %d): %s served twice", query, limit, id)
				}
				seen[id] = true
			}
			for _, id := range want {
				if !seen[id] {
					fail("walk %s (limit %d): %s missed", query, limit, id)
				}
			}
			if len(got) != len(want) {
				fail("walk %s (limit %d): %d records, the unpaged answer has %d", query, limit, len(got), len(want))
			}
			count("walks", 1)
			count("walk pages", pages)
		})
	}
	wg.Wait()

	for _, f := range failures {
		t.Error(f)
	}
	// The rate limiter counted every interface-A request once.
	counted := p.srv.limiter.count("client:"+p.id, p.clock.Now())
	assert.Equal(t, len(remaining), counted, "the limiter's count equals the interface-A requests made")
	slices.Sort(remaining)
	for i, r := range remaining {
		if want := quota - len(remaining) + i; r != want {
			t.Errorf("RateLimit-Remaining values are not exactly %d..%d: %d at position %d", quota-len(remaining), quota-1, r, i)
			break
		}
	}
	// pagination.total of /group equals the store's groups.
	groups := len(p.srv.store.Export().Groups)
	st, b := call(p.token, http.MethodGet, PrefixA+"/group?limit=1", nil)
	require.Equal(t, http.StatusOK, st, string(b))
	var page struct {
		Pagination directory.Pagination `json:"pagination"`
	}
	require.NoError(t, json.Unmarshal(b, &page))
	assert.Equal(t, groups, page.Pagination.Total, "pagination.total of /group is the number of groups in the store")
	assert.Equal(t, initialGroups+stats["group created"]-stats["group deleted"], groups, "the store holds the groups created and not deleted")

	keys := make([]string, 0, len(stats))
	for k := range stats {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, stats[k]))
	}
	t.Logf("concurrency: %s; %d interface-A requests counted; %d groups at the end", strings.Join(parts, ", "), counted, groups)
	for _, k := range []string{"walks", "list pages", "tokens", "group created", "student created"} {
		assert.Positive(t, stats[k], "%s: every kind of operation ran", k)
	}
}

// busiestOrganisation returns the school unit with the most placements that
// interface B shows (at most one page of maxPageSize), and their number.
func busiestOrganisation(t *testing.T, srv *Server) (string, int) {
	t.Helper()
	counts := map[string]int{}
	for _, pl := range srv.store.Export().Placements {
		if model.IsRegisterPlacement(&pl) {
			counts[pl.PlacedAt.ID]++
		}
	}
	best, n := "", 0
	for id, c := range counts {
		if c <= maxPageSize && (c > n || c == n && id < best) {
			best, n = id, c
		}
	}
	require.NotEmpty(t, best, "the scenario has placements")
	return best, n
}

// ccPlacementIDs reads the ids and the pageToken of a placement page.
func ccPlacementIDs(body []byte) ([]string, *string, error) {
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		PageToken *string `json:"pageToken"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(page.Data))
	for i, d := range page.Data {
		ids[i] = d.ID
	}
	return ids, page.PageToken, nil
}
