// Package docs holds the tests of the repository's documents.
package docs

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the table of contents of docs/decisions.md")

const (
	tocBegin = "<!-- The table of contents is generated: go test ./docs -update -->\n"
	tocEnd   = "<!-- end of the table of contents -->\n"
)

var (
	anchorLine = regexp.MustCompile(`^<a id="([^"]*)"></a>$`)
	anchorName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	localLink  = regexp.MustCompile(`\]\(#([^)]*)\)`)
	citation   = regexp.MustCompile(`decisions\.md#([A-Za-z0-9_-]+)`)
	specField  = regexp.MustCompile(`\bDecision:\s*"([^"]*)"`)
	narration  = regexp.MustCompile(`(?i)\b(issue [0-9]+|revised (in|by)|revises)\b`)
	history    = regexp.MustCompile(`(?i)\b(issue[ ][0-9]+|before[ ]the[ ]split|now[ ]that)\b`)
)

// heading is a section (level 2) or a decision (level 3) of decisions.md.
type heading struct {
	level         int
	title, anchor string
}

// readDecisions returns the text of decisions.md, its headings with their
// anchors, and every explicit anchor with the line it is on.
func readDecisions(t *testing.T) (string, []heading, map[string]int) {
	t.Helper()
	raw, err := os.ReadFile("decisions.md")
	require.NoError(t, err)
	text := string(raw)
	var hs []heading
	anchors := map[string]int{}
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		if m := anchorLine.FindStringSubmatch(line); m != nil {
			if prev, ok := anchors[m[1]]; ok {
				t.Errorf("decisions.md:%d: anchor %q is used on line %d too", i+1, m[1], prev)
			}
			anchors[m[1]] = i + 1
			assert.Regexp(t, anchorName, m[1], "decisions.md:%d: an anchor is lower-case words joined by hyphens", i+1)
		}
		level := 0
		switch {
		case strings.HasPrefix(line, "### "):
			level = 3
		case strings.HasPrefix(line, "## "):
			level = 2
		case strings.HasPrefix(line, "#### "):
			t.Errorf("decisions.md:%d: only sections (##) and decisions (###) are headings: %s", i+1, line)
		}
		if level == 0 {
			continue
		}
		var anchor string
		if i > 0 {
			if m := anchorLine.FindStringSubmatch(lines[i-1]); m != nil {
				anchor = m[1]
			}
		}
		if anchor == "" {
			t.Errorf("decisions.md:%d: %q has no <a id=\"…\"></a> line just before it", i+1, line)
		}
		hs = append(hs, heading{level: level, title: strings.TrimSpace(line[level+1:]), anchor: anchor})
	}
	return text, hs, anchors
}

// toc renders the table of contents: each section, and under it its
// decisions.
func toc(hs []heading) string {
	var b strings.Builder
	for _, h := range hs {
		indent := ""
		if h.level == 3 {
			indent = "  "
		}
		fmt.Fprintf(&b, "%s- [%s](#%s)\n", indent, h.title, h.anchor)
	}
	return b.String()
}

// TestDecisionsTableOfContents keeps the table of contents of decisions.md
// what its headings say; -update rewrites it.
func TestDecisionsTableOfContents(t *testing.T) {
	text, hs, _ := readDecisions(t)
	require.NotEmpty(t, hs)
	before, rest, ok := strings.Cut(text, tocBegin)
	require.True(t, ok, "decisions.md has no line %q", tocBegin)
	_, after, ok := strings.Cut(rest, tocEnd)
	require.True(t, ok, "decisions.md has no line %q", tocEnd)
	want := before + tocBegin + toc(hs) + tocEnd + after
	if *update {
		require.NoError(t, os.WriteFile("decisions.md", []byte(want), 0o644))
		return
	}
	if text != want {
		t.Fatalf("the table of contents of docs/decisions.md is stale: go test ./docs -update")
	}
}

// TestDecisionsDescribeThePresent keeps decisions.md organised by topic and
// stated as the decisions stand: no section titled by an issue, no history
// of revisions.
func TestDecisionsDescribeThePresent(t *testing.T) {
	text, hs, _ := readDecisions(t)
	for _, h := range hs {
		assert.NotRegexp(t, regexp.MustCompile(`(?i)issue`), h.title, "a section or decision is titled by its topic")
	}
	for i, line := range strings.Split(text, "\n") {
		if m := narration.FindString(line); m != "" {
			t.Errorf("decisions.md:%d: %q: state the decision as it stands; its history is in git", i+1, m)
		}
	}
}

// TestCitedDecisionsExist checks that every link inside decisions.md, every
// docs/decisions.md#<anchor> cited anywhere in the repository, and every
// decision a check or rule relies on (the Decision of its Spec), names
// an anchor of decisions.md.
func TestCitedDecisionsExist(t *testing.T) {
	text, _, anchors := readDecisions(t)
	for _, m := range localLink.FindAllStringSubmatch(text, -1) {
		if _, ok := anchors[m[1]]; !ok {
			t.Errorf("decisions.md links to #%s, which it does not have", m[1])
		}
	}
	cited := 0
	eachLine(t, func(path string, n int, line string) {
		for _, m := range citation.FindAllStringSubmatch(line, -1) {
			cited++
			if _, ok := anchors[m[1]]; !ok {
				t.Errorf("%s:%d cites docs/decisions.md#%s, which does not exist", path, n, m[1])
			}
		}
		if filepath.Ext(path) != ".go" {
			return
		}
		for _, m := range specField.FindAllStringSubmatch(line, -1) {
			cited++
			if _, ok := anchors[m[1]]; !ok {
				t.Errorf("%s:%d: Decision %q is not an anchor of docs/decisions.md", path, n, m[1])
			}
		}
	})
	t.Logf("%d citations of docs/decisions.md#… checked", cited)
}

// TestNothingNarratesHistory keeps code, comments and documents about what
// is: no issue numbers, no account of how the code came to be (history is
// in git).
func TestNothingNarratesHistory(t *testing.T) {
	eachLine(t, func(path string, n int, line string) {
		if m := history.FindString(line); m != "" {
			t.Errorf("%s:%d: %q: say what is and why; its history is in git", path, n, m)
		}
	})
}

// eachLine calls fn with every line of the repository's code and
// documents, testdata and hidden directories (but .ci) aside.
func eachLine(t *testing.T, fn func(path string, n int, line string)) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") && name != ".ci" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".yaml", ".yml", ".html", ".tmpl", ".sh", ".py":
		default:
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			fn(path, i+1, line)
		}
		return nil
	})
	require.NoError(t, err)
}
