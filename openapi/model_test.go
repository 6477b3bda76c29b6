package openapi

// The records of package model, as the mock server emits them, must be
// accepted by the schemas of register.yaml. (Only this test imports model;
// the package itself does not.)

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/skolkit/skolkit/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModelRecordsMatchTheRegisterSchemas(t *testing.T) {
	doc := mustShared(t).Doc(NameRegister)
	ptr := func(i int) *int { return &i }
	yes := true
	at := time.Date(2024, 8, 19, 7, 30, 0, 0, time.UTC)
	meta := model.Meta{Created: at, Modified: at.Add(time.Hour)}
	id := func(n int) string {
		return []string{"5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c01", "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c02", "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c03", "5a1f3b0c-7d2e-4c4b-9a51-0b6d2f1e8c04"}[n]
	}
	pref := model.PersonReference{ID: id(1), SecurityMarking: model.SecurityMarkingNone}
	named := model.PersonReference{ID: id(2), DisplayName: "Anna Berg", SecurityMarking: model.SecurityMarkingProtected}
	ref := model.ObjectReference{ID: id(3)}

	fullPerson := model.Person{
		ID: id(1), Meta: meta, GivenName: "Sara", MiddleName: "Lo", FamilyName: "Berg",
		EduPersonPrincipalNames: []string{"sabe01@edu.example.se"},
		ExternalIdentifiers:     []model.ExternalIdentifier{{Value: "sabe01", Context: "https://example.se/AD", GloballyUnique: false}},
		CivicNo:                 &model.CivicNo{Value: "201801012384", Nationality: "SE"},
		BirthDate:               "2018-01-01", Sex: "Kvinna", SecurityMarking: model.SecurityMarkingNone, PersonStatus: "Aktiv",
		Emails:       []model.Email{{Value: "sara@example.se", Type: "Privat"}},
		PhoneNumbers: []model.PhoneNumber{{Value: "+46701234567", Type: "Hem", Mobile: true}},
		Addresses: []model.PersonAddress{{Type: "Folkbokföring", StreetAddress: "Storgatan 1", Locality: "Lund",
			PostalCode: "22350", CountyCode: ptr(12), MunicipalityCode: ptr(1281), RealEstateDesignation: "Lund 1:1", Country: "Sverige"}},
		Photo: "https://example.se/photo/1.jpg",
		Enrolments: []model.Enrolment{{EnroledAt: ref, SchoolYear: ptr(0), SchoolType: model.SchoolTypeFS, StartDate: "2020-08-01",
			EndDate: "2024-06-30", Cancelled: &yes, EducationCode: "FS", Programme: &model.ObjectReference{ID: id(0)}, Specification: "x"}},
		Responsibles: []model.Responsible{{Person: named, RelationType: model.RelationGuardian}},
	}
	minimalPerson := model.Person{ID: id(2), Meta: meta, GivenName: "Anna", FamilyName: "Berg"}

	group := model.Group{ID: id(0), Meta: meta, DisplayName: "Blå", StartDate: "2024-08-01", GroupType: model.GroupTypeDepartment,
		Organisation: ref}
	fullGroup := group
	fullGroup.EndDate, fullGroup.SchoolType = "2025-06-30", model.SchoolTypeFS
	fullGroup.GroupMemberships = []model.GroupMembership{{Person: pref, StartDate: "2024-08-01", EndDate: "2025-06-30"}, {Person: named}}
	fullGroup.Embedded = &model.GroupEmbedded{AssignmentRoles: []model.AssignmentRole{
		{Duty: model.ObjectReference{ID: id(3), DisplayName: "Förskollärare Blå"}, AssignmentRoleType: "Förskollärare", StartDate: "2024-08-01", EndDate: "2025-06-30"},
		{Duty: ref, AssignmentRoleType: "Mentor"},
	}}

	placement := model.Placement{ID: id(0), Meta: meta, PlacedAt: ref, Child: pref, SchoolType: model.SchoolTypeFS, StartDate: "2024-08-01"}
	fullPlacement := placement
	fullPlacement.Group = &model.ObjectReference{ID: id(3), DisplayName: "Blå"}
	fullPlacement.Owners = []model.PersonReference{named}
	fullPlacement.EndDate, fullPlacement.Reason, fullPlacement.MaxWeeklyScheduleHours = "2025-06-30", "Omsorgsbehov", ptr(40)
	fullPlacement.Embedded = &model.PlacementEmbedded{Child: &fullPerson, Owners: []model.Person{minimalPerson}}

	cases := []struct {
		name, schema string
		value        any
	}{
		{"minimal placement", "PlacementExpanded", placement},
		{"full placement", "PlacementExpanded", fullPlacement},
		{"placement page", "Placements", map[string]any{"data": []model.Placement{placement, fullPlacement}, "pageToken": "abc"}},
		{"last placement page", "Placements", map[string]any{"data": []model.Placement{}, "pageToken": nil}},
		{"minimal person", "Person", minimalPerson},
		{"full person", "Person", fullPerson},
		{"minimal group", "GroupExpanded", group},
		{"full group", "GroupExpanded", fullGroup},
		{"minimal syllabus", "Syllabus", model.Syllabus{ID: id(0), Meta: meta, SchoolType: model.SchoolTypeGR, SubjectName: "Matematik"}},
		{"full syllabus", "Syllabus", model.Syllabus{ID: id(0), Meta: meta, SchoolType: model.SchoolTypeGY, SubjectCode: "MAT", SubjectName: "Matematik",
			SubjectDesignation: "MA", CourseCode: "MATMAT01a", CourseName: "Matematik 1a", StartSchoolYear: ptr(1), EndSchoolYear: ptr(3),
			Points: ptr(100), Curriculum: "GY2011", LanguageCode: "swe", Official: true,
			SpecialisationCourseContent: &model.SpecialisationCourseContent{Title: "t", TitleEnglish: "t", Description: "d", DescriptionEnglish: "d"}}},
		{"minimal attendance", "Attendance", model.Attendance{ID: id(0), Meta: meta, CalendarEvent: ref, Student: pref}},
		{"full attendance", "Attendance", model.Attendance{ID: id(0), Meta: meta, CalendarEvent: ref, Student: pref, Reporter: &named, IsReported: true,
			AttendanceMinutes: ptr(30), ValidAbsenceMinutes: ptr(10), InvalidAbsenceMinutes: ptr(0), OtherAttendanceMinutes: ptr(0),
			AbsenceReason: "Sjuk", ReportedTimestamp: &at}},
		{"minimal absence", "Absence", model.Absence{ID: id(0), Meta: meta, Student: pref, Organisation: ref, RegistrationDate: "2024-09-02",
			StartTime: at, EndTime: at.Add(8 * time.Hour), Type: model.AbsenceValid}},
		{"full absence", "Absence", model.Absence{ID: id(0), Meta: meta, Student: pref, Organisation: ref, RegistrationDate: "2024-09-02",
			StartTime: at, EndTime: at.Add(8 * time.Hour), Type: model.AbsenceInvalid, AbsenceReason: "Sjuk", Verified: &yes, RegisteredBy: &named}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			schema := doc.Components.Schemas[c.schema]
			require.NotNil(t, schema)
			assert.NoError(t, validateAsResponse(schema.Value, c.value))
		})
	}

	// Every enumerated value of model is accepted where the schema uses it.
	enums := []struct {
		schema, property string
		values           []string
	}{
		{"SchoolTypesEnum", "", strs(model.SchoolTypes)},
		{"Placement", "schoolType", strs(model.PlacementSchoolTypes)},
		{"GroupTypesEnum", "", strs(model.GroupTypes)},
		{"AssignmentRoleTypeEnum", "", strs(model.AssignmentRoleTypes)},
		{"CurriculumEnum", "", strs(model.Curricula)},
		{"RelationTypesEnum", "", strs(model.RelationTypes)},
		{"Person", "securityMarking", strs(model.SecurityMarkings)},
		{"Person", "sex", strs(model.Sexes)},
		{"Person", "personStatus", strs(model.PersonStatuses)},
		{"PersonAddress", "type", strs(model.PersonAddressTypes)},
		{"Email", "type", strs(model.EmailTypes)},
		{"Phonenumber", "type", strs(model.PhoneTypes)},
		{"Placement", "reason", strs(model.PlacementReasons)},
		{"Absence", "type", strs(model.AbsenceTypes)},
	}
	for _, e := range enums {
		s := doc.Components.Schemas[e.schema].Value
		if e.property != "" {
			s = s.Properties[e.property].Value
		}
		var want []string
		for _, v := range s.Enum {
			want = append(want, v.(string))
		}
		assert.ElementsMatch(t, want, e.values, "%s %s", e.schema, e.property)
	}
	sort := doc.Paths.Value("/placements").Get.Parameters.GetByInAndName("query", "sortkey").Schema.Value
	assert.ElementsMatch(t, sort.Enum, anys(strs(model.SortKeys)))
}

func validateAsResponse(schema *openapi3.Schema, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return err
	}
	return schema.VisitJSON(generic, append(SchemaOptions(), openapi3.VisitAsResponse())...)
}

func strs[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func anys(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
