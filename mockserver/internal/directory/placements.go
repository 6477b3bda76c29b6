package directory

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// StudentPlacements are the placements of the store that have a Directory
// extension; a preschool one (schoolType FS) is also a Placement of interface
// B, the others are not (their SS 12000 schoolType is empty). Employee
// placements are a table of interface A's own. Both follow the archiving
// rules of docs/decisions.md#archive-restore: archivedAt is set by a past endDate or
// /archive, and cleared by /restore or by a PATCH whose body has endDate
// null or not in the past.

// DirectoryStudentPlacement is a StudentPlacement of interface A.
type DirectoryStudentPlacement struct {
	ID                             string          `json:"id"`
	Meta                           DirectoryMeta   `json:"meta"`
	External                       *model.External `json:"external"`
	StudentID                      string          `json:"studentID"`
	SchoolID                       string          `json:"schoolID"`
	SchoolType                     string          `json:"schoolType"`
	SchoolYear                     *string         `json:"schoolYear"`
	HasChildcare                   bool            `json:"hasChildcare"`
	MotherTongue                   *string         `json:"motherTongue"`
	ModernLanguageAlternative      *string         `json:"modernLanguageAlternative"`
	SwedishAsSecondLanguage        bool            `json:"swedishAsSecondLanguage"`
	MotherTongueParticipates       bool            `json:"motherTongueParticipates"`
	ModernLanguageInSchoolChoice   *string         `json:"modernLanguageInSchoolChoice"`
	ModernLanguageInLanguageChoice *string         `json:"modernLanguageInLanguageChoice"`
	StartDate                      model.Date      `json:"startDate"`
	EndDate                        *model.Date     `json:"endDate"`
	ArchiveYear                    *string         `json:"archiveYear"`
	ArchivedAt                     *time.Time      `json:"archivedAt"`
}

// DirectoryEmployeePlacement is an EmployeePlacement of interface A.
type DirectoryEmployeePlacement struct {
	ID                string          `json:"id"`
	Meta              DirectoryMeta   `json:"meta"`
	External          *model.External `json:"external"`
	EmployeeID        string          `json:"employeeID"`
	SchoolID          string          `json:"schoolID"`
	Signature         *string         `json:"signature"`
	Title             *string         `json:"title"`
	Roles             []string        `json:"roles"`
	StartDate         model.Date      `json:"startDate"`
	EndDate           *model.Date     `json:"endDate"`
	ArchiveYear       *string         `json:"archiveYear"`
	ArchivedAt        *time.Time      `json:"archivedAt"`
	EmploymentPercent *int            `json:"employmentPercent"`
}

// Interface A's school form of preschool placements, the only one that
// interface B shows.
const placementSchoolTypeFS = "FS"

// overlay returns base with the members of a validated body put over it: a
// member that is present replaces base's (null clears it, an object is
// replaced as a whole), an absent one keeps base's. The result shares no
// memory with base.
func overlay[T any](base T, body map[string]json.RawMessage) T {
	raw, _ := json.Marshal(base)
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(raw, &m)
	maps.Copy(m, body)
	raw, _ = json.Marshal(m)
	var out T
	_ = json.Unmarshal(raw, &out) // base and body have the record's types
	return out
}

func datePtr(d model.Date) *model.Date {
	if d.IsZero() {
		return nil
	}
	return &d
}

func dateOf(d *model.Date) model.Date {
	if d == nil {
		return ""
	}
	return *d
}

// archivedAfterWrite applies the archiving rules to a create or PATCH: when
// the body has endDate, null or a date not before today restores (or keeps
// active), a past date archives at now unless the record is archived already.
// Without endDate in the body archivedAt stays as it was.
func archivedAfterWrite(cur *time.Time, body map[string]json.RawMessage, end, today model.Date, now time.Time) *time.Time {
	if _, ok := body["endDate"]; !ok {
		return cur
	}
	if end.IsZero() || end >= today {
		return nil
	}
	if cur != nil {
		return cur
	}
	return &now
}

// archivedBy is what /archive (on) and /restore (off) make of archivedAt.
func archivedBy(cur *time.Time, on bool, now time.Time) *time.Time {
	switch {
	case !on:
		return nil
	case cur != nil:
		return cur
	default:
		return &now
	}
}

// isSchool reports whether id is a School of interface A.
func isSchool(sn *store.Snapshot, id string) bool {
	o, ok := sn.Organisation(id)
	return ok && o.Directory != nil
}

// isPerson reports whether id is a person with the role.
func isPerson(sn *store.Snapshot, id string, role model.PersonRole) bool {
	p, ok := sn.Person(id)
	return ok && hasRole(p, role)
}

// checkPlacement lists what is wrong with a placement's references and dates.
func checkPlacement(sn *store.Snapshot, personField, personID string, role model.PersonRole, schoolID string, start, end model.Date) []surface.FieldProblem {
	var problems []surface.FieldProblem
	if !isPerson(sn, personID, role) {
		problems = append(problems, surface.FieldProblem{Field: "/" + personField, Message: fmt.Sprintf("no %s with id %s", role, personID)})
	}
	if !isSchool(sn, schoolID) {
		problems = append(problems, surface.FieldProblem{Field: "/schoolID", Message: fmt.Sprintf("no school with id %s", schoolID)})
	}
	if !end.IsZero() && end < start {
		problems = append(problems, surface.FieldProblem{Field: "/endDate", Message: fmt.Sprintf("endDate %s is before startDate %s", end, start)})
	}
	return problems
}

func renderStudentPlacement(p *model.Placement) DirectoryStudentPlacement {
	x := p.Directory
	return DirectoryStudentPlacement{
		ID: p.ID, Meta: dirMeta(p.Meta), External: x.External, StudentID: p.Child.ID, SchoolID: p.PlacedAt.ID,
		SchoolType: x.SchoolType, SchoolYear: x.SchoolYear, HasChildcare: x.HasChildcare, MotherTongue: x.MotherTongue,
		ModernLanguageAlternative: x.ModernLanguageAlternative, SwedishAsSecondLanguage: x.SwedishAsSecondLanguage,
		MotherTongueParticipates: x.MotherTongueParticipates, ModernLanguageInSchoolChoice: x.ModernLanguageInSchoolChoice,
		ModernLanguageInLanguageChoice: x.ModernLanguageInLanguageChoice, StartDate: p.StartDate, EndDate: datePtr(p.EndDate),
		ArchiveYear: x.ArchiveYear, ArchivedAt: x.ArchivedAt,
	}
}

// studentPlacementGetters read the searchable fields of a StudentPlacement
// as renderStudentPlacement shows them. Keep them in step:
// TestSearchGettersMatchRender compares the two.
var studentPlacementGetters = fieldGetters[model.Placement]{
	"id":        func(_ *store.Snapshot, p *model.Placement) (any, bool) { return textField(p.ID) },
	"studentID": func(_ *store.Snapshot, p *model.Placement) (any, bool) { return textField(p.Child.ID) },
	"schoolID":  func(_ *store.Snapshot, p *model.Placement) (any, bool) { return textField(p.PlacedAt.ID) },
	"schoolType": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return textField(p.Directory.SchoolType)
	},
	"schoolYear": func(_ *store.Snapshot, p *model.Placement) (any, bool) { return ptrText(p.Directory.SchoolYear) },
	"hasChildcare": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return p.Directory.HasChildcare, true
	},
	"motherTongue": func(_ *store.Snapshot, p *model.Placement) (any, bool) { return ptrText(p.Directory.MotherTongue) },
	"modernLanguageAlternative": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return ptrText(p.Directory.ModernLanguageAlternative)
	},
	"swedishAsSecondLanguage": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return p.Directory.SwedishAsSecondLanguage, true
	},
	"motherTongueParticipates": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return p.Directory.MotherTongueParticipates, true
	},
	"modernLanguageInSchoolChoice": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return ptrText(p.Directory.ModernLanguageInSchoolChoice)
	},
	"modernLanguageInLanguageChoice": func(_ *store.Snapshot, p *model.Placement) (any, bool) {
		return ptrText(p.Directory.ModernLanguageInLanguageChoice)
	},
	"startDate":   func(_ *store.Snapshot, p *model.Placement) (any, bool) { return textField(string(p.StartDate)) },
	"endDate":     func(_ *store.Snapshot, p *model.Placement) (any, bool) { return optText(string(p.EndDate)) },
	"archiveYear": func(_ *store.Snapshot, p *model.Placement) (any, bool) { return ptrText(p.Directory.ArchiveYear) },
	"archivedAt":  func(_ *store.Snapshot, p *model.Placement) (any, bool) { return ptrTime(p.Directory.ArchivedAt) },
}

func (s *API) studentPlacementResource() *dirResource {
	return &dirResource{
		name: "student placement", path: "/student-placement", scope: "student-placement", schema: "StudentPlacement",
		canSearch: true, canDelete: true,
		table: store.TablePlacements, member: func(p any) bool { return p.(*model.Placement).Directory != nil },
		logged: true, audited: true,
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			// Interface A's student placements in list order (meta.created,
			// then id): the created index, skipping interface B's own.
			_ = sn.Scan(store.TablePlacements, store.IndexCreated, "", func(obj any) bool {
				return obj.(*model.Placement).Directory == nil || fn(obj)
			})
		},
		get: func(sn *store.Snapshot, id string) (any, bool) {
			p, ok := sn.Placement(id)
			return p, ok && p.Directory != nil
		},
		render: func(_ *store.Snapshot, rec any) any { return renderStudentPlacement(rec.(*model.Placement)) },
		since: &sinceLookup{table: store.TablePlacements, member: func(obj any) bool { return obj.(*model.Placement).Directory != nil },
			listOrder: func(obj any) (time.Time, string) { p := obj.(*model.Placement); return p.Meta.Created, p.ID }},
		getters: withRecordGetters(studentPlacementGetters, func(p *model.Placement) *model.Meta { return &p.Meta },
			func(p *model.Placement) *model.External { return p.Directory.External }),
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			p := model.Placement{ID: uuid.NewString()}
			today := s.today()
			return p.ID, s.store.WriteBy(by, func(w *store.Writer) error {
				return writeStudentPlacement(w, p, DirectoryStudentPlacement{}, body, today)
			})
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			today := s.today()
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().Placement(id)
				if !ok || cur.Directory == nil {
					return store.ErrNotFound
				}
				return writeStudentPlacement(w, *cur, renderStudentPlacement(cur), body, today)
			})
		},
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error { return w.Delete(store.TablePlacements, id) })
		},
	}
}

// writeStudentPlacement puts a validated body over the placement's current
// interface-A view (zero for a new one), checks the result and stores it in
// p, a copy of the stored placement whose interface-B members it keeps.
func writeStudentPlacement(w *store.Writer, p model.Placement, cur DirectoryStudentPlacement, body map[string]json.RawMessage, today model.Date) error {
	v := overlay(cur, body)
	if problems := checkPlacement(w.Read(), "studentID", v.StudentID, model.RoleStudent, v.SchoolID, v.StartDate, dateOf(v.EndDate)); len(problems) > 0 {
		return unprocessable(problems...)
	}
	p.Child = model.PersonReference{ID: v.StudentID}
	p.PlacedAt = model.ObjectReference{ID: v.SchoolID}
	p.SchoolType = ""
	if v.SchoolType == placementSchoolTypeFS {
		p.SchoolType = model.SchoolTypeFS
	}
	p.StartDate, p.EndDate = v.StartDate, dateOf(v.EndDate)
	p.Directory = &model.PlacementExtra{
		External: v.External, SchoolType: v.SchoolType, SchoolYear: v.SchoolYear, HasChildcare: v.HasChildcare,
		MotherTongue: v.MotherTongue, ModernLanguageAlternative: v.ModernLanguageAlternative,
		SwedishAsSecondLanguage: v.SwedishAsSecondLanguage, MotherTongueParticipates: v.MotherTongueParticipates,
		ModernLanguageInSchoolChoice: v.ModernLanguageInSchoolChoice, ModernLanguageInLanguageChoice: v.ModernLanguageInLanguageChoice,
		ArchiveYear: v.ArchiveYear, ArchivedAt: archivedAfterWrite(cur.ArchivedAt, body, p.EndDate, today, w.Now()),
	}
	_, _, err := w.PutPlacement(p)
	return err
}

func setStudentPlacementArchived(w *store.Writer, id string, on bool) error {
	cur, ok := w.Read().Placement(id)
	if !ok || cur.Directory == nil {
		return store.ErrNotFound
	}
	p := *cur
	x := *cur.Directory
	x.ArchivedAt = archivedBy(x.ArchivedAt, on, w.Now())
	p.Directory = &x
	_, _, err := w.PutPlacement(p)
	return err
}

func renderEmployeePlacement(p *model.EmployeePlacement) DirectoryEmployeePlacement {
	roles := []string{}
	roles = append(roles, p.Roles...)
	return DirectoryEmployeePlacement{
		ID: p.ID, Meta: dirMeta(p.Meta), External: p.External, EmployeeID: p.EmployeeID, SchoolID: p.SchoolID,
		Signature: p.Signature, Title: p.Title, Roles: roles, StartDate: p.StartDate, EndDate: datePtr(p.EndDate),
		ArchiveYear: p.ArchiveYear, ArchivedAt: p.ArchivedAt, EmploymentPercent: p.EmploymentPercent,
	}
}

// employeePlacementGetters read the searchable fields of an
// EmployeePlacement as renderEmployeePlacement shows them. Keep them in step:
// TestSearchGettersMatchRender compares the two.
var employeePlacementGetters = fieldGetters[model.EmployeePlacement]{
	"id":         func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return textField(p.ID) },
	"employeeID": func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return textField(p.EmployeeID) },
	"schoolID":   func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return textField(p.SchoolID) },
	"signature":  func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return ptrText(p.Signature) },
	"title":      func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return ptrText(p.Title) },
	"roles":      func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return list(p.Roles) },
	"startDate": func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) {
		return textField(string(p.StartDate))
	},
	"endDate":     func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return optText(string(p.EndDate)) },
	"archiveYear": func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return ptrText(p.ArchiveYear) },
	"archivedAt":  func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) { return ptrTime(p.ArchivedAt) },
	"employmentPercent": func(_ *store.Snapshot, p *model.EmployeePlacement) (any, bool) {
		return ptrInt(p.EmploymentPercent)
	},
}

func (s *API) employeePlacementResource() *dirResource {
	return &dirResource{
		name: "employee placement", path: "/employee-placement", scope: "employee-placement", schema: "EmployeePlacement",
		canSearch: true, canDelete: true,
		table: store.TableEmployeePlacements, logged: true, audited: true,
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableEmployeePlacements, store.IndexCreated, "", fn)
		},
		get: func(sn *store.Snapshot, id string) (any, bool) { return sn.EmployeePlacement(id) },
		since: &sinceLookup{table: store.TableEmployeePlacements, member: func(any) bool { return true },
			listOrder: func(obj any) (time.Time, string) { p := obj.(*model.EmployeePlacement); return p.Meta.Created, p.ID }},
		render: func(_ *store.Snapshot, rec any) any {
			return renderEmployeePlacement(rec.(*model.EmployeePlacement))
		},
		getters: withRecordGetters(employeePlacementGetters, func(p *model.EmployeePlacement) *model.Meta { return &p.Meta },
			func(p *model.EmployeePlacement) *model.External { return p.External }),
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			id := uuid.NewString()
			today := s.today()
			return id, s.store.WriteBy(by, func(w *store.Writer) error {
				return writeEmployeePlacement(w, id, DirectoryEmployeePlacement{}, body, today)
			})
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			today := s.today()
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().EmployeePlacement(id)
				if !ok {
					return store.ErrNotFound
				}
				return writeEmployeePlacement(w, id, renderEmployeePlacement(cur), body, today)
			})
		},
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error { return w.Delete(store.TableEmployeePlacements, id) })
		},
	}
}

// writeEmployeePlacement puts a validated body over the placement's current
// view (zero for a new one), checks the result and stores it.
func writeEmployeePlacement(w *store.Writer, id string, cur DirectoryEmployeePlacement, body map[string]json.RawMessage, today model.Date) error {
	v := overlay(cur, body)
	if problems := checkPlacement(w.Read(), "employeeID", v.EmployeeID, model.RoleEmployee, v.SchoolID, v.StartDate, dateOf(v.EndDate)); len(problems) > 0 {
		return unprocessable(problems...)
	}
	end := dateOf(v.EndDate)
	_, _, err := w.PutEmployeePlacement(model.EmployeePlacement{
		ID: id, External: v.External, EmployeeID: v.EmployeeID, SchoolID: v.SchoolID, Signature: v.Signature,
		Title: v.Title, Roles: v.Roles, StartDate: v.StartDate, EndDate: end, ArchiveYear: v.ArchiveYear,
		ArchivedAt: archivedAfterWrite(cur.ArchivedAt, body, end, today, w.Now()), EmploymentPercent: v.EmploymentPercent,
	})
	return err
}

func setEmployeePlacementArchived(w *store.Writer, id string, on bool) error {
	cur, ok := w.Read().EmployeePlacement(id)
	if !ok {
		return store.ErrNotFound
	}
	p := *cur
	p.ArchivedAt = archivedBy(p.ArchivedAt, on, w.Now())
	_, _, err := w.PutEmployeePlacement(p)
	return err
}

// placementEndpoints are the placement operations beyond dirResource's:
// /archive and /restore of both placement kinds, and the spec's path
// /student-placements/{id} (GET and PATCH) as an alias of
// /student-placement/{id}.
func (s *API) placementEndpoints() []surface.Endpoint {
	sp, ep := s.studentPlacementResource(), s.employeePlacementResource()
	eps := []surface.Endpoint{
		{Method: http.MethodGet, Path: PrefixA + "/student-placements/{id}", Scope: sp.scope + ":read", Doc: openapi.NameDirectory, Handle: sp.getHandler(s)},
		{Method: http.MethodPatch, Path: PrefixA + "/student-placements/{id}", Scope: sp.scope + ":write", Doc: openapi.NameDirectory, Handle: sp.patchHandler(s)},
	}
	for _, k := range []struct {
		res *dirResource
		set func(w *store.Writer, id string, on bool) error
	}{{sp, setStudentPlacementArchived}, {ep, setEmployeePlacementArchived}} {
		eps = append(eps, archiveEndpoint(s, k.res, "archive", true, k.set), archiveEndpoint(s, k.res, "restore", false, k.set))
	}
	for i := range eps {
		eps[i].Kind = surface.Directory
	}
	return eps
}

// archiveEndpoint is PATCH <resource>/{id}/archive (on) or /restore (off):
// no body, idempotent, 200 with the record.
func archiveEndpoint(s *API, res *dirResource, action string, on bool, set func(w *store.Writer, id string, on bool) error) surface.Endpoint {
	handle := func(w http.ResponseWriter, r *http.Request) {
		id := surface.PathID(r)
		if _, ok := res.get(s.store.Read(), id); !ok {
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, fmt.Sprintf("no %s with id %s", res.name, id))
			return
		}
		// deviation.RestoreKeepsArchived: /restore answers 200 and changes nothing.
		if on || !s.deviates(deviation.RestoreKeepsArchived) {
			if err := s.store.WriteBy(s.actorOf(r), func(wr *store.Writer) error { return set(wr, id, on) }); err != nil {
				writeProblem(w, r, err)
				return
			}
		}
		sn := s.store.Read()
		rec, ok := res.get(sn, id)
		if !ok {
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, fmt.Sprintf("no %s with id %s", res.name, id))
			return
		}
		surface.WriteJSON(w, http.StatusOK, res.render(sn, rec))
	}
	return surface.Endpoint{Method: http.MethodPatch, Path: PrefixA + res.path + "/{id}/" + action, Scope: res.scope + ":write", Doc: openapi.NameDirectory, Handle: handle}
}

// deriveEmployeePlacements gives generated staff their employee placements:
// one per person and school where the person is in a staff group (from the
// earliest membership) or teaches lessons (from the first lesson), with the
// role Teacher for those who teach and OtherPersonnel for the rest. Ids are
// derived from the person and school, so that a seed gives the same ids.
func deriveEmployeePlacements(ds *store.Dataset) []model.EmployeePlacement {
	type key struct{ person, school string }
	start := map[key]model.Date{}
	teaches := map[key]bool{}
	var order []key
	schools := map[string]bool{}
	for _, o := range ds.Organisations {
		if o.Directory != nil {
			schools[o.ID] = true
		}
	}
	add := func(k key, d model.Date) {
		if !schools[k.school] || d.IsZero() {
			return
		}
		cur, seen := start[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || d < cur {
			start[k] = d
		}
	}
	for _, g := range ds.Groups {
		if g.GroupType != model.GroupTypeStaff {
			continue
		}
		for _, m := range g.GroupMemberships {
			d := m.StartDate
			if d.IsZero() {
				d = g.StartDate
			}
			add(key{m.Person.ID, g.Organisation.ID}, d)
		}
	}
	// A million events of a few thousand (teacher, school) pairs: an event
	// no earlier than one already seen for its pair cannot move the pair's
	// start, so its date is not worked out. The events of a generated run
	// share their references (model.CalendarEvent) and come in time order:
	// after the first, they are passed over without a map lookup.
	earliest := map[key]time.Time{}
	var prev *model.CalendarEvent
	for i := range ds.CalendarEvents {
		ev := &ds.CalendarEvents[i]
		if prev != nil && ev.EventRefs == prev.EventRefs && !ev.StartTime.Before(prev.StartTime) {
			continue
		}
		prev = ev
		k := key{ev.Teacher.ID, ev.Organisation.ID}
		if t, ok := earliest[k]; !ok || ev.StartTime.Before(t) {
			earliest[k] = ev.StartTime
			add(k, model.DateOf(ev.StartTime.In(stockholm)))
		}
		if _, ok := start[k]; ok {
			teaches[k] = true
		}
	}
	out := make([]model.EmployeePlacement, 0, len(order))
	for _, k := range order {
		role := "OtherPersonnel"
		if teaches[k] {
			role = "Teacher"
		}
		out = append(out, model.EmployeePlacement{
			ID:         uuid.NewSHA1(employeePlacementSpace, []byte(k.person+"/"+k.school)).String(),
			EmployeeID: k.person, SchoolID: k.school, Roles: []string{role}, StartDate: start[k],
		})
	}
	return out
}

// employeePlacementSpace is the uuid namespace of derived employee placements.
var employeePlacementSpace = uuid.MustParse("4d1f0c52-9b7e-4c1a-8f53-2e6a9d0b7c31")
