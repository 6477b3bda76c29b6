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
	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver"
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
	deviation.TokenCacheable:               {include: []string{"auth.token.*"}, catch: []string{"auth.token.no-store", "auth.token.pragma-no-cache"}},
	deviation.WrongSecretAccepted:          {include: []string{"auth.token.*"}, catch: []string{"auth.token.wrong-secret"}},
	deviation.ExpiredTokenAccepted:         {include: []string{"auth.B.expired-token", "auth.A.expired-token"}, ttl: time.Second, catch: []string{"auth.B.expired-token", "auth.A.expired-token"}},
	deviation.NoTokenAccepted:              {include: []string{"auth.B.*"}, catch: []string{"auth.B.no-token"}},
	deviation.PaginationTotalWrong:         {include: []string{"A.school.list.*", "A.group.list.*"}, catch: []string{"A.school.list.total", "A.group.list.total", "A.school.list.offset-walk"}},
	deviation.ListLimitIgnored:             {include: []string{"A.school.list.*", "A.group.list.*"}, catch: []string{"A.school.list.limit", "A.group.list.limit"}},
	deviation.PatchReplaces:                {include: []string{"A.school.create", "A.school.update"}, write: true, catch: []string{"A.school.update"}},
	deviation.DeleteNot204:                 {include: []string{"A.group.delete"}, write: true, catch: []string{"A.group.delete"}},
	deviation.AuditEventMissing:            {include: []string{"A.audit.*"}, write: true, catch: []string{"A.audit.delete-recorded"}},
	deviation.IdentityNumberNoHyphen:       {include: []string{"A.*.identity-number-form"}, catch: []string{"A.student.identity-number-form", "A.employee.identity-number-form", "A.guardian.identity-number-form"}},
	deviation.NestedMetaFilterIgnored:      {include: []string{"A.school.search.*", "A.group.search.*", "A.unit.search.*"}, catch: []string{"A.school.search.sync-query", "A.group.search.sync-query", "A.unit.search.sync-query"}},
	deviation.SearchIgnoresFilter:          {include: []string{"A.school.search.*", "A.group.search.*"}, catch: []string{"A.school.search.items-match", "A.group.search.items-match", "A.group.search.equals-own-filtering"}},
	deviation.RateLimitResetInSeconds:      {include: []string{"A.ratelimit.*", "A.contract"}, catch: []string{"A.ratelimit.reset-epoch-ms", "A.contract"}},
	deviation.RateLimitHeadersMissingOn204: {include: []string{"A.ratelimit.headers-on-204"}, write: true, catch: []string{"A.ratelimit.headers-on-204"}},
	deviation.EndDateFilterDropsOpenEnded:  {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.endDate-keeps-open-ended"}},
	deviation.DateBoundsExclusive:          {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.startDate-onOrBefore", "B.placements.filter.startDate-onOrAfter"}},
	deviation.MetaAfterInclusive:           {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.created-after", "B.placements.filter.modified-after"}},
	deviation.OrganisationFilterIgnored:    {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.organisation"}},
	deviation.SortKeyIgnored:               {include: []string{"B.placements.sort.*"}, catch: []string{"B.placements.sort.StartDateAsc", "B.placements.sort.StartDateDesc"}},
	deviation.PageTokenWithFilterAccepted:  {include: []string{"B.placements.pagetoken-*"}, catch: []string{"B.placements.pagetoken-with-filter", "B.placements.pagetoken-with-sortkey"}},
	deviation.PageTokenRepeatsLast:         {include: []string{"B.placements.walk", "B.placements.limit-walk"}, catch: []string{"B.placements.walk", "B.placements.limit-walk"}},
	deviation.LimitZeroAccepted:            {include: []string{"B.placements.limit-*"}, catch: []string{"B.placements.limit-below-one"}},
	deviation.ExpandIgnored:                {include: []string{"B.placements.expand", "B.placements.by-id-expand"}, catch: []string{"B.placements.expand", "B.placements.by-id-expand"}},
	deviation.DisplayNameAlways:            {include: []string{"B.*.reference-names"}, catch: []string{"B.placements.reference-names"}},
	deviation.ExpandChangesModified:        {include: []string{"B.placements.modified-unchanged-by-expand"}, catch: []string{"B.placements.modified-unchanged-by-expand"}},
	deviation.SecurityMarkingMissing:       {include: []string{"B.placements.security-marking", "B.contract"}, catch: []string{"B.placements.security-marking", "B.contract"}},
	deviation.LookupDropsFirst:             {include: []string{"B.groups.lookup"}, catch: []string{"B.groups.lookup"}},
	deviation.ErrorBodyWrongShape:          {include: []string{"B.placements.unknown-id", "B.errors.body", "B.contract"}, should: true, catch: []string{"B.errors.body"}},
	deviation.UnknownIDNot404:              {include: []string{"B.*.unknown-id"}, catch: []string{"B.placements.unknown-id", "B.groups.unknown-id"}},
	deviation.TokenGetAccepted:             {include: []string{"auth.token.method"}, catch: []string{"auth.token.method"}},
	deviation.JSONCharsetRefused:           {include: []string{"B.groups.lookup-charset"}, catch: []string{"B.groups.lookup-charset"}},
	deviation.LimitAboveMaxRefused:         {include: []string{"B.placements.limit-large"}, catch: []string{"B.placements.limit-large"}},
	deviation.CombinedFiltersDropDate:      {include: []string{"B.placements.filter.*"}, catch: []string{"B.placements.filter.combined"}},
	deviation.ReferenceMarkingDiffers:      {include: []string{"B.placements.references-match", "B.*.list.references-resolve"}, catch: []string{"B.placements.references-match", "B.groups.list.references-resolve", "B.absences.list.references-resolve"}},
	deviation.LaterPageDropsExpand:         {include: []string{"B.placements.later-page-expand"}, should: true, catch: []string{"B.placements.later-page-expand"}},
	deviation.LegacyAuthRefused:            {include: []string{"auth.A.*"}, args: []string{"--legacy-auth"}, catch: []string{"auth.A.legacy-headers"}},
	deviation.FormCharsetRefused:           {include: []string{"auth.token.*"}, catch: []string{"auth.token.form-charset"}},
	deviation.AcceptParamsRefused:          {include: []string{"B.placements.accept-parameters"}, catch: []string{"B.placements.accept-parameters"}},
	deviation.MultiValueFirstOnly:          {include: []string{"B.placements.expand", "B.*.list.filter-values"}, catch: []string{"B.placements.expand", "B.groups.list.filter-values", "B.organisations.list.filter-values"}},
	deviation.CallbacksNotSent:             {include: []string{"B.subscriptions.callback"}, write: true, catch: []string{"B.subscriptions.callback"}},
	deviation.IdentityConflictAccepted:     {include: []string{"A.*.identity-conflict"}, write: true, catch: []string{"A.student.identity-conflict", "A.employee.identity-conflict"}},
	deviation.RestoreKeepsArchived:         {include: []string{"A.*.archive-restore"}, write: true, catch: []string{"A.student-placement.archive-restore", "A.employee-placement.archive-restore"}},
	deviation.PatchDropsOmitted:            {include: []string{"A.*.update-keeps-omitted"}, write: true, catch: []string{"A.student.update-keeps-omitted", "A.employee.update-keeps-omitted", "A.guardian.update-keeps-omitted"}},
	deviation.RareEnumRefused:              {include: []string{"A.*.enum-values"}, write: true, catch: []string{"A.group.enum-values", "A.student.enum-values", "A.employee-placement.enum-values"}},
	deviation.ListDropsField:               {include: []string{"A.*.read-back"}, write: true, catch: []string{"A.student.read-back", "A.employee.read-back", "A.guardian.read-back"}},
	deviation.DeleteRepeat204:              {include: []string{"A.*.delete-twice"}, write: true, catch: []string{"A.student.delete-twice", "A.guardian.delete-twice", "A.employee.delete-twice", "A.student-placement.delete-twice", "A.employee-placement.delete-twice"}},
	deviation.AWritesHiddenInB:             {include: []string{"A.*.read-back-b"}, write: true, catch: []string{"A.student.read-back-b", "A.employee.read-back-b", "A.group.read-back-b"}},
	deviation.RateLimitResetSlides:         {include: []string{"A.ratelimit.*", "A.ratelimit.sequence"}, catch: []string{"A.ratelimit.sequence"}},
}

// fullMatrix runs every row against the whole suite; without it (go test
// ./..., which must stay quick) each row runs only its own checks and a
// few rows, chosen by sample, run the whole suite. .ci/run sets
// SKOLKIT_KILL_MATRIX=full.
var fullMatrix = os.Getenv("SKOLKIT_KILL_MATRIX") == "full"

// sample are the rows that run the whole suite in a quick run, so that a
// check outside a row's include that breaks a whole run is seen locally too.
var sample = []string{deviation.SortKeyIgnored}

func TestKillMatrixCoversEveryDeviation(t *testing.T) {
	names := slices.Sorted(maps.Keys(killMatrix))
	assert.Equal(t, deviation.Names(), names, "every deviation has a row")
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
// writes and the row's own catching checks included) against the mock with each deviation switched on and
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
				for _, id := range row.catch { // an opt-in check runs only when named exactly
					args = append(args, "--include", id)
				}
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
