package deviation

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryDeviationHasAUniqueNameADescriptionAndItsCatchingChecks(t *testing.T) {
	seen := map[string]bool{}
	surfaces := []string{SurfaceToken, SurfaceA, SurfaceB, SurfaceAB, SurfaceAExport, SurfaceExport, SurfaceAny}
	checkID := regexp.MustCompile(`^(auth|A|B|export|all|contract|paging|filters|representation|references|writes|headers|dates|errors)\.[A-Za-z0-9.-]+$`) // checks by surface, rules by family
	for _, d := range append(All(), Others()...) {
		assert.False(t, seen[d.Name], "%s is listed twice", d.Name)
		seen[d.Name] = true
		assert.NotEmpty(t, d.Description, d.Name)
		assert.NotEmpty(t, d.How, d.Name)
		assert.Contains(t, surfaces, d.Surface, d.Name)
		ids := map[string]bool{}
		for _, id := range d.CaughtBy {
			assert.Regexp(t, checkID, id, d.Name)
			assert.False(t, ids[id], "%s names %s twice", d.Name, id)
			ids[id] = true
		}
	}
	for _, d := range All() {
		assert.Regexp(t, regexp.MustCompile(`^[a-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*$`), d.Name)
		if d.Pending != "" {
			assert.Empty(t, d.CaughtBy, "%s: a pending deviation is caught by nothing yet", d.Name)
			assert.Regexp(t, regexp.MustCompile(`^[a-z]+\.[a-z0-9.-]+$`), d.Pending, "%s: Pending names a rule id, family.behaviour", d.Name)
			continue
		}
		assert.NotEmpty(t, d.CaughtBy, "%s: a deviation no check catches is a hole in the suite", d.Name)
		got, ok := Lookup(d.Name)
		assert.True(t, ok)
		assert.Equal(t, d, got)
		assert.True(t, Known(d.Name))
	}
	for _, d := range Others() {
		assert.False(t, Known(d.Name), "%s is not a switch of the mock", d.Name)
	}
	assert.Len(t, Names(), len(All()))
	assert.False(t, Known("no-such-deviation"))
}

var update = flag.Bool("update", false, "rewrite the table of deviations in docs/scenarios.md")

const (
	docBegin = "<!-- The table of deviations is generated from package deviation: go test ./deviation -update -->\n"
	docEnd   = "<!-- end of the generated table -->\n"
)

// TestScenariosDocListsEveryDeviation keeps the table of docs/scenarios.md
// what the package's table renders; -update rewrites it.
func TestScenariosDocListsEveryDeviation(t *testing.T) {
	const file = "../docs/scenarios.md"
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	doc := string(raw)
	before, rest, ok := strings.Cut(doc, docBegin)
	require.True(t, ok, "docs/scenarios.md has no line %q", docBegin)
	_, after, ok := strings.Cut(rest, docEnd)
	require.True(t, ok, "docs/scenarios.md has no line %q", docEnd)
	want := before + docBegin + Markdown(All(), false) + docEnd + after
	if *update {
		require.NoError(t, os.WriteFile(file, []byte(want), 0o644))
		return
	}
	if doc != want {
		t.Fatalf("the table of deviations in docs/scenarios.md is stale: go test ./deviation -update")
	}
}
