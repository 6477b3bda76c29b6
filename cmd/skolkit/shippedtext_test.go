package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notShipped matches citations of files a user of skolkit does not have:
// the project's working documents beside the repository and paths of the
// machine it was built on.
var notShipped = regexp.MustCompile(`shared/(spec|reference)|/work/|\bFACTS\.md|\bSOURCE\.txt|\bDESIGN\.md|\bSTYLE\.md|service-interfaces\.md`)

// repoPath matches a path into the repository, as docs cite files.
var repoPath = regexp.MustCompile(`\b((?:cmd|docs|openapi|mockserver|conformance|scenarios|fixtures|model|examples|deviation|\.ci)/[A-Za-z0-9_./-]*[A-Za-z0-9_-](?:\.go|\.md|\.yaml|\.yml|\.json|\.sh)?)\b`)

// TestShippedTextCitesOnlyFilesUsersHave reads what a user gets (the README,
// docs/, the contract documents, the example files, the Go doc comments and
// the command's output) and fails on a citation of a file that the user
// does not have, or of a repository path that does not exist.
func TestShippedTextCitesOnlyFilesUsersHave(t *testing.T) {
	root := filepath.Join("..", "..")
	texts := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." && rel != ".ci" || d.Name() == "testdata" || rel == "dist" || rel == filepath.Join(".ci", "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
			return nil // tests may read the working documents, and say so
		case filepath.ToSlash(rel) == "internal/reference/reference.go":
			return nil // the tests' finder of the working documents names where it looks
		case strings.HasSuffix(path, ".go"), strings.HasSuffix(path, ".md"), strings.HasSuffix(path, ".yaml"),
			strings.HasSuffix(path, ".yml"), strings.HasSuffix(path, ".sh"), d.Name() == "Dockerfile", rel == filepath.Join(".ci", "run"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			texts[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, texts, "README.md")
	for _, args := range [][]string{{"spec"}, {"scenarios", "list"}, {"conformance", "--list"}, {"help"}, {"serve", "-h"}, {"generate", "-h"}} {
		_, out, errOut := runCLI(args...)
		texts["skolkit "+strings.Join(args, " ")] = out + errOut
	}
	for name, text := range texts {
		for i, line := range strings.Split(text, "\n") {
			if m := notShipped.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which users do not have: %s", name, i+1, m, strings.TrimSpace(line))
			}
			if !strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, "skolkit ") {
				continue
			}
			for _, loc := range repoPath.FindAllStringSubmatchIndex(line, -1) {
				if end := loc[3]; end < len(line) && strings.ContainsAny(line[end:end+1], "/*") {
					continue // a glob or a folder of another repository
				}
				if start := loc[2]; start > 0 && line[start-1] == '/' {
					continue // a path in a URL
				}
				p := line[loc[2]:loc[3]]
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s:%d cites %s, which is not in the repository", name, i+1, p)
				}
			}
		}
	}
	assert.NotEmpty(t, texts)
}
