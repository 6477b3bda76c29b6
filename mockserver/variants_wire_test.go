package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/internal/reference"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/internal/wire"
	"github.com/skolkit/skolkit/openapi"
)

// wireGet GETs a page or record without checking the answer against the
// contract (a variant answers what the standard allows, which our stricter
// contract may not).
func (h *harness) wireGet(path string) map[string]any {
	h.t.Helper()
	a := h.exchange(http.MethodGet, path, "", "")
	require.Equal(h.t, http.StatusOK, a.status, "%s: %s", path, a.body)
	var v map[string]any
	require.NoError(h.t, json.Unmarshal(a.body, &v), string(a.body))
	return v
}

func firstRecord(t *testing.T, page map[string]any) map[string]any {
	t.Helper()
	data, _ := page["data"].([]any)
	require.NotEmpty(t, data, "a page with records")
	return data[0].(map[string]any)
}

func instant(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	tm, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return tm
}

// The date-time variants write the same instants, in another form.
func TestDateTimeVariantsWriteTheSameInstant(t *testing.T) {
	plain := newHarness(t)
	for _, tc := range []struct {
		variant string
		form    string // a regular expression the date-times match
	}{
		{VarLocalTimeOffset, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+0[12]:00$`},
		{VarLongFractionalSeconds, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$`},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.Variants = []string{tc.variant} })
			for _, path := range []string{PrefixB + "/placements?limit=1", PrefixA + "/student?limit=1"} {
				got, want := firstRecord(t, h.wireGet(path))["meta"].(map[string]any), firstRecord(t, plain.wireGet(path))["meta"].(map[string]any)
				for _, k := range []string{"created", "createdAt"} {
					if want[k] == nil {
						continue
					}
					assert.Regexp(t, tc.form, got[k], "%s meta.%s", path, k)
					assert.True(t, instant(t, want[k]).Equal(instant(t, got[k])), "%s meta.%s: %v is not %v", path, k, got[k], want[k])
				}
			}
		})
	}
}

// whole-seconds: interface B's date-times have no fraction, and its
// filters compare at that precision: a record's shown meta.modified is
// within meta.modified.before (inclusive) and outside meta.modified.after
// (exclusive) of itself.
func TestWholeSecondsFiltersCompareWhatTheyShow(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Variants = []string{VarWholeSeconds} })
	rec := firstRecord(t, h.wireGet(PrefixB+"/placements?limit=1"))
	modified := rec["meta"].(map[string]any)["modified"].(string)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, modified)
	ids := func(query string) []string {
		var out []string
		q := url.Values{}
		for {
			page := h.wireGet(PrefixB + "/placements?" + query + q.Encode())
			for _, r := range page["data"].([]any) {
				out = append(out, r.(map[string]any)["id"].(string))
			}
			tok, _ := page["pageToken"].(string)
			if tok == "" {
				return out
			}
			query, q = "", url.Values{"pageToken": {tok}}
		}
	}
	bound := url.QueryEscape(modified)
	assert.Contains(t, ids("meta.modified.before="+bound+"&"), rec["id"])
	assert.NotContains(t, ids("meta.modified.after="+bound+"&"), rec["id"])
}

func TestReorderedMembers(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Variants = []string{VarReorderedMembers} })
	for _, path := range []string{PrefixB + "/placements?limit=1", PrefixA + "/student?limit=1"} {
		a := h.exchange(http.MethodGet, path, "", "")
		code, body := a.status, a.body
		require.Equal(t, http.StatusOK, code)
		assert.False(t, strings.HasPrefix(string(body), `{"data"`), "%s: the page's members are reversed: %.80s", path, body)
		assert.Regexp(t, `^\{"pagination|^\{"pageToken`, string(body))
	}
	a := h.exchange(http.MethodGet, PrefixB+"/placements/00000000-0000-4000-8000-00000000dead", "", "")
	code, body := a.status, a.body
	assert.Equal(t, http.StatusNotFound, code)
	assert.True(t, strings.HasPrefix(string(body), `{"message"`), "error bodies too: %s", body)
}

func TestShortPages(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Variants = []string{VarShortPages} })
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"/groups?limit=10", 5},
		{"/persons?limit=3", 1},
		{"/persons?limit=1", 1},
		{"/duties", smallPageSize},
		{"/placements", smallPageSize},
	} {
		page := h.wireGet(PrefixB + tc.query)
		assert.Len(t, page["data"], tc.want, tc.query)
		tok, _ := page["pageToken"].(string)
		require.NotEmpty(t, tok, "%s: more pages follow", tc.query)
		next := h.wireGet(PrefixB + strings.Split(tc.query, "?")[0] + "?pageToken=" + url.QueryEscape(tok))
		assert.Len(t, next["data"], tc.want, "%s: the next page", tc.query)
	}
	assert.Equal(t, "/api/v1/groups?limit=10", h.srv.Requests(RequestFilter{})[1].Path, "the journal has the request as it was sent")
}

func TestAbsentOptionalMembers(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Variants = []string{VarAbsentOptionalMembers} })
	plain := newHarness(t)

	// Interface B: what the standard does not require and nothing filters
	// by is left out; what a filter reads stays.
	persons, plainPersons := h.wireGet(PrefixB + "/persons?limit=50")["data"].([]any), plain.wireGet(PrefixB + "/persons?limit=50")["data"].([]any)
	require.Len(t, persons, len(plainPersons))
	dropped, kept := map[string]bool{}, map[string]bool{}
	for i, p := range persons {
		for k := range plainPersons[i].(map[string]any) {
			if _, ok := p.(map[string]any)[k]; ok {
				kept[k] = true
			} else {
				dropped[k] = true
			}
		}
	}
	for _, k := range []string{"emails", "phoneNumbers", "addresses", "sex", "birthDate", "securityMarking"} {
		assert.True(t, dropped[k], "persons lose %s", k)
		assert.False(t, kept[k], "no person keeps %s", k)
	}
	for _, k := range []string{"id", "meta", "givenName", "familyName", "civicNo", "enrolments"} {
		assert.True(t, kept[k], "persons keep %s", k)
	}
	placement := firstRecord(t, h.wireGet(PrefixB+"/placements?limit=1&expand=child"))
	assert.NotContains(t, placement, "reason")
	assert.NotContains(t, placement["child"], "securityMarking")
	embedded := placement["_embedded"].(map[string]any)
	assert.Contains(t, embedded, "child", "what expand asked for stays")
	assert.NotContains(t, embedded["child"], "emails")

	// A record a client wrote keeps what it was given.
	ev := h.srv.store.Export().AttendanceEvents[0]
	a := h.exchange(http.MethodPost, PrefixB+"/attendanceEvents", surface.ContentTypeJSON, fmt.Sprintf(`{"time":"2026-11-02T07:45:00Z","eventType":"In","person":{"id":%q},"group":{"id":%q},"registeredBy":{"id":%q}}`, ev.Person.ID, ev.Group.ID, ev.Person.ID))
	require.Equal(t, http.StatusOK, a.status, string(a.body))
	made := a.json(t)
	assert.Contains(t, made, "registeredBy")
	assert.Contains(t, h.wireGet(PrefixB+"/attendanceEvents/"+made["id"].(string)), "registeredBy", "read back whole")
	assert.NotContains(t, h.wireGet(PrefixB+"/attendanceEvents/"+ev.ID), "registeredBy", "a generated record has none")

	// Interface A: null members are left out.
	assert.NotContains(t, string(h.getBody(PrefixA+"/student?limit=50")), "null")
	assert.Contains(t, string(plain.getBody(PrefixA+"/student?limit=50")), "null")
}

func (h *harness) getBody(path string) []byte {
	h.t.Helper()
	a := h.exchange(http.MethodGet, path, "", "")
	require.Equal(h.t, http.StatusOK, a.status)
	return a.body
}

// TestLegalVariantsValidateAgainstSS12000: with the variants of records and
// of form on (all at once, and absent-optional-members alone), every read
// operation of the official SS 12000 document, with every parameter, still
// answers what the document describes (package reference finds it: the
// test skips without it, and fails in CI).
func TestLegalVariantsValidateAgainstSS12000(t *testing.T) {
	all := []string{VarAbsentOptionalMembers, VarShortPages, VarReorderedMembers, VarLocalTimeOffset,
		VarLongFractionalSeconds, VarWholeSeconds, VarExtraProperties, VarReferencesWithoutSecurityMarking, VarPageTokenEncoding}
	for name, on := range map[string][]string{"all at once": all, VarAbsentOptionalMembers: {VarAbsentOptionalMembers}} {
		t.Run(name, func(t *testing.T) { sweepSS12000(t, "default", ProfileSS12000, on...) })
	}
}

// TestAbsentOptionalMembersKeepWhatTheOfficialDocumentRequires: every
// member a schema of the official SS 12000 document requires is required by
// the standard's form of our document too, or kept by the variant.
func TestAbsentOptionalMembersKeepWhatTheOfficialDocumentRequires(t *testing.T) {
	official := reference.LoadSS12000(t)
	ours, err := openapi.Standard(openapi.NameRegister)
	require.NoError(t, err)
	for name, ref := range official.Components.Schemas {
		mine, ok := ours.Components.Schemas[name]
		if !ok {
			continue
		}
		_, _, theirs := wire.Flatten(ref)
		_, _, required := wire.Flatten(mine)
		for _, member := range theirs {
			kept := slices.Contains(required, member) || slices.Contains(sparseAlwaysKept, member) || slices.Contains(sparseKept[name], member)
			assert.True(t, kept, "%s.%s: the official document requires it; absent-optional-members would drop it", name, member)
		}
	}
}
