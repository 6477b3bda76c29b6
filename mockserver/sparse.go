package mockserver

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/mockserver/internal/wire"
	"github.com/skolkit/skolkit/openapi"
)

// The variant absent-optional-members (VarAbsentOptionalMembers): a server
// whose sources hold no more than the documents require.
//
// On interface B it leaves out every member that the official SS 12000
// document (our register document relaxed to the standard,
// openapi.Standard) does not require — contact details, addresses,
// birthDate, sex, personStatus, securityMarking, reasons, comments, sums —
// except the members sparseKept names: those a filter, a sort key or a
// lookup of the standard reads. A server that offers a filter over a member
// holds that member; the others it may simply not know, and then its answers
// are what a faithful server without them sends. Records a client wrote
// (a 2xx answer to a POST, PUT or PATCH that names an id, through either
// interface) keep every member: a server keeps what it was given.
//
// On interface A it leaves out every member that is null and not required:
// the vendor's schemas mark those fields nullable and not required, so
// absent and null say the same.
type sparse struct {
	mu      sync.Mutex
	written map[string]bool
	order   []string
	doc     func() (*openapi3.T, error)
}

// maxWritten bounds how many written records the variant remembers; the
// oldest are forgotten first.
const maxWritten = 100_000

func newSparse() *sparse {
	return &sparse{written: map[string]bool{}, doc: func() (*openapi3.T, error) { return openapi.Standard(openapi.NameRegister) }}
}

// sparseKept are the members of interface B's records that the variant
// keeps although the standard does not require them, by schema: the ones a
// filter parameter, a sort key or a lookup of the standard reads, and the
// members that only appear when a request asks for them.
var sparseKept = map[string][]string{
	// parent, schoolUnitCode, organisationCode, municipalityCode, schoolTypes,
	// the start and end date filters; lookups by schoolUnitCodes and organisationCodes
	"Organisation": {"parentOrganisation", "schoolUnitCode", "organisationCode", "municipalityCode", "schoolTypes", "startDate", "endDate"},
	// nameContains, eduPersonPrincipalName, identifier.*, civicNo (and
	// CivicNoAsc, the lookup by civicNos), relationship.* (enrolments,
	// responsibles)
	"Person":    {"middleName", "eduPersonPrincipalNames", "externalIdentifiers", "civicNo", "enrolments", "responsibles"},
	"Enrolment": {"endDate"},
	// group, owner, endDate.* and the EndDate sort keys
	"Placement": {"group", "owners", "endDate"},
	// person, endDate.*; the assignment roles are group relationships of
	// persons with their own bounds
	"Duty":                      {"person", "endDate", "assignmentRole"},
	"Duty_assignmentRole_inner": {"startDate", "endDate"},
	// schoolTypes, endDate.*, the EndDate sort keys; memberships are the
	// persons' group relationships
	"Group":           {"schoolType", "endDate", "groupMemberships"},
	"GroupFragment":   {"schoolType", "endDate"},
	"GroupMembership": {"startDate", "endDate"},
	// parentProgramme, code (and CodeAsc)
	"Programme": {"parentProgramme", "code"},
	"StudyPlan": {"endDate"},
	// the sort keys on subject code, designation, course code and name
	"Syllabus":           {"subjectCode", "subjectDesignation", "courseCode", "courseName"},
	"SchoolUnitOffering": {"startDate", "endDate"},
	// teacher, endDate.*
	"Activity": {"teachers", "endDate"},
	// student and teacher read the exceptions
	"CalendarEvent": {"studentExceptions", "teacherExceptions"},
	// scheduleDays: the official document requires it (without defining
	// it), where ours does not
	"AttendanceSchedule": {"endDate", "scheduleDays"},
	// meta.*, organisation, gradingTeacher
	"Grade": {"meta", "organisation", "gradingTeacher"},
	// organisation, registeredBy
	"Absence": {"organisation", "registeredBy"},
}

// sparseAlwaysKept are members kept wherever they stand: a record's id and
// meta (the standard requires them of every record but SchoolUnitOffering,
// whose omission is a defect served by its evident intent:
// docs/decisions.md#ss12000-defects),
// the page's continuation, and what a request asks for (expand,
// expandReferenceNames).
var sparseAlwaysKept = []string{"id", "meta", "pageToken", "_embedded", "displayName"}

// rewrites returns the variant's rewrites of the answer to r, and notes
// the records r writes.
func (sp *sparse) rewrites(r *http.Request, surf string) []wire.Rewrite {
	writes := r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch
	if writes && (strings.HasSuffix(r.URL.Path, "/lookup") || strings.HasSuffix(r.URL.Path, "/_search")) {
		writes = false
	}
	var out []wire.Rewrite
	if writes && (surf == "A" || surf == "B") {
		out = append(out, func(a *wire.Answer) {
			if !a.OK() {
				return
			}
			if o, ok := a.Object(); ok {
				if id, ok := o.String("id"); ok {
					sp.remember(id)
				}
			}
			if i := strings.LastIndexByte(r.URL.Path, '/'); r.Method != http.MethodPost && i >= 0 {
				sp.remember(r.URL.Path[i+1:])
			}
		})
	}
	switch surf {
	case "A":
		out = append(out, func(a *wire.Answer) {
			if v, ok := a.JSON(); ok {
				wire.DropNullMembers(v, func(*wire.Object) []string { return nil })
			}
		})
	case "B":
		if !sparseRecordPath(r.URL.Path) {
			break
		}
		out = append(out, func(a *wire.Answer) {
			if !a.OK() || (r.Method != http.MethodGet && !strings.HasSuffix(r.URL.Path, "/lookup")) {
				return
			}
			v, ok := a.JSON()
			if !ok {
				return
			}
			schema := sp.answerSchema(r, a.Status)
			if schema == nil {
				return
			}
			opt := wire.Optional{
				Asked: "_embedded",
				Keep: func(schemas []string, member string) bool {
					return slices.Contains(sparseAlwaysKept, member) || slices.ContainsFunc(schemas, func(s string) bool {
						return slices.Contains(sparseKept[s], member)
					})
				},
				Skip: func(o *wire.Object) bool {
					id, ok := o.String("id")
					return ok && sp.wasWritten(id)
				},
			}
			opt.DropOptional(v, schema)
		})
	}
	return out
}

// sparseRecordPath reports whether a path of interface B reads records of
// the standard's resources, whose optional members the variant leaves out.
// The other answers (the deletion log, subscriptions) hold no record data:
// every member they have says something.
func sparseRecordPath(path string) bool {
	rest := strings.TrimPrefix(path, PrefixB)
	return slices.ContainsFunc(openapi.StandardResources, func(res openapi.StandardResource) bool {
		return rest == res.Path || strings.HasPrefix(rest, res.Path+"/")
	}) || rest == "/aggregatedAttendance"
}

func (sp *sparse) remember(id string) {
	id = strings.ToLower(id)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.written[id] {
		return
	}
	if len(sp.order) == maxWritten {
		delete(sp.written, sp.order[0])
		sp.order = sp.order[1:]
	}
	sp.written[id] = true
	sp.order = append(sp.order, id)
}

func (sp *sparse) wasWritten(id string) bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.written[strings.ToLower(id)]
}

// answerSchema returns the schema of the answer with the status to r in
// the standard's document, or nil.
func (sp *sparse) answerSchema(r *http.Request, status int) *openapi3.SchemaRef {
	doc, err := sp.doc()
	if err != nil {
		return nil
	}
	rel := strings.TrimPrefix(r.URL.Path, PrefixB)
	item := matchPath(doc, rel)
	if item == nil {
		return nil
	}
	op := item.GetOperation(r.Method)
	if op == nil || op.Responses == nil {
		return nil
	}
	resp := op.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil {
		return nil
	}
	return mt.Schema
}

// matchPath returns the path item of the document whose template matches
// path, a literal segment before a parameter.
func matchPath(doc *openapi3.T, path string) *openapi3.PathItem {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *openapi3.PathItem
	bestParams := len(segs) + 1
	for tpl, item := range doc.Paths.Map() {
		ts := strings.Split(strings.Trim(tpl, "/"), "/")
		if len(ts) != len(segs) {
			continue
		}
		params := 0
		ok := true
		for i, t := range ts {
			if strings.HasPrefix(t, "{") {
				params++
			} else if t != segs[i] {
				ok = false
				break
			}
		}
		if ok && params < bestParams {
			best, bestParams = item, params
		}
	}
	return best
}
