package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// notOnFake are checks the small fake does not serve the operations for
// (students, employees, placements in A, grades, the export, the contract,
// interface B's writes, subscriptions and reports: the fake is not
// contract-complete; cmd/skolkit runs them against the mock).
var notOnFake = []string{"contract.*", "errors.*", "dates.*", "A.student*", "A.employee*", "A.guardian*", "A.grade*", "export*", "all.*", "auth.A.legacy*",
	"A.*.search.unknown-field", "A.*.search.invalid-params", "A.*.list.limit-zero", "B.syllabuses*", "B.attendances*", "B.absences*", "B.subscriptions*", "B.deletedEntities*", "B.log*", "B.statistics*", "B.attendanceEvents.create-delete", "B.attendanceSchedule.create-delete", "B.groups.expand-assignment-roles", "A.group.read-back-b", "A.group.title-conflict"}

func runFake(t *testing.T, dev deviations, include ...string) *report.Report {
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

func resultOf(t *testing.T, rep *report.Report, id string) report.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result for %s", id)
	return report.Result{}
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
		case report.StatusFail, report.StatusError:
			var msgs []string
			for _, f := range r.Failures {
				msgs = append(msgs, f.Message)
			}
			t.Errorf("%s %s: %s %s", r.Status, r.ID, r.Reason, strings.Join(msgs, " | "))
		case report.StatusPass:
			passed++
		case report.StatusSkip:
			assert.NotEmpty(t, r.Reason, r.ID)
		}
	}
	assert.Greater(t, passed, 80)
}

// fakeDeviations are the deviations the fake can make, each as the mock
// makes it (package deviation describes them).
var fakeDeviations = []string{
	deviation.PaginationTotalWrong, deviation.AuditEventMissing, deviation.ListLimitIgnored, deviation.EndDateFilterDropsOpenEnded,
	deviation.RateLimitResetInSeconds, deviation.RateLimitHeadersMissingOn204, deviation.MetaAfterInclusive, deviation.SortKeyIgnored,
	deviation.MultiValueFirstOnly, deviation.PageTokenWithFilterAccepted, deviation.PageTokenRepeatsLast, deviation.TokenCacheable,
	deviation.DisplayNameAlways, deviation.ExpandChangesModified, deviation.LookupDropsFirst, deviation.PatchReplaces, deviation.DeleteNot204,
}

// fakeSetup are the checks a deviation's run needs besides those that
// catch it: the ones that send what the catching rules judge.
var fakeSetup = map[string][]string{
	deviation.RateLimitHeadersMissingOn204: {"A.group.delete"},
}

// TestDeviationsAreCaught switches on one deviation at a time and runs the
// checks package deviation names for it against the fake: each passes (or,
// where the fake lacks what it needs, skips) without the deviation, and at
// least one fails with it. Which of them fail depends on the data (a
// filtered set that fits one page is never walked), so the kill matrix of
// cmd/skolkit, not the fake, proves that the mock fails exactly the checks
// the table names.
func TestDeviationsAreCaught(t *testing.T) {
	t.Parallel()
	for _, name := range fakeDeviations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, ok := deviation.Lookup(name)
			require.True(t, ok, "%s is not a named deviation", name)
			var checks []string
			for _, id := range d.CaughtBy {
				if !slices.ContainsFunc(notOnFake, func(p string) bool { return matchID(p, id) }) {
					checks = append(checks, id)
				}
			}
			require.NotEmpty(t, checks, "the fake serves none of the checks that catch %s: %v", name, d.CaughtBy)
			run := append(slices.Clone(checks), fakeSetup[name]...)
			clean := runFake(t, deviations{}, run...)
			bad := runFake(t, deviations{name: true}, run...)
			var failed []string
			for _, id := range checks {
				c := resultOf(t, clean, id)
				assert.Contains(t, []report.Status{report.StatusPass, report.StatusSkip}, c.Status, "%s on the clean fake: %s %v", id, c.Reason, c.Failures)
				b := resultOf(t, bad, id)
				if b.Status != report.StatusFail {
					continue
				}
				failed = append(failed, id)
				f := b.Failures[0]
				assert.NotEmpty(t, f.Message)
				if f.Exchange != nil {
					assert.Contains(t, f.Exchange.Curl, "curl ")
					assert.NotContains(t, f.Exchange.Curl, fakeSecret)
					assert.NotContains(t, f.Exchange.Curl, fakeToken)
				}
			}
			assert.NotEmpty(t, failed, "none of %v failed on the fake with %s", checks, name)
		})
	}
}

// TestDeviationTableNamesRealChecks keeps package deviation's table honest:
// it names only checks that exist.
func TestDeviationTableNamesRealChecks(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range Catalogue() {
		ids[c.ID] = true
	}
	for _, r := range rules.Catalogue() {
		ids[r.ID] = true
	}
	for _, d := range append(deviation.All(), deviation.Others()...) {
		for _, id := range d.CaughtBy {
			assert.True(t, ids[id], "deviation %s names unknown check %s", d.Name, id)
		}
	}
}
