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
	"github.com/skolkit/skolkit/scenarios"
)

func TestVariantCataloguesAgree(t *testing.T) {
	assert.Equal(t, slices.Sorted(slices.Values(mockserver.Variants)), slices.Sorted(maps.Keys(scenarios.KnownVariants)))
}

// TestLegalVariantsPassTheStandardProfile serves all legal variants at once
// (and, in the full run of .ci/run, each one alone) and requires the runner
// with --profile ss12000 to pass with zero failures, SHOULD included: a
// behaviour the standard allows must never be failed.
func TestLegalVariantsPassTheStandardProfile(t *testing.T) {
	rows := map[string][]string{"all at once": mockserver.Variants}
	if fullMatrix {
		for _, v := range mockserver.Variants {
			rows[v] = []string{v}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, args := mockUnderTest(t, mockserver.Options{Variants: rows[name]})
			args = append(args, recordIDs(srv)...)
			code, out, rep := runConformance(t, append(args, "--profile", "ss12000", "--fail-on", "should")...)
			assertClean(t, rep, out)
			assert.Equal(t, 0, code, "exit code")
			assert.Greater(t, rep.Counts().Pass, 50)
		})
	}
}

// TestLegalVariantsAreServed proves each variant changes what the mock
// answers, so that the test above is not passing an unchanged mock.
func TestLegalVariantsAreServed(t *testing.T) {
	t.Parallel()
	_, args := mockUnderTest(t, mockserver.Options{Variants: mockserver.Variants})
	code, out, rep := runConformance(t, append(args, "--profile", "ss12000", "--include", "auth.token.success", "--include", "B.placements.walk", "--include", "B.placements.limit-large", "--include", "B.placements.unknown-id")...)
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

// TestVariantsThatTheServiceProfileRejects: the service's spec says more
// than the standard about person references, so --profile service fails a
// mock that drops securityMarking (and quotes the sentence).
func TestVariantsThatTheServiceProfileRejects(t *testing.T) {
	t.Parallel()
	_, args := mockUnderTest(t, mockserver.Options{Variants: []string{mockserver.VarReferencesWithoutSecurityMarking}})
	code, _, rep := runConformance(t, append(args, "--include", "B.placements.security-marking")...)
	assert.Equal(t, 1, code)
	require.Len(t, rep.Results, 1)
	assert.Equal(t, conformance.StatusFail, rep.Results[0].Status)
	assert.Contains(t, rep.Results[0].Spec.Quote, "Person references also carry `securityMarking`")
}
