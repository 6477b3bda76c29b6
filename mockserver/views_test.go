package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

// preschoolWorld is a preschool with n placements of students of its own,
// all created through interface A.
type preschoolWorld struct {
	school     string
	students   []string
	placements []string
}

func newPreschoolWorld(t *testing.T, h *harness, n int) *preschoolWorld {
	t.Helper()
	w := &preschoolWorld{school: h.newSchool(t, "FS")}
	for range n {
		w.addPlacement(t, h)
	}
	return w
}

func (w *preschoolWorld) addPlacement(t *testing.T, h *harness) {
	t.Helper()
	student := h.newStudent(t)
	w.students = append(w.students, student)
	w.placements = append(w.placements, h.mustCreate(t, "/student-placement",
		fmt.Sprintf(`{"studentID":%q,"schoolID":%q,"schoolType":"FS","startDate":"2026-08-17"}`, student, w.school)))
}

// cached reports whether the response cache holds an answer to the path at
// the current generation.
func (h *harness) cached(path string) bool {
	u, err := url.Parse(path)
	require.NoError(h.t, err)
	return h.srv.reg.Cached(u.EscapedPath(), u.RawQuery)
}

func TestReadsAreCachedAndEveryWriteIsSeen(t *testing.T) {
	h := newHarness(t)
	w := newPreschoolWorld(t, h, 3)
	byID := PrefixB + "/placements/" + w.placements[0] + "?expandReferenceNames=true"
	list := PrefixB + "/placements?expandReferenceNames=true&organisation=" + w.school

	childName := func(path string) string {
		res := h.get(path)
		require.Equal(t, http.StatusOK, res.status, res)
		if strings.Contains(path, "?organisation") || strings.Contains(path, "&organisation") {
			var page placementList
			res.decode(&page)
			for _, p := range page.Data {
				if p.ID == w.placements[0] {
					return p.Child.DisplayName
				}
			}
			t.Fatalf("%s lacks placement %s", path, w.placements[0])
		}
		var p model.Placement
		res.decode(&p)
		return p.Child.DisplayName
	}
	for _, path := range []string{byID, list} {
		assert.False(t, h.cached(path), path)
		first := h.get(path)
		assert.True(t, h.cached(path), "a read at a stable generation is cached: %s", path)
		again := h.get(path)
		assert.Equal(t, first.body, again.body, "the cached answer is the answer")
		assert.Equal(t, "Test Elev", childName(path))
	}

	// A write through interface A: the child's name changes. The next reads
	// see it, and are cached again.
	res := h.send(http.MethodPatch, PrefixA+"/student/"+w.students[0], `{"firstName":"Zelda"}`)
	require.Equal(t, http.StatusOK, res.status, res)
	for _, path := range []string{byID, list} {
		assert.False(t, h.cached(path), "a write moves the generation on: %s", path)
		assert.Equal(t, "Zelda Elev", childName(path), path)
		assert.True(t, h.cached(path), path)
	}

	// A write straight to the store, as Go code holding it writes: the
	// store's commit moves the generation on too, so the next reads see it,
	// and are cached again.
	st := h.srv.store
	child, ok := st.Read().Person(w.students[0])
	require.True(t, ok)
	renamed := *child
	renamed.GivenName = "Ylva"
	_, _, err := st.PutPerson(renamed)
	require.NoError(t, err)
	for _, path := range []string{byID, list} {
		assert.False(t, h.cached(path), "a commit moves the generation on: %s", path)
		assert.Equal(t, "Ylva Elev", childName(path), path)
		assert.True(t, h.cached(path), path)
	}
	assert.True(t, h.srv.reg.Stable(), "reads stay stable after a write to the store")
}

// TestLazyWalkIsExactWhileRecordsChangeThroughTheAPI is
// TestPageTokenWalkIsExactWhileRecordsChange with the writes made through
// interface A, which the server tracks: the walk is lazy (its token carries a
// generation and no snapshot of its own), the first write keeps the
// generation's snapshot, and the walk reads it.
func TestLazyWalkIsExactWhileRecordsChangeThroughTheAPI(t *testing.T) {
	h := newHarness(t)
	w := newPreschoolWorld(t, h, 7)
	query := "limit=2&expandReferenceNames=true&organisation=" + w.school

	res := h.get(PrefixB + "/placements?" + query)
	require.Equal(t, http.StatusOK, res.status, res)
	var first placementList
	res.decode(&first)
	require.NotNil(t, first.PageToken)
	st, err := h.srv.reg.DecodePageToken(*first.PageToken)
	require.NoError(t, err)
	assert.Empty(t, st.Walk, "a walk begun at a stable generation keeps no snapshot of its own")
	assert.Positive(t, st.Gen)

	// Another walk of the same query, begun at the same generation, gets the
	// same (cached) first page and token.
	assert.Equal(t, res.body, h.get(PrefixB+"/placements?"+query).body)

	// Writes: two more placements at the school, a child renamed, one
	// placement ended in the past (so that it leaves the query).
	w.addPlacement(t, h)
	w.addPlacement(t, h)
	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/student/"+w.students[6], `{"firstName":"Zelda"}`).status)
	require.Equal(t, http.StatusOK, h.send(http.MethodPatch, PrefixA+"/student-placement/"+w.placements[5], `{"endDate":"2026-09-01"}`).status)
	assert.True(t, h.srv.store.KeptGeneration(st.Gen), "the first write kept a snapshot of the walk's generation")

	got := first.Data
	tok := first.PageToken
	for tok != nil {
		res := h.get(PrefixB + "/placements?pageToken=" + url.QueryEscape(*tok))
		require.Equal(t, http.StatusOK, res.status, res)
		var page placementList
		res.decode(&page)
		got = append(got, page.Data...)
		tok = page.PageToken
	}
	assert.ElementsMatch(t, w.placements[:7], ids(got), "the walk returns what matched at its first page, once each")
	for _, p := range got {
		assert.Equal(t, "Test Elev", p.Child.DisplayName, "records as they were at the first page")
		if p.ID == w.placements[5] {
			assert.Empty(t, p.EndDate)
		}
	}
	// A new walk sees the writes.
	now := h.walk(t, query)
	assert.Len(t, now, 9)
}

// TestConcurrentReadsSeeEveryWrite mixes interface-B reads (by id and pages,
// with reference names) with interface-A renames of the children and new
// placements elsewhere. With the tests' self-check on, a cached answer that
// differs from a fresh one of the same generation is a 500; and every
// writer reads its own write back through interface B right after it.
func TestConcurrentReadsSeeEveryWrite(t *testing.T) {
	h := newHarness(t)
	w := newPreschoolWorld(t, h, 6)
	other := newPreschoolWorld(t, h, 1)
	const rounds = 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	get := func(path string) ([]byte, bool) {
		res := h.get(path)
		if res.status != http.StatusOK {
			fail("%s: %d %s", path, res.status, res.body)
			return nil, false
		}
		return res.body, true
	}
	// Writers: each renames its own children and reads the rename back.
	for wr := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				k := wr*3 + i%3
				name := fmt.Sprintf("W%dR%d", wr, i)
				res := h.send(http.MethodPatch, PrefixA+"/student/"+w.students[k], fmt.Sprintf(`{"firstName":%q}`, name))
				if res.status != http.StatusOK {
					fail("rename: %d %s", res.status, res.body)
					return
				}
				body, ok := get(PrefixB + "/placements/" + w.placements[k] + "?expandReferenceNames=true")
				if !ok {
					return
				}
				var p model.Placement
				if err := json.Unmarshal(body, &p); err != nil || p.Child.DisplayName != name+" Elev" {
					fail("placement %s read after its child was renamed %s: %s", w.placements[k], name, body)
				}
			}
		}()
	}
	// A writer elsewhere: new placements in another school.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range rounds / 4 {
			res := h.send(http.MethodPost, PrefixA+"/student-placement", fmt.Sprintf(
				`{"studentID":%q,"schoolID":%q,"schoolType":"FS","startDate":"2026-08-%02d"}`, other.students[0], other.school, 1+i))
			if res.status != http.StatusCreated {
				fail("create placement: %d %s", res.status, res.body)
			}
		}
	}()
	// Readers: pages walked to the end, and reads by id.
	for rd := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if rd == 0 {
					_, _ = get(PrefixB + "/placements/" + w.placements[i%len(w.placements)] + "?expandReferenceNames=true")
					_, _ = get(PrefixB + "/placements/" + w.placements[i%len(w.placements)])
					continue
				}
				seen := map[string]bool{}
				path := PrefixB + "/placements?limit=2&expandReferenceNames=true&organisation=" + w.school
				for {
					body, ok := get(path)
					if !ok {
						return
					}
					var page placementList
					if err := json.Unmarshal(body, &page); err != nil {
						fail("page: %v", err)
						return
					}
					for _, p := range page.Data {
						if seen[p.ID] {
							fail("walk returned %s twice", p.ID)
						}
						seen[p.ID] = true
					}
					if page.PageToken == nil {
						break
					}
					path = PrefixB + "/placements?pageToken=" + url.QueryEscape(*page.PageToken)
				}
				if len(seen) != len(w.placements) {
					fail("walk returned %d placements, the school has %d", len(seen), len(w.placements))
				}
			}
		}()
	}
	wg.Wait()
	assert.Empty(t, failures)
}
