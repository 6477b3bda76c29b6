package directory

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// DirectorySchool is a School of interface A: a school unit of the store.
type DirectorySchool struct {
	ID               string          `json:"id"`
	Meta             DirectoryMeta   `json:"meta"`
	External         *model.External `json:"external"`
	Title            string          `json:"title"`
	UnitID           *string         `json:"unitID"`
	UnitCode         *string         `json:"unitCode"`
	CSNSchoolCode    *string         `json:"csnSchoolCode"`
	MunicipalityCode *string         `json:"municipalityCode"`
	SchoolType       string          `json:"schoolType"`
}

// directorySchoolType is the one school form interface A shows for a unit's
// school forms: GY for an upper-secondary school, GR for a compulsory school
// (or preschool class), FS otherwise.
func directorySchoolType(types []model.SchoolType) string {
	switch {
	case slices.Contains(types, model.SchoolTypeGY):
		return "GY"
	case slices.Contains(types, model.SchoolTypeGR), slices.Contains(types, model.SchoolTypeFKLASS):
		return "GR"
	default:
		return "FS"
	}
}

func renderSchool(o *model.Organisation) DirectorySchool {
	x := o.Directory
	return DirectorySchool{
		ID: o.ID, Meta: dirMeta(o.Meta), External: x.External, Title: o.DisplayName, UnitID: x.UnitID,
		UnitCode: strPtr(o.SchoolUnitCode), CSNSchoolCode: x.CSNSchoolCode, MunicipalityCode: strPtr(o.MunicipalityCode),
		SchoolType: x.SchoolType,
	}
}

// schoolGetters read the searchable fields of a School as renderSchool shows
// them. Keep them in step: TestSearchGettersMatchRender compares the two.
var schoolGetters = fieldGetters[model.Organisation]{
	"id":            func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return textField(o.ID) },
	"title":         func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return textField(o.DisplayName) },
	"unitID":        func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return ptrText(o.Directory.UnitID) },
	"unitCode":      func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return optText(o.SchoolUnitCode) },
	"csnSchoolCode": func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return ptrText(o.Directory.CSNSchoolCode) },
	"municipalityCode": func(_ *store.Snapshot, o *model.Organisation) (any, bool) {
		return optText(o.MunicipalityCode)
	},
	"schoolType": func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return textField(o.Directory.SchoolType) },
}

func (s *API) schoolResource() *dirResource {
	return &dirResource{
		name: "school", path: "/school", scope: "school", schema: "School", canSearch: true,
		table: store.TableOrganisations, member: func(o any) bool { return o.(*model.Organisation).Directory != nil },
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableOrganisations, store.IndexSchoolsByCreated, "", fn)
		},
		get: func(sn *store.Snapshot, id string) (any, bool) {
			o, ok := sn.Organisation(id)
			return o, ok && o.Directory != nil
		},
		render: func(_ *store.Snapshot, rec any) any { return renderSchool(rec.(*model.Organisation)) },
		getters: withRecordGetters(schoolGetters, func(o *model.Organisation) *model.Meta { return &o.Meta },
			func(o *model.Organisation) *model.External { return o.Directory.External }),
		since: &sinceLookup{table: store.TableOrganisations,
			member:    func(obj any) bool { return obj.(*model.Organisation).Directory != nil },
			listOrder: orgListOrder},
		lookups: []equalityLookup{{
			field: "unitCode", table: store.TableOrganisations, index: store.IndexSchoolUnitCode,
			member: func(obj any) bool { return obj.(*model.Organisation).Directory != nil },
			listOrder: func(obj any) (time.Time, string) {
				o := obj.(*model.Organisation)
				return o.Meta.Created, o.ID
			},
		}},
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			o := model.Organisation{ID: uuid.NewString(), OrganisationType: model.OrganisationTypeSchoolUnit, Directory: &model.SchoolExtra{}}
			applySchool(&o, body)
			o.SchoolTypes = []model.SchoolType{model.SchoolType(o.Directory.SchoolType)}
			return o.ID, s.store.WriteBy(by, func(w *store.Writer) error {
				if problems := checkUnitID(w.Read(), o.Directory.UnitID); len(problems) > 0 {
					return unprocessable(problems...)
				}
				// A new school belongs to the organiser, when there is one
				// (unitID is interface A's own link; see docs/decisions.md).
				if org, ok := organiser(w.Read()); ok {
					o.ParentOrganisation = &model.ObjectReference{ID: org}
				}
				_, _, err := w.PutOrganisation(o)
				return err
			})
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().Organisation(id)
				if !ok || cur.Directory == nil {
					return store.ErrNotFound
				}
				o := *cur
				x := *cur.Directory
				o.Directory = &x
				if s.deviates(deviation.PatchReplaces) {
					o.SchoolUnitCode, o.MunicipalityCode = "", ""
					x.UnitID, x.CSNSchoolCode, x.External = nil, nil, nil
				}
				applySchool(&o, body)
				if _, ok := body["unitID"]; ok {
					if problems := checkUnitID(w.Read(), x.UnitID); len(problems) > 0 {
						return unprocessable(problems...)
					}
				}
				_, _, err := w.PutOrganisation(o)
				return err
			})
		},
	}
}

// applySchool copies the members present in a validated School body.
func applySchool(o *model.Organisation, body map[string]json.RawMessage) {
	x := o.Directory
	var str *string
	if member(body, "title", &str) {
		o.DisplayName = deref(str)
	}
	if member(body, "schoolType", &str) {
		x.SchoolType = deref(str)
	}
	str = nil
	if member(body, "unitCode", &str) {
		o.SchoolUnitCode = deref(str)
	}
	str = nil
	if member(body, "municipalityCode", &str) {
		o.MunicipalityCode = deref(str)
	}
	str = nil
	if member(body, "unitID", &str) {
		x.UnitID = optString(str)
	}
	str = nil
	if member(body, "csnSchoolCode", &str) {
		x.CSNSchoolCode = optString(str)
	}
	var ext *model.External
	if member(body, "external", &ext) {
		x.External = ext
	}
}

// DirectoryGroup is a Group of interface A: a group of the store.
type DirectoryGroup struct {
	ID           string          `json:"id"`
	Meta         DirectoryMeta   `json:"meta"`
	External     *model.External `json:"external"`
	SchoolID     string          `json:"schoolID"`
	Category     string          `json:"category"`
	Title        string          `json:"title"`
	Types        []string        `json:"types"`
	ModeratorIDs []string        `json:"moderatorIDs"`
	MemberIDs    []string        `json:"memberIDs"`
}

// Interface-A group categories and types.
const (
	groupCategoryEducation = "Education"
	groupCategoryOther     = "Other"
	groupTypeClass         = "Class"
	groupTypeChildcare     = "Childcare"
	groupTypeMentor        = "Mentor"
)

// directoryGroupView derives interface A's category and types from an SS
// 12000 group type, for groups that were not written through interface A.
func directoryGroupView(t model.GroupType) (category string, types []string) {
	switch t {
	case model.GroupTypeClass:
		return groupCategoryEducation, []string{groupTypeClass}
	case model.GroupTypeDepartment:
		return groupCategoryOther, []string{groupTypeChildcare}
	case model.GroupTypeMentor:
		return groupCategoryEducation, []string{groupTypeMentor}
	case model.GroupTypeTeaching, model.GroupTypeTest, model.GroupTypeSchedule:
		return groupCategoryEducation, []string{}
	default:
		return groupCategoryOther, []string{}
	}
}

// registerGroupType is the SS 12000 group type of an interface-A group:
// the first of its types that has one, else by category.
func registerGroupType(category string, types []string) model.GroupType {
	for _, t := range types {
		switch t {
		case groupTypeClass:
			return model.GroupTypeClass
		case groupTypeChildcare:
			return model.GroupTypeDepartment
		case groupTypeMentor:
			return model.GroupTypeMentor
		}
	}
	if category == groupCategoryEducation {
		return model.GroupTypeTeaching
	}
	return model.GroupTypeOther
}

func renderGroup(g *model.Group) DirectoryGroup {
	// A person may hold several membership periods; memberIDs names each
	// member once.
	out := DirectoryGroup{ID: g.ID, Meta: dirMeta(g.Meta), SchoolID: g.Organisation.ID, Title: g.DisplayName, MemberIDs: groupMembers(g), ModeratorIDs: []string{}}
	if x := g.Directory; x != nil {
		out.External, out.Category, out.Types = x.External, x.Category, slices.Clone(x.Types)
		out.ModeratorIDs = append(out.ModeratorIDs, x.ModeratorIDs...)
	} else {
		out.Category, out.Types = directoryGroupView(g.GroupType)
	}
	return out
}

// groupMembers are the ids of a group's members, each once, as renderGroup
// lists them.
func groupMembers(g *model.Group) []string {
	out := []string{}
	for _, m := range g.GroupMemberships {
		if !slices.Contains(out, m.Person.ID) {
			out = append(out, m.Person.ID)
		}
	}
	return out
}

// groupGetters read the searchable fields of a Group as renderGroup shows
// them. Keep them in step: TestSearchGettersMatchRender compares the two.
var groupGetters = fieldGetters[model.Group]{
	"id":       func(_ *store.Snapshot, g *model.Group) (any, bool) { return textField(g.ID) },
	"schoolID": func(_ *store.Snapshot, g *model.Group) (any, bool) { return textField(g.Organisation.ID) },
	"title":    func(_ *store.Snapshot, g *model.Group) (any, bool) { return textField(g.DisplayName) },
	"category": func(_ *store.Snapshot, g *model.Group) (any, bool) {
		if g.Directory != nil {
			return textField(g.Directory.Category)
		}
		cat, _ := directoryGroupView(g.GroupType)
		return textField(cat)
	},
	"types": func(_ *store.Snapshot, g *model.Group) (any, bool) {
		if g.Directory != nil {
			return list(g.Directory.Types)
		}
		_, types := directoryGroupView(g.GroupType)
		return list(types)
	},
	"moderatorIDs": func(_ *store.Snapshot, g *model.Group) (any, bool) {
		if g.Directory != nil {
			return list(g.Directory.ModeratorIDs)
		}
		return list(nil)
	},
	"memberIDs": func(_ *store.Snapshot, g *model.Group) (any, bool) { return list(groupMembers(g)) },
}

func (s *API) groupResource() *dirResource {
	return &dirResource{
		name: "group", path: "/group", scope: "group", schema: "Group", canSearch: true, canDelete: true,
		table: store.TableGroups, logged: true, audited: true,
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableGroups, store.IndexGroupsByCreated, "", fn)
		},
		get: func(sn *store.Snapshot, id string) (any, bool) {
			return sn.Group(id)
		},
		render: func(_ *store.Snapshot, rec any) any { return renderGroup(rec.(*model.Group)) },
		since: &sinceLookup{table: store.TableGroups, member: func(any) bool { return true },
			listOrder: func(obj any) (time.Time, string) { g := obj.(*model.Group); return g.Meta.Created, g.ID }},
		getters: withRecordGetters(groupGetters, func(g *model.Group) *model.Meta { return &g.Meta },
			func(g *model.Group) *model.External {
				if g.Directory == nil {
					return nil
				}
				return g.Directory.External
			}),
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			g := model.Group{ID: uuid.NewString(), StartDate: s.today(), Directory: &model.GroupExtra{Category: groupCategoryOther, Types: []string{}, ModeratorIDs: []string{}}}
			var schoolID string
			member(body, "schoolID", &schoolID)
			g.Organisation = model.ObjectReference{ID: schoolID}
			return g.ID, s.store.WriteBy(by, func(w *store.Writer) error {
				if err := applyGroup(w.Read(), &g, body); err != nil {
					return err
				}
				_, _, err := w.PutGroup(g)
				return err
			})
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().Group(id)
				if !ok {
					return store.ErrNotFound
				}
				g := *cur
				if cur.Directory == nil {
					cat, types := directoryGroupView(cur.GroupType)
					g.Directory = &model.GroupExtra{Category: cat, Types: types, ModeratorIDs: []string{}}
				} else {
					x := *cur.Directory
					g.Directory = &x
				}
				if err := applyGroup(w.Read(), &g, body); err != nil {
					return err
				}
				_, _, err := w.PutGroup(g)
				return err
			})
		},
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error { return w.Delete(store.TableGroups, id) })
		},
	}
}

// applyGroup copies the members present in a validated Group body and checks
// what it refers to: the school, the members and the moderators.
func applyGroup(sn *store.Snapshot, g *model.Group, body map[string]json.RawMessage) error {
	x := g.Directory
	var problems []surface.FieldProblem
	if o, ok := sn.Organisation(g.Organisation.ID); !ok || o.Directory == nil {
		problems = append(problems, surface.FieldProblem{Field: "/schoolID", Message: fmt.Sprintf("no school with id %s", g.Organisation.ID)})
	}
	var title string
	if member(body, "title", &title) {
		g.DisplayName = title
	}
	var ext *model.External
	if member(body, "external", &ext) {
		x.External = ext
	}
	typesChanged := member(body, "category", &x.Category)
	if member(body, "types", &x.Types) {
		typesChanged = true
	}
	if typesChanged || g.GroupType == "" {
		g.GroupType = registerGroupType(x.Category, x.Types)
	}
	checkPersons := func(field string, ids []string) {
		for i, id := range ids {
			if _, ok := sn.Person(id); !ok {
				problems = append(problems, surface.FieldProblem{Field: fmt.Sprintf("/%s/%d", field, i), Message: fmt.Sprintf("no person with id %s", id)})
			}
		}
	}
	var ids []string
	if member(body, "moderatorIDs", &ids) {
		checkPersons("moderatorIDs", ids)
		x.ModeratorIDs = ids
	}
	ids = nil
	if member(body, "memberIDs", &ids) {
		checkPersons("memberIDs", ids)
		// Members who stay keep their membership periods.
		var ms []model.GroupMembership
		for _, id := range ids {
			kept := false
			for _, old := range g.GroupMemberships {
				if old.Person.ID == id {
					ms, kept = append(ms, old), true
				}
			}
			if !kept {
				ms = append(ms, model.GroupMembership{Person: model.PersonReference{ID: id}})
			}
		}
		g.GroupMemberships = ms
	}
	if len(problems) > 0 {
		return unprocessable(problems...)
	}
	return nil
}

// Endpoints builds every interface-A and export endpoint.
func (s *API) Endpoints() ([]surface.Endpoint, error) {
	var eps []surface.Endpoint
	for _, res := range s.resources {
		if res.canSearch {
			f, err := searchFields(s.contract.Doc("directory"), res.schema)
			if err != nil {
				return nil, err
			}
			res.fields = f
			if err := res.checkGetters(); err != nil {
				return nil, err
			}
		}
		eps = append(eps, res.endpoints(s)...)
	}
	eps = append(eps, s.placementEndpoints()...)
	eps = append(eps, s.exportEndpoints()...)
	return eps, nil
}

// Prepare gives generated records their interface-A view: school
// units become Schools, preschool placements StudentPlacements, persons get
// the roles their records imply (and identityTemporary from their civic
// number), and staff get employee placements unless the data set has some.
func Prepare(ds *store.Dataset) {
	var units []string
	for i := range ds.Organisations {
		if o := &ds.Organisations[i]; o.OrganisationType == model.OrganisationTypeUnit {
			if o.Unit == nil {
				o.Unit = &model.UnitExtra{}
			}
			units = append(units, o.ID)
		}
	}
	schools := 0
	for i := range ds.Organisations {
		o := &ds.Organisations[i]
		if o.OrganisationType != model.OrganisationTypeSchoolUnit {
			continue
		}
		switch {
		case o.Directory == nil:
			o.Directory = &model.SchoolExtra{SchoolType: directorySchoolType(o.SchoolTypes)}
			if len(units) > 0 { // generated schools are spread over the units
				o.Directory.UnitID = &units[schools%len(units)]
			}
			schools++
		case o.Directory.SchoolType == "": // a scenario's school that names its unit
			o.Directory.SchoolType = directorySchoolType(o.SchoolTypes)
		}
	}
	roles := map[string][]model.PersonRole{}
	add := func(id string, r model.PersonRole) {
		if !slices.Contains(roles[id], r) {
			roles[id] = append(roles[id], r)
		}
	}
	for i := range ds.Placements {
		p := &ds.Placements[i]
		add(p.Child.ID, model.RoleStudent)
		if p.SchoolType == model.SchoolTypeFS && p.Directory == nil {
			p.Directory = &model.PlacementExtra{SchoolType: "FS"}
		}
	}
	for _, p := range ds.Persons {
		if len(p.Enrolments) > 0 {
			add(p.ID, model.RoleStudent)
		}
		for _, r := range p.Responsibles {
			add(r.Person.ID, model.RoleGuardian)
		}
	}
	var refs *model.EventRefs // shared by the events of a run (model.CalendarEvent)
	for i := range ds.CalendarEvents {
		ev := &ds.CalendarEvents[i]
		ev.EnsureRefs() // an imported event may lack every reference member
		if ev.EventRefs != refs {
			refs = ev.EventRefs
			add(ev.Teacher.ID, model.RoleEmployee)
		}
	}
	for _, g := range ds.Groups {
		if g.GroupType == model.GroupTypeStaff {
			for _, m := range g.GroupMemberships {
				add(m.Person.ID, model.RoleEmployee)
			}
		}
	}
	for i := range ds.Persons {
		p := &ds.Persons[i]
		if p.Directory == nil {
			p.Directory = &model.PersonExtra{Roles: roles[p.ID], IdentityTemporary: p.CivicNo != nil && fixtures.IsTemporaryNumber(p.CivicNo.Value)}
		}
	}
	prepareGrades(ds)
}

// PrepareGenerated is Prepare for data built from a scenario: when
// the scenario has no employee placements, its staff get them. A state that
// is imported is taken as it is: no records are invented for it.
func PrepareGenerated(ds *store.Dataset) {
	Prepare(ds)
	if len(ds.EmployeePlacements) == 0 {
		ds.EmployeePlacements = deriveEmployeePlacements(ds)
	}
}

func orgListOrder(obj any) (time.Time, string) {
	o := obj.(*model.Organisation)
	return o.Meta.Created, o.ID
}
