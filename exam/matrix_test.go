package exam_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
)

var matrix = flag.Bool("matrix", false, "print the reference clients' matrix (client × scene × finding) of docs/exam.md: every client through every scene of incremental-sync")

// TestReferenceMatrix prints the table of docs/exam.md: each reference
// client, correct or with one defect, through every scene of
// incremental-sync, and the kinds of finding each scene had. It runs only
// with -matrix (some minutes): go test ./exam -run TestReferenceMatrix -matrix -v
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
	fmt.Println(b.String())
}
