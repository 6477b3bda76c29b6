package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/conformance.md from the catalogue")

// TestMarkdownUpToDate fails when docs/conformance.md is not what the
// catalogue generates. Regenerate with
// go run ./cmd/skolkit conformance --list --format markdown > docs/conformance.md
// or go test ./conformance -run TestMarkdownUpToDate -update.
func TestMarkdownUpToDate(t *testing.T) {
	if *update {
		require.NoError(t, os.WriteFile("../docs/conformance.md", []byte(Markdown()), 0o644))
	}
	have, err := os.ReadFile("../docs/conformance.md")
	require.NoError(t, err)
	if string(have) != Markdown() {
		t.Fatalf("docs/conformance.md is stale: regenerate it with\n  go run ./cmd/skolkit conformance --list --format markdown > docs/conformance.md")
	}
}

func TestListFormats(t *testing.T) {
	for _, f := range ListFormats {
		var b bytes.Buffer
		require.NoError(t, WriteList(&b, f), f)
		assert.Contains(t, b.String(), "paging.walk-without-repeats", f)
	}
	assert.Error(t, WriteList(io.Discard, "pdf"))
	md := Markdown()
	assert.Contains(t, md, "## Spec statements no check covers yet")
	assert.Contains(t, md, fmt.Sprintf("%d checks", len(Catalogue())))
}
