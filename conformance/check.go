package conformance

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// Level says what a check may do to the server's data.
type Level int

const (
	// LevelRead checks only read: safe against production data.
	LevelRead Level = iota
	// LevelWrite checks create, change and delete records they made
	// themselves, and remove them afterwards.
	LevelWrite
)

func (l Level) String() string {
	if l == LevelWrite {
		return "write"
	}
	return "read"
}

// ParseLevel reads "read" or "write".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "read":
		return LevelRead, nil
	case "write":
		return LevelWrite, nil
	}
	return 0, fmt.Errorf("level %q: want read or write", s)
}

// Severity is how strongly the spec states what a check enforces.
type Severity string

const (
	// MUST: the spec (or the standard it builds on) requires it.
	MUST Severity = "MUST"
	// SHOULD: a recommendation, or a choice of our contract where the spec
	// leaves the behaviour open (docs/decisions.md).
	SHOULD Severity = "SHOULD"
)

// ParseSeverity reads "must" or "should" (any case).
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToUpper(s) {
	case "MUST":
		return MUST, nil
	case "SHOULD":
		return SHOULD, nil
	}
	return "", fmt.Errorf("severity %q: want must or should", s)
}

// Surface is one of the service's URLs.
type Surface string

// The surfaces a check may need.
const (
	SurfaceAuth   Surface = "auth"   // --auth-url: the token endpoint
	SurfaceA      Surface = "A"      // --base-url: interface A, /directory/v1
	SurfaceB      Surface = "B"      // --register-url: interface B, /api/v1
	SurfaceExport Surface = "export" // --export-url: the data export, /data-export/v1
)

// flagOf names the command-line flag that configures a surface.
func (s Surface) flag() string {
	switch s {
	case SurfaceAuth:
		return "--auth-url"
	case SurfaceA:
		return "--base-url"
	case SurfaceB:
		return "--register-url"
	default:
		return "--export-url"
	}
}

// SpecRef is the sentence a check enforces and where it stands.
type SpecRef struct {
	// Section of the service spec ("Limits"), or another source
	// ("RFC 6749 §5.1").
	Section string
	// Quote is the sentence, verbatim.
	Quote string
	// Decision names the entry of docs/decisions.md that fills in what the
	// spec leaves open ("B5"), when the check relies on one.
	Decision string
}

// phase orders the run: every read check before any write check, quota
// spending after both, and the checks over the whole run's responses last.
type phase int

const (
	phaseRead phase = iota
	phaseWrite
	phaseQuota
	phaseLedger
)

// Check is one entry of the catalogue.
type Check struct {
	// ID is unique and dotted: surface, resource, behaviour.
	ID string
	// Title says what is checked, in a few words.
	Title string
	// Area groups checks in reports ("B.placements").
	Area string
	// Spec is the sentence the check enforces.
	Spec SpecRef
	// Level is read or write.
	Level Level
	// Severity is MUST or SHOULD.
	Severity Severity
	// Needs are the surfaces that must be configured; the check is skipped
	// with the reason otherwise.
	Needs []Surface
	// OptIn, when set, keeps the check out of every run whose --include does
	// not name its id exactly, and says why.
	OptIn string
	// Run performs the check.
	Run func(*T)

	phase phase
}

func (c *Check) phaseOf() phase {
	if c.phase != phaseRead {
		return c.phase
	}
	if c.Level == LevelWrite {
		return phaseWrite
	}
	return phaseRead
}

var catalogue = sync.OnceValue(func() []*Check {
	var all []*Check
	for _, part := range [][]*Check{
		authChecks(),
		aListChecks(),
		aSearchChecks(),
		aRecordChecks(),
		aWriteChecks(),
		aVendorChecks(),
		aRateLimitChecks(),
		bPlacementChecks(),
		bFilterChecks(),
		bRecordChecks(),
		bResourceChecks(),
		bWriteChecks(),
		bSubscriptionChecks(),
		exportChecks(),
		ledgerChecks(),
	} {
		all = append(all, part...)
	}
	seen := map[string]bool{}
	for _, c := range all {
		switch {
		case seen[c.ID]:
			panic("conformance: duplicate check id " + c.ID)
		case c.ID == "" || c.Title == "" || c.Area == "" || c.Spec.Quote == "" || c.Spec.Section == "" || c.Run == nil:
			panic("conformance: incomplete check " + c.ID)
		case c.Severity != MUST && c.Severity != SHOULD:
			panic("conformance: check " + c.ID + " has no severity")
		}
		seen[c.ID] = true
	}
	return all
})

// Catalogue returns every check, in catalogue order (grouped by area). The
// checks are shared: do not modify them.
func Catalogue() []*Check { return slices.Clone(catalogue()) }

// Areas returns the areas in catalogue order.
func Areas() []string {
	var out []string
	for _, c := range catalogue() {
		if !slices.Contains(out, c.Area) {
			out = append(out, c.Area)
		}
	}
	return out
}

// ValidatePattern reports whether p is a usable --include/--exclude pattern.
func ValidatePattern(p string) error {
	if p == "" {
		return fmt.Errorf("empty check-id pattern")
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("check-id pattern %q: %v", p, err)
	}
	return nil
}

// matchID reports whether a check id matches an --include/--exclude
// pattern: a glob (path.Match, so * also spans dots: B.placements.* matches
// B.placements.filter.group), or, without wildcards, the id itself or any id
// below it (B.placements matches B.placements.walk).
func matchID(pattern, id string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return id == pattern || strings.HasPrefix(id, pattern+".")
	}
	ok, _ := path.Match(pattern, id)
	return ok
}

// selectChecks applies --include and --exclude. Checks filtered out are not
// reported at all; the level and opt-in rules are applied later, by the
// runner, which reports those checks as skipped with the reason.
func selectChecks(include, exclude []string) []*Check {
	var out []*Check
	for _, c := range catalogue() {
		if len(include) > 0 && !slices.ContainsFunc(include, func(p string) bool { return matchID(p, c.ID) }) {
			continue
		}
		if slices.ContainsFunc(exclude, func(p string) bool { return matchID(p, c.ID) }) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// named reports whether --include names the id exactly.
func named(include []string, id string) bool { return slices.Contains(include, id) }
