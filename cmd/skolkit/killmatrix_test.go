package main

import (
	"bytes"
	"maps"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/conformance"
	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// killSetup is what a deviation's run needs besides the mock with the
// deviation on: a deviation that needs nothing special has no row. Which
// checks catch each deviation is package deviation's table.
var killSetup = map[string]struct {
	ttl     time.Duration // the mock's token lifetime
	args    []string      // more flags for the run
	include []string      // more checks a quick run needs: those whose answers the catching checks judge
}{
	deviation.ExpiredTokenAccepted: {ttl: time.Second},
	deviation.LegacyAuthRefused:    {args: []string{"--legacy-auth"}, include: []string{"auth.A.token-accepted"}},
	deviation.ErrorBodyWrongShape:  {include: []string{"B.placements.unknown-id"}},
	deviation.AErrorBodyWrongShape: {include: []string{"A.school.get.unknown-id"}},
	// The rules judge what other checks send: a quick run includes a check
	// that sends it.
	deviation.RateLimitHeadersMissingOn204: {include: []string{"A.group.delete"}},
	deviation.DeleteNot204:                 {include: []string{"A.group.delete"}},
	deviation.BRareEnumRefused:             {include: []string{"B.attendanceEvents.create-delete", "B.log.create", "B.statistics.create", "B.subscriptions.lifecycle"}},
}

// fullMatrix runs every deviation against the whole suite; without it (go
// test ./..., which must stay quick) each deviation's run holds only the
// checks the table names, and a few deviations, chosen by sample, run the
// whole suite. .ci/run sets SKOLKIT_KILL_MATRIX=full.
var fullMatrix = os.Getenv("SKOLKIT_KILL_MATRIX") == "full"

// sample are the deviations that run the whole suite in a quick run, so
// that a check outside the table's that breaks a whole run is seen locally
// too.
var sample = []string{deviation.SortKeyIgnored}

func TestKillMatrixCoversEveryDeviation(t *testing.T) {
	assert.GreaterOrEqual(t, len(deviation.Names()), 20)
	checks := map[string]bool{}
	for _, c := range conformance.Catalogue() {
		checks[c.ID] = true
	}
	for _, r := range conformance.Rules(conformance.ProfileService) {
		checks[r.ID] = true
	}
	for _, d := range deviation.All() {
		if d.Pending != "" {
			assert.False(t, checks[d.Pending], "%s: %s exists now: run the kill matrix and replace Pending with the checks that catch it", d.Name, d.Pending)
			continue
		}
		assert.NotEmpty(t, d.CaughtBy, "%s: no check catches it", d.Name)
		for _, id := range d.CaughtBy {
			assert.True(t, checks[id], "%s: no check %s", d.Name, id)
		}
	}
	for name, setup := range killSetup {
		assert.True(t, deviation.Known(name), "killSetup names %s, which is no deviation", name)
		for _, id := range setup.include {
			assert.True(t, checks[id], "killSetup of %s: no check %s", name, id)
		}
	}
}

// TestKillMatrix runs the suite against the mock with each deviation
// switched on. A whole run (with SKOLKIT_KILL_MATRIX=full, and for the
// sample deviations) is both levels, the opt-in school writes and the
// deviation's own catching checks, and exactly the checks package deviation
// names must fail: a named check that passes is an error of the table, and
// so is a failing check the table does not name. A quick run (otherwise,
// and under the race detector) holds only the deviation's catching checks:
// at least one must fail and no other, but the checks that judge what the
// other checks sent (the contract, error bodies, searches over what others
// wrote) may have nothing to judge there.
func TestKillMatrix(t *testing.T) {
	catalogue := map[string]*conformance.Check{}
	for _, c := range conformance.Catalogue() {
		catalogue[c.ID] = c
	}
	for _, d := range deviation.All() {
		setup := killSetup[d.Name]
		t.Run(d.Name, func(t *testing.T) {
			if d.Pending != "" {
				t.Skipf("pending: no check catches it until the rule %s exists", d.Pending)
			}
			t.Parallel()
			srv, args := mockUnderTest(t, mockserver.Options{Deviations: []string{d.Name}, TokenTTL: setup.ttl})
			require.Contains(t, strings.Join(args, " "), "--base-url", "the mock serves interface A")
			args = append(args, recordIDs(srv)...)
			whole := !raceEnabled && (fullMatrix || slices.Contains(sample, d.Name))
			if !whole {
				write := slices.ContainsFunc(slices.Concat(d.CaughtBy, setup.include), func(id string) bool {
					return catalogue[id] != nil && catalogue[id].Level == conformance.LevelWrite
				})
				if write {
					args = append(args, "--level", "write")
				}
				for _, id := range setup.include {
					args = append(args, "--include", id)
				}
			} else {
				args = append(args, "--level", "write", "--include", "*", "--include", "A.school.create", "--include", "A.school.update")
			}
			for _, id := range d.CaughtBy { // an opt-in check runs only when named exactly
				args = append(args, "--include", id)
			}
			must := slices.ContainsFunc(d.CaughtBy, func(id string) bool {
				sev, _ := conformance.SeverityOf(id, conformance.ProfileService)
				return sev == conformance.MUST
			})
			if !must {
				args = append(args, "--fail-on", "should")
			}
			args = append(args, setup.args...)
			code, out, rep := runConformance(t, args...)
			var failed []string
			for _, r := range rep.Results {
				if r.Status == report.StatusFail {
					failed = append(failed, r.ID)
				}
			}
			var missed []string // checks that see what other checks sent (the contract, error bodies) fail only in a whole run
			if whole {
				missed = slices.DeleteFunc(slices.Clone(d.CaughtBy), func(id string) bool { return slices.Contains(failed, id) })
			}
			// A failure shows the operation it was sent to when it carries an
			// exchange of the contract (a token GET or a callback that never
			// came has none).
			if seen := failingOperations(t, rep); whole && len(seen) > 0 {
				assert.True(t, slices.ContainsFunc(d.Operations, func(op string) bool { return seen[op] }),
					"deviation %s: none of the operations package deviation names %v is among those its failures show %v", d.Name, d.Operations, slices.Sorted(maps.Keys(seen)))
			}
			extra := slices.DeleteFunc(slices.Clone(failed), func(id string) bool { return slices.Contains(d.CaughtBy, id) })
			if len(missed) > 0 || len(extra) > 0 || len(failed) == 0 {
				t.Errorf("deviation %s: package deviation names checks that did not fail %v, and does not name checks that failed %v; the checks that failed are\n\t\tCaughtBy: []string{%s},\n%s",
					d.Name, missed, extra, quoted(failed), out)
			}
			assert.Equal(t, 1, code, "exit code with a failure at the --fail-on severity")
		})
	}
}

// contractOperations is the service profile's index of the contract's
// operations.
var contractOperations = sync.OnceValues(func() (*rules.Contract, error) { return rules.LoadContract(rules.ProfileService) })

// failingOperations returns the operations of the contract that the
// exchanges of a report's failures (and the exchanges related to them) were
// sent to.
func failingOperations(t *testing.T, rep *report.Report) map[string]bool {
	t.Helper()
	contract, err := contractOperations()
	require.NoError(t, err)
	seen := map[string]bool{}
	add := func(ex *report.Exchange) {
		if ex == nil {
			return
		}
		u, err := url.Parse(ex.URL)
		if err != nil {
			return
		}
		if s, rel, ok := rules.DefaultPrefixes().Classify(u.Path); ok {
			if op, _ := contract.Match(s, ex.Method, rel); op != nil {
				seen[op.ID()] = true
			}
		}
	}
	for _, r := range rep.Results {
		if r.Status != report.StatusFail {
			continue
		}
		for _, f := range r.Failures {
			add(f.Exchange)
			for _, ex := range f.Related {
				add(ex)
			}
		}
	}
	return seen
}

// quoted renders ids as the elements of a Go []string literal.
func quoted(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
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
