package exam_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
)

var matrix = flag.Bool("matrix", false, "print the reference clients' matrix (client × scene × finding) of docs/exam.md: every client through every scene of incremental-sync")

// caughtBy names, for each defect, the scene whose behaviour it does not
// cope with and the finding named for it there.
var caughtBy = map[refclient.Defect]struct{ scene, finding string }{
	refclient.PageTokenWithFilters:    {exam.ScenePlain, "client.pagetoken-with-filters"},
	refclient.FirstPageOnly:           {exam.ScenePlain, "client.walk-abandoned"},
	refclient.Ignores429:              {exam.SceneRateLimit, "client.ratelimit-before-reset"},
	refclient.NeverRenewsToken:        {exam.SceneTokenExpiry, "client.token-after-refusal"},
	refclient.CrashesOnAbsentOptional: {exam.SceneSparse, "exam.client.exit-status"},
	refclient.IgnoresDeletions:        {exam.ScenePlain, "exam.incremental.deletion-missed"},
	refclient.RereadsEverything:       {exam.ScenePlain, "exam.efficiency.rereads"},
}

// TestReferenceMatrix runs each reference client, correct or with one
// defect, through every scene of incremental-sync: the correct clients are
// clean everywhere, each broken one is caught by the finding named for its
// defect in the scene whose behaviour it does not cope with. With -v it
// prints the table of docs/exam.md. It runs only with -matrix (some
// minutes; .ci/run runs it): go test ./exam -timeout 30m -run TestReferenceMatrix -matrix -v
func TestReferenceMatrix(t *testing.T) {
	if !*matrix {
		t.Skip("run with -matrix to print the reference clients' matrix")
	}
	var b strings.Builder
	names := exam.SceneNames()
	fmt.Fprintf(&b, "| client | %s | exit |\n|---|%s---|\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, iface := range []string{"B", "A"} {
		for _, d := range append([]refclient.Defect{refclient.Correct}, refclient.Defects...) {
			if d == refclient.PageTokenWithFilters && iface == "A" {
				continue // interface A pages by offset: it has no pageToken to send filters with
			}
			res, err := exam.Run(context.Background(), exam.Config{Task: exam.TaskIncrementalSync}, syncClient(iface, d))
			require.NoError(t, err)
			require.Empty(t, res.Incomplete)
			if d == refclient.Correct {
				assert.Empty(t, res.Findings(), "interface %s: a correct client is never accused:%s", iface, describe(res.Findings()))
			} else {
				want := caughtBy[d]
				assert.True(t, slices.ContainsFunc(res.Findings(), func(f exam.Finding) bool { return f.Scene == want.scene && f.ID == want.finding }),
					"%s, interface %s: no %s in %s:%s", d, iface, want.finding, want.scene, describe(res.Findings()))
			}
			name := string(d)
			if d == refclient.Correct {
				name = "correct"
			}
			row := []string{fmt.Sprintf("%s, interface %s", name, iface)}
			for _, s := range res.Scenes {
				var ids []string
				for _, f := range s.Findings {
					id := "`" + f.ID + "`"
					if f.Verdict == exam.VerdictNote {
						id += " (note)"
					}
					if !slices.Contains(ids, id) {
						ids = append(ids, id)
					}
				}
				slices.Sort(ids)
				cell := "clean"
				if len(ids) > 0 {
					cell = strings.Join(ids, "<br>")
				}
				row = append(row, cell)
			}
			fmt.Fprintf(&b, "| %s | %d |\n", strings.Join(row, " | "), res.ExitCode())
		}
	}
	t.Log("\n" + b.String())
}
