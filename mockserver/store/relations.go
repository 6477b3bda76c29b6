package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/go-memdb"

	"github.com/skolkit/skolkit/model"
)

// The persons an organisation relates to, in person-id order, a page at a
// time (the SS 12000 persons list's relationship.organisation filter,
// docs/decisions.md BB20). Each kind of relationship is a stream of index
// entries whose keys begin with the organisation and the kind and go on
// with the related person's id, so that the entries of one stream come in
// person-id order: a page merges the streams from the cursor on and stops
// after a page of persons, whatever the organisation's size.

// The kinds of relationship (SS 12000's relationship.entity.type).
const (
	RelationEnrolment               = "enrolment"
	RelationDuty                    = "duty"
	RelationPlacementChild          = "placement.child"
	RelationPlacementOwner          = "placement.owner"
	RelationResponsibleForEnrolment = "responsibleFor.enrolment"
	RelationResponsibleForPlacement = "responsibleFor.placement"
	RelationGroupMembership         = "groupMembership"
)

// IndexRelated holds one entry per (organisation, kind, person, record):
// the value is the organisation, keySep, the kind's tag, keySep and the
// person's id. Duties are on the employee placements; the others
// (responsibleFor.enrolment, placement.child, placement.owner,
// responsibleFor.placement, groupMembership) on a person's record: the
// child's, which holds the responsibles and is one per child however many
// placements it has, or the member's, one per organisation however many of
// its groups the member is in.
const IndexRelated = "related"

// relationStream is where a kind's entries are: a table's index and the tag
// of the kind ("": the index's value is the organisation alone and the
// record is the person, as persons by enroledAt).
type relationStream struct {
	table, index, tag string
}

var relationStreams = map[string]relationStream{
	RelationEnrolment:               {TablePersons, IndexEnroledAt, ""},
	RelationResponsibleForEnrolment: {TablePersons, IndexRelated, "r"},
	RelationDuty:                    {TableEmployeePlacements, IndexRelated, "d"},
	RelationPlacementChild:          {TablePersons, IndexRelated, "c"},
	RelationPlacementOwner:          {TablePersons, IndexRelated, "o"},
	RelationResponsibleForPlacement: {TablePersons, IndexRelated, "p"},
	RelationGroupMembership:         {TablePersons, IndexRelated, "m"},
}

// RelationTypes lists the kinds of relationship, in SS 12000's order.
var RelationTypes = []string{
	RelationEnrolment, RelationDuty, RelationPlacementChild, RelationPlacementOwner,
	RelationResponsibleForEnrolment, RelationResponsibleForPlacement, RelationGroupMembership,
}

// keyPrefix is the beginning of the keys of the stream's entries for org.
func (s relationStream) keyPrefix(org string) []byte {
	if s.tag == "" {
		return []byte(org + keySep)
	}
	return []byte(org + keySep + s.tag + keySep)
}

func relatedValue(org, tag, person string) string { return org + keySep + tag + keySep + person }

// related is one value under IndexRelated, in parts.
type related struct{ org, tag, person string }

// relatedSet collects a record's values under IndexRelated, each once.
type relatedSet []related

func (rs relatedSet) add(org, tag string, persons ...string) relatedSet {
	if org == "" {
		return rs
	}
	for _, p := range persons {
		if r := (related{org, tag, p}); p != "" && !slices.Contains(rs, r) {
			rs = append(rs, r)
		}
	}
	return rs
}

// appendTo appends the values to dst, all cut from one string: a record's
// values cost one allocation, not one each.
func (rs relatedSet) appendTo(dst []string) []string {
	n := 0
	for _, r := range rs {
		n += len(r.org) + len(r.tag) + len(r.person) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for _, r := range rs {
		b.WriteString(r.org)
		b.WriteString(keySep)
		b.WriteString(r.tag)
		b.WriteString(keySep)
		b.WriteString(r.person)
	}
	all, off := b.String(), 0
	for _, r := range rs {
		end := off + len(r.org) + len(r.tag) + len(r.person) + 2
		dst = append(dst, all[off:end])
		off = end
	}
	return dst
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// responsibleIDs are the persons a person names as responsibles, each once.
func responsibleIDs(p *model.Person) []string {
	ids := make([]string, 0, len(p.Responsibles))
	for _, r := range p.Responsibles {
		if !containsString(ids, r.Person.ID) {
			ids = append(ids, r.Person.ID)
		}
	}
	return ids
}

// personRelated appends a person's values under IndexRelated: the
// organisations of its enrolments for each of its responsibles
// (responsibleFor.enrolment); those of its placements as a child (only
// interface B's, BB11) for itself, for each owner and for each responsible;
// and those of the groups it is a member of, for itself. These live on the
// person's record, so that a child placed a year at a time, or a pupil in
// several groups of one school, has one entry per organisation and person,
// not one per placement or group; the store keeps them exact when a
// placement or a group changes (followPlacement, followGroup).
func personRelated(dst []string, p *model.Person, placed []*model.Placement, groups []*model.Group) []string {
	var buf [16]related
	set := relatedSet(buf[:0])
	rs := responsibleIDs(p)
	for _, e := range p.Enrolments {
		set = set.add(e.EnroledAt.ID, "r", rs...)
	}
	var orgs []string // the child and its responsibles once an organisation
	for _, pl := range placed {
		if !model.IsRegisterPlacement(pl) {
			continue
		}
		org := pl.PlacedAt.ID
		if !slices.Contains(orgs, org) {
			orgs = append(orgs, org)
			set = set.add(org, "c", p.ID)
			set = set.add(org, "p", rs...)
		}
		for _, o := range pl.Owners {
			set = set.add(org, "o", o.ID)
		}
	}
	for _, g := range groups {
		set = set.add(g.Organisation.ID, "m", p.ID)
	}
	return set.appendTo(dst)
}

// dependencies reads what a derived index depends on besides its record:
// a child's placements, a member's groups.
type dependencies interface {
	placementsOf(child string) []*model.Placement
	groupsOf(member string) []*model.Group
}

func (t *tx) placementsOf(child string) []*model.Placement {
	var out []*model.Placement
	_ = t.scan(tableDefs[TablePlacements], IndexChild, child, func(o any) bool {
		out = append(out, o.(*model.Placement))
		return true
	})
	return out
}

func (t *tx) groupsOf(member string) []*model.Group {
	var out []*model.Group
	_ = t.scan(tableDefs[TableGroups], IndexMember, member, func(o any) bool {
		out = append(out, o.(*model.Group))
		return true
	})
	return out
}

// loadDependencies are a load's: the loaded placements grouped by child and
// groups by member, each built when first asked.
type loadDependencies struct {
	placements, groups *tableLoad
	onceP, onceG       sync.Once
	byChild            map[string][]*model.Placement
	byMember           map[string][]*model.Group
}

func (d *loadDependencies) placementsOf(child string) []*model.Placement {
	d.onceP.Do(func() {
		d.byChild = map[string][]*model.Placement{}
		if d.placements == nil {
			return
		}
		for _, o := range d.placements.sorted {
			p := o.(*model.Placement)
			d.byChild[p.Child.ID] = append(d.byChild[p.Child.ID], p)
		}
	})
	return d.byChild[child]
}

func (d *loadDependencies) groupsOf(member string) []*model.Group {
	d.onceG.Do(func() {
		d.byMember = map[string][]*model.Group{}
		if d.groups == nil {
			return
		}
		for _, o := range d.groups.sorted {
			g := o.(*model.Group)
			for _, m := range g.GroupMemberships {
				gs := d.byMember[m.Person.ID]
				if len(gs) > 0 && gs[len(gs)-1] == g {
					continue // listed twice in the group (F3)
				}
				d.byMember[m.Person.ID] = append(gs, g)
			}
		}
	})
	return d.byMember[member]
}

var relatedIndexes = map[string]indexDef{
	TablePersons: {name: IndexRelated, derived: func(d dependencies, o any, dst []string) []string {
		p := o.(*model.Person)
		return personRelated(dst, p, d.placementsOf(p.ID), d.groupsOf(p.ID))
	}},
	TableEmployeePlacements: byEach(IndexRelated, func(d *model.EmployeePlacement) []string {
		if d.SchoolID == "" || d.EmployeeID == "" {
			return nil
		}
		return []string{relatedValue(d.SchoolID, "d", d.EmployeeID)}
	}),
}

func init() {
	for table, ix := range relatedIndexes {
		td := tableDefs[table]
		if td == nil || td.index(ix.name) != nil {
			panic(fmt.Sprintf("store: cannot add index %q to table %q", ix.name, table))
		}
		td.indexes = append(td.indexes, ix)
	}
}

// followPlacement is called before a write of the placement with the id
// (now: the placement written; nil: deleted) and returns what to call after
// it: it moves the IndexRelated entries of the placement's child (before
// and after the write, when the child changes) from their values before the
// write to their values after it.
func (t *tx) followPlacement(id string, now *model.Placement) func() {
	var children []string
	if old, ok := t.get(TablePlacements, id).(*model.Placement); ok {
		children = append(children, old.Child.ID)
	}
	if now != nil && !containsString(children, now.Child.ID) {
		children = append(children, now.Child.ID)
	}
	return t.followPersons(children)
}

// followGroup is followPlacement for a group: the persons whose membership
// changes (every member, before and after, when the group moves to another
// organisation; none when only its name or dates change).
func (t *tx) followGroup(id string, now *model.Group) func() {
	members := func(g *model.Group) []string {
		if g == nil {
			return nil
		}
		ids := make([]string, len(g.GroupMemberships))
		for i, m := range g.GroupMemberships {
			ids[i] = m.Person.ID
		}
		slices.Sort(ids)
		return slices.Compact(ids)
	}
	old, _ := t.get(TableGroups, id).(*model.Group)
	before, after := members(old), members(now)
	var changed []string
	if old != nil && now != nil && old.Organisation.ID == now.Organisation.ID {
		for _, p := range before {
			if _, found := slices.BinarySearch(after, p); !found {
				changed = append(changed, p)
			}
		}
		for _, p := range after {
			if _, found := slices.BinarySearch(before, p); !found {
				changed = append(changed, p)
			}
		}
	} else {
		changed = append(before, after...)
		slices.Sort(changed)
		changed = slices.Compact(changed)
	}
	return t.followPersons(changed)
}

// followPersons takes the persons' IndexRelated values before a write and
// returns what moves their entries to their values after it.
func (t *tx) followPersons(ids []string) func() {
	if len(ids) == 0 {
		return nil
	}
	td := tableDefs[TablePersons]
	ix := td.index(IndexRelated)
	before := make([][]string, len(ids))
	for i, c := range ids {
		if p, ok := t.get(TablePersons, c).(*model.Person); ok {
			before[i] = ix.valuesOf(t, p, nil)
		}
	}
	return func() {
		l := td.layout(IndexRelated)
		for i, c := range ids {
			p, ok := t.get(TablePersons, c).(*model.Person)
			if !ok {
				continue
			}
			after := ix.valuesOf(t, p, nil)
			for _, v := range before[i] {
				if !containsString(after, v) {
					t.drop(l, v, c)
				}
			}
			for _, v := range after {
				if !containsString(before[i], v) {
					t.put(l, v, c, p)
				}
			}
		}
	}
}

// seeker reads the entries of an index in ascending key order from a key
// on, one at a time (walk, pulled).
type seeker struct {
	l     layout
	it    memdb.ResultIterator
	first *page // the page that holds the starting key, read first
	p     *page
	i     int
	buf   []byte
}

func (t *tx) seek(td *tableDef, index string, from []byte) *seeker {
	l := td.layout(index)
	s := &seeker{l: l}
	if s.first = t.pageFor(l.table, from); s.first != nil {
		s.p, s.i = s.first, l.seek(s.first, from)
	}
	s.it, _ = t.txn.LowerBound(l.table, IndexID, RawKey(from))
	return s
}

// next returns the next entry's key, valid until the next call; false at
// the end of the index.
func (s *seeker) next() ([]byte, bool) {
	for s.p == nil || s.i >= len(s.p.entries) {
		if s.it == nil {
			return nil, false
		}
		obj := s.it.Next()
		if obj == nil {
			s.it = nil
			return nil, false
		}
		if p := obj.(*page); p != s.first {
			s.p, s.i = p, 0
		}
	}
	e := s.p.entries[s.i]
	s.i++
	s.buf = s.l.appendKey(s.buf[:0], e.val, s.l.td.id(e.rec))
	return s.buf, true
}

// relationHead is a stream being merged: its entries for one organisation
// from a person on, and the person it is at.
type relationHead struct {
	s      *seeker
	prefix []byte
	id     string
	ok     bool
}

// advance moves the head to the next person of its stream after the one it
// is at (a person may have several entries: a teacher's duties at one
// school, a pupil's groups).
func (h *relationHead) advance() {
	for {
		k, ok := h.s.next()
		if !ok || !bytes.HasPrefix(k, h.prefix) {
			h.ok = false
			return
		}
		id := k[len(h.prefix):]
		if i := bytes.IndexByte(id, keySep[0]); i >= 0 {
			id = id[:i]
		}
		if !h.ok || string(id) != h.id {
			h.id, h.ok = string(id), true
			return
		}
	}
}

// EachRelatedPerson calls fn with the ids of the persons the organisation
// relates to through the kind of relationship entityType (""= any kind), in
// id order, each once, beginning after the person afterID (""= from the
// first), until fn returns false. An unknown kind relates no one. It costs
// the persons fn is called with (and their entries in each stream), not the
// organisation's size.
func (sn *Snapshot) EachRelatedPerson(org, entityType, afterID string, fn func(id string) bool) {
	kinds := RelationTypes
	if entityType != "" {
		kinds = []string{entityType}
	}
	heads := make([]*relationHead, 0, len(kinds))
	for _, k := range kinds {
		st, ok := relationStreams[k]
		if !ok {
			continue
		}
		prefix := st.keyPrefix(org)
		from := prefix
		if afterID != "" {
			from = append(append(bytes.Clone(prefix), afterID...), 0x01)
		}
		h := &relationHead{s: sn.t.seek(tableDefs[st.table], st.index, from), prefix: prefix}
		h.advance()
		if h.ok {
			heads = append(heads, h)
		}
	}
	for {
		var least *relationHead
		for _, h := range heads {
			if h.ok && (least == nil || h.id < least.id) {
				least = h
			}
		}
		if least == nil {
			return
		}
		id := least.id
		if !fn(id) {
			return
		}
		for _, h := range heads {
			if h.ok && h.id == id {
				h.advance()
			}
		}
	}
}

// RelatedPersons returns the page of at most limit persons after the cursor
// (nil: the first page) that the organisation relates to through the kind
// of relationship entityType ("" = any) and for which match returns true
// (nil: every one), in id order, and the cursor after the last one when
// more may follow. Its cursors are those of a Page of the persons' id
// index, so a walk may go from one to the other.
func (sn *Snapshot) RelatedPersons(org, entityType string, after Cursor, limit int, match func(any) bool) ([]any, Cursor) {
	afterID := string(bytes.TrimSuffix(after, []byte(keySep)))
	var items []any
	var next Cursor
	last := ""
	sn.EachRelatedPerson(org, entityType, afterID, func(id string) bool {
		p, ok := sn.Person(id)
		if !ok || (match != nil && !match(p)) {
			return true
		}
		if len(items) == limit {
			next = Cursor(last + keySep)
			return false
		}
		items = append(items, p)
		last = id
		return true
	})
	return items, next
}
