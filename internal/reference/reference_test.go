package reference

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outcome records what Path did to a test instead of doing it.
type outcome struct {
	testing.TB
	skipped, failed string
}

func (o *outcome) Helper()                           {}
func (o *outcome) Skip(args ...any)                  { o.skipped = fmt.Sprint(args...) }
func (o *outcome) Fatalf(format string, args ...any) { o.failed = fmt.Sprintf(format, args...) }

func TestPath(t *testing.T) {
	dir := t.TempDir()
	doc := Document{Path: "kind/doc.yaml", What: "a document for this test, from https://example.org/doc"}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "kind"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kind", "doc.yaml"), []byte("x"), 0o644))
	absent := Document{Path: "kind/absent.yaml", What: doc.What}

	for _, tc := range []struct {
		name, dir, ci string
		doc           Document
		found         bool
		skipped       bool
	}{
		{"found in the folder the variable names", dir, "", doc, true, false},
		{"found in the folder the variable names, in CI", dir, "true", doc, true, false},
		{"absent: skips and says how to get it", dir, "", absent, false, true},
		{"absent with CI=false: skips", dir, "false", absent, false, true},
		{"absent in CI: fails", dir, "true", absent, false, false},
		{"no variable, absent beside the clone: skips", "", "", absent, false, true},
		{"no variable, absent beside the clone, in CI: fails", "", "1", absent, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvDir, tc.dir)
			t.Setenv("CI", tc.ci)
			o := &outcome{TB: t}
			got := Path(o, tc.doc)
			if tc.found {
				assert.Equal(t, filepath.Join(dir, "kind", "doc.yaml"), got)
				assert.Empty(t, o.skipped+o.failed)
				return
			}
			assert.Empty(t, got)
			msg := o.skipped
			if tc.skipped {
				assert.Empty(t, o.failed)
			} else {
				assert.Empty(t, o.skipped)
				msg = o.failed
				assert.Contains(t, msg, "CI is set")
			}
			assert.Contains(t, msg, "https://example.org/doc", "says where the document comes from")
			assert.Contains(t, msg, EnvDir+"=", "says how to point the tests at it")
			assert.Contains(t, msg, "kind/absent.yaml", "says where in the folder it goes")
		})
	}
}
