package rules

import (
	"fmt"
	"slices"
	"strings"
)

// The references family: a reference agrees with the record it points to
// wherever both have been seen (its securityMarking, its displayName),
// person references carry a securityMarking, and a reference points to a
// record that exists.

var (
	specMarking    = SpecRef{Section: "Resources: Conventions", Quote: "Person references also carry `securityMarking`. … `securityMarking` reflects the population register. Allowed values: `Ingen`, `Sekretessmarkering`, `Skyddad folkbokföring`."}
	specMarkingStd = &SpecRef{Section: "SS 12000 2.1.0: PersonReference.securityMarking (enum Ingen, Sekretessmarkering, Skyddad folkbokföring)", Quote: "Återspeglar värdet från folkbokföringsregistret."}
	specRefName    = SpecRef{Section: "Resources: Conventions", Quote: "Reference objects carry `id`. They carry `displayName` only when the query parameter `expandReferenceNames` is `true`."}
	specRefNameStd = &SpecRef{Section: "SS 12000 2.1.0: ObjectReference.displayName", Quote: "Namn för visningsyfte för det refererade objektet."}
)

// SecurityMarkings are the values of a person's securityMarking.
var SecurityMarkings = []string{"Ingen", "Sekretessmarkering", "Skyddad folkbokföring"}

func hasPersonReferences(op *Operation) bool {
	return op != nil && slices.ContainsFunc(op.References, func(r RefPath) bool { return r.Person })
}

// referenceRules returns the references family.
func referenceRules() []*Rule {
	return []*Rule{
		{ID: "references.security-marking-agrees", Family: FamilyReferences, Side: SideServer,
			Title: "a person reference's securityMarking is the person's own, wherever both the reference and the person (by id, in a list, embedded) have been seen",
			Spec:  SpecRef{Section: specMarking.Section, Quote: "`securityMarking` reflects the population register."}, StandardSpec: specMarkingStd,
			Severity: MUST, Standard: SHOULD,
			Applies: func(op *Operation) bool { return op != nil && op.Surface == SurfaceB && op.ReadsRecords() },
			Check:   checkMarkingAgrees},
		{ID: "references.display-name-agrees", Family: FamilyReferences, Side: SideServer,
			Title: "a reference's displayName is the displayName of the record it points to, wherever both have been seen",
			Spec:  specRefName, StandardSpec: specRefNameStd,
			Choice:   "that a reference's displayName is the referenced record's own displayName; the standard says only that it is a name for display",
			Severity: SHOULD, Standard: SHOULD,
			Applies: func(op *Operation) bool { return op != nil && op.Surface == SurfaceB && op.ReadsRecords() },
			Check:   checkNameAgrees},
		{ID: "references.person-marking-present", Family: FamilyReferences, Side: SideServer,
			Title:    "every person reference carries a securityMarking of the allowed values",
			Spec:     specMarking,
			Severity: MUST, Standard: Off, Applies: hasPersonReferences, Concurrent: true, Check: checkPersonMarking},
		{ID: "references.resolve", Family: FamilyReferences, Side: SideServer,
			Title:    "a record a reference points to exists: its by-id read is not 404 while the reference stands",
			Spec:     SpecRef{Section: "SS 12000 2.1.0: ObjectReference", Quote: "displayName: Namn för visningsyfte för det refererade objektet."},
			Choice:   "that a reference resolves on the same server; a server may refer to records a client cannot read",
			Severity: SHOULD, Standard: SHOULD,
			Applies: func(op *Operation) bool { return op != nil && op.Surface == SurfaceB && op.Kind == KindGet },
			Check:   checkResolves},
	}
}

// FoundReference is a reference object in a record.
type FoundReference struct {
	RefPath
	Path   string // with indexes: "owners[1]"
	Object map[string]any
}

// ReferencesIn finds the reference objects of a record at the contract's
// reference paths.
func ReferencesIn(rec map[string]any, paths []RefPath) []FoundReference {
	var out []FoundReference
	for _, rp := range paths {
		var walk func(v any, parts []string, at string)
		walk = func(v any, parts []string, at string) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			if len(parts) == 0 {
				out = append(out, FoundReference{RefPath: rp, Path: at, Object: m})
				return
			}
			name, each := strings.CutSuffix(parts[0], "[]")
			next := m[name]
			if at != "" {
				at += "."
			}
			at += name
			if !each {
				walk(next, parts[1:], at)
				return
			}
			for i, e := range asArray(next) {
				walk(e, parts[1:], fmt.Sprintf("%s[%d]", at, i))
			}
		}
		walk(rec, strings.Split(rp.Path, "."), "")
	}
	return out
}

// referencesOf lists the references of an answer's records with the
// record that holds each.
func answerReferences(o *Observation) []struct {
	Holder map[string]any
	FoundReference
} {
	var out []struct {
		Holder map[string]any
		FoundReference
	}
	for _, rec := range o.Records() {
		for _, r := range ReferencesIn(rec, o.Op.References) {
			out = append(out, struct {
				Holder map[string]any
				FoundReference
			}{rec, r})
		}
	}
	return out
}

// agreement compares references with what is known of their records, both
// ways: the references of this answer with the records seen before, and
// the records of this answer with the references seen before.
func agreement(c *Context, o *Observation, member string, compare func(ref map[string]any, r *Referent) (string, string, bool)) {
	if !o.OK() {
		return
	}
	judged := 0
	for _, r := range answerReferences(o) {
		if r.Target == "" {
			continue
		}
		id, _ := r.Object["id"].(string)
		ref := RecordRef{Surface: o.Surface, Resource: r.Target, ID: strings.ToLower(id)}
		target, ok := c.History.ReferentOf(ref)
		if !ok || (ref.Resource == o.Op.Resource && strings.EqualFold(fmt.Sprint(r.Holder["id"]), id)) {
			continue // nothing known, or a record that points to itself
		}
		got, want, decided := compare(r.Object, target)
		if !decided {
			continue
		}
		if c.History.WriteBetween(target.Ex, o.Exchange) {
			continue
		}
		judged++
		if got != want {
			c.FailRelated(o, []*Exchange{target.Ex}, member+" "+want, "%s: %v's %s points to %s %s, whose %s is %s; the reference's is %s", o.Label(), r.Holder["id"], r.Path, r.Target, id, member, want, got)
			return
		}
	}
	for _, rec := range o.Records() {
		id, _ := rec["id"].(string)
		self := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}
		target, ok := c.History.ReferentOf(self)
		if !ok {
			continue
		}
		refs, _ := c.History.Referrers.Peek(self)
		for _, ref := range refs {
			if ref.Ex == o.Exchange || c.History.WriteBetween(ref.Ex, o.Exchange) {
				continue
			}
			got, want, decided := compare(ref.Object, target)
			if !decided {
				continue
			}
			judged++
			if got != want {
				c.FailRelated(o, []*Exchange{ref.Ex}, member+" "+want, "%s: %s %s has %s %s, but a reference to it (%s of %s %s) has %s", o.Label(), o.Op.Resource, id, member, want, ref.Path, ref.Holder.Resource, ref.Holder.ID, got)
				return
			}
		}
	}
	c.JudgedN(o, judged)
}

func checkMarkingAgrees(c *Context, o *Observation) {
	agreement(c, o, "securityMarking", func(ref map[string]any, r *Referent) (string, string, bool) {
		m, ok := ref["securityMarking"].(string)
		if !ok || !r.HasMarking {
			return "", "", false
		}
		return m, r.SecurityMarking, true
	})
}

func checkNameAgrees(c *Context, o *Observation) {
	agreement(c, o, "displayName", func(ref map[string]any, r *Referent) (string, string, bool) {
		n, ok := ref["displayName"].(string)
		if !ok || n == "" || r.DisplayName == "" {
			return "", "", false
		}
		return n, r.DisplayName, true
	})
}

func checkPersonMarking(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	judged := 0
	for _, r := range answerReferences(o) {
		if !r.Person {
			continue
		}
		judged++
		m, ok := r.Object["securityMarking"]
		if s, _ := m.(string); !ok || !slices.Contains(SecurityMarkings, s) {
			c.Fail(o, "securityMarking one of "+strings.Join(SecurityMarkings, ", "), "%s: %v's %s carries securityMarking %s", o.Label(), r.Holder["id"], r.Path, Compact(m))
			return
		}
	}
	c.JudgedN(o, judged)
}

func checkResolves(c *Context, o *Observation) {
	id := o.PathParams["id"]
	if id == "" {
		return
	}
	self := RecordRef{Surface: o.Surface, Resource: o.Op.Resource, ID: strings.ToLower(id)}
	refs, _ := c.History.Referrers.Peek(self)
	if len(refs) == 0 {
		return
	}
	ref := refs[len(refs)-1]
	if c.History.WriteBetween(ref.Ex, o.Exchange) {
		return
	}
	switch {
	case o.OK():
		c.Judged(o)
	case o.Status == 404 && c.History.Offered(o.Surface, o.Op.Resource):
		c.Judged(o)
		c.FailRelated(o, []*Exchange{ref.Ex}, "the record a reference points to", "%s answered 404, but %s of %s %s refers to it", o.Label(), ref.Path, ref.Holder.Resource, ref.Holder.ID)
	}
}
