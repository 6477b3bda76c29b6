package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The representation family: a record reads the same whether it is read
// by id, in a list, in a search or through a lookup (with the same expand
// and expandReferenceNames), what presentation adds is only presentation,
// and expand and expandReferenceNames are honoured exactly as asked by
// every operation that declares them.

var (
	specSameRecord  = SpecRef{Section: "Endpoints (interface B)", Quote: "GET | /placements/{id} | path id (uuid); query `expand`, `expandReferenceNames` | 200, Placement"}
	specSameStd     = &SpecRef{Section: "SS 12000 2.1.0: GET /{resource}/{id}, POST /{resource}/lookup", Quote: "Istället för att hämta … en i taget med en loop av GET-anrop så finns det även möjlighet att hämta många … på en gång genom att skicka ett anrop med en lista med önskade …"}
	specModifiedPre = SpecRef{Section: "Resources: Conventions", Quote: "Data that appears only through `expand` or `expandReferenceNames` does not affect `modified`."}
	specModifiedStd = &SpecRef{Section: "SS 12000 2.1.0: Meta.modified", Quote: "Attribut som kan tas fram med parametrarna expand eller expandReferenceNames räknas **inte** som ett attribut till entiteten, och ska således **inte** påverka detta värde."}
	specExpand      = SpecRef{Section: "Resources: Placement (interface B)", Quote: "_embedded | object | present when `expand` asks for it: `child` (Person) and `owners` (array of Person)"}
	specExpandStd   = &SpecRef{Section: "SS 12000 2.1.0: parameter expand, *Expanded._embedded", Quote: "Beskriver om expanderade data ska hämtas"}
	specNamesStd    = &SpecRef{Section: "SS 12000 2.1.0: ObjectReference.displayName, parameter expandReferenceNames", Quote: "Namn för visningsyfte för det refererade objektet. Skall endast returneras när query parametern `expandReferenceNames` är satt till \"true\"."}
)

func readsRecords(op *Operation) bool { return op != nil && op.ReadsRecords() }

// representationRules returns the representation family.
func representationRules() []*Rule {
	return []*Rule{
		{ID: "representation.same-everywhere", Family: FamilyRepresentation, Side: SideServer,
			Title: "a record reads the same by id, in a list, in a search, through a lookup and in a write's answer, with the same expand and expandReferenceNames (members shown in one reading only are noted, values that differ fail)",
			Spec:  specSameRecord, StandardSpec: specSameStd,
			Severity: MUST, Standard: MUST, Applies: readsRecords, Check: checkSameEverywhere},
		{ID: "representation.presentation-only-adds", Family: FamilyRepresentation, Side: SideServer,
			Title: "expand and expandReferenceNames change only _embedded and the references' displayName: every other member (meta.modified included) reads the same with and without them",
			Spec:  specModifiedPre, StandardSpec: specModifiedStd,
			Severity: MUST, Standard: MUST,
			Applies: func(op *Operation) bool { return readsRecords(op) && (len(op.Expand) > 0 || op.ReferenceNames) },
			Check:   checkPresentationOnlyAdds},
		{ID: "representation.expand-honoured", Family: FamilyRepresentation, Side: SideServer,
			Title: "every record of an answer to expand=X embeds X (_embedded.X), and the embedded records are the ones its references name",
			Spec:  specExpand, StandardSpec: specExpandStd,
			Severity: MUST, Standard: MUST,
			Applies: func(op *Operation) bool { return readsRecords(op) && len(op.Expand) > 0 }, Concurrent: true, Check: checkExpandHonoured},
		{ID: "representation.embeds-only-what-was-asked", Family: FamilyRepresentation, Side: SideServer,
			Title: "a record embeds only what expand asked for: no _embedded without expand, no member expand did not name",
			Spec:  specExpand, StandardSpec: specExpandStd,
			Severity: SHOULD, Standard: SHOULD,
			Applies: func(op *Operation) bool { return readsRecords(op) && len(op.Expand) > 0 }, Concurrent: true, Check: checkEmbedsOnlyAsked},
		{ID: "representation.reference-names-only-when-asked", Family: FamilyRepresentation, Side: SideServer,
			Title: "no reference carries displayName unless expandReferenceNames=true",
			Spec:  specRefName, StandardSpec: specNamesStd,
			Severity: MUST, Standard: MUST,
			Applies: func(op *Operation) bool { return readsRecords(op) && len(op.References) > 0 }, Concurrent: true, Check: checkNamesOnlyWhenAsked},
		{ID: "representation.reference-names-when-asked", Family: FamilyRepresentation, Side: SideServer,
			Title: "with expandReferenceNames=true every reference carries displayName (under --profile ss12000 SHOULD: the standard says only when they may)",
			Spec:  specRefName, StandardSpec: specNamesStd,
			Severity: MUST, Standard: SHOULD,
			Applies: func(op *Operation) bool { return readsRecords(op) && op.ReferenceNames && len(op.References) > 0 }, Concurrent: true, Check: checkNamesWhenAsked},
		{ID: "representation.listed-records-readable", Family: FamilyRepresentation, Side: SideServer,
			Title: "a record a list, search or lookup showed is readable by id (not 404) while nothing has deleted it",
			Spec:  specSameRecord, StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: GET /{resource}/{id}", Quote: "200: Anropet lyckades. … 404: Posten hittades inte."},
			Severity: MUST, Standard: MUST,
			Applies: func(op *Operation) bool { return op != nil && op.Kind == KindGet }, Check: checkListedReadable},
		{ID: "representation.lookup-exact", Family: FamilyRepresentation, Side: SideServer,
			Title:        "a lookup returns exactly the records asked for that exist: none that was not asked for, every one seen elsewhere",
			Spec:         SpecRef{Section: "Endpoints (interface B)", Quote: "POST | /groups/lookup | JSON body `ids` (array of uuid); query `expand`, `expandReferenceNames` as for /groups/{id} | 200, array of Group", Decision: "lookup-limits"},
			StandardSpec: specSameStd,
			Severity:     MUST, Standard: MUST,
			Applies: func(op *Operation) bool { return op != nil && op.Kind == KindLookup }, Check: checkLookupExact},
	}
}

// Differences compares two readings of a record: members whose values
// differ (by SameValue, recursively), and members only one reading shows
// (a reading may leave out an optional member). Arrays of records or
// references are matched by id, whatever their order.
func Differences(a, b map[string]any) (differ, oneSided []string) {
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		xm, okx := x.(map[string]any)
		ym, oky := y.(map[string]any)
		if okx && oky {
			for _, k := range slices.Sorted(maps.Keys(xm)) {
				p := join(path, k)
				yv, ok := ym[k]
				if !ok {
					if xm[k] != nil {
						oneSided = append(oneSided, p)
					}
					continue
				}
				walk(p, xm[k], yv)
			}
			for _, k := range slices.Sorted(maps.Keys(ym)) {
				if _, ok := xm[k]; !ok && ym[k] != nil {
					oneSided = append(oneSided, join(path, k))
				}
			}
			return
		}
		xa, okx := x.([]any)
		ya, oky := y.([]any)
		if okx && oky {
			if byID(xa) && byID(ya) && len(xa) == len(ya) {
				index := map[string]any{}
				for _, e := range ya {
					index[strings.ToLower(fmt.Sprint(e.(map[string]any)["id"]))] = e
				}
				for _, e := range xa {
					id := strings.ToLower(fmt.Sprint(e.(map[string]any)["id"]))
					other, ok := index[id]
					if !ok {
						differ = append(differ, path)
						return
					}
					walk(path+"["+id+"]", e, other)
				}
				return
			}
			if len(xa) != len(ya) {
				differ = append(differ, path)
				return
			}
			for i := range xa {
				walk(fmt.Sprintf("%s[%d]", path, i), xa[i], ya[i])
			}
			return
		}
		if !SameValue(x, y) {
			differ = append(differ, path)
		}
	}
	walk("", a, b)
	return differ, oneSided
}

// isExtension reports whether a path goes through an extension member
// ("x-vendor-…"), which a server may show where it likes.
func isExtension(path string) bool {
	for _, part := range strings.Split(path, ".") {
		if strings.HasPrefix(part, "x-") {
			return true
		}
	}
	return false
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// byID: every element is an object with an id.
func byID(a []any) bool {
	for _, e := range a {
		m, ok := e.(map[string]any)
		if !ok || m["id"] == nil {
			return false
		}
	}
	return len(a) > 0
}

func viewOf(s *Sighting) string {
	if s.Op == nil {
		return s.Ex.Method + " " + s.Ex.Path
	}
	return string(s.Op.Kind) + " (" + s.Op.Method + " " + s.Op.Path + ")"
}

func checkSameEverywhere(c *Context, o *Observation) {
	if isWrite(o) {
		return // a write changes the record: its answer is compared with later readings
	}
	judged := 0
	for _, s := range o.Sightings() {
		prev := s.Prev
		if prev == nil {
			continue
		}
		ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(fmt.Sprint(s.Record["id"]))}
		if c.History.Changed(prev, s, ref) {
			continue
		}
		judged++
		differ, oneSided := Differences(prev.Record, s.Record)
		var extension []string
		for _, p := range oneSided {
			if isExtension(p) {
				extension = append(extension, p)
			} else {
				differ = append(differ, p+" (shown by one reading only)")
			}
		}
		if len(differ) > 0 {
			c.FailRelated(o, []*Exchange{prev.Ex}, "the record as the "+viewOf(prev)+" showed it", "%s %v reads differently by %s than by %s in %s", o.Op.Resource, s.Record["id"], viewOf(s), viewOf(prev), strings.Join(first(differ, 5), ", "))
			return
		}
		if len(extension) > 0 {
			c.Note(o, "%s: extension members shown by one reading only (%s and %s): %s", o.Op.Resource, viewOf(s), viewOf(prev), strings.Join(first(extension, 5), ", "))
		}
	}
	c.JudgedN(o, judged)
}

// withoutPresentation is a record without what expand and
// expandReferenceNames add: _embedded, and displayName inside the
// references of the contract's reference paths.
func withoutPresentation(rec map[string]any, refs []RefPath) map[string]any {
	out := deepCopy(rec).(map[string]any)
	delete(out, "_embedded")
	for _, r := range ReferencesIn(out, refs) {
		delete(r.Object, "displayName")
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func checkPresentationOnlyAdds(c *Context, o *Observation) {
	if isWrite(o) {
		return
	}
	judged := 0
	for _, s := range o.Sightings() {
		ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(fmt.Sprint(s.Record["id"]))}
		mine := withoutPresentation(s.Record, o.Op.References)
		pres, _ := o.Presentation()
		for _, other := range c.History.SightingsOf(ref) {
			if other == s || other.Ex == o.Exchange {
				continue
			}
			op := other.Op
			if op == nil || c.History.Changed(other, s, ref) || c.History.Changed(s, other, ref) {
				continue
			}
			otherPres := other.Presentation
			if otherPres == pres {
				continue
			}
			judged++
			differ, _ := Differences(withoutPresentation(other.Record, op.References), mine)
			if len(differ) > 0 {
				c.FailRelated(o, []*Exchange{other.Ex}, "the same members with any expand and expandReferenceNames", "%s %v differs in %s between %s and the reading with expand=%q, expandReferenceNames=%v", o.Op.Resource, s.Record["id"], strings.Join(first(differ, 5), ", "), o.Label(), otherPres.Expand, otherPres.ReferenceNames)
				return
			}
		}
	}
	c.JudgedN(o, judged)
}

// laterPageUnderStandard: the standard does not say whether expand and
// expandReferenceNames may accompany a pageToken (docs/decisions.md#pagetoken-companions lets them).
func laterPageUnderStandard(c *Context, o *Observation) bool {
	if c.Standard() && o.Op.Paging == PagingPageToken && o.Query.Get("pageToken") != "" {
		c.Undecided(o, "the standard does not say whether expand and expandReferenceNames may accompany a pageToken")
		return true
	}
	return false
}

// embeddedIDs are the ids of an _embedded member (one record or a list).
func embeddedIDs(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		out = append(out, strings.ToLower(fmt.Sprint(x["id"])))
	case []any:
		for _, e := range Objects(x) {
			out = append(out, strings.ToLower(fmt.Sprint(e["id"])))
		}
	}
	slices.Sort(out)
	return out
}

func checkExpandHonoured(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	pres, known := o.Presentation()
	if !known || pres.Expand == "" || laterPageUnderStandard(c, o) {
		return
	}
	judged := 0
	for _, rec := range o.Records() {
		emb, _ := rec["_embedded"].(map[string]any)
		for _, x := range strings.Split(pres.Expand, ",") {
			if !slices.Contains(o.Op.Expand, x) {
				continue
			}
			var want []string
			member := false
			for _, r := range ReferencesIn(rec, o.Op.References) {
				if r.RefPath.Path == x || r.RefPath.Path == x+"[]" {
					member = true
					want = append(want, strings.ToLower(fmt.Sprint(r.Object["id"])))
				}
			}
			if !member || len(want) == 0 {
				continue // what X embeds is not a reference the record shows
			}
			slices.Sort(want)
			judged++
			got, ok := emb[x]
			if !ok {
				c.Fail(o, "_embedded."+x, "%s: record %v has no _embedded.%s with expand=%s", o.Label(), rec["id"], x, pres.Expand)
				return
			}
			if g := embeddedIDs(got); !slices.Equal(g, want) {
				c.Fail(o, fmt.Sprintf("_embedded.%s with the records %v", x, want), "%s: record %v embeds %v as %s, its references name %v", o.Label(), rec["id"], g, x, want)
				return
			}
		}
	}
	c.JudgedN(o, judged)
}

func checkEmbedsOnlyAsked(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	pres, known := o.Presentation()
	if !known || laterPageUnderStandard(c, o) {
		return
	}
	asked := strings.Split(pres.Expand, ",")
	for _, rec := range o.Records() {
		emb, ok := rec["_embedded"].(map[string]any)
		if !ok {
			continue
		}
		for k := range emb {
			if !slices.Contains(asked, k) && !strings.HasPrefix(k, "x-") {
				c.Fail(o, "_embedded only with what expand names", "%s: record %v embeds %s, which expand=%q did not ask for", o.Label(), rec["id"], k, pres.Expand)
				return
			}
		}
	}
	c.JudgedN(o, len(o.Records()))
}

// referenceNames judges the displayName of every reference of an answer
// with a presentation that is known.
func referenceNames(c *Context, o *Observation, applies func(Presentation) bool, bad func(Presentation, bool) bool, expected, wrong string) {
	if !o.OK() {
		return
	}
	pres, known := o.Presentation()
	if !known || !applies(pres) || laterPageUnderStandard(c, o) {
		return
	}
	judged := 0
	for _, rec := range o.Records() {
		for _, r := range ReferencesIn(rec, o.Op.References) {
			judged++
			if _, has := r.Object["displayName"]; bad(pres, has) {
				c.Fail(o, expected, "%s: record %v's %s %s", o.Label(), rec["id"], r.Path, wrong)
				return
			}
		}
	}
	c.JudgedN(o, judged)
}

func checkNamesOnlyWhenAsked(c *Context, o *Observation) {
	referenceNames(c, o, func(p Presentation) bool { return !p.ReferenceNames }, func(_ Presentation, has bool) bool { return has },
		"no displayName without expandReferenceNames=true", "carries displayName")
}

func checkNamesWhenAsked(c *Context, o *Observation) {
	referenceNames(c, o, func(p Presentation) bool { return p.ReferenceNames }, func(_ Presentation, has bool) bool { return !has },
		"displayName on every reference", "has no displayName with expandReferenceNames=true")
}

func checkListedReadable(c *Context, o *Observation) {
	id := o.PathParams["id"]
	if id == "" || (o.Status != 404 && !o.OK()) {
		return
	}
	ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}
	var listed *Sighting
	for _, s := range earlierSightings(c, ref, o) {
		if s.Op != nil && s.Op.Kind != KindGet {
			listed = s
		}
	}
	if listed == nil {
		return
	}
	now := &Sighting{Ex: o.Exchange, From: o.Start}
	if c.History.Changed(listed, now, ref) {
		return
	}
	c.Judged(o)
	if o.Status == 404 {
		c.FailRelated(o, []*Exchange{listed.Ex}, "the record "+viewOf(listed)+" showed", "%s answered 404 for a record %s showed", o.Label(), viewOf(listed))
	}
}

// earlierSightings are the readings of a record before an observation's,
// under every presentation.
func earlierSightings(c *Context, ref RecordRef, o *Observation) []*Sighting {
	var out []*Sighting
	for _, s := range c.History.SightingsOf(ref) {
		if s.Ex == o.Exchange {
			s = s.Prev
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

func checkLookupExact(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	v, err := o.RequestJSON()
	body, _ := v.(map[string]any)
	if err != nil || body == nil {
		return
	}
	asked := map[string]bool{}
	for _, x := range Arr(body, "ids") {
		if s, ok := x.(string); ok {
			asked[strings.ToLower(s)] = true
		}
	}
	if len(asked) == 0 || len(body) != 1 {
		return // a lookup by other keys (civic numbers, codes)
	}
	got := map[string]bool{}
	for _, rec := range o.Records() {
		id := strings.ToLower(fmt.Sprint(rec["id"]))
		got[id] = true
		if !asked[id] {
			c.Fail(o, "only the records asked for", "%s returned %s, which was not asked for", o.Label(), id)
			return
		}
	}
	judged := 0
	now := &Sighting{Ex: o.Exchange, From: o.Start}
	for id := range asked {
		ref := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: id}
		var seen *Sighting
		for _, s := range earlierSightings(c, ref, o) {
			seen = s
		}
		if seen == nil || c.History.Changed(seen, now, ref) {
			continue
		}
		judged++
		if !got[id] {
			c.FailRelated(o, []*Exchange{seen.Ex}, "every record asked for that exists", "%s left out %s, which %s showed", o.Label(), id, viewOf(seen))
			return
		}
	}
	c.JudgedN(o, judged)
}
