package register

import (
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// The descriptions of interface B's resources: every SS 12000 resource with
// a read operation. Filters name the index that serves them; the others are
// evaluated on the records the walk visits (docs/decisions.md#interface-b-indexes).

// Scopes of the reads of the resources, one per resource
// (docs/decisions.md#scopes). A client's scope list in a scenario may say
// "all".
const (
	ScopePlacementsRead           = "placements:read"
	ScopeGroupsRead               = "groups:read"
	ScopeSyllabusesRead           = "syllabuses:read"
	ScopeAttendancesRead          = "attendances:read"
	ScopeAbsencesRead             = "absences:read"
	ScopeOrganisationsRead        = "organisations:read"
	ScopePersonsRead              = "persons:read"
	ScopeDutiesRead               = "duties:read"
	ScopeProgrammesRead           = "programmes:read"
	ScopeStudyPlansRead           = "studyplans:read"
	ScopeSchoolUnitOfferingsRead  = "schoolUnitOfferings:read"
	ScopeActivitiesRead           = "activities:read"
	ScopeCalendarEventsRead       = "calendarEvents:read"
	ScopeAttendanceEventsRead     = "attendanceEvents:read"
	ScopeAttendanceScheduleRead   = "attendanceSchedule:read"
	ScopeGradesRead               = "grades:read"
	ScopeAggregatedAttendanceRead = "aggregatedAttendance:read"
	ScopeResourcesRead            = "resources:read"
	ScopeRoomsRead                = "rooms:read"
)

// Typed accessors keep the descriptions short.
func asOrg(o any) *model.Organisation       { return o.(*model.Organisation) }
func asPerson(o any) *model.Person          { return o.(*model.Person) }
func asPlacement(o any) *model.Placement    { return o.(*model.Placement) }
func asGroup(o any) *model.Group            { return o.(*model.Group) }
func asDuty(o any) *model.EmployeePlacement { return o.(*model.EmployeePlacement) }
func oneID(id string) []string              { return []string{id} }

func builtinResources() []*Resource {
	return []*Resource{
		organisationsResource(), personsResource(), placementsResource(), dutiesResource(), groupsResource(),
		programmesResource(), studyPlansResource(), syllabusesResource(), offeringsResource(), activitiesResource(),
		calendarEventsResource(), attendancesResource(), attendanceEventsResource(), attendanceScheduleResource(),
		gradesResource(), absencesResource(), aggregatedAttendanceResource(), resourcesResource(), roomsResource(),
	}
}

func organisationsResource() *Resource {
	meta := func(o any) *model.Meta { return &asOrg(o).Meta }
	f := []Filter{
		AnyOf(IDFilter("parent", store.IndexParent, func(o any) []string { return oneID(asOrg(o).ParentOrganisation.OptionalID()) })),
		{param: "schoolUnitCode", index: store.IndexSchoolUnitCode, anyOf: true, match: func(o any, v string) bool { return asOrg(o).SchoolUnitCode == v }},
		{param: "organisationCode", index: store.IndexOrganisationCode, anyOf: true, match: func(o any, v string) bool { return asOrg(o).OrganisationCode == v }},
		{param: "type", index: store.IndexOrganisationType, anyOf: true, match: func(o any, v string) bool { return string(asOrg(o).OrganisationType) == v }},
		EvalFilter("municipalityCode", func(o any, v string) bool { return asOrg(o).MunicipalityCode == v }),
		{param: "schoolTypes", anyOf: true, match: func(o any, v string) bool { return slices.Contains(asOrg(o).SchoolTypes, model.SchoolType(v)) }},
	}
	f = append(f, dateFilters(func(o any) model.Date { return asOrg(o).StartDate }, func(o any) model.Date { return asOrg(o).EndDate })...)
	f = append(f, metaFilters(meta)...)
	return &Resource{
		name: "organisations", noun: "organisation", scope: ScopeOrganisationsRead, table: store.TableOrganisations,
		typ: model.ResourceOrganisation, deletedKey: "organisations",
		displayName: func(_ *store.Snapshot, o any) string { return asOrg(o).DisplayName },
		list:        true, byID: true, lookup: true, filters: f,
		sorts: map[string]Sorting{
			"ModifiedDesc":   Order(store.IndexModified, true),
			"DisplayNameAsc": Order(store.IndexDisplayNameOrder, false),
		},
		lookupKeys: map[string]LookupKey{
			"schoolUnitCodes":   ByIndex(store.TableOrganisations, store.IndexSchoolUnitCode, false),
			"organisationCodes": ByIndex(store.TableOrganisations, store.IndexOrganisationCode, false),
		},
		render: func(s *API, rd renderer, o any, _ []string) any { return rd.withRefs(o) },
	}
}

// relationships lists a person's relationships for the relationship.*
// filters: entity type, organisation, start and end.
type relationship struct {
	entity     string
	org        string
	start, end model.Date
}

// eachRelationship calls fn with a person's relationships of the kind typ
// ("" = every kind) until fn returns false: the relationship.* filters
// stop at the first relationship that passes them, so a person costs the
// relationships looked at, not all of them. The assignment roles of the
// person's duties are among them only with roles
// (docs/decisions.md#assignment-role-relationship).
func eachRelationship(sn *store.Snapshot, p *model.Person, typ string, roles bool, fn func(relationship) bool) {
	want := func(t string) bool { return typ == "" || typ == t }
	more := true
	emit := func(r relationship) bool { more = fn(r); return more }
	if want(store.RelationEnrolment) {
		for _, e := range p.Enrolments {
			if !emit(relationship{store.RelationEnrolment, e.EnroledAt.ID, e.StartDate, e.EndDate}) {
				return
			}
		}
	}
	if want(store.RelationDuty) {
		_ = sn.Scan(store.TableEmployeePlacements, store.IndexEmployee, p.ID, func(o any) bool {
			d := asDuty(o)
			return emit(relationship{store.RelationDuty, d.SchoolID, d.StartDate, d.EndDate})
		})
	}
	placements := func(kind, index, person string) {
		_ = sn.Scan(store.TablePlacements, index, person, func(o any) bool {
			pl := asPlacement(o)
			return !model.IsRegisterPlacement(pl) || emit(relationship{kind, pl.PlacedAt.ID, pl.StartDate, pl.EndDate})
		})
	}
	if more && want(store.RelationPlacementChild) {
		placements(store.RelationPlacementChild, store.IndexChild, p.ID)
	}
	if more && want(store.RelationPlacementOwner) {
		placements(store.RelationPlacementOwner, store.IndexOwner, p.ID)
	}
	if more && (want(store.RelationResponsibleForEnrolment) || want(store.RelationResponsibleForPlacement)) {
		_ = sn.Scan(store.TablePersons, store.IndexResponsible, p.ID, func(o any) bool {
			child := asPerson(o)
			if want(store.RelationResponsibleForEnrolment) {
				for _, e := range child.Enrolments {
					if !emit(relationship{store.RelationResponsibleForEnrolment, e.EnroledAt.ID, e.StartDate, e.EndDate}) {
						return false
					}
				}
			}
			if want(store.RelationResponsibleForPlacement) {
				placements(store.RelationResponsibleForPlacement, store.IndexChild, child.ID)
			}
			return more
		})
	}
	if more && want(store.RelationGroupMembership) {
		_ = sn.Scan(store.TableGroups, store.IndexMember, p.ID, func(o any) bool {
			g := asGroup(o)
			for _, m := range g.GroupMemberships {
				if m.Person.ID != p.ID {
					continue
				}
				if !emit(groupRelationship(g, m.StartDate, m.EndDate)) {
					return false
				}
			}
			return true
		})
	}
	if more && roles && want(store.RelationGroupMembership) {
		// The assignment roles of the person's duties (group.assignmentRole.duty.person).
		_ = sn.Scan(store.TableEmployeePlacements, store.IndexEmployee, p.ID, func(o any) bool {
			duty := asDuty(o).ID
			_ = sn.Scan(store.TableGroups, store.IndexDuty, duty, func(o any) bool {
				g := asGroup(o)
				for _, ar := range g.AssignmentRoles {
					if ar.Duty.ID != duty {
						continue
					}
					if !emit(groupRelationship(g, ar.StartDate, ar.EndDate)) {
						return false
					}
				}
				return true
			})
			return more
		})
	}
}

// groupRelationship is a groupMembership in g (a membership or an assignment
// role) from start to end; a missing date is the group's.
func groupRelationship(g *model.Group, start, end model.Date) relationship {
	if start == "" {
		start = g.StartDate
	}
	if end == "" {
		end = g.EndDate
	}
	return relationship{store.RelationGroupMembership, g.Organisation.ID, start, end}
}

func personsResource() *Resource {
	meta := func(o any) *model.Meta { return &asPerson(o).Meta }
	f := []Filter{
		{param: "civicNo", index: store.IndexCivicNo, match: func(o any, v string) bool {
			return asPerson(o).CivicNo != nil && asPerson(o).CivicNo.Value == v
		}},
		EvalFilter("nameContains", func(o any, v string) bool {
			p, v := asPerson(o), strings.ToLower(v)
			for _, n := range []string{p.GivenName, p.MiddleName, p.FamilyName} {
				if strings.Contains(strings.ToLower(n), v) {
					return true
				}
			}
			return false
		}),
		EvalFilter("eduPersonPrincipalName", func(o any, v string) bool {
			return slices.ContainsFunc(asPerson(o).EduPersonPrincipalNames, func(e string) bool { return strings.EqualFold(e, v) })
		}),
		EvalFilter("identifier.value", func(o any, v string) bool {
			return slices.ContainsFunc(asPerson(o).ExternalIdentifiers, func(e model.ExternalIdentifier) bool { return e.Value == v })
		}),
		EvalFilter("identifier.context", func(o any, v string) bool {
			return slices.ContainsFunc(asPerson(o).ExternalIdentifiers, func(e model.ExternalIdentifier) bool { return e.Context == v })
		}),
		// relationship.* are applied together by relationshipMatch (a
		// person passes when one relationship passes them all).
		{param: "relationship.entity.type", match: func(any, string) bool { return true }},
		{param: "relationship.organisation", id: true, match: func(any, string) bool { return true }},
		{param: "relationship.startDate.onOrBefore", match: func(any, string) bool { return true }},
		{param: "relationship.startDate.onOrAfter", match: func(any, string) bool { return true }},
		{param: "relationship.endDate.onOrBefore", match: func(any, string) bool { return true }},
		{param: "relationship.endDate.onOrAfter", match: func(any, string) bool { return true }},
	}
	f = append(f, metaFilters(meta)...)
	res := &Resource{
		name: "persons", noun: "person", scope: ScopePersonsRead, table: store.TablePersons,
		typ: model.ResourcePerson, deletedKey: "persons", clientWritesHidden: true,
		displayName: func(_ *store.Snapshot, o any) string { return asPerson(o).DisplayName() },
		list:        true, byID: true, lookup: true, filters: f,
		sorts: map[string]Sorting{
			"ModifiedDesc":   Order(store.IndexModified, true),
			"DisplayNameAsc": Order(store.IndexDisplayNameOrder, false),
			"GivenNameAsc":   Order(store.IndexGivenNameOrder, false),
			"GivenNameDesc":  Order(store.IndexGivenNameOrder, true),
			"FamilyNameAsc":  Order(store.IndexFamilyNameOrder, false),
			"FamilyNameDesc": Order(store.IndexFamilyNameOrder, true),
			"CivicNoAsc":     Order(store.IndexCivicNoOrder, false),
			"CivicNoDesc":    Order(store.IndexCivicNoOrder, true),
		},
		lookupKeys: map[string]LookupKey{
			"civicNos": ByIndex(store.TablePersons, store.IndexCivicNo, false),
		},
		render: func(s *API, rd renderer, o any, expand []string) any {
			return rd.personExpanded(asPerson(o), expand)
		},
	}
	res.page = func(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
		base := res.match(p)
		m := base
		if rel := relationshipMatch(sn, p); rel != nil {
			m = func(o any) bool { return base(o) && rel(o) }
		}
		_, byCivic := p.get("civicNo")
		if org, ok := p.get("relationship.organisation"); ok && !byCivic {
			// The persons related to the organisation, found through the
			// store's relation lists (the related persons in id order, one
			// list per kind of relationship: docs/decisions.md#relation-lists);
			// the relationship.*
			// filters are then applied to each.
			typ, _ := p.get("relationship.entity.type")
			if k, ok := p.get(ParamSortKey); ok && !s.deviates(deviation.SortKeyIgnored) {
				ids := relatedPersons(sn, org, typ)
				if len(ids) == 0 {
					return nil, nil, nil
				}
				spans := make([]store.Span, len(ids))
				in := make(map[string]bool, len(ids))
				for i, id := range ids {
					spans[i] = store.ValueSpan(id)
					in[id] = true
				}
				so := res.sorts[k]
				related := func(o any) bool { return in[asPerson(o).ID] && m(o) }
				return res.sortedPage(sn, store.IndexID, spans, &so, related, after, limit)
			}
			items, next := sn.RelatedPersons(org, typ, after, limit, m)
			return items, next, nil
		}
		return res.pageWith(s, sn, p, after, limit, m, res.filters)
	}
	return res
}

// relatedPersons lists, in id order, every person an organisation relates
// to through the entity type typ ("" = any): the candidates of a sorted
// page, which sorts them (docs/decisions.md#interface-b-indexes).
func relatedPersons(sn *store.Snapshot, org, typ string) []string {
	var ids []string
	sn.EachRelatedPerson(org, typ, "", func(id string) bool { ids = append(ids, id); return true })
	return ids
}

// relationshipMatch is the relationship.* filter of persons, or nil when
// the request has none.
func relationshipMatch(sn *store.Snapshot, p params) func(o any) bool {
	typ, hasType := p.get("relationship.entity.type")
	orgID, hasOrg := p.get("relationship.organisation")
	sb, hasSB := p.get("relationship.startDate.onOrBefore")
	sa, hasSA := p.get("relationship.startDate.onOrAfter")
	eb, hasEB := p.get("relationship.endDate.onOrBefore")
	ea, hasEA := p.get("relationship.endDate.onOrAfter")
	if !hasType && !hasOrg && !hasSB && !hasSA && !hasEB && !hasEA {
		return nil
	}
	// An assignment role counts for the date bounds alone: SS 12000 defines
	// the organisation filter and the entity type's groupMembership by the
	// memberships (docs/decisions.md#assignment-role-relationship).
	roles := !hasOrg && (hasSB || hasSA || hasEB || hasEA)
	return func(o any) bool {
		found := false
		eachRelationship(sn, asPerson(o), typ, roles, func(r relationship) bool {
			found = !((hasOrg && r.org != orgID) ||
				(hasSB && r.start > model.Date(sb)) || (hasSA && r.start < model.Date(sa)) ||
				(hasEB && r.end != "" && r.end > model.Date(eb)) || (hasEA && r.end != "" && r.end < model.Date(ea)))
			return !found
		})
		return found
	}
}

// personExpanded renders a person with what expand asks to embed.
func (r renderer) personExpanded(p *model.Person, expand []string) any {
	out := r.person(p)
	if r.expandIgnored || len(expand) == 0 {
		return out
	}
	type membership struct {
		Group     map[string]any `json:"group"`
		StartDate model.Date     `json:"startDate,omitempty"`
		EndDate   model.Date     `json:"endDate,omitempty"`
	}
	type embedded struct {
		ResponsibleFor   []model.Responsible `json:"responsibleFor,omitempty"`
		Placements       []model.Placement   `json:"placements,omitempty"`
		OwnedPlacements  []model.Placement   `json:"ownedPlacements,omitempty"`
		Duties           []model.Duty        `json:"duties,omitempty"`
		GroupMemberships []membership        `json:"groupMemberships,omitempty"`
	}
	emb := embedded{}
	sn := r.sn
	if slices.Contains(expand, "responsibleFor") {
		emb.ResponsibleFor = []model.Responsible{}
		_ = sn.Scan(store.TablePersons, store.IndexResponsible, p.ID, func(o any) bool {
			child := asPerson(o)
			for _, rs := range child.Responsibles {
				if rs.Person.ID == p.ID {
					emb.ResponsibleFor = append(emb.ResponsibleFor, model.Responsible{Person: r.personRef(model.PersonReference{ID: child.ID}), RelationType: rs.RelationType})
					break
				}
			}
			return true
		})
	}
	placements := func(index string) []model.Placement {
		out := []model.Placement{}
		_ = sn.Scan(store.TablePlacements, index, p.ID, func(o any) bool {
			if pl := asPlacement(o); model.IsRegisterPlacement(pl) {
				out = append(out, r.placement(pl, placementExpand{}))
			}
			return true
		})
		return out
	}
	if slices.Contains(expand, "placements") {
		emb.Placements = placements(store.IndexChild)
	}
	if slices.Contains(expand, "ownedPlacements") {
		emb.OwnedPlacements = placements(store.IndexOwner)
	}
	if slices.Contains(expand, "duties") {
		emb.Duties = []model.Duty{}
		_ = sn.Scan(store.TableEmployeePlacements, store.IndexEmployee, p.ID, func(o any) bool {
			emb.Duties = append(emb.Duties, r.duty(asDuty(o), nil))
			return true
		})
	}
	if slices.Contains(expand, "groupMemberships") {
		emb.GroupMemberships = []membership{}
		_ = sn.Scan(store.TableGroups, store.IndexMember, p.ID, func(o any) bool {
			g := asGroup(o)
			for _, m := range g.GroupMemberships {
				if m.Person.ID == p.ID {
					emb.GroupMemberships = append(emb.GroupMemberships, membership{Group: r.groupFragment(g), StartDate: m.StartDate, EndDate: m.EndDate})
				}
			}
			return true
		})
	}
	return struct {
		model.Person
		Embedded embedded `json:"_embedded"`
	}{out, emb}
}

// groupFragment is a group without its members (SS 12000 GroupFragment).
func (r renderer) groupFragment(g *model.Group) map[string]any {
	out := map[string]any{
		"id": g.ID, "meta": g.Meta, "displayName": g.DisplayName, "startDate": g.StartDate,
		"groupType": g.GroupType, "organisation": r.orgRef(g.Organisation),
	}
	if g.EndDate != "" {
		out["endDate"] = g.EndDate
	}
	if g.SchoolType != "" {
		out["schoolType"] = g.SchoolType
	}
	return out
}

func placementsResource() *Resource {
	return &Resource{
		name: "placements", noun: "placement", scope: ScopePlacementsRead, table: store.TablePlacements,
		typ: model.ResourcePlacement, deletedKey: "placements",
		// a placement is named after its child
		displayName: func(sn *store.Snapshot, o any) string {
			if c, ok := sn.Person(asPlacement(o).Child.ID); ok {
				return c.DisplayName()
			}
			return ""
		},
		list: true, byID: true, lookup: true,
		// The filters are served by placementsPage (store.Placements); here
		// they only name the parameters a walk carries.
		filters: plannedFilters([]string{paramOrganisation, paramGroup, paramChild, paramOwner},
			paramStartBefore, paramStartAfter, paramEndBefore, paramEndAfter,
			paramCreatedBef, paramCreatedAft, paramModifiedBef, paramModifiedAft),
		lookupKeys: map[string]LookupKey{
			"personIds": ByIndex(store.TablePlacements, store.IndexChild, true),
		},
		page: placementsPage,
		render: func(s *API, rd renderer, o any, expand []string) any {
			return rd.placement(asPlacement(o), rd.expand(expand))
		},
		plain: func(rd renderer, expand []string) bool { return rd.expand(expand) == (placementExpand{}) },
		memo: func(s *API, b []byte, rd renderer, o any) []byte {
			return s.memo.appendPlacement(b, rd, asPlacement(o))
		},
	}
}

// plannedFilters are filters a resource's own planner serves: ids (compared
// in lower case) and other values.
func plannedFilters(ids []string, others ...string) []Filter {
	var out []Filter
	always := func(any, string) bool { return true }
	for _, n := range ids {
		out = append(out, Filter{param: n, id: true, match: always})
	}
	for _, n := range others {
		out = append(out, Filter{param: n, match: always})
	}
	return out
}

// placementsPage is the placement list's own planner (store.Placements,
// tuned for the spec's filters), with the deviations of the placement list.
func placementsPage(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
	q := placementQueryOf(p)
	s.deviateQuery(&q)
	page, err := sn.Placements(q, after, limit)
	if err != nil {
		return nil, nil, err
	}
	drop := s.deviates(deviation.EndDateFilterDropsOpenEnded) && (q.EndOnOrBefore != "" || q.EndOnOrAfter != "")
	items := make([]any, 0, len(page.Items))
	for _, pl := range page.Items {
		if drop && pl.EndDate == "" {
			continue
		}
		items = append(items, pl)
	}
	return items, page.Next, nil
}

// placementQueryOf reads the filters and sortkey of the placement list.
// paramsOf has checked the timestamps.
func placementQueryOf(p params) store.PlacementQuery {
	get := func(n string) string { v, _ := p.get(n); return v }
	pq := store.PlacementQuery{
		Organisation: get(paramOrganisation), Group: get(paramGroup), Child: get(paramChild), Owner: get(paramOwner),
		StartOnOrBefore: model.Date(get(paramStartBefore)), StartOnOrAfter: model.Date(get(paramStartAfter)),
		EndOnOrBefore: model.Date(get(paramEndBefore)), EndOnOrAfter: model.Date(get(paramEndAfter)),
		Sort: model.SortKey(get(ParamSortKey)),
	}
	for _, t := range []struct {
		name string
		dst  **time.Time
	}{
		{paramCreatedBef, &pq.CreatedBefore}, {paramCreatedAft, &pq.CreatedAfter},
		{paramModifiedBef, &pq.ModifiedBefore}, {paramModifiedAft, &pq.ModifiedAfter},
	} {
		if v := get(t.name); v != "" {
			ts, _ := time.Parse(time.RFC3339Nano, v)
			*t.dst = &ts
		}
	}
	return pq
}

// dutyRoles maps interface A's employee-placement roles to SS 12000's duty
// roles (docs/decisions.md#duties-are-employee-placements).
var dutyRoles = map[string]string{
	"Teacher": "Lärare", "Manager": "Övrig arbetsledning", "Admin": "Skoladministratör", "CareTeam": "Kurator",
	"Scheduler": "Annan personal", "MealPlanner": "Annan personal", "OtherPersonnel": "Annan personal",
}

// fullTimeHoursPerYear is a full-time employee's working hours a year
// (1 767 for teachers under the Swedish collective agreement): a duty's
// hoursPerYear is its employment rate of them.
const fullTimeHoursPerYear = 1767

// duty renders an interface-A employee placement as an SS 12000 duty.
func (r renderer) duty(d *model.EmployeePlacement, expand []string) model.Duty {
	role := "Annan personal"
	if len(d.Roles) > 0 {
		if m, ok := dutyRoles[d.Roles[0]]; ok {
			role = m
		}
	}
	person := r.personRef(model.PersonReference{ID: d.EmployeeID})
	out := model.Duty{
		ID: d.ID, Meta: d.Meta, Person: &person, DutyAt: r.orgRef(model.ObjectReference{ID: d.SchoolID}),
		DutyRole: role, DutyPercent: d.EmploymentPercent, StartDate: d.StartDate, EndDate: d.EndDate,
	}
	if d.Signature != nil {
		out.Signature = *d.Signature
	}
	if d.Title != nil {
		out.Description = *d.Title
	}
	if d.EmploymentPercent != nil {
		// a full-time teacher's year: 1 767 hours (the teachers' collective agreement)
		h := *d.EmploymentPercent * fullTimeHoursPerYear / 100
		out.HoursPerYear = &h
	}
	_ = r.sn.Scan(store.TableGroups, store.IndexDuty, d.ID, func(o any) bool {
		g := asGroup(o)
		for _, ar := range g.AssignmentRoles {
			if ar.Duty.ID == d.ID {
				out.AssignmentRole = append(out.AssignmentRole, model.DutyAssignmentRole{
					Group: r.objRef(store.TableGroups, g.ID), AssignmentRoleType: ar.AssignmentRoleType,
					StartDate: ar.StartDate, EndDate: ar.EndDate,
				})
			}
		}
		return true
	})
	if !r.expandIgnored && slices.Contains(expand, "person") {
		if p, ok := r.sn.Person(d.EmployeeID); ok {
			pp := r.person(p)
			out.Embedded = &model.DutyEmbedded{Person: &pp}
		}
	}
	return out
}

func dutyDisplayName(sn *store.Snapshot, d *model.EmployeePlacement) string {
	if p, ok := sn.Person(d.EmployeeID); ok {
		return p.DisplayName()
	}
	return ""
}

func dutiesResource() *Resource {
	meta := func(o any) *model.Meta { return &asDuty(o).Meta }
	f := []Filter{
		IDFilter("person", store.IndexEmployee, func(o any) []string { return oneID(asDuty(o).EmployeeID) }),
		IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(asDuty(o).SchoolID) }),
		EvalFilter("dutyRole", func(o any, v string) bool {
			d := asDuty(o)
			role := "Annan personal"
			if len(d.Roles) > 0 {
				if m, ok := dutyRoles[d.Roles[0]]; ok {
					role = m
				}
			}
			return role == v
		}),
	}
	f = append(f, dateFilters(func(o any) model.Date { return asDuty(o).StartDate }, func(o any) model.Date { return asDuty(o).EndDate })...)
	f = append(f, metaFilters(meta)...)
	return &Resource{
		name: "duties", noun: "duty", scope: ScopeDutiesRead, table: store.TableEmployeePlacements,
		typ: model.ResourceDuty, deletedKey: "duties",
		displayName: func(sn *store.Snapshot, o any) string { return dutyDisplayName(sn, asDuty(o)) },
		list:        true, byID: true, lookup: true, filters: f,
		sorts: map[string]Sorting{
			"ModifiedDesc":  Order(store.IndexModified, true),
			"StartDateAsc":  Order(store.IndexStartDate, false),
			"StartDateDesc": Order(store.IndexStartDate, true),
		},
		render: func(s *API, rd renderer, o any, expand []string) any { return rd.duty(asDuty(o), expand) },
	}
}

func groupsResource() *Resource {
	meta := func(o any) *model.Meta { return &asGroup(o).Meta }
	f := []Filter{
		AnyOf(IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(asGroup(o).Organisation.ID) })),
		AnyOf(EvalFilter("groupType", func(o any, v string) bool { return string(asGroup(o).GroupType) == v })),
		{param: "schoolTypes", anyOf: true, match: func(o any, v string) bool { return string(asGroup(o).SchoolType) == v }},
	}
	f = append(f, dateFilters(func(o any) model.Date { return asGroup(o).StartDate }, func(o any) model.Date { return asGroup(o).EndDate })...)
	f = append(f, metaFilters(meta)...)
	return &Resource{
		name: "groups", noun: "group", scope: ScopeGroupsRead, table: store.TableGroups,
		typ: model.ResourceGroup, deletedKey: "groups", clientWritesHidden: true,
		displayName: func(_ *store.Snapshot, o any) string { return asGroup(o).DisplayName },
		list:        true, byID: true, lookup: true, filters: f,
		sorts: map[string]Sorting{
			"ModifiedDesc":   Order(store.IndexModified, true),
			"DisplayNameAsc": Order(store.IndexDisplayNameOrder, false),
			"StartDateAsc":   Order(store.IndexStartDate, false),
			"StartDateDesc":  Order(store.IndexStartDate, true),
			"EndDateAsc":     Order(store.IndexEndDate, false),
			"EndDateDesc":    Order(store.IndexEndDate, true),
		},
		render: func(s *API, rd renderer, o any, expand []string) any {
			return rd.group(asGroup(o), !rd.expandIgnored && slices.Contains(expand, expandAssignmentRoles))
		},
	}
}

// Plain declares a resource whose stored record is its wire form, its
// references rendered (displayName on request, securityMarking): its list
// with the filters given and the meta filters every resource has, its
// records by id, and lookup by ids and the keys given. Its sortkeys are
// Sorts and ModifiedDesc; nil Sorts: SS 12000 declares none.
type Plain[T any] struct {
	// Name is the path segment under /api/v1, Noun the record in messages
	// ("no room with id ..."), Scope what a client needs to read it.
	Name, Noun, Scope string
	// Table is the store's table (store.Table) of the records.
	Table string
	// Type is the SS 12000 resource type (subscriptions, deletedEntities),
	// DeletedKey its member of DeletedEntities.data.
	Type       model.ResourceType
	DeletedKey string
	Meta       func(*T) *model.Meta
	Filters    []Filter
	Sorts      map[string]Sorting
	Lookups    map[string]LookupKey
	// DisplayName is the name a reference to a record shows; nil: none.
	DisplayName func(*T) string
	// Contract, when set, is an OpenAPI document with the resource's
	// operations (under the paths /<Name>, /<Name>/{id}, /<Name>/lookup of
	// its server /api/v1): the requests are validated against it, for a
	// resource SS 12000's document lacks.
	Contract *openapi3.T
}

// Resource is the description the engine serves.
func (d Plain[T]) Resource() *Resource {
	m := func(o any) *model.Meta { return d.Meta(o.(*T)) }
	sorts := maps.Clone(d.Sorts)
	if sorts == nil {
		sorts = map[string]Sorting{}
	} else if _, ok := sorts["ModifiedDesc"]; !ok {
		sorts["ModifiedDesc"] = Order(store.IndexModified, true)
	}
	res := &Resource{
		name: d.Name, noun: d.Noun, scope: d.Scope, table: d.Table, typ: d.Type, deletedKey: d.DeletedKey,
		list: true, byID: true, lookup: true, filters: append(slices.Clone(d.Filters), metaFilters(m)...), sorts: sorts,
		lookupKeys: d.Lookups, contract: d.Contract,
		render: func(s *API, rd renderer, o any, _ []string) any { return rd.withRefs(o) },
	}
	if d.DisplayName != nil {
		res.displayName = func(_ *store.Snapshot, o any) string { return d.DisplayName(o.(*T)) }
	}
	return res
}

func programmesResource() *Resource {
	pr := func(o any) *model.Programme { return o.(*model.Programme) }
	return Plain[model.Programme]{
		Name: "programmes", Noun: "programme", Scope: ScopeProgrammesRead, Table: store.TableProgrammes,
		Type: model.ResourceProgramme, DeletedKey: "programmes",
		Meta: func(p *model.Programme) *model.Meta { return &p.Meta },
		Filters: []Filter{
			{param: "code", index: store.IndexCode, match: func(o any, v string) bool { return pr(o).Code == v }},
			AnyOf(EvalFilter("schoolType", func(o any, v string) bool { return string(pr(o).SchoolType) == v })),
			{param: "parentProgramme", id: true, match: func(o any, v string) bool { return pr(o).ParentProgramme.OptionalID() == v }},
		},
		Sorts: map[string]Sorting{
			"NameAsc": Order(store.IndexNameOrder, false),
			"CodeAsc": Order(store.IndexCodeOrder, false),
		},
		DisplayName: func(p *model.Programme) string { return p.Name },
	}.Resource()
}

func studyPlansResource() *Resource {
	sp := func(o any) *model.StudyPlan { return o.(*model.StudyPlan) }
	res := Plain[model.StudyPlan]{
		Name: "studyplans", Noun: "study plan", Scope: ScopeStudyPlansRead, Table: store.TableStudyPlans,
		Type: model.ResourceStudyPlan, DeletedKey: "studyPlans",
		Meta: func(p *model.StudyPlan) *model.Meta { return &p.Meta },
		Filters: append([]Filter{AnyOf(IDFilter("student", store.IndexStudent, func(o any) []string { return oneID(sp(o).Student.ID) }))},
			dateFilters(func(o any) model.Date { return sp(o).StartDate }, func(o any) model.Date { return sp(o).EndDate })...),
		Sorts: dateOrders(),
	}.Resource()
	res.lookup = false
	return res
}

func syllabusesResource() *Resource {
	sorts := map[string]Sorting{}
	for name, index := range map[string]string{
		"SubjectName": store.IndexSubjectNameOrder, "SubjectCode": store.IndexSubjectCodeOrder,
		"CourseName": store.IndexCourseNameOrder, "CourseCode": store.IndexCourseCodeOrder,
		"SubjectDesignation": store.IndexSubjectDesignationOrder,
	} {
		sorts[name+"Asc"] = Order(index, false)
		sorts[name+"Desc"] = Order(index, true)
	}
	return Plain[model.Syllabus]{
		Name: "syllabuses", Noun: "syllabus", Scope: ScopeSyllabusesRead, Table: store.TableSyllabuses,
		Type: model.ResourceSyllabus, DeletedKey: "syllabuses",
		Meta:        func(s *model.Syllabus) *model.Meta { return &s.Meta },
		Sorts:       sorts,
		DisplayName: func(s *model.Syllabus) string { return s.DisplayName() },
	}.Resource()
}

func offeringsResource() *Resource {
	of := func(o any) *model.SchoolUnitOffering { return o.(*model.SchoolUnitOffering) }
	return Plain[model.SchoolUnitOffering]{
		Name: "schoolUnitOfferings", Noun: "school unit offering", Scope: ScopeSchoolUnitOfferingsRead, Table: store.TableSchoolUnitOfferings,
		Type: model.ResourceSchoolUnitOffering, DeletedKey: "schoolUnitOfferings",
		Meta:    func(o *model.SchoolUnitOffering) *model.Meta { return &o.Meta },
		Filters: []Filter{IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(of(o).OfferedAt.ID) })},
		Sorts:   dateOrders(),
	}.Resource()
}

func asActivity(o any) *model.Activity { return o.(*model.Activity) }

func activitiesResource() *Resource {
	a := asActivity
	groupsOf := func(o any) []string {
		ids := make([]string, len(a(o).Groups))
		for i, g := range a(o).Groups {
			ids[i] = g.ID
		}
		return ids
	}
	res := Plain[model.Activity]{
		Name: "activities", Noun: "activity", Scope: ScopeActivitiesRead, Table: store.TableActivities,
		// SS 12000's member of DeletedEntities.data, as the document spells it
		Type: model.ResourceActivity, DeletedKey: "activitites",
		Meta:        func(x *model.Activity) *model.Meta { return &x.Meta },
		DisplayName: func(x *model.Activity) string { return x.DisplayName },
		Filters: append([]Filter{
			IDFilter("teacher", store.IndexTeacher, func(o any) []string {
				ids := make([]string, len(a(o).Teachers))
				for i, t := range a(o).Teachers {
					ids[i] = t.Duty.ID
				}
				return ids
			}),
			IDFilter(paramGroup, store.IndexGroup, groupsOf),
			IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(a(o).Organisation.ID) }),
			// member: the person is a member of one of the activity's groups
			{param: "member", id: true},
		}, dateFilters(func(o any) model.Date { return a(o).StartDate }, func(o any) model.Date { return a(o).EndDate })...),
		Sorts: map[string]Sorting{"DisplayNameAsc": Order(store.IndexDisplayNameOrder, false)},
	}.Resource()
	member := func(sn *store.Snapshot, person string) func(o any) bool {
		groups := map[string]bool{}
		_ = sn.Scan(store.TableGroups, store.IndexMember, person, func(o any) bool { groups[asGroup(o).ID] = true; return true })
		return func(o any) bool { return slices.ContainsFunc(groupsOf(o), func(g string) bool { return groups[g] }) }
	}
	for i := range res.filters {
		if res.filters[i].param == "member" {
			res.filters[i].match = func(any, string) bool { return true } // applied in page
		}
	}
	res.page = func(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
		base := res.match(p)
		m := base
		if v, ok := p.get("member"); ok {
			mm := member(sn, v)
			m = func(o any) bool { return base(o) && mm(o) }
		}
		return res.pageWith(s, sn, p, after, limit, m, res.filters)
	}
	res.lookupKeys = map[string]LookupKey{
		"teachers": ByIndex(store.TableActivities, store.IndexTeacher, true),
		"members": func(sn *store.Snapshot, v string, emit func(any)) {
			_ = sn.Scan(store.TableGroups, store.IndexMember, strings.ToLower(v), func(o any) bool {
				ByIndex(store.TableActivities, store.IndexGroup, false)(sn, asGroup(o).ID, emit)
				return true
			})
		},
	}
	res.render = func(s *API, rd renderer, o any, expand []string) any { return rd.activityExpanded(a(o), expand) }
	return res
}

func (r renderer) activityExpanded(a *model.Activity, expand []string) any {
	out := r.withRefs(a).(model.Activity)
	if r.expandIgnored || len(expand) == 0 {
		return out
	}
	type embedded struct {
		Groups   []model.Group   `json:"groups,omitempty"`
		Syllabus *model.Syllabus `json:"syllabus,omitempty"`
		Teachers []model.Duty    `json:"teachers,omitempty"`
	}
	var emb embedded
	if slices.Contains(expand, "groups") {
		emb.Groups = []model.Group{}
		for _, g := range a.Groups {
			if gr, ok := r.sn.Group(g.ID); ok {
				emb.Groups = append(emb.Groups, r.group(gr, false))
			}
		}
	}
	if slices.Contains(expand, "syllabus") && a.Syllabus != nil {
		if sy, ok := r.sn.Syllabus(a.Syllabus.ID); ok {
			cp := *sy
			emb.Syllabus = &cp
		}
	}
	if slices.Contains(expand, "teachers") {
		emb.Teachers = []model.Duty{}
		for _, t := range a.Teachers {
			if d, ok := r.sn.EmployeePlacement(t.Duty.ID); ok {
				emb.Teachers = append(emb.Teachers, r.duty(d, nil))
			}
		}
	}
	return struct {
		model.Activity
		Embedded embedded `json:"_embedded"`
	}{out, emb}
}

// calendarEventWire is a calendar event in SS 12000's shape.
type calendarEventWire struct {
	ID        string                  `json:"id"`
	Meta      model.Meta              `json:"meta"`
	Activity  model.ObjectReference   `json:"activity"`
	StartTime time.Time               `json:"startTime"`
	EndTime   time.Time               `json:"endTime"`
	Cancelled bool                    `json:"cancelled"`
	Teaching  *int                    `json:"teachingLengthTeacher,omitempty"`
	Student   *int                    `json:"teachingLengthStudent,omitempty"`
	Rooms     []model.ObjectReference `json:"rooms,omitempty"`
	Resources []model.ObjectReference `json:"resources,omitempty"`
	Embedded  *calendarEventEmbedded  `json:"_embedded,omitempty"`
}

type calendarEventEmbedded struct {
	Activity   any                `json:"activity,omitempty"`
	Attendance []model.Attendance `json:"attendance,omitempty"`
}

func (r renderer) calendarEvent(ev *model.CalendarEvent, expand []string) calendarEventWire {
	minutes := int(ev.EndTime.Sub(ev.StartTime) / time.Minute)
	out := calendarEventWire{
		ID: ev.ID, Meta: ev.Meta, Activity: r.objRef(store.TableActivities, ev.Activity.ID),
		StartTime: ev.StartTime, EndTime: ev.EndTime, Cancelled: ev.Cancelled, Teaching: &minutes, Student: &minutes,
	}
	for _, rm := range ev.Rooms {
		out.Rooms = append(out.Rooms, r.objRef(store.TableRooms, rm.ID))
	}
	for _, rs := range ev.Resources {
		out.Resources = append(out.Resources, r.objRef(store.TableResources, rs.ID))
	}
	if r.expandIgnored || len(expand) == 0 {
		return out
	}
	out.Embedded = &calendarEventEmbedded{}
	if slices.Contains(expand, "activity") {
		if a, ok := r.sn.Get(store.TableActivities, ev.Activity.ID); ok {
			out.Embedded.Activity = r.withRefs(a)
		}
	}
	if slices.Contains(expand, "attendance") {
		out.Embedded.Attendance = []model.Attendance{}
		_ = r.sn.Scan(store.TableAttendances, store.IndexCalendarEvent, ev.ID, func(o any) bool {
			out.Embedded.Attendance = append(out.Embedded.Attendance, r.attendance(o.(*model.Attendance)))
			return true
		})
	}
	return out
}

// activitiesOfDuty lists, in id order, the activities the duty teaches.
func activitiesOfDuty(sn *store.Snapshot, duty string) []string {
	return activitiesBy(sn, store.IndexTeacher, duty)
}

// activitiesBy lists, in id order and each once, the activities with the
// value under an index of the activities table (group, organisation,
// teacher).
func activitiesBy(sn *store.Snapshot, index, value string) []string {
	var out []string
	_ = sn.Scan(store.TableActivities, index, value, func(o any) bool {
		out = append(out, asActivity(o).ID)
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// eventActivities lists, in id order, the activities whose calendar events
// the list's activity, teacher, group and organisation filters allow (those
// given, intersected); ok is false when none of them is given. The store
// keeps an event's group, organisation and teacher among its activity's
// (docs/decisions.md#calendar-events-follow-activity), so the events of
// these activities are every candidate.
func eventActivities(sn *store.Snapshot, p params) (acts []string, ok bool) {
	keep := func(ids []string) {
		if !ok {
			acts, ok = ids, true
			return
		}
		acts = slices.DeleteFunc(acts, func(a string) bool { _, found := slices.BinarySearch(ids, a); return !found })
	}
	if v, given := p.get("activity"); given {
		keep([]string{v})
	}
	if v, given := p.get("teacher"); given {
		keep(activitiesOfDuty(sn, v))
	}
	if v, given := p.get(paramGroup); given {
		keep(activitiesBy(sn, store.IndexGroup, v))
	}
	if v, given := p.get(paramOrganisation); given {
		keep(activitiesBy(sn, store.IndexOrganisation, v))
	}
	return acts, ok
}

func calendarEventsResource() *Resource {
	ce := func(o any) *model.CalendarEvent { return o.(*model.CalendarEvent) }
	meta := func(o any) *model.Meta { return &ce(o).Meta }
	f := []Filter{
		IDFilter("activity", store.IndexActivity, func(o any) []string { return oneID(ce(o).Activity.ID) }),
		// group, organisation, teacher: served in page through the
		// activities of the group, the organisation or the duty (an
		// event's are its activity's, as the store keeps them); the teacher, a
		// duty among the teachers of the event's activity, by the walk alone
		IDFilter(paramGroup, "", func(o any) []string { return oneID(ce(o).Group.ID) }),
		{param: "teacher", id: true, match: func(any, string) bool { return true }},
		IDFilter(paramOrganisation, "", func(o any) []string { return oneID(ce(o).Organisation.ID) }),
		{param: "student", id: true, match: func(any, string) bool { return true }}, // applied in page
	}
	f = append(f, timeFilters("startTime", func(o any) time.Time { return ce(o).StartTime })...)
	f = append(f, timeFilters("endTime", func(o any) time.Time { return ce(o).EndTime })...)
	f = append(f, metaFilters(meta)...)
	res := &Resource{
		name: "calendarEvents", noun: "calendar event", scope: ScopeCalendarEventsRead, table: store.TableCalendarEvents,
		typ: model.ResourceCalendarEvent, deletedKey: "calendarEvents",
		displayName: func(_ *store.Snapshot, o any) string { return ce(o).Title },
		list:        true, byID: true, lookup: true, filters: f, required: []string{"startTime.onOrAfter", "startTime.onOrBefore"},
		sorts: map[string]Sorting{
			// no order index: the required startTime range's events are sorted
			// (docs/decisions.md#interface-b-indexes)
			"ModifiedDesc":  {desc: true, key: func(o any) string { return store.TimeKey(meta(o).Modified) }},
			"StartTimeAsc":  Order(store.IndexStartTime, false),
			"StartTimeDesc": Order(store.IndexStartTime, true),
		},
		ranged: func(p params) (string, []store.Span, bool) {
			at := func(n string) *time.Time {
				v, ok := p.get(n)
				if !ok {
					return nil
				}
				t, _ := time.Parse(time.RFC3339Nano, v)
				return &t
			}
			lo, hi := at("startTime.onOrAfter"), at("startTime.onOrBefore")
			if lo == nil && hi == nil {
				return "", nil, false
			}
			return store.IndexStartTime, []store.Span{store.TimeRangeSpan(lo, hi)}, true
		},
		render: func(s *API, rd renderer, o any, expand []string) any { return rd.calendarEvent(ce(o), expand) },
	}
	studentMatch := func(sn *store.Snapshot, person string) func(o any) bool {
		groups := map[string]bool{}
		_ = sn.Scan(store.TableGroups, store.IndexMember, person, func(o any) bool { groups[asGroup(o).ID] = true; return true })
		return func(o any) bool { return groups[ce(o).Group.ID] }
	}
	res.page = func(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
		base := res.match(p)
		m := base
		if v, ok := p.get("student"); ok {
			sm := studentMatch(sn, v)
			m = func(o any) bool { return base(o) && sm(o) }
		}
		if acts, ok := eventActivities(sn, p); ok {
			// The events of the activities the filters allow: one span of
			// the activity index per activity, in key order; each event is
			// then matched on its own group and organisation.
			in := map[string]bool{}
			spans := make([]store.Span, len(acts))
			for i, a := range acts {
				in[a] = true
				spans[i] = store.ValueSpan(a)
			}
			prev := m
			m = func(o any) bool { return in[ce(o).Activity.ID] && prev(o) }
			if len(spans) == 0 {
				return nil, nil, nil
			}
			if k, ok := p.get(ParamSortKey); ok && !s.deviates(deviation.SortKeyIgnored) {
				so := res.sorts[k]
				return res.sortedPage(sn, store.IndexActivity, spans, &so, m, after, limit)
			}
			return sn.Page(res.table, store.IndexActivity, spans, false, after, limit, m)
		}
		return res.pageWith(s, sn, p, after, limit, m, res.filters)
	}
	res.lookupKeys = map[string]LookupKey{
		"activities": ByIndex(store.TableCalendarEvents, store.IndexActivity, true),
		"teacher": func(sn *store.Snapshot, v string, emit func(any)) {
			for _, a := range activitiesOfDuty(sn, strings.ToLower(v)) {
				ByIndex(store.TableCalendarEvents, store.IndexActivity, false)(sn, a, emit)
			}
		},
		"student": func(sn *store.Snapshot, v string, emit func(any)) {
			_ = sn.Scan(store.TableGroups, store.IndexMember, strings.ToLower(v), func(o any) bool {
				g := asGroup(o).ID
				for _, a := range activitiesBy(sn, store.IndexGroup, g) {
					ByIndex(store.TableCalendarEvents, store.IndexActivity, false)(sn, a, func(o any) {
						if ce(o).Group.ID == g {
							emit(o)
						}
					})
				}
				return true
			})
		},
	}
	return res
}

func attendancesResource() *Resource {
	at := func(o any) *model.Attendance { return o.(*model.Attendance) }
	meta := func(o any) *model.Meta { return &at(o).Meta }
	f := []Filter{
		IDFilter("student", store.IndexStudent, func(o any) []string { return oneID(at(o).Student.ID) }),
		IDFilter("calendarEvent", store.IndexCalendarEvent, func(o any) []string { return oneID(at(o).CalendarEvent.ID) }),
		{param: paramOrganisation, id: true, match: func(any, string) bool { return true }}, // applied in page
	}
	f = append(f, metaFilters(meta)...)
	res := &Resource{
		name: "attendances", noun: "attendance record", scope: ScopeAttendancesRead, table: store.TableAttendances,
		typ: model.ResourceAttendance, deletedKey: "attendances",
		list: true, byID: true, lookup: true, filters: f, sorts: map[string]Sorting{},
		render: func(s *API, rd renderer, o any, _ []string) any { return rd.attendance(at(o)) },
	}
	res.page = func(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
		base := res.match(p)
		m := base
		if v, ok := p.get(paramOrganisation); ok {
			m = func(o any) bool {
				if !base(o) {
					return false
				}
				ev, ok := sn.CalendarEvent(at(o).CalendarEvent.ID)
				return ok && ev.Organisation.ID == v
			}
		}
		return res.pageWith(s, sn, p, after, limit, m, res.filters)
	}
	byEvents := ByIndex(store.TableAttendances, store.IndexCalendarEvent, true)
	res.lookupKeys = map[string]LookupKey{
		"students":       ByIndex(store.TableAttendances, store.IndexStudent, true),
		"calendarEvents": byEvents,
		// SS 12000's misspelling, accepted too (docs/decisions.md#ss12000-defects)
		"calendareEvents": byEvents,
		"activities": func(sn *store.Snapshot, v string, emit func(any)) {
			_ = sn.Scan(store.TableCalendarEvents, store.IndexActivity, strings.ToLower(v), func(o any) bool {
				byEvents(sn, o.(*model.CalendarEvent).ID, emit)
				return true
			})
		},
	}
	return res
}

func attendanceEventsResource() *Resource {
	ae := func(o any) *model.AttendanceEvent { return o.(*model.AttendanceEvent) }
	res := Plain[model.AttendanceEvent]{
		Name: "attendanceEvents", Noun: "attendance event", Scope: ScopeAttendanceEventsRead, Table: store.TableAttendanceEvents,
		Type: model.ResourceAttendanceEvent, DeletedKey: "attendanceEvents",
		Meta: func(e *model.AttendanceEvent) *model.Meta { return &e.Meta },
		Filters: []Filter{
			IDFilter("person", store.IndexPerson, func(o any) []string { return oneID(ae(o).Person.ID) }),
			AnyOf(IDFilter(paramGroup, store.IndexGroup, func(o any) []string { return oneID(ae(o).Group.ID) })),
		},
		Lookups: map[string]LookupKey{
			"person": ByIndex(store.TableAttendanceEvents, store.IndexPerson, true),
			"group":  ByIndex(store.TableAttendanceEvents, store.IndexGroup, true),
		},
	}.Resource()
	res.render = func(s *API, rd renderer, o any, expand []string) any {
		e := ae(o)
		out := rd.withRefs(e).(model.AttendanceEvent)
		if rd.expandIgnored || len(expand) == 0 {
			return out
		}
		type embedded struct {
			Person       *model.Person  `json:"person,omitempty"`
			RegisteredBy *model.Person  `json:"registeredBy,omitempty"`
			Group        map[string]any `json:"group,omitempty"`
		}
		var emb embedded
		if slices.Contains(expand, "person") {
			if p, ok := rd.sn.Person(e.Person.ID); ok {
				pp := rd.person(p)
				emb.Person = &pp
			}
		}
		if slices.Contains(expand, "registeredBy") && e.RegisteredBy != nil {
			if p, ok := rd.sn.Person(e.RegisteredBy.ID); ok {
				pp := rd.person(p)
				emb.RegisteredBy = &pp
			}
		}
		if slices.Contains(expand, "group") {
			if g, ok := rd.sn.Group(e.Group.ID); ok {
				emb.Group = rd.groupFragment(g)
			}
		}
		return struct {
			model.AttendanceEvent
			Embedded embedded `json:"_embedded"`
		}{out, emb}
	}
	return res
}

func attendanceScheduleResource() *Resource {
	as := func(o any) *model.AttendanceSchedule { return o.(*model.AttendanceSchedule) }
	res := Plain[model.AttendanceSchedule]{
		Name: "attendanceSchedule", Noun: "attendance schedule", Scope: ScopeAttendanceScheduleRead, Table: store.TableAttendanceSchedules,
		Type: model.ResourceAttendanceSchedule, DeletedKey: "attendanceSchedules",
		Meta: func(x *model.AttendanceSchedule) *model.Meta { return &x.Meta },
		Filters: append([]Filter{
			IDFilter("placement", store.IndexPlacement, func(o any) []string { return oneID(as(o).Placement.ID) }),
			{param: paramGroup, id: true, match: func(any, string) bool { return true }}, // applied in page
		}, dateFilters(func(o any) model.Date { return as(o).StartDate }, func(o any) model.Date { return as(o).EndDate })...),
	}.Resource()
	res.page = func(s *API, sn *store.Snapshot, p params, after store.Cursor, limit int) ([]any, store.Cursor, error) {
		base := res.match(p)
		m := base
		if v, ok := p.get(paramGroup); ok {
			m = func(o any) bool {
				if !base(o) {
					return false
				}
				pl, ok := sn.Placement(as(o).Placement.ID)
				return ok && pl.Group != nil && pl.Group.ID == v
			}
		}
		return res.pageWith(s, sn, p, after, limit, m, res.filters)
	}
	res.lookupKeys = map[string]LookupKey{"placement": ByIndex(store.TableAttendanceSchedules, store.IndexPlacement, true)}
	res.render = func(s *API, rd renderer, o any, _ []string) any {
		out := rd.withRefs(o).(model.AttendanceSchedule)
		out.ScheduleDays = out.ScheduleEntries
		if out.ScheduleDays == nil {
			out.ScheduleDays = []model.AttendanceScheduleEntry{}
		}
		return out
	}
	return res
}

func gradesResource() *Resource {
	gr := func(o any) *model.Grade { return o.(*model.Grade) }
	// A grade interface A wrote without a grade or a teacher is hidden from
	// interface B (the grades table's Hidden).
	return Plain[model.Grade]{
		Name: "grades", Noun: "grade", Scope: ScopeGradesRead, Table: store.TableGrades,
		Type: model.ResourceGrade, DeletedKey: "grades",
		Meta: func(g *model.Grade) *model.Meta { return &g.Meta },
		Filters: []Filter{
			IDFilter("student", store.IndexStudent, func(o any) []string { return oneID(gr(o).Student.ID) }),
			IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(gr(o).Organisation.OptionalID()) }),
			{param: "registeredBy", id: true, match: func(o any, v string) bool { return gr(o).RegisteredBy.ID == v }},
			{param: "gradingTeacher", id: true, match: func(o any, v string) bool {
				return gr(o).GradingTeacher != nil && gr(o).GradingTeacher.ID == v
			}},
			EvalFilter("registeredDate.onOrAfter", func(o any, v string) bool { return gr(o).RegisteredDate >= model.Date(v) }),
			EvalFilter("registeredDate.onOrBefore", func(o any, v string) bool { return gr(o).RegisteredDate <= model.Date(v) }),
		},
		Sorts: map[string]Sorting{
			"registeredDateAsc":  Order(store.IndexRegisteredDate, false),
			"registeredDateDesc": Order(store.IndexRegisteredDate, true),
		},
	}.Resource()
}

func absencesResource() *Resource {
	ab := func(o any) *model.Absence { return o.(*model.Absence) }
	meta := func(o any) *model.Meta { return &ab(o).Meta }
	f := []Filter{
		IDFilter("student", store.IndexStudent, func(o any) []string { return oneID(ab(o).Student.ID) }),
		IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(ab(o).Organisation.ID) }),
		{param: "registeredBy", id: true, match: func(o any, v string) bool {
			return ab(o).RegisteredBy != nil && ab(o).RegisteredBy.ID == v
		}},
		EvalFilter("type", func(o any, v string) bool { return string(ab(o).Type) == v }),
	}
	f = append(f, timeFilters("startTime", func(o any) time.Time { return ab(o).StartTime })...)
	f = append(f, timeFilters("endTime", func(o any) time.Time { return ab(o).EndTime })...)
	f = append(f, metaFilters(meta)...)
	return &Resource{
		name: "absences", noun: "absence record", scope: ScopeAbsencesRead, table: store.TableAbsences,
		typ: model.ResourceAbsence, deletedKey: "absences",
		list: true, byID: true, lookup: true, filters: f,
		sorts: map[string]Sorting{
			"ModifiedDesc":  Order(store.IndexModified, true),
			"StartTimeAsc":  Order(store.IndexStartTime, false),
			"StartTimeDesc": Order(store.IndexStartTime, true),
		},
		render: func(s *API, rd renderer, o any, _ []string) any { return rd.absence(ab(o)) },
	}
}

func resourcesResource() *Resource {
	rs := func(o any) *model.Resource { return o.(*model.Resource) }
	return Plain[model.Resource]{
		Name: "resources", Noun: "resource", Scope: ScopeResourcesRead, Table: store.TableResources,
		Type: model.ResourceResource, DeletedKey: "resources",
		Meta:        func(r *model.Resource) *model.Meta { return &r.Meta },
		Filters:     []Filter{IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(rs(o).Owner.ID) })},
		Sorts:       map[string]Sorting{"DisplayNameAsc": Order(store.IndexDisplayNameOrder, false)},
		DisplayName: func(r *model.Resource) string { return r.DisplayName },
	}.Resource()
}

func roomsResource() *Resource {
	rm := func(o any) *model.Room { return o.(*model.Room) }
	return Plain[model.Room]{
		Name: "rooms", Noun: "room", Scope: ScopeRoomsRead, Table: store.TableRooms,
		Type: model.ResourceRoom, DeletedKey: "rooms",
		Meta:        func(r *model.Room) *model.Meta { return &r.Meta },
		Filters:     []Filter{IDFilter(paramOrganisation, store.IndexOrganisation, func(o any) []string { return oneID(rm(o).Owner.ID) })},
		Sorts:       map[string]Sorting{"DisplayNameAsc": Order(store.IndexDisplayNameOrder, false)},
		DisplayName: func(r *model.Room) string { return r.DisplayName },
	}.Resource()
}

// aggregatedAttendanceResource computes, for each pupil and activity, the
// sums of the attendance records of the activity's calendar events between
// startDate and endDate (both required, inclusive, by the event's UTC date),
// in the order of pupil and activity, a page at a time. The records come in
// pupil order from the cursor's pupil on: a period with records on at most
// PeriodDaysMerged dates reads only its own records (the store's eventDay
// index, one run per date), a longer one the pupils' records (the student
// index), so that a page costs the records of the pupils it shows, not every
// record of the period (docs/decisions.md#aggregated-attendance).
func aggregatedAttendanceResource() *Resource {
	return &Resource{
		name: "aggregatedAttendance", noun: "aggregated attendance", scope: ScopeAggregatedAttendanceRead,
		table: store.TableAttendances, list: true, required: []string{"startDate", "endDate"},
		filters: plannedFilters([]string{paramOrganisation, "student"}, "startDate", "endDate", "schoolType"),
		compute: computeAggregatedAttendance,
	}
}

// aggregateCursor is where a page of aggregated attendance ends: the pupil
// and activity of its last item ("\x00" between them).
func aggregateCursor(student, activity string) []byte { return []byte(student + "\x00" + activity) }

func computeAggregatedAttendance(s *API, sn *store.Snapshot, p params, rd renderer, expand []string, cursor []byte, limit int) ([]any, []byte) {
	from, _ := p.get("startDate")
	to, _ := p.get("endDate")
	orgID, hasOrg := p.get(paramOrganisation)
	schoolType, hasType := p.get("schoolType")
	student, hasStudent := p.get("student")
	afterStudent, afterActivity, _ := strings.Cut(string(cursor), "\x00")
	// One pupil's sums by activity, in the order records come.
	sums := map[string]*model.AggregatedAttendance{}
	var activities []string
	var out []*model.AggregatedAttendance
	current := ""
	// flush emits the current pupil's sums in activity order, after the
	// cursor.
	flush := func() {
		slices.Sort(activities)
		for _, act := range activities {
			if current == afterStudent && act <= afterActivity {
				continue
			}
			out = append(out, sums[act])
		}
		clear(sums)
		activities = activities[:0]
	}
	add := func(a *model.Attendance) {
		ev, ok := sn.CalendarEvent(a.CalendarEvent.ID)
		if !ok || ev.Activity.ID == "" {
			return
		}
		day := model.DateOf(ev.StartTime.UTC())
		if day < model.Date(from) || day > model.Date(to) || (hasOrg && ev.Organisation.ID != orgID) {
			return
		}
		if hasType {
			g, ok := sn.Group(ev.Group.ID)
			if !ok || string(g.SchoolType) != schoolType {
				return
			}
		}
		agg, ok := sums[ev.Activity.ID]
		if !ok {
			agg = &model.AggregatedAttendance{
				Activity: rd.objRef(store.TableActivities, ev.Activity.ID), Student: rd.personRef(model.PersonReference{ID: a.Student.ID}),
				StartDate: model.Date(from), EndDate: model.Date(to),
			}
			sums[ev.Activity.ID] = agg
			activities = append(activities, ev.Activity.ID)
		}
		val := func(p *int) int {
			if p == nil {
				return 0
			}
			return *p
		}
		agg.AttendanceSum += val(a.AttendanceMinutes)
		agg.ValidAbsenceSum += val(a.ValidAbsenceMinutes)
		agg.InvalidAbsenceSum += val(a.InvalidAbsenceMinutes)
		agg.OtherAttendanceSum += val(a.OtherAttendanceMinutes)
		length := int(ev.EndTime.Sub(ev.StartTime) / time.Minute)
		agg.OfferedSum += length
		if a.IsReported {
			agg.ReportedSum += length
		}
	}
	var records iter.Seq[*model.Attendance]
	switch {
	case hasStudent:
		records = pupilRecords(sn, store.ValueSpan(student))
	default:
		var ok bool
		if records, ok = sn.AttendancesOfPeriod(model.Date(from), model.Date(to), afterStudent, PeriodDaysMerged); !ok {
			records = pupilRecords(sn, store.ValuesFrom(afterStudent))
		}
	}
	// A pupil's sums are emitted when the next pupil's records begin; the
	// walk stops at a pupil boundary once the page and one more are found.
	done := false
	for a := range records {
		if a.Student.ID != current {
			flush()
			if len(out) > limit {
				done = true
				break
			}
			current = a.Student.ID
		}
		add(a)
	}
	if !done {
		flush()
	}
	return aggregatePage(sn, rd, expand, out, limit)
}

// pupilRecords is the attendance records of a span of the student index, in
// pupil order, read as they are consumed.
func pupilRecords(sn *store.Snapshot, span store.Span) iter.Seq[*model.Attendance] {
	return func(yield func(*model.Attendance) bool) {
		for rec := range sn.Records(store.TableAttendances, store.IndexStudent, span) {
			if !yield(rec.(*model.Attendance)) {
				return
			}
		}
	}
}

// PeriodDaysMerged is the most dates with records a period of aggregated
// attendance may have for its records to be read date by date (a school
// year has about 190); a longer one is read pupil by pupil, which costs a
// page the records of its pupils outside the period too.
const PeriodDaysMerged = 400

// aggregatePage cuts the page of limit items from the sums found (one more
// means a next page), with what expand embeds, and the cursor after it.
func aggregatePage(sn *store.Snapshot, rd renderer, expand []string, out []*model.AggregatedAttendance, limit int) ([]any, []byte) {
	var nextCursor []byte
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		nextCursor = aggregateCursor(last.Student.ID, last.Activity.ID)
	}
	page := make([]any, len(out))
	for i, agg := range out {
		if !rd.expandIgnored && len(expand) > 0 {
			agg.Embedded = &struct {
				Activity *model.Activity `json:"activity,omitempty"`
				Student  *model.Person   `json:"student,omitempty"`
			}{}
			if slices.Contains(expand, "activity") {
				if a, ok := sn.Get(store.TableActivities, agg.Activity.ID); ok {
					act := rd.withRefs(a).(model.Activity)
					agg.Embedded.Activity = &act
				}
			}
			if slices.Contains(expand, "student") {
				if p, ok := sn.Person(agg.Student.ID); ok {
					pp := rd.person(p)
					agg.Embedded.Student = &pp
				}
			}
		}
		page[i] = agg
	}
	return page, nextCursor
}
