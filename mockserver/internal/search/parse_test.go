package search

import (
	"fmt"
	"strings"
	"testing"
)

// want is an expected violation: its exact pointer and a part of its message.
type want struct{ pointer, message string }

func checkViolations(t *testing.T, got []Violation, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(wants), list(got))
	}
	for i, w := range wants {
		if got[i].Pointer != w.pointer || !strings.Contains(got[i].Message, w.message) {
			t.Errorf("violation %d: got %s\nwant pointer %q and a message containing %q", i, got[i], w.pointer, w.message)
		}
	}
}

func list(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}

func TestViolations(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		wants []want
	}{
		// The body.
		{"a body that is an array", `[]`, []want{{"", `the body must be a JSON object with a member "filter", not an array`}}},
		{"a body that is null", `null`, []want{{"", "not null"}}},
		{"a body that is a string", `"filter"`, []want{{"", "not a string"}}},
		{"a body without filter", `{}`, []want{{"/filter", "required: the filter to search by"}}},
		{"an unknown body member", `{"filter": {"orCondition": false}, "limit": 5}`, []want{{"/limit", `unknown member "limit"; a search body has one member, "filter"`}}},
		{"a repeated body member", `{"filter": {"orCondition": false}, "filter": {}}`, []want{{"/filter", `member "filter" appears more than once`}}},
		{"a filter that is null", `{"filter": null}`, []want{{"/filter", "must be an object (a filter), not null"}}},
		{"a filter that is an array", `{"filter": []}`, []want{{"/filter", "must be an object (a filter), not an array"}}},

		// orCondition and nestedFilters.
		{"orCondition missing", `{"filter": {"equals": {"title": "x"}}}`, []want{{"/filter/orCondition", "required: false joins this filter's conditions with AND, true with OR"}}},
		{"orCondition a string", `{"filter": {"orCondition": "false"}}`, []want{{"/filter/orCondition", "must be a boolean (false: all conditions must hold; true: at least one), not a string"}}},
		{"orCondition null", `{"filter": {"orCondition": null}}`, []want{{"/filter/orCondition", "must be a boolean"}}},
		{"orCondition missing in a nested filter", `{"filter": {"orCondition": true, "nestedFilters": [{"orCondition": false}, {"equals": {"title": "x"}}]}}`,
			[]want{{"/filter/nestedFilters/1/orCondition", "required"}}},
		{"nestedFilters an object", `{"filter": {"orCondition": true, "nestedFilters": {"orCondition": true}}}`, []want{{"/filter/nestedFilters", "must be an array of filters, not an object"}}},
		{"nestedFilters null", `{"filter": {"orCondition": true, "nestedFilters": null}}`, []want{{"/filter/nestedFilters", "must be an array of filters, not null"}}},
		{"a nested filter that is a string", `{"filter": {"orCondition": true, "nestedFilters": [{"orCondition": true}, "x"]}}`, []want{{"/filter/nestedFilters/1", "must be an object (a filter), not a string"}}},

		// Operators.
		{"an unknown operator", `{"filter": {"between": {"title": "a"}, "orCondition": false}}`, []want{{"/filter/between", `unknown operator "between"; a filter has the members equals, notEquals, greaterThan, smallerThan, greaterOrEqual, smallerOrEqual, contains, notContains, like, notLike, null, notNull, orCondition, nestedFilters`}}},
		{"an operator in the wrong case", `{"filter": {"Equals": {"title": "a"}, "orCondition": false}}`, []want{{"/filter/Equals", `(did you mean "equals"?)`}}},
		{"an operator that is not an object", `{"filter": {"equals": ["title", "a"], "orCondition": false}}`, []want{{"/filter/equals", "must be an object mapping field names to values, not an array"}}},
		{"null that is an array of names", `{"filter": {"null": ["endDate"], "orCondition": false}}`, []want{{"/filter/null", "must be an object mapping field names to booleans, not an array"}}},
		{"a repeated operator", `{"filter": {"equals": {"title": "a"}, "equals": {"title": "b"}, "orCondition": false}}`, []want{{"/filter/equals", `member "equals" appears more than once`}}},
		{"a repeated field", `{"filter": {"equals": {"title": "a", "title": "b"}, "orCondition": false}}`, []want{{"/filter/equals/title", `field "title" appears more than once`}}},

		// Fields.
		{"an unknown field", `{"filter": {"equals": {"titel": "a"}, "orCondition": false}}`, []want{{"/filter/equals/titel",
			`unknown field "titel"; the searchable fields are archivedAt, employmentPercent, endDate, firstName, hasChildcare, id, memberIDs, meta.createdBy, meta.updatedAt, roles, schoolType, schoolYear, startDate, studentID, tags, title`}}},
		{"a misspelt field", `{"filter": {"equals": {"titel": "a"}, "orCondition": false}}`, []want{{"/filter/equals/titel", `(did you mean "title"?)`}}},
		{"a misspelt operator", `{"filter": {"greaterOrEquals": {"title": "a"}, "orCondition": false}}`, []want{{"/filter/greaterOrEquals", `(did you mean "greaterOrEqual"?)`}}},
		{"a far-off field has no suggestion", `{"filter": {"equals": {"colour": "a"}, "orCondition": false}}`, []want{{"/filter/equals/colour", `memberIDs, meta.createdBy, meta.updatedAt, roles, schoolType, schoolYear, startDate, studentID, tags, title`}}},
		{"a field in the wrong case", `{"filter": {"like": {"Title": "a"}, "orCondition": false}}`, []want{{"/filter/like/Title", `(did you mean "title"?)`}}},
		{"a field name with / and ~ is escaped in the pointer", `{"filter": {"equals": {"a/b~c": 1}, "orCondition": false}}`, []want{{"/filter/equals/a~1b~0c", `unknown field "a/b~c"`}}},
		{"a nested field path is an unknown field", `{"filter": {"equals": {"address.postalCity": "Umeå"}, "orCondition": false}}`, []want{{"/filter/equals/address.postalCity", "unknown field"}}},

		// Operators that do not apply to a kind.
		{"greaterThan on a bool", `{"filter": {"greaterThan": {"hasChildcare": true}, "orCondition": false}}`, []want{{"/filter/greaterThan/hasChildcare", `greaterThan does not apply to "hasChildcare", a boolean field; the field takes equals, notEquals, contains, notContains, null, notNull`}}},
		{"like on a uuid", `{"filter": {"like": {"id": "0b3c%"}, "orCondition": false}}`, []want{{"/filter/like/id", `like does not apply to "id", a uuid field; the field takes equals, notEquals, contains, notContains, null, notNull`}}},
		{"contains takes an array", `{"filter": {"contains": {"id": "0b3c"}, "orCondition": false}}`, []want{{"/filter/contains/id", "must be an array of values (the field's value is one of them), not a string"}}},
		{"smallerThan on a uuid", `{"filter": {"smallerThan": {"id": "` + idA + `"}, "orCondition": false}}`, []want{{"/filter/smallerThan/id", "smallerThan does not apply"}}},
		{"contains on an int takes integers", `{"filter": {"contains": {"employmentPercent": [50, "5"]}, "orCondition": false}}`, []want{{"/filter/contains/employmentPercent/1", "must be an integer, not a string"}}},
		{"an operator a field does not take", `{"filter": {"null": {"meta": {"createdBy": true}}, "orCondition": false}}`, []want{{"/filter/null/meta/createdBy", `null does not apply to "meta.createdBy", a uuid field; the field takes equals, notEquals, contains, notContains`}}},
		{"a dotted name is not a field: nested fields are objects", `{"filter": {"equals": {"meta.createdBy": "` + idA + `"}, "orCondition": false}}`, []want{{"/filter/equals/meta.createdBy", `unknown field "meta.createdBy"`}}},
		{"a group that is not an object", `{"filter": {"equals": {"meta": "x"}, "orCondition": false}}`, []want{{"/filter/equals/meta", "must be an object mapping field names to values, not a string"}}},
		{"a nested field in an operator it does not take", `{"filter": {"like": {"meta": {"createdBy": "x%"}}, "orCondition": false}}`, []want{{"/filter/like/meta/createdBy", `like does not apply to "meta.createdBy"`}}},
		{"an unknown field of a group", `{"filter": {"equals": {"meta": {"created": "2024-01-01T00:00:00Z"}}, "orCondition": false}}`, []want{{"/filter/equals/meta/created", `unknown field "meta.created"`}}},
		{"notLike on a bool", `{"filter": {"notLike": {"hasChildcare": "t%"}, "orCondition": false}}`, []want{{"/filter/notLike/hasChildcare", "notLike does not apply"}}},
		{"greaterThan on a list", `{"filter": {"greaterThan": {"roles": "Admin"}, "orCondition": false}}`, []want{{"/filter/greaterThan/roles", "a string list field; the field takes equals, notEquals, contains, notContains, null, notNull"}}},
		{"like on a list", `{"filter": {"like": {"memberIDs": "%"}, "orCondition": false}}`, []want{{"/filter/like/memberIDs", "like does not apply"}}},

		// Values.
		{"a number for a string", `{"filter": {"equals": {"title": 5}, "orCondition": false}}`, []want{{"/filter/equals/title", "must be a string, not a number"}}},
		{"null in a contains array points to the null operator", `{"filter": {"contains": {"title": [null]}, "orCondition": false}}`, []want{{"/filter/contains/title/0", `must be a string, not null; to find records where it is null use "null": {"title": true}`}}},
		{"an object for a like pattern", `{"filter": {"like": {"title": {"pattern": "x"}}, "orCondition": false}}`, []want{{"/filter/like/title", "must be a string (a pattern: % any run of characters, _ one character), not an object"}}},
		{"a string for a bool", `{"filter": {"equals": {"hasChildcare": "true"}, "orCondition": false}}`, []want{{"/filter/equals/hasChildcare", "must be a boolean, not a string"}}},
		{"a string for an int", `{"filter": {"greaterThan": {"employmentPercent": "50"}, "orCondition": false}}`, []want{{"/filter/greaterThan/employmentPercent", "must be an integer, not a string"}}},
		{"a fraction for an int", `{"filter": {"equals": {"employmentPercent": 50.5}, "orCondition": false}}`, []want{{"/filter/equals/employmentPercent", "must be an integer (a whole number); got 50.5"}}},
		{"an int out of range", `{"filter": {"equals": {"employmentPercent": 1e30}, "orCondition": false}}`, []want{{"/filter/equals/employmentPercent", "must be an integer from -9223372036854775808 to 9223372036854775807; got 1e30"}}},
		{"an int just out of range", `{"filter": {"equals": {"employmentPercent": 9223372036854775808}, "orCondition": false}}`, []want{{"/filter/equals/employmentPercent", "must be an integer from"}}},
		{"a value not in the enum", `{"filter": {"equals": {"schoolType": "gy"}, "orCondition": false}}`, []want{{"/filter/equals/schoolType", `must be one of GR, GRAN, GY, GYAN, FS, VUX, VUXSFI; got "gy"`}}},
		{"an order bound not in the enum", `{"filter": {"greaterThan": {"schoolYear": "10"}, "orCondition": false}}`, []want{{"/filter/greaterThan/schoolYear", "must be one of 0, 1, 2"}}},
		{"a number for an enum", `{"filter": {"equals": {"schoolYear": 7}, "orCondition": false}}`, []want{{"/filter/equals/schoolYear", "must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, not a number"}}},
		{"a list element not in the enum", `{"filter": {"contains": {"roles": ["teacher"]}, "orCondition": false}}`, []want{{"/filter/contains/roles/0", "must be one of Admin, CareTeam"}}},
		{"a list element of the wrong type", `{"filter": {"notContains": {"tags": [["a"]]}, "orCondition": false}}`, []want{{"/filter/notContains/tags/0", "must be a string (one element of the list), not an array"}}},
		{"a uuid list element that is not a uuid", `{"filter": {"contains": {"memberIDs": ["42"]}, "orCondition": false}}`, []want{{"/filter/contains/memberIDs/0", `must be a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx); got "42"`}}},
		{"a uuid that is not a uuid", `{"filter": {"equals": {"id": "0b3c6a44"}, "orCondition": false}}`, []want{{"/filter/equals/id", `must be a UUID`}}},
		{"a braced uuid", `{"filter": {"equals": {"id": "{` + idA + `}"}, "orCondition": false}}`, []want{{"/filter/equals/id", `must be a UUID`}}},
		{"an impossible date", `{"filter": {"equals": {"startDate": "2023-02-29"}, "orCondition": false}}`, []want{{"/filter/equals/startDate", `must be a date (YYYY-MM-DD); got "2023-02-29"`}}},
		{"a partial date in an order operator", `{"filter": {"greaterThan": {"startDate": "2024-08"}, "orCondition": false}}`, []want{{"/filter/greaterThan/startDate", "must be a date (YYYY-MM-DD)"}}},
		{"a date-time for a date", `{"filter": {"smallerThan": {"endDate": "2024-08-01T00:00:00Z"}, "orCondition": false}}`, []want{{"/filter/smallerThan/endDate", "must be a date"}}},
		{"a date-time without an offset", `{"filter": {"greaterThan": {"archivedAt": "2024-05-01T08:00:00"}, "orCondition": false}}`, []want{{"/filter/greaterThan/archivedAt", "must be an RFC 3339 date-time (2024-05-01T08:00:00Z)"}}},
		{"a date for a date-time", `{"filter": {"equals": {"archivedAt": "2024-05-01"}, "orCondition": false}}`, []want{{"/filter/equals/archivedAt", "must be an RFC 3339 date-time"}}},
		{"a null flag that is a string", `{"filter": {"null": {"endDate": "true"}, "orCondition": false}}`, []want{{"/filter/null/endDate", "must be a boolean (true adds the condition, false adds none), not a string"}}},
		{"a notNull flag that is null", `{"filter": {"notNull": {"endDate": null}, "orCondition": false}}`, []want{{"/filter/notNull/endDate", "must be a boolean (true adds the condition, false adds none), not null"}}},
		{"a pattern that is too long", `{"filter": {"notLike": {"title": "` + strings.Repeat("å", MaxTextLength+1) + `"}, "orCondition": false}}`, []want{{"/filter/notLike/title", "must be at most 1000 characters long; it has 1001"}}},
		{"a long bad value is shortened in the message", `{"filter": {"equals": {"startDate": "` + strings.Repeat("x", 100) + `"}, "orCondition": false}}`, []want{{"/filter/equals/startDate", `got "` + strings.Repeat("x", 64) + `…"`}}},

		// Several at once, in document order, at every level.
		{"every violation of a body", `{"filter": {
				"equals": {"titel": "a", "hasChildcare": "yes", "title": "ok"},
				"like": {"id": "x%"},
				"orCondition": "no",
				"nestedFilters": [
					{"greaterThan": {"startDate": "soon"}},
					{"orCondition": true, "nope": 1, "nestedFilters": [{"equals": {"schoolType": "XX"}, "orCondition": false}]}
				]},
			"offset": 1}`,
			[]want{
				{"/filter/equals/titel", "unknown field"},
				{"/filter/equals/hasChildcare", "must be a boolean"},
				{"/filter/like/id", "like does not apply"},
				{"/filter/orCondition", "must be a boolean"},
				{"/filter/nestedFilters/0/greaterThan/startDate", "must be a date"},
				{"/filter/nestedFilters/0/orCondition", "required"},
				{"/filter/nestedFilters/1/nope", "unknown operator"},
				{"/filter/nestedFilters/1/nestedFilters/0/equals/schoolType", "must be one of"},
				{"/offset", "unknown member"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, vs, err := Parse([]byte(tt.body), testFields)
			if err != nil {
				t.Fatalf("error %v, want violations", err)
			}
			if f != nil {
				t.Errorf("got filter %s together with violations", f)
			}
			checkViolations(t, vs, tt.wants)
		})
	}
}

// nest returns a filter with levels levels of nestedFilters, the innermost
// holding inner.
func nest(levels int, inner string) string {
	s := inner
	for range levels {
		s = `{"orCondition": false, "nestedFilters": [` + s + `]}`
	}
	return s
}

func TestLongestPatternIsAccepted(t *testing.T) {
	f := mustParse(t, cond1("like", "title", `"%`+strings.Repeat("å", MaxTextLength-1)+`"`))
	if !f.Match(MapRecord{"title": "x" + strings.Repeat("Å", MaxTextLength-1)}) {
		t.Error("the longest pattern does not match")
	}
}

func TestDepthLimit(t *testing.T) {
	leaf := `{"equals": {"title": "Ekskolan"}, "orCondition": false}`
	f := mustParse(t, nest(MaxDepth-1, leaf))
	if !f.Match(testRecord()) {
		t.Errorf("a filter %d levels deep does not match", MaxDepth)
	}
	_, vs, err := Parse(body(nest(MaxDepth, leaf)), testFields)
	if err != nil {
		t.Fatal(err)
	}
	checkViolations(t, vs, []want{{"/filter" + strings.Repeat("/nestedFilters/0", MaxDepth), "filters nest at most 8 levels deep; this one is level 9"}})

	// Far deeper than the limit: one violation, at the first level too deep.
	_, vs, _ = Parse(body(nest(1000, leaf)), testFields)
	checkViolations(t, vs, []want{{"/filter" + strings.Repeat("/nestedFilters/0", MaxDepth), "level 9"}})
}

func TestConditionLimit(t *testing.T) {
	conds := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"equals": {"title": "t%d"}, "orCondition": false}`, i)
		}
		return b.String()
	}
	// 199 nested filters, one with a condition each: 199 + 199 = 398; so use
	// operators on one level instead: the top has 1 condition and n-1 nested
	// empty filters.
	empty := func(n int) string { return strings.TrimSuffix(strings.Repeat(`{"orCondition": true},`, n), ",") }

	mustParse(t, `{"equals": {"title": "a"}, "orCondition": true, "nestedFilters": [`+empty(MaxConditions-1)+`]}`)

	_, vs, _ := Parse(body(`{"equals": {"title": "a"}, "orCondition": true, "nestedFilters": [`+empty(MaxConditions)+`]}`), testFields)
	checkViolations(t, vs, []want{{fmt.Sprintf("/filter/nestedFilters/%d", MaxConditions-1), "too many conditions: a body may have at most 200 in all, counting every field of every operator and every nested filter; this is condition 201"}})

	// Each nested filter with a condition counts twice: 100 of them are 200.
	mustParse(t, `{"orCondition": true, "nestedFilters": [`+conds(MaxConditions/2)+`]}`)
	_, vs, _ = Parse(body(`{"orCondition": true, "nestedFilters": [`+conds(MaxConditions/2+1)+`]}`), testFields)
	checkViolations(t, vs, []want{{"/filter/nestedFilters/100", "this is condition 201"}})

	// Flags set to false are no conditions.
	mustParse(t, `{"null": {"title": false, "endDate": false}, "orCondition": true, "nestedFilters": [`+empty(MaxConditions)+`]}`)
}

func TestViolationLimit(t *testing.T) {
	var b strings.Builder
	for i := range 3 * MaxViolations {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"f%d": 1`, i)
	}
	_, vs, _ := Parse(body(`{"equals": {`+b.String()+`}, "orCondition": false}`), testFields)
	if len(vs) != MaxViolations+1 {
		t.Fatalf("got %d violations, want %d", len(vs), MaxViolations+1)
	}
	if vs[MaxViolations-1].Pointer != fmt.Sprintf("/filter/equals/f%d", MaxViolations-1) {
		t.Errorf("violation %d: %s", MaxViolations-1, vs[MaxViolations-1])
	}
	if last := vs[MaxViolations]; last.Pointer != "" || !strings.Contains(last.Message, "more violations not listed: at most 100 are") {
		t.Errorf("last violation: %s", last)
	}
}

func TestErrorsAreForBodiesThatAreNotJSON(t *testing.T) {
	tests := []struct{ name, body, message string }{
		{"an empty body", ``, "the request body is empty"},
		{"a blank body", " \n\t", "the request body is empty"},
		{"a truncated object", `{"filter": {`, "not valid JSON: unexpected end of JSON input"},
		{"a single quote", `{'filter': {}}`, "not valid JSON: invalid character"},
		{"a trailing comma", `{"filter": {"orCondition": true,}}`, "not valid JSON"},
		{"two values", `{"filter": {"orCondition": true}} {}`, "not valid JSON"},
		{"a bare word", `filter`, "not valid JSON"},
		{"JSON nested too deep for encoding/json", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, vs, err := Parse([]byte(tt.body), testFields)
			if err == nil || f != nil || vs != nil {
				t.Fatalf("got %v, %v, %v; want an error only", f, vs, err)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q does not contain %q", err, tt.message)
			}
		})
	}
}

func TestDeepValuesAreJustTheirType(t *testing.T) {
	// A value nested far deeper than a filter can be is still reported by its
	// type, not decoded.
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	_, vs, err := Parse(body(`{"equals": {"title": `+deep+`}, "orCondition": false}`), testFields)
	if err != nil {
		t.Fatal(err)
	}
	checkViolations(t, vs, []want{{"/filter/equals/title", "must be a string, not an array"}})
}

func TestCanonicalString(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		want   string
	}{
		{"the vendor's example", `{"equals": {"title": "Ekskolan"}, "orCondition": false}`,
			`{"filter":{"equals":{"title":"Ekskolan"},"orCondition":false}}`},
		{"operators in canonical order, fields sorted", `{"orCondition": true, "like": {"title": "%a"}, "equals": {"title": "b", "schoolType": "GY"}, "null": {"endDate": true, "archivedAt": false}}`,
			`{"filter":{"equals":{"schoolType":"GY","title":"b"},"like":{"title":"%a"},"null":{"endDate":true},"orCondition":true}}`},
		{"uuids in lower case, date-times in UTC, integers plain", `{"equals": {"id": "` + strings.ToUpper(idA) + `", "archivedAt": "2025-01-10T09:30:00.500+01:00", "employmentPercent": 5e1}, "orCondition": false}`,
			`{"filter":{"equals":{"archivedAt":"2025-01-10T08:30:00.5Z","employmentPercent":50,"id":"` + idA + `"},"orCondition":false}}`},
		{"empty operators and false flags vanish", `{"equals": {}, "notNull": {"title": false}, "orCondition": false}`,
			`{"filter":{"orCondition":false}}`},
		{"nested filters keep their order", `{"orCondition": true, "nestedFilters": [{"orCondition": false, "equals": {"hasChildcare": true}}, {"contains": {"roles": ["Admin"]}, "orCondition": false}]}`,
			`{"filter":{"orCondition":true,"nestedFilters":[{"equals":{"hasChildcare":true},"orCondition":false},{"contains":{"roles":["Admin"]},"orCondition":false}]}}`},
		{"strings are JSON without HTML escaping", `{"contains": {"title": ["<a & \"b\">\n"]}, "orCondition": false}`,
			`{"filter":{"contains":{"title":["<a & \"b\">\n"]},"orCondition":false}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.filter)
			if got := f.String(); got != tt.want {
				t.Fatalf("String:\n got %s\nwant %s", got, tt.want)
			}
			g, vs, err := Parse([]byte(f.String()), testFields)
			if err != nil || len(vs) > 0 || g.String() != f.String() {
				t.Errorf("the canonical form does not parse to itself: %v %v %s", err, vs, g)
			}
		})
	}
}

func TestEqualities(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		want   map[string]string
	}{
		{"equals on every scalar kind but date-time", `{"equals": {"title": "Ekskolan", "schoolType": "GY", "id": "` + strings.ToUpper(idA) + `", "hasChildcare": false, "employmentPercent": 50, "startDate": "2024-08-19", "archivedAt": "2025-01-10T08:30:00Z"}, "orCondition": false}`,
			map[string]string{"title": "Ekskolan", "schoolType": "GY", "id": idA, "hasChildcare": "false", "employmentPercent": "50", "startDate": "2024-08-19"}},
		{"other operators are left out", `{"equals": {"title": "a"}, "notEquals": {"schoolType": "GY"}, "like": {"firstName": "x"}, "contains": {"roles": ["Admin"]}, "null": {"endDate": true}, "orCondition": false}`,
			map[string]string{"title": "a"}},
		{"nested equals are left out", `{"equals": {"title": "a"}, "nestedFilters": [{"equals": {"schoolType": "GY"}, "orCondition": false}], "orCondition": false}`,
			map[string]string{"title": "a"}},
		{"an OR filter has none", `{"equals": {"title": "a"}, "orCondition": true}`, map[string]string{}},
		{"an empty filter has none", `{"orCondition": false}`, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.filter).Equalities()
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || got == nil {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEqualitiesAreNecessary(t *testing.T) {
	// Every record that matches has the values Equalities reports.
	f := mustParse(t, `{"equals": {"id": "`+strings.ToUpper(idA)+`", "employmentPercent": 50, "hasChildcare": true}, "orCondition": false}`)
	rec := testRecord()
	if !f.Match(rec) {
		t.Fatal("the record does not match")
	}
	for field, v := range f.Equalities() {
		if got := fmt.Sprint(rec[field]); !strings.EqualFold(got, v) {
			t.Errorf("%s: record %s, equality %s", field, got, v)
		}
	}
}

func TestFieldsCheck(t *testing.T) {
	if err := testFields.Check(); err != nil {
		t.Fatalf("testFields: %v", err)
	}
	tests := []struct {
		name   string
		fields Fields
		want   string
	}{
		{"a name that differs from its key", Fields{"a": {Name: "b", Kind: String}}, `field "a" has Name "b"`},
		{"an invalid kind", Fields{"a": {Name: "a"}}, `field "a" has invalid kind 0`},
		{"an enum on a string", Fields{"a": {Name: "a", Kind: String, Enum: []string{"x"}}}, `field "a" is a string but has an enum`},
		{"a repeated enum value", Fields{"a": {Name: "a", Kind: Enum, Enum: []string{"x", "x"}}}, `repeats enum value "x"`},
		{"an empty name", Fields{"": {Kind: String}}, "empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fields.Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestNoSearchableFields(t *testing.T) {
	_, vs, _ := Parse(body(`{"equals": {"x": 1}, "orCondition": false}`), nil)
	checkViolations(t, vs, []want{{"/filter/equals/x", `unknown field "x"; this resource has no searchable fields`}})
	mustParseWith := func(fields Fields) {
		if f, vs, err := Parse(body(`{"orCondition": false}`), fields); f == nil || vs != nil || err != nil {
			t.Errorf("an empty filter with %v fields: %v %v %v", fields, f, vs, err)
		}
	}
	mustParseWith(nil)
	mustParseWith(Fields{})
}

func TestSuggest(t *testing.T) {
	fields := testFields.names()
	tests := []struct{ name, want string }{
		{"Title", "title"},
		{"titel", "title"},
		{"tite", "title"},
		{"startdate", "startDate"},
		{"start_date", "startDate"},
		{"colour", ""},
		{"ids", "id"},
		{"x", ""},
		{"", ""},
		{strings.Repeat("title", 20), ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.name, fields); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
