package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
)

// notOnFake are checks the small fake does not serve the operations for
// (students, employees, placements in A, grades, the export, the contract,
// interface B's writes, subscriptions and reports: the fake is not
// contract-complete; cmd/skolkit runs them against the mock).
var notOnFake = []string{"*.contract", "*.errors.*", "A.student*", "A.employee*", "A.guardian*", "A.grade*", "export*", "all.*", "auth.A.legacy*",
	"A.*.search.unknown-field", "A.*.search.invalid-params", "A.*.list.limit-zero", "B.syllabuses*", "B.attendances*", "B.absences*", "B.subscriptions*", "B.deletedEntities*", "B.log*", "B.statistics*", "B.attendanceEvents.create-delete", "B.attendanceSchedule.create-delete", "B.groups.expand-assignment-roles", "A.ratelimit.headers-on-204", "A.group.delete", "A.group.read-back-b", "A.group.title-conflict"}

func runFake(t *testing.T, dev deviations, include ...string) *Report {
	t.Helper()
	srv := newFake(dev).start(t)
	cfg := fakeConfig(srv.URL, include...)
	if len(include) == 0 {
		cfg.Exclude = notOnFake
	}
	rep, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	return rep
}

func resultOf(t *testing.T, rep *Report, id string) Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result for %s", id)
	return Result{}
}

// TestFakeConforms runs the catalogue against the fake without deviations:
// a second, independent implementation of the spec must not fail the checks
// that apply to it.
func TestFakeConforms(t *testing.T) {
	t.Parallel()
	rep := runFake(t, deviations{})
	passed := 0
	for _, r := range rep.Results {
		switch r.Status {
		case StatusFail, StatusError:
			var msgs []string
			for _, f := range r.Failures {
				msgs = append(msgs, f.Message)
			}
			t.Errorf("%s %s: %s %s", r.Status, r.ID, r.Reason, strings.Join(msgs, " | "))
		case StatusPass:
			passed++
		case StatusSkip:
			assert.NotEmpty(t, r.Reason, r.ID)
		}
	}
	assert.Greater(t, passed, 80)
}

// TestDeviationsAreCaught switches on one deviation at a time and checks
// that the checks the Deviations table names for it fail.
func TestDeviationsAreCaught(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		checks []string
	}{
		{deviation.PaginationTotalWrong, []string{"A.school.list.total", "A.group.list.total", "A.school.search.total"}},
		{deviation.AuditEventMissing, []string{"A.audit.delete-recorded"}},
		{deviation.ListLimitIgnored, []string{"A.school.list.limit", "A.group.list.limit"}},
		{deviation.EndDateFilterDropsOpenEnded, []string{"B.placements.filter.endDate-keeps-open-ended", "B.placements.filter.endDate-onOrBefore", "B.placements.filter.endDate-onOrAfter", "B.placements.filter.active-on-day"}},
		{deviation.RateLimitResetInSeconds, []string{"A.ratelimit.reset-epoch-ms", "A.ratelimit.headers-on-204"}},
		{deviation.RateLimitHeadersMissingOn204, []string{"A.ratelimit.headers-on-204"}},
		{deviation.MetaAfterInclusive, []string{"B.placements.filter.created-after", "B.placements.filter.modified-after", "B.groups.list.meta-modified"}},
		{deviation.SortKeyIgnored, []string{"B.groups.list.sort-modified"}},
		{deviation.MultiValueFirstOnly, []string{"B.groups.list.filter-values"}},
		{deviation.PageTokenWithFilterAccepted, []string{"B.placements.pagetoken-with-filter"}},
		{deviation.PageTokenRepeatsLast, []string{"B.placements.walk", "B.placements.limit-walk"}},
		{deviation.TokenCacheable, []string{"auth.token.no-store"}},
		{deviation.DisplayNameAlways, []string{"B.placements.reference-names", "B.groups.list.reference-names"}},
		{deviation.ExpandChangesModified, []string{"B.placements.modified-unchanged-by-expand"}},
		{deviation.LookupDropsFirst, []string{"B.groups.lookup", "B.groups.list.lookup"}},
		{deviation.PatchReplaces, []string{"A.group.update"}},
		{deviation.DeleteNot204, []string{"A.group.delete"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clean := runFake(t, deviations{}, tc.checks...)
			require.True(t, deviation.Known(tc.name), "%s is not a named deviation", tc.name)
			bad := runFake(t, deviations{tc.name: true}, tc.checks...)
			for _, id := range tc.checks {
				c := resultOf(t, clean, id)
				assert.Equal(t, StatusPass, c.Status, "%s on the clean fake: %s %v", id, c.Reason, c.Failures)
				b := resultOf(t, bad, id)
				assert.Equal(t, StatusFail, b.Status, "%s with %s: %s", id, tc.name, b.Reason)
				if b.Status == StatusFail {
					f := b.Failures[0]
					assert.NotEmpty(t, f.Message)
					if f.Exchange != nil {
						assert.Contains(t, f.Exchange.Curl, "curl ")
						assert.NotContains(t, f.Exchange.Curl, fakeSecret)
						assert.NotContains(t, f.Exchange.Curl, fakeToken)
					}
				}
			}
		})
	}
}

// TestDeviationTableNamesEveryDeviationAndRealChecks keeps the Deviations
// table honest: it names only checks that exist, and every named deviation
// of the mock appears in a row's Kind.
func TestDeviationTableNamesEveryDeviationAndRealChecks(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range Catalogue() {
		ids[c.ID] = true
	}
	for _, d := range Deviations {
		for _, id := range d.Checks {
			if id == "(every check)" {
				continue
			}
			assert.True(t, ids[id], "deviation %s names unknown check %s", d.Kind, id)
		}
	}
	for _, name := range deviation.Names() {
		found := slices.ContainsFunc(Deviations, func(d struct {
			Kind, How string
			Checks    []string
		}) bool {
			return slices.Contains(strings.FieldsFunc(d.Kind, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' }), name)
		})
		assert.True(t, found, "no row of the Deviations table names the deviation %s", name)
	}
}
