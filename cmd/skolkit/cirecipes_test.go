package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// recipeScripts returns the shell lines of a CI recipe: GitHub Actions
// steps' run, GitLab jobs' before_script, script and after_script. Lines
// continued with a backslash are joined.
func recipeScripts(t *testing.T, doc map[string]any, gitlab bool) []string {
	t.Helper()
	var chunks []string
	if gitlab {
		for name, v := range doc {
			job, ok := v.(map[string]any)
			if !ok || strings.HasPrefix(name, ".") {
				continue
			}
			for _, key := range []string{"before_script", "script", "after_script"} {
				lines, _ := job[key].([]any)
				for _, l := range lines {
					chunks = append(chunks, l.(string))
				}
			}
		}
	} else {
		jobs, _ := doc["jobs"].(map[string]any)
		for _, j := range jobs {
			steps, _ := j.(map[string]any)["steps"].([]any)
			for _, s := range steps {
				if run, ok := s.(map[string]any)["run"].(string); ok {
					chunks = append(chunks, run)
				}
			}
		}
	}
	var lines []string
	for _, c := range chunks {
		lines = append(lines, strings.Split(strings.ReplaceAll(c, "\\\n", " "), "\n")...)
	}
	return lines
}

// commandFlags returns the flags a command's -h lists.
func commandFlags(t *testing.T, cmd string) []string {
	t.Helper()
	code, out, errOut := runCLI(cmd, "-h")
	require.Equal(t, 0, code, "skolkit %s -h", cmd)
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(out+errOut, -1) {
		flags = append(flags, m[1])
	}
	require.NotEmpty(t, flags, cmd)
	return flags
}

// TestCIRecipes holds the CI recipes of examples/ci (docs/ci.md) to what
// they claim: each parses and has the structure its CI wants, every skolkit
// command line in them uses only commands and flags that exist, the
// conformance and exam recipes publish the JUnit file they write, the
// conformance recipes take the secret from the CI's secret store, never from
// the command line. .ci/run also lints the GitHub workflows with actionlint.
func TestCIRecipes(t *testing.T) {
	files, err := filepath.Glob("../../examples/ci/*/*.yml")
	require.NoError(t, err)
	require.Len(t, files, 6, "three GitHub workflows and three GitLab jobs")
	flags := map[string][]string{}
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, yaml.Unmarshal(data, &doc))
			gitlab := strings.HasSuffix(file, ".gitlab-ci.yml")
			if gitlab {
				stages, _ := doc["stages"].([]any)
				require.NotEmpty(t, stages, "stages")
				jobs := 0
				for name, v := range doc {
					job, ok := v.(map[string]any)
					if !ok || name == "variables" || name == "default" || name == "workflow" {
						continue
					}
					jobs++
					assert.Contains(t, stages, job["stage"], "%s: its stage is listed", name)
					assert.NotEmpty(t, job["script"], "%s: script", name)
					assert.NotEmpty(t, job["image"], "%s: image", name)
				}
				assert.Equal(t, 1, jobs)
			} else {
				assert.NotEmpty(t, doc["on"], "on")
				jobs, _ := doc["jobs"].(map[string]any)
				require.NotEmpty(t, jobs)
				for name, j := range jobs {
					job := j.(map[string]any)
					assert.NotEmpty(t, job["runs-on"], "%s: runs-on", name)
					for i, s := range job["steps"].([]any) {
						step := s.(map[string]any)
						assert.True(t, step["run"] != nil || step["uses"] != nil, "%s: step %d runs or uses something", name, i)
					}
				}
			}

			lines := recipeScripts(t, doc, gitlab)
			var skolkitLines []string
			for _, l := range lines {
				fields := strings.Fields(l)
				if len(fields) > 0 && fields[0] == "nohup" {
					fields = fields[1:]
				}
				if len(fields) < 2 || fields[0] != "skolkit" {
					continue
				}
				// A client command after -- is the client's own.
				if i := slices.Index(fields, "--"); i >= 0 {
					fields = fields[:i]
				}
				skolkitLines = append(skolkitLines, l)
				cmd := fields[1]
				if _, ok := commands[cmd]; !ok {
					t.Errorf("%q: no command %q", l, cmd)
					continue
				}
				if flags[cmd] == nil {
					flags[cmd] = commandFlags(t, cmd)
				}
				for _, f := range fields[2:] {
					if name, ok := strings.CutPrefix(f, "-"); ok && name != "" && !strings.HasPrefix(f, "-->") {
						name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
						assert.Contains(t, flags[cmd], name, "%q: skolkit %s has no flag -%s", l, cmd, name)
					}
				}
			}
			require.NotEmpty(t, skolkitLines, "the recipe runs skolkit")
			text := string(data)

			// skolkit is installed at a pinned release, named once.
			assert.Regexp(t, `(?m)^\s+SKOLKIT_VERSION: v[0-9]+\.[0-9]+\.[0-9]+\s*$`, text, "the recipe pins the skolkit release")
			installs := 0
			for _, l := range lines {
				if strings.Contains(l, "go install") && strings.Contains(l, "github.com/skolkit/skolkit/cmd/skolkit") {
					installs++
					assert.Regexp(t, `cmd/skolkit@\$\{?SKOLKIT_VERSION\}?"?(\s|$)`, l, "install the pinned release, never @latest")
				}
			}
			assert.Equal(t, 1, installs, "skolkit is installed once")
			if !gitlab {
				// setup-go caches by the repository's go.sum: without a checkout
				// there is none (and a warning on every run).
				jobs, _ := doc["jobs"].(map[string]any)
				for name, j := range jobs {
					checkedOut := false
					for _, st := range j.(map[string]any)["steps"].([]any) {
						step := st.(map[string]any)
						uses, _ := step["uses"].(string)
						if strings.HasPrefix(uses, "actions/checkout@") {
							checkedOut = true
						}
						if strings.HasPrefix(uses, "actions/setup-go@") {
							with, _ := step["with"].(map[string]any)
							assert.True(t, checkedOut || with["cache"] == false, "%s: setup-go caches by a go.sum it has not checked out", name)
						}
					}
				}
			}

			assert.NotContains(t, text, "--client-secret", "secrets stay off the command line")
			if strings.HasPrefix(filepath.Base(file), "exam") {
				m := regexp.MustCompile(`--report junit=(\S+)`).FindStringSubmatch(strings.Join(skolkitLines, "\n"))
				require.NotNil(t, m, "the exam writes a JUnit report")
				if gitlab {
					job := doc["client-exam"].(map[string]any)
					reports := job["artifacts"].(map[string]any)["reports"].(map[string]any)
					assert.Equal(t, m[1], reports["junit"], "GitLab shows the JUnit file the exam writes")
				} else {
					assert.Regexp(t, `report_paths: `+regexp.QuoteMeta(m[1])+`\n`, text, "the published JUnit file is the one the exam writes")
				}
				assert.True(t, slices.ContainsFunc(skolkitLines, func(l string) bool { return strings.Contains(l, " -- ") }), "the exam runs a client command")
				return
			}
			if strings.Contains(file, "conformance") {
				m := regexp.MustCompile(`--report junit=(\S+)`).FindStringSubmatch(strings.Join(skolkitLines, "\n"))
				require.NotNil(t, m, "the conformance run writes a JUnit report")
				assert.Regexp(t, `skolkit conformance .*--min-checks [1-9][0-9]*`, strings.Join(skolkitLines, "\n"), "a floor of decided checks, so that a run that tested little fails")
				junit := m[1]
				if gitlab {
					job := doc["conformance-staging"].(map[string]any)
					reports := job["artifacts"].(map[string]any)["reports"].(map[string]any)
					assert.Equal(t, junit, reports["junit"], "GitLab shows the JUnit file the run writes")
					assert.Contains(t, text, "SKOLKIT_CLIENT_SECRET  masked")
				} else {
					assert.Regexp(t, `report_paths: `+regexp.QuoteMeta(junit)+`\n`, text, "the published JUnit file is the one the run writes")
					assert.Contains(t, text, "SKOLKIT_CLIENT_SECRET: ${{ secrets.SKOLKIT_CLIENT_SECRET }}")
				}
			} else {
				assert.True(t, slices.ContainsFunc(skolkitLines, func(l string) bool { return strings.Contains(l, "skolkit serve") }), "the mock is started")
				assert.Contains(t, text, "/healthz", "the tests wait until the mock is ready")
			}
		})
	}
}
