package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// profiles are the preset sizes of generated data, by name.
var profiles = map[string]Generate{
	// default is fixtures.DefaultConfig: four school units, about 350
	// persons, 200 placements.
	"default": {SchoolUnits: 4, Children: 60, Pupils: 80, Staff: 30, GuardiansPerChild: 2, Groups: 60,
		Placements: 200, Syllabuses: 40, CalendarEvents: 300, Attendances: 300, Absences: 100, Units: 2},
	// none generates nothing.
	"none": {},
	// large is a municipality: about 55 000 persons, 100 000 placements
	// and 1 000 000 calendar events.
	"large": {SchoolUnits: 150, Children: 10000, Pupils: 13000, Staff: 2500, GuardiansPerChild: 2, Groups: 10000,
		Placements: 100000, Syllabuses: 200, CalendarEvents: 1000000, Attendances: 100000, Absences: 20000, Units: 6},
}

// Profile returns the counts of a named profile ("default", "none",
// "large"), with Profile set to the name.
func Profile(name string) (Generate, bool) {
	g, ok := profiles[name]
	g.Profile = name
	return g, ok
}

// ProfileNames lists the profiles.
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Config returns the fixtures configuration of the counts.
func (g Generate) Config(seed int64, now time.Time) fixtures.Config {
	return fixtures.Config{
		Seed: seed, Now: now,
		SchoolUnits: g.SchoolUnits, Children: g.Children, Pupils: g.Pupils, Staff: g.Staff,
		GuardiansPerChild: g.GuardiansPerChild, Groups: g.Groups, Placements: g.Placements,
		Syllabuses: g.Syllabuses, CalendarEvents: g.CalendarEvents, Attendances: g.Attendances,
		Absences: g.Absences, Units: g.Units,
	}
}

// counts lists the count fields of g by their YAML key.
func (g *Generate) counts() []struct {
	key string
	n   *int
} {
	return []struct {
		key string
		n   *int
	}{
		{"schoolUnits", &g.SchoolUnits}, {"children", &g.Children}, {"pupils", &g.Pupils},
		{"staff", &g.Staff}, {"guardiansPerChild", &g.GuardiansPerChild}, {"groups", &g.Groups},
		{"placements", &g.Placements}, {"syllabuses", &g.Syllabuses},
		{"calendarEvents", &g.CalendarEvents}, {"attendances", &g.Attendances}, {"absences", &g.Absences},
		{"units", &g.Units},
	}
}

// check validates the decoded scenario, reporting problems to d, and fills
// in the defaults.
func (sc *Scenario) check(d *decoder) {
	if sc.Name == "" {
		d.problem("name", "required")
	}
	if d.present("tokenLifetime") && sc.TokenLifetime <= 0 {
		d.problem("tokenLifetime", "%d is not a positive number of seconds", sc.TokenLifetime)
	}
	if sc.ListShape == "" {
		sc.ListShape = ListShapeData
	}
	if sc.Profile != "" && KnownProfiles[sc.Profile] == "" {
		d.problem("profile", "unknown profile %q; known: %s", sc.Profile, strings.Join(slices.Sorted(maps.Keys(KnownProfiles)), ", "))
	}
	seen := map[string]string{}
	for i := range sc.Clients {
		c := &sc.Clients[i]
		p := fmt.Sprintf("clients[%d]", i)
		if c.ID == "" {
			d.problem(p+".id", "required")
		} else if first, dup := seen[c.ID]; dup {
			fn := d.at(first + ".id")
			d.problem(p+".id", "duplicate client id %q (first at line %d:%d)", c.ID, fn.Line, fn.Column)
		} else {
			seen[c.ID] = p
		}
		if c.Secret == "" {
			d.problem(p+".secret", "required")
		}
		for j, s := range c.Scopes {
			if strings.TrimSpace(s) == "" {
				d.problem(fmt.Sprintf("%s.scopes[%d]", p, j), "a scope cannot be empty")
			}
		}
		switch {
		case !d.present(p + ".rateLimit"):
			c.RateLimit = DefaultRateLimit
		case c.RateLimit < 1:
			d.problem(p+".rateLimit", "%d is not a positive number of requests per hour", c.RateLimit)
		}
	}
	sc.checkGenerate(d)
	checkRecords(d, &sc.Records)
	sc.checkBehaviours(d)
	sc.checkWebhooks(d)
}

func (sc *Scenario) checkGenerate(d *decoder) {
	g := &sc.Generate
	if g.Profile == "" {
		g.Profile = "default"
	}
	base, ok := profiles[g.Profile]
	if !ok {
		d.problem("generate.profile", "%q is not a profile; one of %s", g.Profile, strings.Join(ProfileNames(), ", "))
		return
	}
	bad := false
	baseCounts := base.counts()
	for i, c := range g.counts() {
		p := "generate." + c.key
		if !d.present(p) {
			*c.n = *baseCounts[i].n
			continue
		}
		switch {
		case d.failed[p]:
			bad = true
		case *c.n < 0:
			d.problem(p, "%d is negative", *c.n)
			bad = true
		case c.key == "guardiansPerChild" && *c.n > fixtures.MaxGuardiansPerChild:
			d.problem(p, "%d is more than %d", *c.n, fixtures.MaxGuardiansPerChild)
			bad = true
		}
	}
	if bad {
		return
	}
	if err := g.Config(sc.Seed, time.Unix(0, 0)).Validate(); err != nil {
		d.problem("generate", "%s", strings.TrimPrefix(err.Error(), fixtures.ErrInvalidConfig.Error()+": "))
	}
}

func (sc *Scenario) checkBehaviours(d *decoder) {
	b := &sc.Behaviours
	for i := range b.Latency {
		p := fmt.Sprintf("behaviours.latency[%d]", i)
		if !d.present(p + ".route") {
			d.problem(p+".route", "required")
		}
		if !d.present(p + ".delay") {
			d.problem(p+".delay", "required")
		}
	}
	for i, f := range b.Faults {
		p := fmt.Sprintf("behaviours.faults[%d]", i)
		if !d.present(p + ".route") {
			d.problem(p+".route", "required")
		}
		switch {
		case !d.present(p + ".status"):
			d.problem(p+".status", "required")
		case f.Status < 200 || f.Status > 599:
			d.problem(p+".status", "%d is not an HTTP status from 200 to 599", f.Status)
		}
		var firing []string
		for _, k := range []string{"everyNth", "firstN", "probability"} {
			if d.present(p + "." + k) {
				firing = append(firing, k)
			}
		}
		if len(firing) > 1 {
			d.problem(p+"."+firing[1], "give at most one of everyNth, firstN and probability (also has %s)", firing[0])
		}
		if d.present(p+".everyNth") && f.EveryNth < 1 {
			d.problem(p+".everyNth", "%d is less than 1", f.EveryNth)
		}
		if d.present(p+".firstN") && f.FirstN < 1 {
			d.problem(p+".firstN", "%d is less than 1", f.FirstN)
		}
		if f.Probability != nil && (*f.Probability < 0 || *f.Probability > 1) {
			d.problem(p+".probability", "%v is not a probability from 0 to 1", *f.Probability)
		}
		for k := range f.Headers {
			if !reHeaderName.MatchString(k) {
				d.problem(p+".headers."+k, "%q is not an HTTP header name", k)
			}
		}
	}
	seen := map[string]bool{}
	for i, name := range b.Deviations {
		p := fmt.Sprintf("behaviours.deviations[%d]", i)
		switch {
		case seen[name]:
			d.problem(p, "deviation %q is listed twice", name)
		case !deviation.Known(name):
			d.problem(p, "unknown deviation %q; known: %s", name, knownDeviationNames())
		}
		seen[name] = true
	}
	seenVar := map[string]bool{}
	for i, name := range b.Variants {
		p := fmt.Sprintf("behaviours.variants[%d]", i)
		switch {
		case seenVar[name]:
			d.problem(p, "variant %q is listed twice", name)
		case KnownVariants[name] == "":
			names := make([]string, 0, len(KnownVariants))
			for n := range KnownVariants {
				names = append(names, n)
			}
			sort.Strings(names)
			d.problem(p, "unknown variant %q; known: %s", name, strings.Join(names, ", "))
		}
		seenVar[name] = true
	}
}

var reHeaderName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func knownDeviationNames() string { return strings.Join(deviation.Names(), ", ") }

// Record kinds, as aliases name them in messages.
type recordKind string

const (
	kindOrganiser     recordKind = "organiser"
	kindSchool        recordKind = "school"
	kindUnit          recordKind = "unit"
	kindPerson        recordKind = "person"
	kindGroup         recordKind = "group"
	kindPlacement     recordKind = "placement"
	kindSyllabus      recordKind = "syllabus"
	kindCalendarEvent recordKind = "calendar event"
	kindAttendance    recordKind = "attendance record"
	kindAbsence       recordKind = "absence record"
	kindRoom          recordKind = "room"
	kindResource      recordKind = "resource"
	kindActivity      recordKind = "activity"
	kindGrade         recordKind = "grade"
)

// reAlias is compiled when first used: its Unicode classes cost every
// command's initialisation a quarter of a millisecond and 100 KB otherwise.
var reAlias = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}_.-]*$`) })

// recordChecker checks the explicit records: aliases, ids, references,
// required fields, dates and ranges.
type recordChecker struct {
	d       *decoder
	aliases map[string]aliasDef
	ids     map[string]string // explicit id -> path of its record
}

type aliasDef struct {
	kind recordKind
	path string
}

// checkRecords checks the explicit records list by list (recordLists):
// first every alias and id, in file order, so that references may point
// forwards and a duplicate is reported where it repeats; then each record.
func checkRecords(d *decoder, r *Records) {
	c := &recordChecker{d: d, aliases: map[string]aliasDef{}, ids: map[string]string{}}
	lists := recordLists()
	var defs []recordIdent
	for _, l := range lists {
		defs = append(defs, l.idents(r)...)
	}
	slices.SortStableFunc(defs, func(a, b recordIdent) int {
		na, nb := d.at(a.path), d.at(b.path)
		return cmp.Or(cmp.Compare(na.Line, nb.Line), cmp.Compare(na.Column, nb.Column))
	})
	for _, df := range defs {
		c.define(df.kind, df.path, df.alias, df.id, df.needAlias)
	}
	for _, l := range lists {
		l.checkAll(c, r)
	}
}

var reSchoolUnitCode = regexp.MustCompile(`^[0-9]{8}$`)

func (c *recordChecker) person(p string, r *PersonRecord, civic map[string]string) {
	d := c.d
	c.required(p+".givenName", r.GivenName)
	c.required(p+".familyName", r.FamilyName)
	if r.CivicNo != nil {
		cp := p + ".civicNo.value"
		v := r.CivicNo.Value
		switch {
		case v == "":
			d.problem(cp, "required")
		case !fixtures.ValidCivicNo(v):
			d.problem(cp, "%q is not a civic number: 12 characters YYYYMMDDNNNC without separators, a valid date "+
				"(day + 60 for a coordination number) and a correct check digit, or a temporary number with letters "+
				"in positions 9 and 10", v)
		case civic[v] != "":
			d.problem(cp, "civic number %s is also used by %s", v, civic[v])
		default:
			civic[v] = p
		}
	}
	for j, e := range r.Enrolments {
		ep := fmt.Sprintf("%s.enrolments[%d]", p, j)
		c.requiredRef(ep+".school", e.School, kindSchool)
		c.required(ep+".schoolType", string(e.SchoolType))
		c.required(ep+".startDate", string(e.StartDate))
		c.period(ep, e.StartDate, e.EndDate)
		c.schoolYear(ep+".schoolYear", e.SchoolYear)
	}
	for j, resp := range r.Responsibles {
		rp := fmt.Sprintf("%s.responsibles[%d]", p, j)
		if c.requiredRef(rp+".person", resp.Person, kindPerson) && resp.Person == r.Alias {
			d.problem(rp+".person", "%q cannot be responsible for themselves", resp.Person)
		}
	}
}

// define records the alias and explicit id of a record.
func (c *recordChecker) define(kind recordKind, path, alias, id string, needAlias bool) {
	d := c.d
	switch {
	case alias == "":
		if needAlias && !d.failed[path+".alias"] {
			d.problem(path+".alias", "required: other records refer to a %s by its alias", kind)
		}
	case !reAlias().MatchString(alias):
		d.problem(path+".alias", "%q is not an alias: letters, digits, '_', '.' and '-', starting with a letter or digit", alias)
	default:
		if first, dup := c.aliases[alias]; dup {
			fn := d.at(first.path + ".alias")
			d.problem(path+".alias", "duplicate alias %q (first used by the %s at line %d:%d)", alias, first.kind, fn.Line, fn.Column)
			return
		}
		c.aliases[alias] = aliasDef{kind: kind, path: path}
	}
	if id == "" {
		return
	}
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		d.problem(path+".id", "%q is not a UUID in lower-case hex with hyphens (like 5f0c7c1e-4a43-4f45-9e0a-1c2b3d4e5f60)", id)
		return
	}
	if first, dup := c.ids[id]; dup {
		d.problem(path+".id", "id %s is also the id of %s", id, first)
		return
	}
	c.ids[id] = path
}

// required reports an empty required value; it returns whether the value is set.
func (c *recordChecker) required(path, v string) bool {
	if v == "" {
		c.d.problem(path, "required")
		return false
	}
	return true
}

// requiredRef checks a required reference; it returns whether it resolves.
func (c *recordChecker) requiredRef(path, alias string, kinds ...recordKind) bool {
	if !c.required(path, alias) {
		return false
	}
	return c.ref(path, alias, kinds...)
}

// ref checks that alias names a record of one of the kinds.
func (c *recordChecker) ref(path, alias string, kinds ...recordKind) bool {
	def, ok := c.aliases[alias]
	want := make([]string, len(kinds))
	for i, k := range kinds {
		want[i] = string(k)
	}
	switch {
	case !ok:
		c.d.problem(path, "no %s has the alias %q", strings.Join(want, " or "), alias)
		return false
	case !slices.Contains(kinds, def.kind):
		c.d.problem(path, "%q is a %s, not a %s", alias, def.kind, strings.Join(want, " or "))
		return false
	}
	return true
}

// eventOfActivity checks that a calendar event's school, group and teacher
// are those of the activity it names: the mock finds the events of a group,
// a school or a teacher through their activities
// (docs/decisions.md#calendar-events-follow-activity). An event
// without an activity gets one that fits.
func (c *recordChecker) eventOfActivity(path string, e CalendarEventRecord, acts []ActivityRecord) {
	i := slices.IndexFunc(acts, func(a ActivityRecord) bool { return a.Alias == e.Activity })
	if i < 0 {
		return
	}
	a := acts[i]
	if e.Organisation != "" && e.Organisation != a.Organisation {
		c.d.problem(path+".organisation", "%q is not the organisation of activity %q (%q): a lesson is held where its activity is", e.Organisation, e.Activity, a.Organisation)
	}
	if e.Group != "" && !slices.Contains(a.Groups, e.Group) {
		c.d.problem(path+".group", "%q is not one of the groups of activity %q %v", e.Group, e.Activity, a.Groups)
	}
	if e.Teacher != "" && !slices.Contains(a.Teachers, e.Teacher) {
		c.d.problem(path+".teacher", "%q is not one of the teachers of activity %q %v", e.Teacher, e.Activity, a.Teachers)
	}
}

// period checks that an end date is not before its start date.
func (c *recordChecker) period(path string, start, end model.Date) {
	if start != "" && end != "" && end < start {
		c.d.problem(path+".endDate", "%s is before startDate %s", end, start)
	}
}

// interval checks a required start and end time, end not before start.
func (c *recordChecker) interval(path string, start, end time.Time) {
	d := c.d
	if start.IsZero() {
		d.problem(path+".startTime", "required")
	}
	if end.IsZero() {
		d.problem(path+".endTime", "required")
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		d.problem(path+".endTime", "%s is before startTime %s", end.Format(time.RFC3339), start.Format(time.RFC3339))
	}
}

func (c *recordChecker) schoolYear(path string, y *int) {
	if y != nil && (*y < 0 || *y > 10) {
		c.d.problem(path, "%d is not a school year from 0 to 10", *y)
	}
}
