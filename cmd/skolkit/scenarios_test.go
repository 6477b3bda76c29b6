package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// runScenarioCLI runs one command line and returns its exit code, stdout
// and stderr.
func runScenarioCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeScenarioFile(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

func TestScenariosListNamesEveryBuiltinWithItsDescription(t *testing.T) {
	code, out, errOut := runScenarioCLI("scenarios", "list")
	require.Equal(t, 0, code, errOut)
	for _, name := range scenarios.BuiltinNames() {
		sc, err := scenarios.Builtin(name)
		require.NoError(t, err)
		assert.Regexp(t, `(?m)^`+name+` +`+regexpQuote(sc.Description)+`$`, out)
	}
	assert.Contains(t, out, "Deviations (behaviours.deviations):")
	for _, d := range deviation.All() {
		assert.Regexp(t, `(?m)^  `+d.Name+` +`+regexpQuote(d.Description)+`$`, out)
	}
	assert.Contains(t, out, "Legal variants (behaviours.variants)")
	require.NotEmpty(t, scenarios.KnownVariants)
	for name, description := range scenarios.KnownVariants {
		assert.Regexp(t, `(?m)^  `+name+` +`+regexpQuote(description)+`$`, out)
	}
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestScenariosValidatePrintsOKForAValidFile(t *testing.T) {
	path := writeScenarioFile(t, "name: t\nclients: [{id: a, secret: b, scopes: [all]}]\ngenerate: {profile: none}\n")
	code, out, errOut := runScenarioCLI("scenarios", "validate", path)
	assert.Equal(t, 0, code)
	assert.Equal(t, "ok\n", out)
	assert.Empty(t, errOut)

	code, out, _ = runScenarioCLI("scenarios", "validate", filepath.Join("..", "..", "scenarios", "builtin", "edge-cases.yaml"))
	assert.Equal(t, 0, code)
	assert.Equal(t, "ok\n", out)
}

func TestScenariosValidatePrintsEveryProblemAndExits2(t *testing.T) {
	path := writeScenarioFile(t, `name: t
colck: real
records:
  placements:
    - {child: nobody, placedAt: ekskolan, schoolType: GR, startDate: 2026-03-01, endDate: 2026-01-01}
`)
	code, out, errOut := runScenarioCLI("scenarios", "validate", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, path+`:2:1: colck: unknown key "colck"; did you mean "clock"?
`+path+`:5:15: records.placements[0].child: no person has the alias "nobody"
`+path+`:5:33: records.placements[0].placedAt: no school has the alias "ekskolan"
`+path+`:5:55: records.placements[0].schoolType: "GR" is not a school type of placements; one of FS, FTH, OPPFTH
`+path+`:5:91: records.placements[0].endDate: 2026-01-01 is before startDate 2026-03-01
`, errOut)
}

func TestScenariosValidateReportsProblemsOnlyGenerationFinds(t *testing.T) {
	path := writeScenarioFile(t, "name: t\nclock: {now: 2026-03-14T10:00:00Z}\ngenerate:\n  profile: none\n  schoolUnits: 1\n"+
		"  children: 1\n  staff: 1\n  groups: 8\n  syllabuses: 1\n  calendarEvents: 1\n  attendances: 1000\n")
	code, _, errOut := runScenarioCLI("scenarios", "validate", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, path+":4:3: generate: ")
}

func TestScenariosUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"scenarios"},
		{"scenarios", "frobnicate"},
		{"scenarios", "validate"},
		{"scenarios", "validate", "a.yaml", "b.yaml"},
		{"scenarios", "validate", filepath.Join(t.TempDir(), "missing.yaml")},
		{"scenarios", "list", "extra"},
		{"generate"},
		{"generate", "--scenario", "default"},
		{"generate", "--out", t.TempDir(), "--scenario", "no-such-scenario"},
		{"generate", "--out", t.TempDir(), "--now", "yesterday"},
		{"generate", "--out", t.TempDir(), "extra"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errOut := runScenarioCLI(args...)
			assert.Equal(t, 2, code)
			assert.NotEmpty(t, errOut)
		})
	}
}

func TestGenerateWritesOneJSONFilePerTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	code, out, errOut := runScenarioCLI("generate", "--scenario", "edge-cases", "--out", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `scenario "edge-cases", seed 4711, as of 2026-11-16T07:00:00Z: wrote 6 organisations, 70 persons`)

	sc, err := scenarios.Builtin("edge-cases")
	require.NoError(t, err)
	want, err := sc.Build(sc.Clock.Now)
	require.NoError(t, err)
	counts := map[string]int{
		"organisations.json": len(want.Organisations), "persons.json": len(want.Persons), "groups.json": len(want.Groups),
		"placements.json": len(want.Placements), "syllabuses.json": len(want.Syllabuses),
		"calendarEvents.json": len(want.CalendarEvents), "attendances.json": len(want.Attendances),
		"absences.json": len(want.Absences),
	}
	for file, n := range counts {
		data, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		var records []json.RawMessage
		require.NoError(t, json.Unmarshal(data, &records), file)
		assert.Len(t, records, n, file)
	}

	// Explicit records get the generation instant as meta, and references
	// carry the person's security marking.
	var placements []model.Placement
	data, err := os.ReadFile(filepath.Join(dir, "placements.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &placements))
	for _, p := range placements {
		require.False(t, p.Meta.Created.IsZero(), "placement %s has no meta", p.ID)
		require.NotEmpty(t, p.Child.SecurityMarking, "placement %s: child without securityMarking", p.ID)
	}
	signe := scenarios.DeriveID(4711, "signe")
	found := false
	for _, p := range placements {
		if p.Child.ID == signe {
			found = true
			assert.Equal(t, model.SecurityMarkingProtected, p.Child.SecurityMarking)
		}
	}
	assert.True(t, found, "signe's placement")
}

func TestGenerateIsDeterministicForAFileWithSeedAndNow(t *testing.T) {
	path := writeScenarioFile(t, "name: t\ngenerate: {profile: none, schoolUnits: 2, children: 10, placements: 20}\n"+
		"records:\n  schools: [{alias: s, displayName: S}]\n")
	gen := func() map[string]string {
		dir := t.TempDir()
		code, out, errOut := runScenarioCLI("generate", "--scenario", path, "--out", dir, "--seed", "7", "--now", "2026-03-14T10:00:00Z")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, `scenario "t", seed 7, as of 2026-03-14T10:00:00Z`)
		files := map[string]string{}
		for _, f := range tableFiles() {
			data, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			files[f] = string(data)
		}
		return files
	}
	first := gen()
	assert.Equal(t, first, gen())
	assert.Contains(t, first["organisations.json"], scenarios.DeriveID(7, "s"))
}

func TestGenerateReportsAnInvalidScenarioFileWithPositions(t *testing.T) {
	path := writeScenarioFile(t, "name: t\nseed: many\n")
	code, _, errOut := runScenarioCLI("generate", "--scenario", path, "--out", t.TempDir())
	assert.Equal(t, 2, code)
	assert.Equal(t, path+`:2:7: seed: expected an integer, got the string "many"`+"\n", errOut)
}

func TestUsageListsTheScenarioCommands(t *testing.T) {
	code, out, _ := runScenarioCLI("help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "skolkit scenarios list")
	assert.Contains(t, out, "skolkit scenarios validate FILE")
	assert.Contains(t, out, "skolkit generate --scenario NAME|FILE --out DIR")
}

// TestGenerateWritesEveryTableAndTheFilesLoadBack: generate writes one file
// per table of the store, the SS 12000 tables and interface A's
// included, and the files put together are a state document that PUT
// /__admin/state loads: GET /__admin/state then answers the same tables.
func TestGenerateWritesEveryTableAndTheFilesLoadBack(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runScenarioCLI("generate", "--scenario", "default", "--out", dir, "--now", "2026-03-14T10:00:00Z")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "grades")

	names := mockserver.StateTableNames()
	require.Equal(t, len(names), len(tableFiles()))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(names), "one file per table, nothing else")

	doc := map[string]json.RawMessage{"format": json.RawMessage(`"` + mockserver.StateFormat + `"`)}
	files := map[string][]json.RawMessage{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name+".json"))
		require.NoError(t, err, "generate writes %s.json", name)
		var records []json.RawMessage
		require.NoError(t, json.Unmarshal(data, &records), name)
		files[name] = records
		doc[name] = data
	}
	// The default scenario has records in every table but the deletion log.
	for _, name := range names {
		if name != "tombstones" {
			assert.NotEmpty(t, files[name], "%s.json has records", name)
		}
	}
	assert.Contains(t, string(doc["grades"]), `"directory":{"kind":"GradeElementary"`, "grades carry their interface-A view")
	assert.Contains(t, string(doc["groups"]), `"assignmentRoles":`, "groups carry their assignment roles")

	// Load the files into a mock that serves other data, and read the state back.
	srv, err := mockserver.New(mockserver.Options{Scenario: mustBuiltin(t, "edge-cases"), JournalSize: -1})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPut, hs.URL+"/__admin/state", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "PUT /__admin/state: %s", msg)

	resp, err = http.Get(hs.URL + "/__admin/state")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var state map[string]json.RawMessage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&state))
	for _, name := range names {
		var got []json.RawMessage
		require.NoError(t, json.Unmarshal(state[name], &got), name)
		require.Len(t, got, len(files[name]), name)
		for i := range got {
			require.JSONEq(t, string(files[name][i]), string(got[i]), "%s[%d] loads back as written", name, i)
		}
	}
}

func mustBuiltin(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Builtin(name)
	require.NoError(t, err)
	return sc
}

// A scenario no client can log in to (a file with only a name) is an error
// of skolkit scenarios validate, with the fix, and serve refuses it unless
// its flags make the client.
func TestAScenarioNoClientCanLogInToIsAnError(t *testing.T) {
	path := writeScenarioFile(t, "name: only-a-name\n")
	const fix = "clients: no client can obtain a token, so every request to the mock would fail; add one, e.g. clients: [{id: my-client, secret: my-secret, scopes: [all]}]"
	code, out, errOut := runScenarioCLI("scenarios", "validate", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, path+":1:1: "+fix)

	code, out, errOut = runScenarioCLI("serve", "--addr", "127.0.0.1:0", "--scenario", path, "--client-id", "only-an-id")
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "no banner with empty credentials")
	assert.Contains(t, errOut, fix)

	p := startServe(t, "--addr", "127.0.0.1:0", "--scenario", path, "--client-id", "mine", "--client-secret", "s3cret")
	p.waitFor(t, "  client_secret         s3cret\n")
	assert.Contains(t, p.output(), "  client_id             mine\n")
	require.Equal(t, 0, p.stop(t), p.output())
}
