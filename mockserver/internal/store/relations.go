package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/model"
)

// The persons an organisation relates to, in person-id order, a page at a
// time (the SS 12000 persons list's relationship.organisation filter,
// docs/decisions.md#relation-lists). For each organisation and kind of relationship
// the store keeps a relation list: the related persons' ids in id order,
// each with the number of records that relate them (a guardian of two
// children placed at one preschool is related twice). A page merges the
// lists of the asked kinds from the cursor on and stops after a page of
// persons, whatever the organisation's size.
//
// The lists are go-memdb objects of their own table (tableRelations), so
// snapshots, transactions and copy-on-write hold for them as for the pages:
// a write copies a list once and changes its copy in place until it
// commits. They are derived from the records: a record that holds
// relationships (a person: its enrolments, its placements as a child and
// their owners, its guardians' responsibilities, its group memberships; an
// employee placement: its duty) is their holder, and every write of a
// holder or of a record a holder's relationships read (a placement, a
// group) moves the holder's relationships from the lists before the write
// to the lists after it, in the same transaction.

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

// RelationTypes lists the kinds of relationship, in SS 12000's order.
var RelationTypes = []string{
	RelationEnrolment, RelationDuty, RelationPlacementChild, RelationPlacementOwner,
	RelationResponsibleForEnrolment, RelationResponsibleForPlacement, RelationGroupMembership,
}

// relationTags are the kinds' tags in a list's key.
var relationTags = map[string]string{
	RelationEnrolment: "e", RelationDuty: "d", RelationPlacementChild: "c", RelationPlacementOwner: "o",
	RelationResponsibleForEnrolment: "r", RelationResponsibleForPlacement: "p", RelationGroupMembership: "m",
}

// tableRelations is the go-memdb table of the relation lists, keyed by
// organisation, keySep and tag. It is not a table of records: it is not
// exported and travels with no state document.
const tableRelations = "relations"

// relationList is the persons one organisation relates to through one kind
// of relationship, in id order.
type relationList struct {
	key string
	ids []relCount
}

// relCount is a related person and how many holders relate it.
type relCount struct {
	id string
	n  int32
}

func relationKey(org, tag string) string { return org + keySep + tag }

// relationIndex is the go-memdb index of tableRelations: the list's key.
type relationIndex struct{}

func (relationIndex) FromObject(obj any) (bool, []byte, error) {
	return true, []byte(obj.(*relationList).key), nil
}

func (relationIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("a relation list lookup takes one key, got %d arguments", len(args))
	}
	k, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("a relation list lookup takes a string, got %T", args[0])
	}
	return []byte(k), nil
}

// related is one relationship a holder gives: organisation, kind's tag and
// the related person.
type related struct{ org, tag, person string }

// relatedSet is a holder's relationships, each once.
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

// responsibleIDs are the persons a person names as responsibles, each once.
func responsibleIDs(p *model.Person) []string {
	ids := make([]string, 0, len(p.Responsibles))
	for _, r := range p.Responsibles {
		if !slices.Contains(ids, r.Person.ID) {
			ids = append(ids, r.Person.ID)
		}
	}
	return ids
}

// personRelations appends the relationships a person holds: its enrolments
// (enrolment) and, for each of its responsibles, responsibleFor.enrolment;
// its placements as a child (only interface B's) for itself, each
// owner and each responsible; and its groups' organisations (groupMembership).
func personRelations(set relatedSet, p *model.Person, placed []*model.Placement, groups []*model.Group) relatedSet {
	rs := responsibleIDs(p)
	for _, e := range p.Enrolments {
		set = set.add(e.EnroledAt.ID, "e", p.ID)
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
	return set
}

// dutyRelations is the relationship an employee placement holds.
func dutyRelations(set relatedSet, d *model.EmployeePlacement) relatedSet {
	return set.add(d.SchoolID, "d", d.EmployeeID)
}

// dependencies reads what a person's relationships depend on besides its
// record: a child's placements, a member's groups.
type dependencies interface {
	placementsOf(child string) []*model.Placement
	groupsOf(member string) []*model.Group
}

func (t *tx) placementsOf(child string) []*model.Placement {
	return scanOf[model.Placement](t, TablePlacements, IndexChild, child)
}

func (t *tx) groupsOf(member string) []*model.Group {
	return scanOf[model.Group](t, TableGroups, IndexMember, member)
}

// scanOf returns the records of a table whose index value is value, in the
// index's order.
func scanOf[T any](t *tx, table, index, value string) []*T {
	var out []*T
	_ = t.scan(t.schema.table(table), index, value, func(o any) bool {
		out = append(out, o.(*T))
		return true
	})
	return out
}

// holderRelations are the relationships a record of a table holds (none
// for a record that holds none: Table.holds).
func holderRelations(d dependencies, td *tableDef, rec any, set relatedSet) relatedSet {
	return td.decl.holderRelations(d, rec, set)
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
					continue // listed twice in the group (docs/decisions.md#repeated-memberships)
				}
				d.byMember[m.Person.ID] = append(gs, g)
			}
		}
	})
	return d.byMember[member]
}

// buildRelations builds the relation lists of a load from its persons and
// employee placements.
func buildRelations(persons, duties *tableLoad, d dependencies) []*relationList {
	type listKey struct{ org, tag string }
	lists := map[listKey][]relCount{}
	var set relatedSet
	for _, tl := range []*tableLoad{persons, duties} {
		if tl == nil {
			continue
		}
		for _, rec := range tl.sorted {
			set = holderRelations(d, tl.td, rec, set[:0])
			for _, r := range set {
				k := listKey{r.org, r.tag}
				lists[k] = append(lists[k], relCount{r.person, 1})
			}
		}
	}
	out := make([]*relationList, 0, len(lists))
	for k, ids := range lists {
		slices.SortFunc(ids, func(a, b relCount) int { return strings.Compare(a.id, b.id) })
		merged := ids[:0]
		for _, c := range ids {
			if n := len(merged); n > 0 && merged[n-1].id == c.id {
				merged[n-1].n++
				continue
			}
			merged = append(merged, c)
		}
		out = append(out, &relationList{key: relationKey(k.org, k.tag), ids: slices.Clip(merged)})
	}
	return out
}

// relationList returns the list of a key in the transaction, or nil.
func (t *tx) relationList(key string) *relationList {
	obj, err := t.txn.First(tableRelations, IndexID, key)
	if err != nil || obj == nil {
		return nil
	}
	return obj.(*relationList)
}

// relate adds delta (1 or -1) to the count of a relationship in its list:
// the person joins the list at 1 and leaves it at 0.
func (t *tx) relate(r related, delta int32) {
	key := relationKey(r.org, r.tag)
	l := t.relationList(key)
	switch {
	case l == nil && delta < 0:
		return
	case l == nil:
		l = &relationList{key: key}
		t.ownRelations(l)
	case !t.ownsRelations(l):
		l = &relationList{key: key, ids: slices.Clone(l.ids)}
		t.ownRelations(l)
	}
	i, found := slices.BinarySearchFunc(l.ids, r.person, func(c relCount, id string) int { return strings.Compare(c.id, id) })
	switch {
	case found:
		l.ids[i].n += delta
		if l.ids[i].n <= 0 {
			l.ids = slices.Delete(l.ids, i, i+1)
		}
	case delta > 0:
		l.ids = slices.Insert(l.ids, i, relCount{r.person, delta})
	}
	if len(l.ids) == 0 {
		_ = t.txn.Delete(tableRelations, l)
		delete(t.ownedRel, l)
	}
}

func (t *tx) ownsRelations(l *relationList) bool {
	_, ok := t.ownedRel[l]
	return ok
}

func (t *tx) ownRelations(l *relationList) {
	if t.ownedRel == nil {
		t.ownedRel = map[*relationList]struct{}{}
	}
	// The table's only index is the key, which cannot fail to index.
	_ = t.txn.Insert(tableRelations, l)
	t.ownedRel[l] = struct{}{}
}

// moveRelations moves a holder's relationships from before to after.
func (t *tx) moveRelations(before, after relatedSet) {
	for _, r := range before {
		if !slices.Contains(after, r) {
			t.relate(r, -1)
		}
	}
	for _, r := range after {
		if !slices.Contains(before, r) {
			t.relate(r, 1)
		}
	}
}

// followHolders is called before a write of a record of the table and
// returns what to call after it: it moves the relationships of the records
// that hold them — the record written (a person, an employee placement:
// Table.holds), or the persons whose relationships the written record
// changes (a placement's child, a group's members: Table.affects) — from
// what they were before the write to what they are after it.
func (k *Table[T]) followHolders(t *tx, id string, now any) func() {
	if k.holds == nil && k.affects == nil {
		return nil
	}
	type holder struct {
		td     *tableDef
		id     string
		before relatedSet
	}
	relationsOf := func(td *tableDef, id string) relatedSet {
		return holderRelations(t, td, t.get(td.name, id), nil)
	}
	var hs []holder
	if k.holds != nil {
		td := t.schema.table(k.Name)
		hs = append(hs, holder{td, id, relationsOf(td, id)})
	}
	if k.affects != nil {
		old, _ := t.get(k.Name, id).(*T)
		cur, _ := now.(*T)
		persons := t.schema.table(TablePersons)
		for _, p := range k.affects(old, cur) {
			hs = append(hs, holder{persons, p, relationsOf(persons, p)})
		}
	}
	if len(hs) == 0 {
		return nil
	}
	return func() {
		for _, h := range hs {
			t.moveRelations(h.before, relationsOf(h.td, h.id))
		}
	}
}

// changedMembers are the persons whose group memberships a group write
// changes: those who join or leave, or every member before and after when
// the group moves to another organisation (none for a rename).
func changedMembers(old, now *model.Group) []string {
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
	before, after := members(old), members(now)
	if old == nil || now == nil || old.Organisation.ID != now.Organisation.ID {
		all := append(before, after...)
		slices.Sort(all)
		return slices.Compact(all)
	}
	var changed []string
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
	return changed
}

// EachRelatedPerson calls fn with the ids of the persons the organisation
// relates to through the kind of relationship entityType (""= any kind), in
// id order, each once, beginning after the person afterID (""= from the
// first), until fn returns false. An unknown kind relates no one. It costs
// a binary search per kind and the persons fn is called with, not the
// organisation's size.
func (sn *Snapshot) EachRelatedPerson(org, entityType, afterID string, fn func(id string) bool) {
	kinds := RelationTypes
	if entityType != "" {
		kinds = []string{entityType}
	}
	type head struct {
		ids []relCount
		i   int
	}
	heads := make([]*head, 0, len(kinds))
	for _, k := range kinds {
		tag, ok := relationTags[k]
		if !ok {
			continue
		}
		l := sn.t.relationList(relationKey(org, tag))
		if l == nil {
			continue
		}
		i := 0
		if afterID != "" {
			i, _ = slices.BinarySearchFunc(l.ids, afterID, func(c relCount, id string) int { return strings.Compare(c.id, id) })
			if i < len(l.ids) && l.ids[i].id == afterID {
				i++
			}
		}
		heads = append(heads, &head{l.ids, i})
	}
	for {
		var least *head
		for _, h := range heads {
			if h.i < len(h.ids) && (least == nil || h.ids[h.i].id < least.ids[least.i].id) {
				least = h
			}
		}
		if least == nil {
			return
		}
		id := least.ids[least.i].id
		if !fn(id) {
			return
		}
		for _, h := range heads {
			if h.i < len(h.ids) && h.ids[h.i].id == id {
				h.i++
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
