package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/internal/wire"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// gap is an optional member that an answer leaves out, null or empty.
type gap struct{ member, how string }

// unfilled is a member that complete data leaves out, null or empty,
// and why: where is nil, everywhere; else in the objects it holds for.
type unfilled struct {
	member, reason string
	where          func(holder map[string]any) bool
}

// schoolTypeNot holds for an object whose schoolType is none of types.
func schoolTypeNot(types ...string) func(map[string]any) bool {
	return func(o map[string]any) bool { return !slices.Contains(types, fmt.Sprint(o["schoolType"])) }
}

// unfilledMembers are the members the complete data does not fill.
var unfilledMembers = []unfilled{
	// The end of a walk and an empty log.
	{member: "pageToken", reason: "null is how the last page of a walk says it is the last"},
	{member: "DeletedEntitiesData.", reason: "the deletion log holds nothing until a client deletes records"},
	{member: "AuditEventList.data", reason: "the audit log holds nothing until a client writes"},
	{member: "Meta.createdBy", reason: "names the API client that wrote the record: a scenario's records were written by none"},
	{member: "Meta.updatedBy", reason: "names the API client that wrote the record: a scenario's records were written by none"},
	// Members that would contradict another.
	{member: "Attendance.absenceReason", reason: "an attendance without absence minutes has no reason for an absence", where: func(o map[string]any) bool {
		return o["validAbsenceMinutes"] == float64(0) && o["invalidAbsenceMinutes"] == float64(0)
	}},
	{member: "Grade.correctionType", reason: "a grade that was never changed or corrected has no correction type"},
	{member: "Enrolment.schoolYear", reason: "preschool, preschool-class-free care and after-school enrolments have no school year", where: schoolTypeNot("GR", "GY", "GRS", "SAM", "SP", "FKLASS")},
	{member: "Enrolment.educationCode", reason: "a study path code is the upper-secondary school's", where: schoolTypeNot("GY")},
	{member: "Enrolment.programme", reason: "a programme is the upper-secondary school's", where: schoolTypeNot("GY")},
	{member: "Syllabus.courseCode", reason: "courses are the upper-secondary school's; other school types have subjects", where: schoolTypeNot("GY")},
	{member: "Syllabus.courseName", reason: "courses are the upper-secondary school's", where: schoolTypeNot("GY")},
	{member: "Syllabus.points", reason: "course points are the upper-secondary school's", where: schoolTypeNot("GY")},
	{member: "Syllabus.specialisationCourseContent", reason: "specialisation courses are the upper-secondary school's", where: schoolTypeNot("GY")},
	{member: "Organisation.parentOrganisation", reason: "the organiser is the root of the tree", where: func(o map[string]any) bool { return o["organisationType"] == "Huvudman" }},
	{member: "Organisation.schoolUnitCode", reason: "only school units have a school unit code", where: func(o map[string]any) bool { return o["organisationType"] != "Skolenhet" }},
	{member: "Organisation.schoolTypes", reason: "only school units have school types", where: func(o map[string]any) bool { return o["organisationType"] != "Skolenhet" }},
	{member: "Programme.parentProgramme", reason: "the programme the others belong to is the root of the tree"},
	{member: "Activity.parentActivity", reason: "the activity the others belong to is the root of the tree"},
	{member: "ActivityExpanded.parentActivity", reason: "the activity the others belong to is the root of the tree"},
	{member: "CalendarEvent._embedded.attendance", reason: "lessons that have not yet taken place have no attendance"},
	{member: "EmployeePlacement.archiveYear", reason: "archiving ends a placement: the data's placements are current"},
	{member: "EmployeePlacement.archivedAt", reason: "archiving ends a placement: the data's placements are current"},
	{member: "StudentPlacement.archiveYear", reason: "archiving ends a placement: the data's placements are current"},
	{member: "StudentPlacement.archivedAt", reason: "archiving ends a placement: the data's placements are current"},
	{member: "StudentPlacement.schoolYear", reason: "interface A's student placements are preschool placements: a preschool child has no school year"},
	{member: "StudentPlacement.modernLanguageAlternative", reason: "modern languages are chosen from school year 6; these are preschool placements"},
	{member: "StudentPlacement.modernLanguageInSchoolChoice", reason: "modern languages are chosen from school year 6; these are preschool placements"},
	{member: "StudentPlacement.modernLanguageInLanguageChoice", reason: "modern languages are chosen from school year 6; these are preschool placements"},
	{member: "Group.types", reason: "interface A's group types (Class, Childcare, Mentor) name no teaching, staff or other group"},
	// Relations a person's role does not have.
	{member: "Person.enrolments", reason: "only children and pupils are enrolled"},
	{member: "PersonExpanded.enrolments", reason: "only children and pupils are enrolled"},
	{member: "Person.responsibles", reason: "adults have no responsible adults"},
	{member: "PersonExpanded.responsibles", reason: "adults have no responsible adults"},
	{member: "PersonExpanded._embedded.", reason: "a person's relations are those of their role: a child has no duties, an adult no placements"},
	{member: "Duty.assignmentRole", reason: "a duty whose holder has no role towards a group"},
	{member: "DutyExpanded.assignmentRole", reason: "a duty whose holder has no role towards a group"},
	// Members the store does not hold.
	{member: "CalendarEvent.comment", reason: "the store holds no comments of calendar events"},
	{member: "CalendarEvent.studentExceptions", reason: "the store holds no exceptions of calendar events"},
	{member: "CalendarEvent.teacherExceptions", reason: "the store holds no exceptions of calendar events"},
	{member: "Organisation.contactInfo", reason: "the store holds no contact persons of organisations"},
	{member: "Grade.diplomaProject", reason: "the store holds no diploma projects"},
}

// excused reports whether a gap of member in holder is one the complete data
// leaves for a reason.
func excused(member string, holder map[string]any) bool {
	return slices.ContainsFunc(unfilledMembers, func(u unfilled) bool {
		match := member == u.member || strings.HasSuffix(u.member, ".") && strings.HasPrefix(member, u.member) ||
			u.member == "pageToken" && strings.HasSuffix(member, ".pageToken")
		return match && (u.where == nil || u.where(holder))
	})
}

// memberGaps walks an answer along its schema and counts, by "Schema.member"
// (an inline object is named by its parent's key and member), each member
// the schema declares that the answer leaves out, sends as null, or sends as
// an empty array, unless unfilledMembers excuse it.
func memberGaps(v any, ref *openapi3.SchemaRef, key string, found map[gap]int) {
	if ref == nil || ref.Value == nil {
		return
	}
	switch x := v.(type) {
	case []any:
		items := wire.ItemsOf(ref)
		for _, it := range x {
			memberGaps(it, items, key+"[]", found)
		}
	case map[string]any:
		names, props, _ := wire.Flatten(ref)
		if len(names) > 0 {
			key = names[0]
		}
		for name, p := range props {
			mk := key + "." + name
			val, ok := x[name]
			if (!ok || val == nil || isEmptyArray(val)) && excused(mk, x) {
				continue
			}
			switch {
			case !ok:
				found[gap{mk, "absent"}]++
				continue
			case val == nil:
				found[gap{mk, "null"}]++
				continue
			}
			if arr, isArr := val.([]any); isArr && len(arr) == 0 {
				found[gap{mk, "empty"}]++
			}
			memberGaps(val, p, mk, found)
		}
	}
}

func isEmptyArray(v any) bool {
	a, ok := v.([]any)
	return ok && len(a) == 0
}

// sweepRead is a read operation of the contract.
type sweepRead struct {
	doc    *openapi3.T
	prefix string
	method string
	path   string
	op     *openapi3.Operation
}

func (r sweepRead) answerSchema() *openapi3.SchemaRef {
	resp := r.op.Responses.Status(http.StatusOK)
	if resp == nil || resp.Value == nil {
		return nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil {
		return nil
	}
	return mt.Schema
}

// TestCompleteDataFillsEveryOptionalMember reads every record through every
// read of the contract (interface B and A, with every expand and reference
// name asked for) from a mock serving the default scenario with complete
// data, and fails for each member the contract declares that an answer
// leaves out, sends as null or as an empty array, unless unfilledMembers
// names it with its reason.
func TestCompleteDataFillsEveryOptionalMember(t *testing.T) {
	sc, err := scenarios.Builtin("default")
	require.NoError(t, err)
	sc.Generate.Complete = true
	sc.Clients = slices.Clone(sc.Clients)
	sc.Clients[0].RateLimit = 1 << 30
	clock := &fakeClock{t: testNow}
	srv, err := New(Options{Scenario: sc, Now: clock.Now})
	require.NoError(t, err)
	p := &inproc{srv: srv, clock: clock}
	p.id, p.secret = srv.Credentials()
	p.token = p.fetchToken(t)

	c := srv.Contract()
	var reads []sweepRead
	for _, d := range []struct {
		name   openapi.Name
		prefix string
	}{{openapi.NameRegister, PrefixB}, {openapi.NameDirectory, PrefixA}} {
		doc := c.Doc(d.name)
		for _, path := range doc.Paths.InMatchingOrder() {
			for m, op := range doc.Paths.Value(path).Operations() {
				read := m == http.MethodGet || m == http.MethodPost && (strings.HasSuffix(path, "/lookup") || strings.HasSuffix(path, "/_search"))
				if read && !strings.Contains(path, "openapi") && !strings.HasPrefix(path, "/subscriptions") {
					reads = append(reads, sweepRead{doc, d.prefix, m, path, op})
				}
			}
		}
	}
	found := map[gap]int{}
	ids := map[string][]string{}
	send := func(r sweepRead, method, target string, body []byte) []byte {
		ct := ""
		if body != nil {
			ct = surface.ContentTypeJSON
		}
		rec := p.serve(p.request(method, r.prefix+target, body, ct))
		require.Equal(t, http.StatusOK, rec.Code, "%s %s: %s", method, target, rec.Body.String())
		var v any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
		memberGaps(v, r.answerSchema(), r.path, found)
		return rec.Body.Bytes()
	}
	askAll := func(r sweepRead, q url.Values) {
		for _, pr := range r.op.Parameters {
			switch pr.Value.Name {
			case "expandReferenceNames":
				q.Set("expandReferenceNames", "true")
			case "expand":
				s := pr.Value.Schema.Value
				if s.Items != nil {
					s = s.Items.Value
				}
				for _, e := range s.Enum {
					q.Add("expand", fmt.Sprint(e))
				}
			default:
				if pr.Value.Required && pr.Value.In == "query" {
					q.Set(pr.Value.Name, wideBound(pr.Value))
				}
			}
		}
	}
	for _, r := range reads {
		if r.method != http.MethodGet || strings.Contains(r.path, "{") {
			continue
		}
		q := url.Values{}
		askAll(r, q)
		if r.prefix == PrefixA {
			for off := 0; ; off += 100 {
				q.Set("limit", "100")
				q.Set("offset", strconv.Itoa(off))
				var page struct {
					Data []map[string]any `json:"data"`
				}
				json.Unmarshal(send(r, "GET", r.path+"?"+q.Encode(), nil), &page)
				for _, d := range page.Data {
					ids[r.prefix+r.path] = append(ids[r.prefix+r.path], fmt.Sprint(d["id"]))
				}
				if len(page.Data) < 100 {
					break
				}
			}
			continue
		}
		target := r.path + "?" + q.Encode()
		for target != "" {
			var page struct {
				Data      []map[string]any `json:"data"`
				PageToken *string          `json:"pageToken"`
			}
			json.Unmarshal(send(r, "GET", target, nil), &page)
			for _, d := range page.Data {
				if id, ok := d["id"].(string); ok {
					ids[r.prefix+r.path] = append(ids[r.prefix+r.path], id)
				}
			}
			target = ""
			if page.PageToken != nil {
				next := url.Values{"pageToken": {*page.PageToken}}
				for _, pr := range r.op.Parameters {
					if pr.Value.Required && pr.Value.In == "query" {
						next.Set(pr.Value.Name, q.Get(pr.Value.Name))
					}
				}
				target = r.path + "?" + next.Encode()
			}
		}
	}
	var keys []gap
	for k := range found {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].member < keys[j].member })
	for _, k := range keys {
		t.Errorf("%s is %s in %d answers of complete data", k.member, k.how, found[k])
	}
	for _, r := range []string{PrefixB + "/persons", PrefixB + "/groups", PrefixA + "/student", PrefixA + "/employee-placement"} {
		require.NotEmpty(t, ids[r], "the sweep read no records of %s", r)
	}
}

// wideBound is a value of a required date or date-time bound that lets
// every record through.
func wideBound(p *openapi3.Parameter) string {
	v := "2000-01-01"
	if strings.HasSuffix(p.Name, "onOrBefore") || strings.HasSuffix(p.Name, "before") || p.Name == "endDate" {
		v = "2100-01-01"
	}
	if p.Schema != nil && p.Schema.Value.Format == "date-time" {
		v += "T00:00:00Z"
	}
	return v
}
