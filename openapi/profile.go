package openapi

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// StandardAbsenceTypes are the values of SS 12000's AbsenceEnum: leave the
// school granted, or an absence of another kind the pupil or a guardian
// reported.
var StandardAbsenceTypes = []string{"Beviljad ledighet", "Anmäld frånvaro"}

// RegisterSS12000 returns interface B's document as the mock serves it under
// its ss12000 profile: the register document with every rule of the
// service's spec that the official SS 12000 2.1.0 document does not have
// taken out, and the document's own shapes put back where the spec changed
// them (docs/decisions.md#interface-b-profiles):
//
//   - Absence is SS 12000's: `type` takes the standard's values
//     (StandardAbsenceTypes), `organisation` is optional, and the spec's
//     `registrationDate`, `absenceReason` and `verified` are gone; the
//     `type` filter of GET /absences takes the standard's values;
//   - GET /attendances/{id} and GET /absences/{id} take no
//     `expandReferenceNames` (the standard gives them the path id only);
//   - a lookup needs no member (SS 12000's IdLookup requires none), and
//     person references need no `securityMarking`;
//   - POST /attendanceSchedule does not demand `scheduleDays`, which the
//     standard lists as required without defining it, and a schedule
//     entry's `endTime` is the standard's integer (the time of day as hhmm,
//     1530 for 15:30).
//
// The document is built once per process and is read-only; the second
// result is its JSON rendering, for serving at /api/v1/openapi.json.
func RegisterSS12000() (*openapi3.T, []byte) { return registerSS12000() }

var registerSS12000 = sync.OnceValues(func() (*openapi3.T, []byte) {
	doc := docRegister()
	toSS12000(doc)
	js, err := json.Marshal(doc)
	if err != nil {
		panic("openapi: the ss12000 profile's document does not render: " + err.Error())
	}
	return doc, js
})

// toSS12000 applies the ss12000 profile's rules to a freshly built register
// document.
func toSS12000(doc *openapi3.T) {
	doc.Info.Title += " (profile ss12000)"
	conventions := doc.Info.Description[strings.Index(doc.Info.Description, "Conventions:"):]
	doc.Info.Description = "Every resource of SS 12000 2.1.0, under the ss12000 profile: names, shapes and enumerated " +
		"values are the SS 12000 document's alone where the service's spec differs from it " +
		"(docs/decisions.md#interface-b-profiles).\n\n" + conventions
	doc.Info.Extensions = map[string]any{"x-skolkit-profile": "ss12000"}
	schemas := doc.Components.Schemas

	absence := schemas["Absence"].Value
	absence.Description = "A registered absence of a pupil, as SS 12000 2.1.0 has it."
	absence.Required = []string{"id", "meta", "student", "startTime", "endTime", "type"}
	for _, spec := range []string{"registrationDate", "absenceReason", "verified"} {
		delete(absence.Properties, spec)
	}
	absenceType := absence.Properties["type"].Value
	absenceType.Enum = standardEnum()
	absenceType.Description = "`Beviljad ledighet` (leave the school granted) or `Anmäld frånvaro` " +
		"(an absence of another kind the pupil or a guardian reported)."
	if p := doc.Paths.Value("/absences").Get.Parameters.GetByInAndName(openapi3.ParameterInQuery, "type"); p != nil {
		p.Schema = &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Enum: standardEnum()}}
		p.Description = "Only absences of this type."
	}
	for _, path := range []string{"/attendances/{id}", "/absences/{id}"} {
		op := doc.Paths.Value(path).Get
		op.Parameters = slices.DeleteFunc(slices.Clone(op.Parameters), func(p *openapi3.ParameterRef) bool {
			return p.Value != nil && p.Value.Name == "expandReferenceNames"
		})
	}

	schemas["IdLookup"].Value.Required = nil
	person := schemas["PersonReference"].Value
	person.Description = "A reference to a person."
	for _, part := range append(openapi3.SchemaRefs{{Value: person}}, person.AllOf...) {
		if part.Ref == "" {
			part.Value.Required = slices.DeleteFunc(slices.Clone(part.Value.Required), func(k string) bool { return k == "securityMarking" })
		}
	}

	schedule := schemas["AttendanceSchedule"].Value
	schedule.Required = slices.DeleteFunc(slices.Clone(schedule.Required), func(k string) bool { return k == "scheduleDays" })
	schedule.Properties["scheduleDays"].Value.Description = "The same entries as `scheduleEntries`. SS 12000 requires " +
		"`scheduleDays` without defining it: it is always answered, never demanded."
	schemas["AttendanceScheduleEntry"].Value.Properties["endTime"] = &openapi3.SchemaRef{Value: &openapi3.Schema{
		Type:        &openapi3.Types{openapi3.TypeInteger},
		Description: "Time of day as hhmm (1530 for 15:30): SS 12000 declares an integer.",
	}}
}

func standardEnum() []any {
	out := make([]any, len(StandardAbsenceTypes))
	for i, v := range StandardAbsenceTypes {
		out[i] = v
	}
	return out
}

// RegisterSS12000Writes returns a copy of the ss12000 profile's document
// (RegisterSS12000) in which the request body of every write (each POST,
// PUT and PATCH but the lookups) is closed: every object schema it reaches
// that defines members takes no other (`additionalProperties: false`), so
// that validating a request against it refuses a member the profile's
// schema does not define (docs/decisions.md#ss12000-undefined-members). An
// object that is an `allOf` of several parts with members (a person
// reference) is first made one object with all their members. The mock validates the
// profile's writes against it; the document served and judged stays the
// profile's, open like the standard's. Each call builds a fresh copy.
func RegisterSS12000Writes() (*openapi3.T, error) {
	_, js := RegisterSS12000()
	doc, err := parse(NameRegister, js)
	if err != nil {
		return nil, err
	}
	type visit struct {
		s        *openapi3.Schema
		closable bool
	}
	seen := map[visit]bool{}
	closable, open := map[*openapi3.Schema]bool{}, map[*openapi3.Schema]bool{}
	var walk func(r *openapi3.SchemaRef, mayClose bool)
	walk = func(r *openapi3.SchemaRef, mayClose bool) {
		if r == nil || r.Value == nil || seen[visit{r.Value, mayClose}] {
			return
		}
		s := r.Value
		seen[visit{s, mayClose}] = true
		mergeParts(s)
		if mayClose {
			closable[s] = true
		} else {
			open[s] = true
		}
		for _, p := range s.Properties {
			walk(p, true)
		}
		walk(s.Items, true)
		walk(s.AdditionalProperties.Schema, true)
		parts := 0
		for _, a := range s.AllOf {
			if a != nil && a.Value != nil && len(a.Value.Properties) > 0 {
				parts++
			}
		}
		for _, a := range s.AllOf {
			walk(a, parts <= 1 && len(s.Properties) == 0)
		}
		for _, list := range []openapi3.SchemaRefs{s.AnyOf, s.OneOf} {
			for _, a := range list {
				walk(a, true)
			}
		}
	}
	for path, item := range doc.Paths.Map() {
		if strings.HasSuffix(path, "/lookup") {
			continue
		}
		for _, op := range []*openapi3.Operation{item.Post, item.Put, item.Patch} {
			if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			for _, mt := range op.RequestBody.Value.Content {
				walk(mt.Schema, true)
			}
		}
	}
	closed := false
	for s := range closable {
		if !open[s] && len(s.Properties) > 0 && len(s.AllOf) == 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			s.AdditionalProperties.Has = &closed
		}
	}
	return doc, nil
}

// mergeParts makes an object that is an allOf of several parts with members
// (a person reference: an object reference and its securityMarking) one
// object with all their members, so that closing it refuses only what none
// of the parts defines. Parts that are more than members (a oneOf, an
// anyOf, their own additionalProperties) are left as they are. It changes s
// alone, never the parts, which other schemas share.
func mergeParts(s *openapi3.Schema) {
	withMembers := 0
	for _, part := range s.AllOf {
		if part == nil || part.Value == nil {
			return
		}
		p := part.Value
		mergeParts(p)
		if len(p.AllOf) > 0 || len(p.OneOf) > 0 || len(p.AnyOf) > 0 || p.AdditionalProperties.Has != nil || p.AdditionalProperties.Schema != nil {
			return
		}
		if len(p.Properties) > 0 {
			withMembers++
		}
	}
	if withMembers < 2 {
		return
	}
	members := openapi3.Schemas{}
	maps.Copy(members, s.Properties)
	required := slices.Clone(s.Required)
	for _, part := range s.AllOf {
		maps.Copy(members, part.Value.Properties)
		required = append(required, part.Value.Required...)
	}
	slices.Sort(required)
	s.Properties, s.Required, s.AllOf = members, slices.Compact(required), nil
	if s.Type == nil {
		s.Type = &openapi3.Types{openapi3.TypeObject}
	}
}
