package conformance

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/rules"
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

// Severity is how strongly the spec states what a check enforces: MUST
// (the spec, or the standard it builds on, requires it), SHOULD (a
// recommendation, or a choice of our contract where the spec leaves the
// behaviour open: docs/decisions.md), or Off (not part of a profile).
type Severity = rules.Severity

// The severities.
const (
	MUST   = rules.MUST
	SHOULD = rules.SHOULD
	Off    = rules.Off
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
type Surface = rules.Surface

// The surfaces a check may need.
const (
	SurfaceAuth   = rules.SurfaceAuth   // --auth-url: the token endpoint
	SurfaceA      = rules.SurfaceA      // --base-url: interface A, /directory/v1
	SurfaceB      = rules.SurfaceB      // --register-url: interface B, /api/v1
	SurfaceExport = rules.SurfaceExport // --export-url: the data export, /data-export/v1
)

// flagOf names the command-line flag that configures a surface.
func flagOf(s Surface) string {
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

// Profile says what a run judges the server by: ProfileService (the
// default) judges the whole service (interface A, interface B, the data
// export, the token endpoint) by the service's spec, and interface B no
// more strictly than the SS 12000 standard unless the service's spec says
// more (and the check then quotes the sentence); ProfileSS12000 judges
// interface B and the token endpoint by the official SS 12000 2.1.0
// document and the RFCs it builds on only: skolkit's own choices are
// SHOULD at most, and responses are validated against the standard-mode
// contract (openapi.Contract.Standard).
type Profile = rules.Profile

// The profiles.
const (
	ProfileService = rules.ProfileService
	ProfileSS12000 = rules.ProfileSS12000
)

// Profiles lists the profiles, the default first.
var Profiles = []Profile{ProfileService, ProfileSS12000}

// ParseProfile reads a profile name.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("profile %q: want service or ss12000", s)
}

// SpecRef is the sentence a check enforces and where it stands: the
// section of the service spec ("Limits") or another source ("RFC 6749
// §5.1"), the sentence verbatim, and the entry of docs/decisions.md that
// fills in what the spec leaves open, by its anchor ("interface-b-paging"),
// when the check relies on one.
type SpecRef = rules.SpecRef

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
	// StandardSpec, when set, is the sentence of the SS 12000 document (or
	// an RFC) the check enforces under --profile ss12000, where Spec quotes
	// the service's spec: that profile judges by the document alone, and
	// its reports say so.
	StandardSpec *SpecRef
	// Level is read or write.
	Level Level
	// Severity is MUST or SHOULD: the severity under --profile service.
	Severity Severity
	// Standard is the severity under --profile ss12000: MUST, SHOULD, or Off
	// (the check is not part of that profile). Empty derives it: checks that
	// need only interface B and the token endpoint keep Severity (at most
	// SHOULD when Choice is set), every other check is Off.
	Standard Severity
	// Choice, when set, says that what the check enforces is skolkit's own
	// choice where the standard leaves the behaviour open (and names the
	// decision); reports and the catalogue label the check with it.
	Choice string
	// Needs are the surfaces that must be configured; the check is skipped
	// with the reason otherwise.
	Needs []Surface
	// OptIn, when set, keeps the check out of every run whose --include does
	// not name its id exactly, and says why.
	OptIn string
	// Evidence, when set, says what the check must have seen before it can
	// pass; empty derives it from the check's kind (EvidenceRule).
	Evidence string
	// Run performs the check.
	Run func(*T)

	phase phase
}

// SeverityIn returns the check's severity under a profile (Off: the check
// is not part of it).
func (c *Check) SeverityIn(p Profile) Severity {
	if p != ProfileSS12000 {
		return c.Severity
	}
	return c.Standard
}

// SpecIn returns the sentence the check enforces under a profile.
func (c *Check) SpecIn(p Profile) SpecRef {
	if p == ProfileSS12000 && c.StandardSpec != nil {
		return *c.StandardSpec
	}
	return c.Spec
}

// EvidenceRule says what the check must have seen before it can pass:
// without it, it skips with the reason.
func (c *Check) EvidenceRule() string {
	id := c.ID
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(id, p) {
				return true
			}
		}
		return false
	}
	switch {
	case c.Evidence != "":
		return c.Evidence
	case c.phase == phaseLedger:
		return "at least one answer of its kind in this run"
	case has(".unknown-id", ".malformed-id"):
		return "a known id answers 2xx on the same route first"
	case has(".no-token", ".no-credentials", ".garbage-token", ".expired-token", ".www-authenticate", ".legacy-wrong-secret", ".legacy-id-only"):
		return "the same request with the run's credentials answers 2xx first"
	case strings.HasPrefix(id, "auth.token."):
		return "the spec's token request answers 200 with a token first"
	case strings.HasPrefix(id, "auth.") && strings.HasSuffix(id, ".token-accepted"):
		return "a token from the token endpoint; the request with it must answer 2xx"
	case strings.HasPrefix(id, "B.") && has(".list."):
		return "the resource's list answers 200 with records (a 404, 405 or 501 list: the server does not offer it)"
	case strings.HasPrefix(id, "B.placements"):
		return "the unfiltered placement list walked to its end, with records"
	case strings.HasPrefix(id, "B.groups.lookup"):
		return "a group id (from --id, GET /groups or the placements) and a lookup of it answering 200"
	case strings.HasPrefix(id, "B."):
		return "a record id (from --id, the resource's list, or the placements)"
	case strings.HasPrefix(id, "A.") || strings.HasPrefix(id, "export."):
		return "the records or answers it reads (an empty list or a failed walk: skip)"
	}
	return "what the check reads (nothing to look at: skip)"
}

// deriveStandard fills in Standard where the check leaves it empty.
func (c *Check) deriveStandard() {
	if c.Standard != "" {
		return
	}
	c.Standard = Off
	if len(c.Needs) == 0 {
		return
	}
	for _, s := range c.Needs {
		if s != SurfaceB && s != SurfaceAuth {
			return
		}
	}
	c.Standard = c.Severity
	if c.Choice != "" {
		c.Standard = SHOULD
	}
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
		aDepthChecks(),
		aRateLimitChecks(),
		bPlacementChecks(),
		bFilterChecks(),
		bRecordChecks(),
		bGenericChecks(),
		bResourceChecks(),
		bWriteChecks(),
		bSubscriptionChecks(),
		exportChecks(),
		documentChecks(),
		permissionChecks(),
		ledgerChecks(),
	} {
		all = append(all, part...)
	}
	seen := map[string]bool{}
	for _, c := range all {
		c.deriveStandard()
		c.StandardSpec = standardSpecOf(c)
		switch {
		case seen[c.ID]:
			panic("conformance: duplicate check id " + c.ID)
		case c.ID == "" || c.Title == "" || c.Area == "" || c.Spec.Quote == "" || c.Spec.Section == "" || c.Run == nil:
			panic("conformance: incomplete check " + c.ID)
		case c.Severity != MUST && c.Severity != SHOULD && c.Severity != Off:
			panic("conformance: check " + c.ID + " has no severity")
		case c.Standard != MUST && c.Standard != SHOULD && c.Standard != Off:
			panic("conformance: check " + c.ID + " has a bad standard severity")
		case c.Severity == Off && c.Standard == Off:
			panic("conformance: check " + c.ID + " is in no profile")
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
func selectChecks(p Profile, include, exclude []string) []*Check {
	var out []*Check
	for _, c := range catalogue() {
		if c.SeverityIn(p) == Off {
			continue
		}
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
