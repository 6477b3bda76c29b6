package register

import (
	"slices"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// renderer turns stored records into wire records. Stored references carry
// only an id; the renderer fills securityMarking on every person reference
// and, when names is set, displayName on every reference. It copies what it
// changes and never writes to the store, so rendering leaves meta alone.
type renderer struct {
	sn    *store.Snapshot
	kinds *kinds // the display names of references
	names bool
	// deviations of the server (package deviation)
	noMarking, expandIgnored, expandMoves bool
}

// renderer returns the server's renderer over a snapshot.
func (s *API) renderer(sn *store.Snapshot, names bool) renderer {
	return renderer{
		sn: sn, kinds: s.kinds, names: names || s.deviates(deviation.DisplayNameAlways),
		noMarking: s.deviates(deviation.SecurityMarkingMissing), expandIgnored: s.deviates(deviation.ExpandIgnored),
		expandMoves: s.deviates(deviation.ExpandChangesModified),
	}
}

func (r renderer) orgRef(ref model.ObjectReference) model.ObjectReference {
	out := model.ObjectReference{ID: ref.ID}
	if r.names {
		if o, ok := r.sn.Organisation(ref.ID); ok {
			out.DisplayName = o.DisplayName
		}
	}
	return out
}

func (r renderer) groupRef(ref model.ObjectReference) model.ObjectReference {
	out := model.ObjectReference{ID: ref.ID}
	if r.names {
		if g, ok := r.sn.Group(ref.ID); ok {
			out.DisplayName = g.DisplayName
		}
	}
	return out
}

func (r renderer) personRef(ref model.PersonReference) model.PersonReference {
	out := model.PersonReference{ID: ref.ID, SecurityMarking: model.SecurityMarkingNone}
	if p, ok := r.sn.Person(ref.ID); ok {
		if p.SecurityMarking != "" {
			out.SecurityMarking = p.SecurityMarking
		}
		if r.names {
			out.DisplayName = p.DisplayName()
		}
	}
	if r.noMarking {
		out.SecurityMarking = ""
	}
	return out
}

func (r renderer) personRefs(refs []model.PersonReference) []model.PersonReference {
	if refs == nil {
		return nil
	}
	out := make([]model.PersonReference, len(refs))
	for i, ref := range refs {
		out[i] = r.personRef(ref)
	}
	return out
}

func (r renderer) person(p *model.Person) model.Person {
	out := *p
	if p.Enrolments != nil {
		out.Enrolments = slices.Clone(p.Enrolments)
		for i := range out.Enrolments {
			out.Enrolments[i].EnroledAt = r.orgRef(p.Enrolments[i].EnroledAt)
			if prog := p.Enrolments[i].Programme; prog != nil {
				ref := r.objRef(store.TableProgrammes, prog.ID)
				out.Enrolments[i].Programme = &ref
			}
		}
	}
	if p.Responsibles != nil {
		out.Responsibles = slices.Clone(p.Responsibles)
		for i := range out.Responsibles {
			out.Responsibles[i].Person = r.personRef(p.Responsibles[i].Person)
		}
	}
	return out
}

// placementExpand says which persons to embed in a placement.
type placementExpand struct{ child, owners bool }

// expand returns what the expand parameter asks to embed in a placement, as
// the renderer honours it: nothing under the deviation expand-ignored.
func (r renderer) expand(values []string) placementExpand {
	if r.expandIgnored {
		return placementExpand{}
	}
	return placementExpand{child: slices.Contains(values, expandChild), owners: slices.Contains(values, expandOwners)}
}

func (r renderer) placement(p *model.Placement, ex placementExpand) model.Placement {
	out := *p
	out.PlacedAt = r.orgRef(p.PlacedAt)
	if p.Group != nil {
		g := r.groupRef(*p.Group)
		out.Group = &g
	}
	out.Child = r.personRef(p.Child)
	out.Owners = r.personRefs(p.Owners)
	out.Embedded = nil
	if r.expandIgnored {
		ex = placementExpand{}
	}
	if r.expandMoves && (ex.child || ex.owners) {
		out.Meta.Modified = time.Now().UTC().Truncate(time.Millisecond)
	}
	if ex.child || ex.owners {
		out.Embedded = &model.PlacementEmbedded{}
		if ex.child {
			if c, ok := r.sn.Person(p.Child.ID); ok {
				cp := r.person(c)
				out.Embedded.Child = &cp
			}
		}
		if ex.owners {
			out.Embedded.Owners = []model.Person{}
			for _, o := range p.Owners {
				if op, ok := r.sn.Person(o.ID); ok {
					out.Embedded.Owners = append(out.Embedded.Owners, r.person(op))
				}
			}
		}
	}
	return out
}

func (r renderer) group(g *model.Group, assignmentRoles bool) model.Group {
	out := *g
	out.Organisation = r.orgRef(g.Organisation)
	if g.GroupMemberships != nil {
		out.GroupMemberships = slices.Clone(g.GroupMemberships)
		for i := range out.GroupMemberships {
			out.GroupMemberships[i].Person = r.personRef(g.GroupMemberships[i].Person)
		}
	}
	out.Embedded = nil
	if assignmentRoles {
		roles := make([]model.AssignmentRole, len(g.AssignmentRoles))
		for i, ar := range g.AssignmentRoles {
			roles[i] = ar
			roles[i].Duty = model.ObjectReference{ID: ar.Duty.ID}
			if r.names {
				roles[i].Duty.DisplayName = ar.DutyName
			}
		}
		out.Embedded = &model.GroupEmbedded{AssignmentRoles: roles}
	}
	return out
}

func (r renderer) attendance(a *model.Attendance) model.Attendance {
	out := *a
	out.CalendarEvent = model.ObjectReference{ID: a.CalendarEvent.ID}
	if r.names {
		if ev, ok := r.sn.CalendarEvent(a.CalendarEvent.ID); ok {
			out.CalendarEvent.DisplayName = ev.Title
		}
	}
	out.Student = r.personRef(a.Student)
	if a.Reporter != nil {
		rep := r.personRef(*a.Reporter)
		out.Reporter = &rep
	}
	return out
}

func (r renderer) absence(a *model.Absence) model.Absence {
	out := *a
	out.Student = r.personRef(a.Student)
	out.Organisation = r.orgRef(a.Organisation)
	if a.RegisteredBy != nil {
		rb := r.personRef(*a.RegisteredBy)
		out.RegisteredBy = &rb
	}
	return out
}
