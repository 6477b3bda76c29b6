package main

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/scenarios"
)

func TestVariantCataloguesAgree(t *testing.T) {
	assert.Equal(t, slices.Sorted(slices.Values(mockserver.Variants)), slices.Sorted(maps.Keys(scenarios.KnownVariants)))
	checks := map[string]bool{}
	for _, c := range conformance.Catalogue() {
		checks[c.ID] = true
	}
	for v, alarms := range knownFalseAlarms {
		assert.Contains(t, mockserver.Variants, v)
		for id := range alarms {
			assert.True(t, checks[id], "knownFalseAlarms names %s, which is no check any more: remove it", id)
		}
	}
}

// serviceRejects are the variants that --profile service fails, with the
// check that fails them and the sentence it quotes: the service's spec says
// more than the standard there (or, for empty-404, our decision on what the
// spec leaves open, failed at SHOULD). The standard profile passes them.
var serviceRejects = map[string]struct{ check, quote string }{
	mockserver.VarReferencesWithoutSecurityMarking: {"references.person-marking-present", "Person references also carry `securityMarking`"},
	mockserver.VarAbsentOptionalMembers:            {"references.person-marking-present", "Person references also carry `securityMarking`"},
	mockserver.VarTokenTypeLowercase:               {"contract.auth.response", "`token_type` (`Bearer`)"},
	mockserver.VarEmpty404:                         {"errors.B.body", "Error statuses of interface B: not shown."},
}

// knownFalseAlarms are the runner's checks that fail a legal variant today,
// by variant: defects of the runner, logged instead of failed until it is
// fixed. An entry whose check passes with its variant on is stale and fails
// the test, so that the list only shrinks.
var knownFalseAlarms = map[string]map[string]string{}

// TestLegalVariantsPassTheStandardProfile serves all legal variants at once
// (and, in the full run of .ci/run, each one alone) and requires the runner
// with --profile ss12000 at the write level to pass with zero failures,
// SHOULD included: a behaviour the standard allows must never be failed.
func TestLegalVariantsPassTheStandardProfile(t *testing.T) {
	runLegalVariants(t, "ss12000", mockserver.Variants)
}

// TestLegalVariantsPassTheServiceProfile: the same under --profile service
// (interface A and the export included) for every variant the service's
// spec allows.
func TestLegalVariantsPassTheServiceProfile(t *testing.T) {
	var allowed []string
	for _, v := range mockserver.Variants {
		if _, rejected := serviceRejects[v]; !rejected {
			allowed = append(allowed, v)
		}
	}
	runLegalVariants(t, "service", allowed)
}

func runLegalVariants(t *testing.T, profile string, variants []string) {
	rows := map[string][]string{"all at once": variants}
	if fullMatrix {
		for _, v := range variants {
			rows[v] = []string{v}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, args := mockUnderTest(t, mockserver.Options{Variants: rows[name], Profile: profile}) // the mock serves the profile it is judged by
			args = append(args, recordIDs(srv)...)
			code, out, rep := runConformance(t, append(args, "--profile", profile, "--level", "write", "--fail-on", "should")...)
			assertLegal(t, rep, out, code, rows[name])
			assert.Greater(t, rep.Counts().Pass, 50)
		})
	}
}

// assertLegal fails on every failure of a run against the mock serving
// legal variants, but the runner's known false alarms with them (logged).
func assertLegal(t *testing.T, rep *report.Report, out string, code int, variants []string) {
	t.Helper()
	alarms := map[string]string{}
	for _, v := range variants {
		maps.Copy(alarms, knownFalseAlarms[v])
	}
	clean := *rep
	clean.Results = nil
	for _, r := range rep.Results {
		why, known := alarms[r.ID]
		switch {
		case known && r.Status == report.StatusPass:
			t.Errorf("stale entry in knownFalseAlarms: %s passes with %v; remove it", r.ID, variants)
		case known && r.Status == report.StatusFail:
			t.Logf("known false alarm of the runner, %s: %s", r.ID, why)
			continue
		}
		clean.Results = append(clean.Results, r)
	}
	assertClean(t, &clean, out)
	if len(clean.Results) == len(rep.Results) {
		assert.Equal(t, 0, code, "exit code")
	}
}

// TestLegalVariantsAreServed proves each variant changes what the mock
// answers, so that the test above is not passing an unchanged mock.
func TestLegalVariantsAreServed(t *testing.T) {
	t.Parallel()
	_, args := mockUnderTest(t, mockserver.Options{Variants: mockserver.Variants})
	code, out, rep := runConformance(t, append(args, "--profile", "ss12000", "--include", "auth.token.success", "--include", "paging.walk-without-repeats", "--include", "B.placements.limit-large", "--include", "B.placements.unknown-id")...)
	require.Equal(t, 0, code, out)
	notes := ""
	for _, r := range rep.Results {
		notes += strings.Join(r.Notes, "\n") + "\n"
	}
	assert.Contains(t, notes, `token_type is "bearer"`)
	assert.Contains(t, notes, "page sizes [7 ", "small default pages")
	assert.Contains(t, notes, "of [25 ", "clamped limit")

	// The output variants, seen on the wire.
	srv, err := mockserver.New(mockserver.Options{Variants: mockserver.Variants})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	id, secret := srv.Credentials()
	resp, err := http.PostForm(hs.URL+mockserver.PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	var tok map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	resp.Body.Close()
	assert.Equal(t, "bearer", tok["token_type"])
	assert.Contains(t, tok, "ext_expires_in")
	get := func(path string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+mockserver.PrefixB+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok["access_token"].(string))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	code, body := get("/placements?limit=2")
	require.Equal(t, http.StatusOK, code, string(body))
	var page struct {
		Data []struct {
			Child map[string]any `json:"child"`
		} `json:"data"`
		PageToken string `json:"pageToken"`
		Extra     string `json:"x-vendor-extension"`
	}
	require.NoError(t, json.Unmarshal(body, &page))
	assert.NotEmpty(t, page.Extra, "extra properties")
	assert.True(t, strings.HasPrefix(page.PageToken, "v2~"), "re-encoded pageToken %q", page.PageToken)
	require.NotEmpty(t, page.Data)
	assert.NotContains(t, page.Data[0].Child, "securityMarking")
	code, _ = get("/placements?pageToken=" + url.QueryEscape(page.PageToken))
	assert.Equal(t, http.StatusOK, code, "the re-encoded pageToken continues the walk")
	code, body = get("/placements/" + "00000000-0000-4000-8000-00000000dead")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Empty(t, body, "empty 404")
}

// TestVariantsThatTheServiceProfileRejects: where the service's spec says
// more than the standard, --profile service fails the variant (and quotes
// the sentence).
func TestVariantsThatTheServiceProfileRejects(t *testing.T) {
	for _, v := range slices.Sorted(maps.Keys(serviceRejects)) {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			reject := serviceRejects[v]
			_, args := mockUnderTest(t, mockserver.Options{Variants: []string{v}})
			code, _, rep := runConformance(t, append(args, "--include", "B.placements.unknown-id", "--include", "auth.token.success", "--include", reject.check, "--fail-on", "should")...)
			assert.Equal(t, 1, code)
			i := slices.IndexFunc(rep.Results, func(r report.Result) bool { return r.ID == reject.check })
			require.GreaterOrEqual(t, i, 0, "no result for %s", reject.check)
			assert.Equal(t, report.StatusFail, rep.Results[i].Status)
			assert.Contains(t, rep.Results[i].Spec.Quote, reject.quote)
		})
	}
}
