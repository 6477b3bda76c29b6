package exam_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
	"github.com/skolkit/skolkit/rules"
	"github.com/skolkit/skolkit/scenarios"
)

// envEcho makes the test binary, run as a client command, append what it
// was given (its arguments, working directory and the SKOLKIT_ variables)
// as a JSON line to the file it names, before it syncs.
const envEcho = "SKOLKIT_EXAM_TEST_ECHO"

func TestMain(m *testing.M) {
	if os.Getenv(refclient.EnvInterface) != "" {
		if file := os.Getenv(envEcho); file != "" {
			echo(file)
		}
		os.Exit(refclient.Main(os.Stderr))
	}
	os.Exit(m.Run())
}

// echoed is what a client command was given.
type echoed struct {
	Args []string          `json:"args"`
	Dir  string            `json:"dir"`
	Env  map[string]string `json:"env"`
}

func echo(file string) {
	wd, _ := os.Getwd()
	e := echoed{Args: os.Args[1:], Dir: wd, Env: map[string]string{}}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SKOLKIT_") {
			e.Env[k] = v
		}
	}
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	f.Write(append(b, '\n'))
}

// syncClient is a reference client as a Go function.
func syncClient(iface string, d refclient.Defect) exam.Func {
	return func(ctx context.Context, r exam.Round) error {
		cfg := refclient.Config{TokenURL: r.Env.TokenURL, RegisterURL: r.Env.RegisterURL, BaseURL: r.Env.BaseURL,
			ClientID: r.Env.ClientID, ClientSecret: r.Env.ClientSecret, Dir: r.Dir, Defect: d}
		if iface == "A" {
			return refclient.SyncA(ctx, cfg)
		}
		return refclient.SyncB(ctx, cfg)
	}
}

func scenes(t *testing.T, names ...string) []exam.Scene {
	t.Helper()
	s, err := exam.SelectScenes(names)
	require.NoError(t, err)
	return s
}

// describe lists findings for a failure message.
func describe(fs []exam.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s round %d (%s): %s", f.Scene, f.ID, f.Round, f.Verdict, f.Message)
	}
	return b.String()
}

// judged reports whether a client rule had something to look at in a
// scene.
func judged(s exam.SceneResult, rule string) bool {
	for _, rc := range s.Coverage.Rules {
		if rc.Rule.ID == rule {
			return !rc.Nothing()
		}
	}
	return false
}

func TestCorrectClientsAreCleanInEveryScene(t *testing.T) {
	for _, task := range exam.Tasks {
		for _, iface := range []string{"B", "A"} {
			t.Run(fmt.Sprintf("interface %s, %s", iface, task), func(t *testing.T) {
				t.Parallel()
				res, err := exam.Run(context.Background(), exam.Config{Task: task, Rounds: 2}, syncClient(iface, refclient.Correct))
				require.NoError(t, err)
				require.Empty(t, res.Incomplete)
				assert.Empty(t, res.Findings(), "a correct client is never accused, not even of a note:%s", describe(res.Findings()))
				assert.Equal(t, 0, res.ExitCode())
				require.Len(t, res.Scenes, len(exam.Scenes()))
				for _, s := range res.Scenes {
					for _, r := range s.Rounds {
						assert.Positive(t, r.Authenticated, "%s round %d", s.Scene.Name, r.Number)
					}
					// Every scene played its behaviour: the rules it is for
					// had something to look at.
					assert.True(t, judged(s, "client.walk-abandoned"), "%s: no walk ended", s.Scene.Name)
					switch s.Scene.Name {
					case exam.SceneRateLimit:
						assert.True(t, judged(s, "client.ratelimit-before-reset"), "the client met no 429")
					case exam.SceneTokenExpiry:
						assert.True(t, judged(s, "client.token-after-refusal"), "no token expired")
					case exam.SceneFaults:
						assert.True(t, judged(s, "client.retry-storm"), "the client met no 5xx")
					case exam.ScenePaging:
						assert.True(t, slices.ContainsFunc(s.Changes, func(c string) bool { return strings.HasPrefix(c, "during round 1") }),
							"no record changed between pages: %v", s.Changes)
					}
					if task == exam.TaskIncrementalSync {
						assert.True(t, slices.ContainsFunc(s.Changes, func(c string) bool { return strings.HasPrefix(c, "before round 2: delete") }),
							"%s: nothing was deleted before round 2: %v", s.Scene.Name, s.Changes)
					}
				}
			})
		}
	}
}

// The matrix of broken clients: each defect is caught by the finding
// named for it, in the scene whose behaviour it does not cope with, and
// (where the defect shows only there) not in plain, which names that
// scene's behaviour as the cause.
func TestBrokenClientsAreCaughtByTheirFindings(t *testing.T) {
	for _, tc := range []struct {
		defect refclient.Defect
		iface  string
		task   exam.Task
		scene  string // where the finding shows; plain runs too
		want   []string
		exit   int
	}{
		{refclient.PageTokenWithFilters, "B", exam.TaskFullSync, exam.ScenePlain, []string{"client.pagetoken-with-filters", "client.walk-abandoned", "exam.client.exit-status"}, 1},
		{refclient.FirstPageOnly, "B", exam.TaskFullSync, exam.ScenePlain, []string{"client.walk-abandoned", "exam.completeness.missing"}, 1},
		{refclient.FirstPageOnly, "A", exam.TaskFullSync, exam.ScenePlain, []string{"client.walk-abandoned", "exam.completeness.missing"}, 1},
		{refclient.Ignores429, "B", exam.TaskFullSync, exam.SceneRateLimit, []string{"client.ratelimit-before-reset"}, 1},
		{refclient.Ignores429, "A", exam.TaskFullSync, exam.SceneRateLimit, []string{"client.ratelimit-before-reset"}, 1},
		{refclient.NeverRenewsToken, "B", exam.TaskFullSync, exam.SceneTokenExpiry, []string{"client.token-after-refusal", "exam.completeness.missing"}, 1},
		{refclient.NeverRenewsToken, "A", exam.TaskFullSync, exam.SceneTokenExpiry, []string{"client.token-after-refusal", "exam.completeness.missing"}, 1},
		{refclient.CrashesOnAbsentOptional, "B", exam.TaskFullSync, exam.SceneSparse, []string{"exam.client.exit-status", "exam.completeness.missing"}, 1},
		// Its first page held every school: all was delivered, the client
		// fell over reading it.
		{refclient.CrashesOnAbsentOptional, "A", exam.TaskFullSync, exam.SceneSparse, []string{"exam.client.exit-status"}, 1},
		{refclient.IgnoresDeletions, "B", exam.TaskIncrementalSync, exam.ScenePlain, []string{"exam.incremental.deletion-missed"}, 1},
		{refclient.IgnoresDeletions, "A", exam.TaskIncrementalSync, exam.ScenePlain, []string{"exam.incremental.deletion-missed"}, 1},
		{refclient.RereadsEverything, "B", exam.TaskIncrementalSync, exam.ScenePlain, []string{"exam.efficiency.rereads"}, 0},
		{refclient.RereadsEverything, "A", exam.TaskIncrementalSync, exam.ScenePlain, []string{"exam.efficiency.rereads"}, 0},
	} {
		t.Run(fmt.Sprintf("%s, interface %s", tc.defect, tc.iface), func(t *testing.T) {
			t.Parallel()
			names := []string{exam.ScenePlain}
			if tc.scene != exam.ScenePlain {
				names = append(names, tc.scene)
			}
			res, err := exam.Run(context.Background(), exam.Config{Task: tc.task, Rounds: 2, Scenes: scenes(t, names...)}, syncClient(tc.iface, tc.defect))
			require.NoError(t, err)
			require.Empty(t, res.Incomplete)
			found := map[string][]exam.Finding{}
			for _, f := range res.Findings() {
				found[f.Scene] = append(found[f.Scene], f)
			}
			for _, id := range tc.want {
				assert.True(t, slices.ContainsFunc(found[tc.scene], func(f exam.Finding) bool { return f.ID == id }),
					"%s: no %s in %s:%s", tc.defect, id, tc.scene, describe(res.Findings()))
			}
			if tc.scene != exam.ScenePlain {
				assert.Empty(t, found[exam.ScenePlain], "the defect shows only in %s:%s", tc.scene, describe(found[exam.ScenePlain]))
				for _, f := range found[tc.scene] {
					assert.Equal(t, tc.scene, f.Scene)
					assert.NotEmpty(t, f.Cause, "%s names no cause", f.ID)
				}
			}
			for _, f := range res.Findings() {
				assert.NotEmpty(t, f.Spec.Quote, "%s quotes no sentence", f.ID)
				if f.ID == "exam.efficiency.rereads" {
					assert.Equal(t, exam.VerdictNote, f.Verdict, "re-reading is a note, not a fault")
				}
			}
			assert.Equal(t, tc.exit, res.ExitCode(), describe(res.Findings()))
		})
	}
}

func TestAClientThatFailsOrSendsNothing(t *testing.T) {
	t.Run("an error is exit status 1 and a finding", func(t *testing.T) {
		res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes(t, exam.ScenePlain)}, exam.Func(func(ctx context.Context, r exam.Round) error {
			if err := syncClient("B", refclient.Correct)(ctx, r); err != nil {
				return err
			}
			return errors.New("the client's own check failed")
		}))
		require.NoError(t, err)
		require.Len(t, res.Findings(), 1, describe(res.Findings()))
		f := res.Findings()[0]
		assert.Equal(t, "exam.client.exit-status", f.ID)
		assert.Contains(t, f.Message, "the client's own check failed")
		assert.Equal(t, 1, res.ExitCode())
	})
	t.Run("a client that never authenticates cannot be judged", func(t *testing.T) {
		res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes(t, exam.ScenePlain)}, exam.Func(func(ctx context.Context, r exam.Round) error { return nil }))
		require.NoError(t, err)
		assert.Equal(t, 2, res.ExitCode())
		require.Len(t, res.Incomplete, 1)
		assert.Contains(t, res.Incomplete[0], "no authenticated request")
	})
	t.Run("a command that does not exist stops the exam", func(t *testing.T) {
		res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes(t, exam.ScenePlain, exam.SceneSparse)}, &exam.Command{Path: "./no-such-client"})
		require.NoError(t, err)
		assert.Equal(t, 2, res.ExitCode())
		require.NotEmpty(t, res.Incomplete)
		assert.Contains(t, res.Incomplete[0], "no-such-client")
		assert.Len(t, res.Scenes, 1, "the exam stops at the first scene")
	})
	t.Run("a scenario with behaviours of its own is refused", func(t *testing.T) {
		sc := mustScenario(t, "rate-limited")
		sc.Behaviours.Deviations = []string{"expand-ignored"}
		_, err := exam.Run(context.Background(), exam.Config{Scenario: sc, Scenes: scenes(t, exam.ScenePlain)}, syncClient("B", refclient.Correct))
		require.ErrorIs(t, err, exam.ErrScenario)
	})
}

// A command gets the round in its environment and its arguments, runs in
// the scene's working directory, kept between the scene's rounds and new
// for the next scene.
func TestACommandGetsTheRoundAndKeepsItsDirectory(t *testing.T) {
	file := t.TempDir() + "/echo.jsonl"
	cmd := &exam.Command{Path: os.Args[0], Args: []string{"--url={register_url}", "{base_url}", "{token_url}", "{client_id}:{client_secret}", "{scene}/{round}"},
		Env: []string{refclient.EnvInterface + "=B", envEcho + "=" + file}}
	res, err := exam.Run(context.Background(), exam.Config{Task: exam.TaskIncrementalSync, Rounds: 2, Scenes: scenes(t, exam.ScenePlain, exam.SceneSparse)}, cmd)
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode(), describe(res.Findings()))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var runs []echoed
	for line := range strings.Lines(string(data)) {
		var e echoed
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		runs = append(runs, e)
	}
	require.Len(t, runs, 4)
	env := runs[0].Env
	assert.Equal(t, []string{"--url=" + env["SKOLKIT_REGISTER_URL"], env["SKOLKIT_BASE_URL"], env["SKOLKIT_TOKEN_URL"],
		env["SKOLKIT_CLIENT_ID"] + ":" + env["SKOLKIT_CLIENT_SECRET"], "plain/1"}, runs[0].Args)
	assert.Equal(t, env["SKOLKIT_AUTH_URL"]+"/oauth/token", env["SKOLKIT_TOKEN_URL"])
	assert.Equal(t, env["SKOLKIT_AUTH_URL"]+"/api/v1", env["SKOLKIT_REGISTER_URL"])
	assert.Equal(t, env["SKOLKIT_AUTH_URL"]+"/directory/v1", env["SKOLKIT_BASE_URL"])
	assert.Equal(t, "skolkit-client", env["SKOLKIT_CLIENT_ID"])
	for i, want := range []struct{ scene, round string }{{"plain", "1"}, {"plain", "2"}, {"sparse", "1"}, {"sparse", "2"}} {
		assert.Equal(t, want.scene, runs[i].Env["SKOLKIT_SCENE"])
		assert.Equal(t, want.round, runs[i].Env["SKOLKIT_ROUND"])
		assert.Equal(t, "incremental-sync", runs[i].Env["SKOLKIT_TASK"])
	}
	assert.Equal(t, runs[0].Dir, runs[1].Dir, "a scene's rounds share its working directory")
	assert.Equal(t, runs[2].Dir, runs[3].Dir)
	assert.NotEqual(t, runs[0].Dir, runs[2].Dir, "every scene has a working directory of its own")
	_, err = os.Stat(runs[0].Dir)
	assert.True(t, os.IsNotExist(err), "the working directories are removed at the end")
}

func TestTheMatrixCommandAndTheFunctionAgree(t *testing.T) {
	// The reference client as a command is caught by the same finding as
	// the same client as a Go function.
	cmd := &exam.Command{Path: os.Args[0], Env: []string{refclient.EnvInterface + "=B", refclient.EnvDefect + "=" + string(refclient.FirstPageOnly)}}
	res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes(t, exam.ScenePlain)}, cmd)
	require.NoError(t, err)
	assert.Equal(t, 1, res.ExitCode())
	ids := map[string]bool{}
	for _, f := range res.Findings() {
		ids[f.ID] = true
	}
	assert.True(t, ids["client.walk-abandoned"] && ids["exam.completeness.missing"], describe(res.Findings()))
}

func TestTheProfileChoosesTheSentences(t *testing.T) {
	res, err := exam.Run(context.Background(), exam.Config{Profile: rules.ProfileSS12000, Scenes: scenes(t, exam.ScenePlain)}, syncClient("B", refclient.PageTokenWithFilters))
	require.NoError(t, err)
	for _, f := range res.Findings() {
		if f.ID == "client.pagetoken-with-filters" {
			assert.Contains(t, f.Spec.Section, "SS 12000")
			return
		}
	}
	t.Fatalf("no client.pagetoken-with-filters:%s", describe(res.Findings()))
}

func mustScenario(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Builtin(name)
	require.NoError(t, err)
	return sc
}

// Under --profile ss12000 the mock serves the SS 12000 document alone, and
// a correct client of it passes.
func TestTheStandardProfileServesAndJudgesTheStandard(t *testing.T) {
	res, err := exam.Run(context.Background(), exam.Config{Profile: rules.ProfileSS12000, Task: exam.TaskIncrementalSync, Rounds: 2,
		Scenes: scenes(t, exam.ScenePlain, exam.SceneSparse, exam.ScenePaging)}, syncClient("B", refclient.Correct))
	require.NoError(t, err)
	require.Empty(t, res.Incomplete)
	assert.Empty(t, res.Findings(), describe(res.Findings()))
}
