package exam_test

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the catalogue of scenes and findings in docs/exam.md")

const (
	catalogueBegin = "<!-- generated: go run ./cmd/skolkit exam --list --format markdown (go test ./exam -update-docs) -->\n"
	catalogueEnd   = "<!-- end of the generated catalogue -->\n"
)

// docs/exam.md shows the catalogue of scenes and findings as skolkit exam
// --list --format markdown prints it.
func TestDocsShowTheCatalogue(t *testing.T) {
	const file = "../docs/exam.md"
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc := string(data)
	before, rest, ok := strings.Cut(doc, catalogueBegin)
	require.True(t, ok, "docs/exam.md has no line %q", catalogueBegin)
	_, after, ok := strings.Cut(rest, catalogueEnd)
	require.True(t, ok, "docs/exam.md has no line %q", catalogueEnd)
	var b bytes.Buffer
	require.NoError(t, exam.WriteCatalogue(&b, "markdown"))
	want := before + catalogueBegin + "\n" + b.String() + "\n" + catalogueEnd + after
	if *updateDocs {
		require.NoError(t, os.WriteFile(file, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, doc, "docs/exam.md's catalogue is stale: go test ./exam -run TestDocsShowTheCatalogue -update-docs")
}
