package main

import (
	"bytes"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/scenarios"
)

// killMatrix says, for each named deviation of the mock, which checks the
// run includes and which of them must fail: a deviation that no check
// catches is a hole in the suite.
var killMatrix = map[string]struct {
	include []string
	write   bool
	ttl     time.Duration
	should  bool     // the catching checks are SHOULD: the run fails on should
	args    []string // more flags for the run
	catch   []string // at least one of these fails
}{
	mockserver.DevTokenCacheable:               {include: []string{"auth.token.*"}, catch: []string{"auth.token.no-store", "auth.token.pragma-no-cache"}},
	mockserver.DevWrongSecretAccepted:          {include: []string{"auth.token.*"}, catch: []string{"auth.token.wrong-secret"}},
	mockserver.DevExpiredTokenAccepted:         {include: []string{"auth.B.expired-token", "auth.A.expired-token"}, ttl: time.Second, catch: []string{"auth.B.expired-token", "auth.A.expired-token"}},
	mockserver.DevNoTokenAccepted:              {include: []string{"auth.B.*"}, catch: []string{"auth.B.no-token"}},
	mockserver.DevPaginationTotalWrong:         {include: []string{"A.school.list.*", "A.group.list.*"}, catch: []string{"A.school.list.total", "A.group.list.total", "A.school.list.offset-walk"}},
	mockserver.DevListLimitIgnored:             {include: []string{"A.school.list.*", "A.group.list.*"}, catch: []string{"A.school.list.limit", "A.group.list.limit"}},
	mockserver.DevPatchReplaces:                {include: []string{"A.school.create", "A.school.update"}, write: true, catch: []string{"A.school.update"}},
	mockserver.DevDeleteNot204:                 {include: []string{"A.group.delete"}, write: true, catch: []string{"A.group.delete"}},
	mockserver.DevAuditEventMissing:            {include: []string{"A.audit.*"}, write: true, catch: []string{"A.audit.delete-recorded"}},
	mockserver.DevIdentityNumberNoHyphen:       {include: []string{"A.*.identity-number-form"}, catch: []string{"A.student.identity-number-form", "A.employee.identity-number-form", "A.guardian.identity-number-form"}},
	mockserver.DevNestedMetaFilterIgnored:      {include: []string{"A.school.search.*", "A.group.search.*", "A.unit.search.*"}, catch: []string{"A.school.search.sync-query", "A.group.search.sync-query", "A.unit.search.sync-query"}},
	mockserver.DevSearchIgnoresFilter:          {include: []string{"A.school.search.*", "A.group.search.*"}, catch: []string{"A.school.search.items-match", "A.group.search.items-match", "A.group.search.equals-own-filtering"}},
	mockserver.DevRateLimitResetInSeconds:      {include: []string{"A.ratelimit.*", "A.contract"}, catch: []string{"A.ratelimit.reset-epoch-ms", "A.contract"}},
	mockserver.DevRateLimitHeadersMissingOn204: {include: []string{"A.ratelimit.headers-on-204"}, write: true, catch: []string{"A.ratelimit.headers-on-204"}},
	mockserver.DevEndDateFilterDropsOpenEnded:  {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.endDate-keeps-open-ended"}},
	mockserver.DevDateBoundsExclusive:          {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.startDate-onOrBefore", "B.placements.filter.startDate-onOrAfter"}},
	mockserver.DevMetaAfterInclusive:           {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.created-after", "B.placements.filter.modified-after"}},
	mockserver.DevOrganisationFilterIgnored:    {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.organisation"}},
	mockserver.DevSortKeyIgnored:               {include: []string{"B.placements.sort.*"}, catch: []string{"B.placements.sort.StartDateAsc", "B.placements.sort.StartDateDesc"}},
	mockserver.DevPageTokenWithFilterAccepted:  {include: []string{"B.placements.pagetoken-*"}, catch: []string{"B.placements.pagetoken-with-filter", "B.placements.pagetoken-with-sortkey"}},
	mockserver.DevPageTokenRepeatsLast:         {include: []string{"B.placements.walk", "B.placements.limit-walk"}, catch: []string{"B.placements.walk", "B.placements.limit-walk"}},
	mockserver.DevLimitZeroAccepted:            {include: []string{"B.placements.limit-*"}, catch: []string{"B.placements.limit-below-one"}},
	mockserver.DevExpandIgnored:                {include: []string{"B.placements.expand", "B.placements.by-id-expand"}, catch: []string{"B.placements.expand", "B.placements.by-id-expand"}},
	mockserver.DevDisplayNameAlways:            {include: []string{"B.*.reference-names"}, catch: []string{"B.placements.reference-names"}},
	mockserver.DevExpandChangesModified:        {include: []string{"B.placements.modified-unchanged-by-expand"}, catch: []string{"B.placements.modified-unchanged-by-expand"}},
	mockserver.DevSecurityMarkingMissing:       {include: []string{"B.placements.security-marking", "B.contract"}, catch: []string{"B.placements.security-marking", "B.contract"}},
	mockserver.DevLookupDropsFirst:             {include: []string{"B.groups.lookup"}, catch: []string{"B.groups.lookup"}},
	mockserver.DevErrorBodyWrongShape:          {include: []string{"B.placements.unknown-id", "B.errors.body", "B.contract"}, should: true, catch: []string{"B.errors.body"}},
	mockserver.DevUnknownIDNot404:              {include: []string{"B.*.unknown-id"}, catch: []string{"B.placements.unknown-id", "B.groups.unknown-id"}},
	mockserver.DevTokenGetAccepted:             {include: []string{"auth.token.method"}, catch: []string{"auth.token.method"}},
	mockserver.DevJSONCharsetRefused:           {include: []string{"B.groups.lookup-charset"}, catch: []string{"B.groups.lookup-charset"}},
	mockserver.DevLimitAboveMaxRefused:         {include: []string{"B.placements.limit-large"}, catch: []string{"B.placements.limit-large"}},
	mockserver.DevCombinedFiltersDropDate:      {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.combined"}},
	mockserver.DevReferenceMarkingDiffers:      {include: []string{"B.placements.references-match", "B.*.list.references-resolve"}, catch: []string{"B.placements.references-match", "B.groups.list.references-resolve", "B.absences.list.references-resolve"}},
	mockserver.DevLaterPageDropsExpand:         {include: []string{"B.placements.later-page-expand"}, should: true, catch: []string{"B.placements.later-page-expand"}},
	mockserver.DevLegacyAuthRefused:            {include: []string{"auth.A.*"}, args: []string{"--legacy-auth"}, catch: []string{"auth.A.legacy-headers"}},
	mockserver.DevFormCharsetRefused:           {include: []string{"auth.token.*"}, catch: []string{"auth.token.form-charset"}},
	mockserver.DevAcceptParamsRefused:          {include: []string{"B.placements.accept-parameters"}, catch: []string{"B.placements.accept-parameters"}},
	mockserver.DevMultiValueFirstOnly:          {include: []string{"B.placements.expand", "B.*.list.filter-values"}, catch: []string{"B.placements.expand", "B.groups.list.filter-values", "B.organisations.list.filter-values"}},
	mockserver.DevCallbacksNotSent:             {include: []string{"B.subscriptions.callback"}, write: true, catch: []string{"B.subscriptions.callback"}},
	mockserver.DevIdentityConflictAccepted:     {include: []string{"A.*.identity-conflict"}, write: true, catch: []string{"A.student.identity-conflict", "A.employee.identity-conflict"}},
	mockserver.DevRestoreKeepsArchived:         {include: []string{"A.*.archive-restore"}, write: true, catch: []string{"A.student-placement.archive-restore", "A.employee-placement.archive-restore"}},
	mockserver.DevPatchDropsOmitted:            {include: []string{"A.*.update-keeps-omitted"}, write: true, catch: []string{"A.student.update-keeps-omitted", "A.employee.update-keeps-omitted", "A.guardian.update-keeps-omitted"}},
	mockserver.DevRateLimitResetSlides:         {include: []string{"A.ratelimit.*", "A.ratelimit.sequence"}, catch: []string{"A.ratelimit.sequence"}},
	mockserver.DevListDropsField:               {include: []string{"A.*.read-back"}, write: true, catch: []string{"A.student.read-back", "A.employee.read-back", "A.guardian.read-back"}},
	mockserver.DevDeleteRepeat204:              {include: []string{"A.*.delete-twice"}, write: true, catch: []string{"A.student.delete-twice", "A.guardian.delete-twice"}},
	mockserver.DevRareEnumRefused:              {include: []string{"A.*.enum-values"}, write: true, catch: []string{"A.group.enum-values", "A.student.enum-values", "A.employee-placement.enum-values"}},
}

// fullMatrix runs every row against the whole suite; without it (go test
// ./..., which must stay quick) each row runs only its own checks and a
// few rows, chosen by sample, run the whole suite. .ci/run sets
// SKOLKIT_KILL_MATRIX=full.
var fullMatrix = os.Getenv("SKOLKIT_KILL_MATRIX") == "full"

// sample are the rows that run the whole suite in a quick run, so that a
// check outside a row's include that breaks a whole run is seen locally too.
var sample = []string{mockserver.DevSortKeyIgnored}

func TestKillMatrixCoversEveryDeviation(t *testing.T) {
	names := slices.Sorted(maps.Keys(killMatrix))
	assert.Equal(t, slices.Sorted(slices.Values(mockserver.Deviations)), names, "every deviation the mock implements has a row")
	assert.Equal(t, slices.Sorted(maps.Keys(scenarios.KnownDeviations)), names, "the scenario catalogue names the same deviations")
	assert.GreaterOrEqual(t, len(names), 20)
	ids := map[string]bool{}
	for _, c := range conformance.Catalogue() {
		ids[c.ID] = true
	}
	for name, row := range killMatrix {
		for _, id := range row.catch {
			assert.True(t, ids[id], "%s: no check %s", name, id)
		}
	}
}

// TestKillMatrix runs the whole suite (both levels, the opt-in school
// writes included) against the mock with each deviation switched on and
// requires one of the row's checks to fail. Under the race detector, and in
// a quick run (fullMatrix unset), it runs only each row's checks (and the
// sample rows the whole suite); .ci/run runs the whole matrix without the
// race detector.
func TestKillMatrix(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(killMatrix)) {
		row := killMatrix[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, args := mockUnderTest(t, mockserver.Options{Deviations: []string{name}, TokenTTL: row.ttl})
			require.Contains(t, strings.Join(args, " "), "--base-url", "the mock serves interface A")
			args = append(args, recordIDs(srv)...)
			if raceEnabled || (!fullMatrix && !slices.Contains(sample, name)) {
				for _, inc := range row.include {
					args = append(args, "--include", inc)
				}
				if row.write {
					args = append(args, "--level", "write")
				}
			} else {
				args = append(args, "--level", "write", "--include", "*", "--include", "A.school.create", "--include", "A.school.update")
			}
			if row.should {
				args = append(args, "--fail-on", "should")
			}
			args = append(args, row.args...)
			code, out, rep := runConformance(t, args...)
			var failed []string
			for _, r := range rep.Results {
				if r.Status == conformance.StatusFail {
					failed = append(failed, r.ID)
				}
			}
			caught := slices.ContainsFunc(row.catch, func(id string) bool { return slices.Contains(failed, id) })
			assert.True(t, caught, "deviation %s: none of %v failed (failed: %v)\n%s", name, row.catch, failed, out)
			assert.Equal(t, 1, code, "exit code with a failure at the --fail-on severity")
		})
	}
}

// BenchmarkConformanceSuite measures one whole write-level run of the suite,
// every surface, against a local mock (target: under 10 s).
func BenchmarkConformanceSuite(b *testing.B) {
	srv, err := mockserver.New(mockserver.Options{})
	require.NoError(b, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	id, secret := srv.Credentials()
	args := []string{"-q", "--auth-url", hs.URL, "--register-url", hs.URL + "/api/v1", "--base-url", hs.URL + "/directory/v1",
		"--export-url", hs.URL + "/data-export/v1", "--client-id", id, "--client-secret", secret, "--level", "write"}
	args = append(args, recordIDs(srv)...)
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := conformanceCmd(args, &out, &errOut); code != 0 {
			b.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
		}
	}
}
