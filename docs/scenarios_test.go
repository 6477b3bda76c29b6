package docs

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// builtinCount matches a count of the built-in scenarios' table: "7
// organisations", "about 360 persons".
var builtinCount = regexp.MustCompile(`(about |~)?([0-9][0-9 ]*) (organisations|school units|persons|groups|placements|syllabuses|lessons|calendar events|attendance(?: records)?|absence records)\b`)

// TestBuiltinScenarioCountsAreTheData: the counts docs/scenarios.md gives
// for the built-in scenarios (of the whole data: a row's counts after "in
// all" when it has them) are what the scenario builds; "about" and "~"
// allow 5%. The municipality-sized scenario is built only when
// SKOLKIT_LARGE=1 (.ci/run sets it).
func TestBuiltinScenarioCountsAreTheData(t *testing.T) {
	doc, err := os.ReadFile("scenarios.md")
	require.NoError(t, err)
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		name, cell, ok := builtinRow(line)
		if !ok {
			continue
		}
		if _, all, found := strings.Cut(cell, "in all"); found {
			cell = all
		}
		counts := builtinCount.FindAllStringSubmatch(cell, -1)
		if len(counts) == 0 {
			continue
		}
		rows++
		t.Run(name, func(t *testing.T) {
			if name == "large" && os.Getenv("SKOLKIT_LARGE") != "1" {
				t.Skip("builds a million calendar events: set SKOLKIT_LARGE=1 to run it (.ci/run does)")
			}
			sc, err := scenarios.Builtin(name)
			require.NoError(t, err)
			ds, err := sc.Build(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
			require.NoError(t, err)
			units := 0
			for _, o := range ds.Organisations {
				if o.OrganisationType == model.OrganisationTypeSchoolUnit {
					units++
				}
			}
			actual := map[string]int{
				"organisations": len(ds.Organisations), "school units": units, "persons": len(ds.Persons), "groups": len(ds.Groups),
				"placements": len(ds.Placements), "syllabuses": len(ds.Syllabuses), "lessons": len(ds.CalendarEvents),
				"calendar events": len(ds.CalendarEvents), "attendance": len(ds.Attendances), "attendance records": len(ds.Attendances),
				"absence records": len(ds.Absences),
			}
			for _, m := range counts {
				said, err := strconv.Atoi(strings.ReplaceAll(m[2], " ", ""))
				require.NoError(t, err)
				got := actual[m[3]]
				if m[1] != "" {
					assert.LessOrEqual(t, math.Abs(float64(got-said)), 0.05*float64(said), "%s: the scenario has %d %s", m[0], got, m[3])
				} else {
					assert.Equal(t, said, got, "%s: the scenario has %d %s", m[0], got, m[3])
				}
			}
		})
	}
	assert.GreaterOrEqual(t, rows, 2, "rows of the built-in scenarios with counts")
}

// builtinRow returns the name and the data cell of a row of the built-in
// scenarios' table ("| `default` | ... | ... |").
func builtinRow(line string) (name, data string, ok bool) {
	cells := strings.Split(line, "|")
	if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
		return "", "", false
	}
	name = strings.Trim(strings.TrimSpace(cells[1]), "`")
	if _, err := scenarios.Builtin(name); err != nil {
		return "", "", false
	}
	return name, cells[2], true
}
