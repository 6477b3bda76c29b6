package store

import (
	"bytes"
	"fmt"

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

// IndexRelated holds, on the table whose record holds a relationship, one
// entry per (organisation, kind, person): the value is the organisation,
// keySep, the kind's tag, keySep and the person's id.
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
	RelationPlacementChild:          {TablePlacements, IndexRelated, "c"},
	RelationPlacementOwner:          {TablePlacements, IndexRelated, "o"},
	RelationResponsibleForPlacement: {TablePlacements, IndexRelated, "p"},
	RelationGroupMembership:         {TableGroups, IndexRelated, "m"},
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

// appendRelated appends the values of a record's relationships under
// IndexRelated, each once.
func appendRelated(dst []string, org, tag string, persons ...string) []string {
	if org == "" {
		return dst
	}
	for _, p := range persons {
		if p == "" {
			continue
		}
		if v := relatedValue(org, tag, p); !containsString(dst, v) {
			dst = append(dst, v)
		}
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

// placementRelated appends a placement's values under IndexRelated: its
// child, its owners and the child's responsibles (who live on the child's
// record: responsibles are what the store reads of it). Only interface B's
// placements relate (BB11).
func placementRelated(dst []string, p *model.Placement, responsibles []string) []string {
	if !model.IsRegisterPlacement(p) {
		return dst
	}
	dst = appendRelated(dst, p.PlacedAt.ID, "c", p.Child.ID)
	for _, o := range p.Owners {
		dst = appendRelated(dst, p.PlacedAt.ID, "o", o.ID)
	}
	return appendRelated(dst, p.PlacedAt.ID, "p", responsibles...)
}

// childResponsibles reads the responsibles of a placement's child.
func childResponsibles(get func(table, id string) any, p *model.Placement) []string {
	if c, ok := get(TablePersons, p.Child.ID).(*model.Person); ok {
		return responsibleIDs(c)
	}
	return nil
}

var relatedIndexes = map[string]indexDef{
	TablePersons: byEach(IndexRelated, func(p *model.Person) []string {
		var out []string
		rs := responsibleIDs(p)
		for _, e := range p.Enrolments {
			out = appendRelated(out, e.EnroledAt.ID, "r", rs...)
		}
		return out
	}),
	TableEmployeePlacements: byEach(IndexRelated, func(d *model.EmployeePlacement) []string {
		return appendRelated(nil, d.SchoolID, "d", d.EmployeeID)
	}),
	TableGroups: byEach(IndexRelated, func(g *model.Group) []string {
		var out []string
		for _, m := range g.GroupMemberships {
			out = appendRelated(out, g.Organisation.ID, "m", m.Person.ID)
		}
		return out
	}),
	// A placement's entries depend on its child's record too: the store
	// keeps them exact when the child's responsibles change (followResponsibles).
	TablePlacements: {name: IndexRelated, derived: func(get func(table, id string) any, o any, dst []string) []string {
		p := o.(*model.Placement)
		return placementRelated(dst, p, childResponsibles(get, p))
	}},
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

// followResponsibles keeps the placements' IndexRelated exact when a
// person's responsibles change from old's to now's: the entries of the
// person's placements as a child that name a responsible move with them. It
// runs in the write transaction that changes the person.
func (t *tx) followResponsibles(old, now *model.Person) {
	before, after := responsibleIDs(old), responsibleIDs(now)
	same := len(before) == len(after)
	for _, id := range before {
		same = same && containsString(after, id)
	}
	if same {
		return
	}
	td := tableDefs[TablePlacements]
	l := td.layout(IndexRelated)
	var placed []*model.Placement
	_ = t.scan(td, IndexChild, now.ID, func(o any) bool {
		placed = append(placed, o.(*model.Placement))
		return true
	})
	var oldVals, newVals []string
	for _, p := range placed {
		oldVals = placementRelated(oldVals[:0], p, before)
		newVals = placementRelated(newVals[:0], p, after)
		for _, v := range oldVals {
			if !containsString(newVals, v) {
				t.drop(l, v, p.ID)
			}
		}
		for _, v := range newVals {
			if !containsString(oldVals, v) {
				t.put(l, v, p.ID, p)
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
