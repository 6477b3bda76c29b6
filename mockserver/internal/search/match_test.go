package search

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cond1 is a filter with one condition.
func cond1(op, field, value string) string {
	return fmt.Sprintf(`{%q: {%q: %s}, "orCondition": false}`, op, field, value)
}

func TestOperatorsByKind(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		want   bool
	}{
		// String: exact equality, byte order, folded substring and pattern.
		{"string equals is exact", cond1("equals", "title", `"Ekskolan"`), true},
		{"string equals is case-sensitive", cond1("equals", "title", `"ekskolan"`), false},
		{"string notEquals of another value", cond1("notEquals", "title", `"Ekskola"`), true},
		{"string notEquals of the value", cond1("notEquals", "title", `"Ekskolan"`), false},
		{"string greaterThan is exclusive", cond1("greaterThan", "title", `"Ekskolan"`), false},
		{"string greaterOrEqual includes equal", cond1("greaterOrEqual", "title", `"Ekskolan"`), true},
		{"string smallerThan is exclusive", cond1("smallerThan", "title", `"Ekskolan"`), false},
		{"string smallerOrEqual includes equal", cond1("smallerOrEqual", "title", `"Ekskolan"`), true},
		{"string greaterThan a prefix", cond1("greaterThan", "title", `"Ek"`), true},
		{"string order is byte order: upper case sorts first", cond1("smallerThan", "title", `"ekskolan"`), true},
		{"string order is byte order: Å sorts after Z", cond1("greaterThan", "firstName", `"zzz"`), true},
		{"string contains: the value is one of the array", cond1("contains", "title", `["Ö", "Ekskolan"]`), true},
		{"string contains is exact, not a substring", cond1("contains", "title", `["skol"]`), false},
		{"string contains is case-sensitive", cond1("contains", "title", `["EKSKOLAN"]`), false},
		{"string contains an empty array matches nothing", cond1("contains", "title", `[]`), false},
		{"string contains takes % literally", cond1("contains", "title", `["Ekskola%"]`), false},
		{"string notContains of absent values", cond1("notContains", "title", `["x", "y"]`), true},
		{"string notContains of the value", cond1("notContains", "title", `["x", "Ekskolan"]`), false},
		{"string like prefix", cond1("like", "title", `"ek%"`), true},
		{"string like suffix folds case", cond1("like", "title", `"%LAN"`), true},
		{"string like _ is one character", cond1("like", "title", `"e_skola_"`), true},
		{"string like _ is not zero characters", cond1("like", "title", `"ekskolan_"`), false},
		{"string like without wildcards is whole-value", cond1("like", "title", `"ekskola"`), false},
		{"string like % alone matches all", cond1("like", "title", `"%"`), true},
		{"string like _ is one code point, not one byte", cond1("like", "firstName", `"_sa öberg"`), true},
		{"string notLike of a matching pattern", cond1("notLike", "title", `"%skol%"`), false},
		{"string notLike of another pattern", cond1("notLike", "title", `"x%"`), true},

		// Enum: equality with enum values, byte order, text operators.
		{"enum equals", cond1("equals", "schoolType", `"GY"`), true},
		{"enum notEquals", cond1("notEquals", "schoolType", `"GR"`), true},
		{"enum greaterThan in byte order", cond1("greaterThan", "schoolType", `"GRAN"`), true},
		{"enum smallerThan in byte order", cond1("smallerThan", "schoolType", `"GYAN"`), true},
		{"enum greaterOrEqual includes equal", cond1("greaterOrEqual", "schoolYear", `"7"`), true},
		{"enum greaterThan is exclusive", cond1("greaterThan", "schoolYear", `"7"`), false},
		{"enum smallerOrEqual includes equal", cond1("smallerOrEqual", "schoolYear", `"7"`), true},
		{"enum contains one of the values", cond1("contains", "schoolType", `["GR", "GY"]`), true},
		{"enum contains none of the values", cond1("contains", "schoolType", `["GR", "FS"]`), false},
		{"enum like", cond1("like", "schoolType", `"G_"`), true},

		// UUID: case-insensitive equality.
		{"uuid equals", cond1("equals", "id", `"`+idA+`"`), true},
		{"uuid equals ignores the filter's case", cond1("equals", "id", `"`+strings.ToUpper(idA)+`"`), true},
		{"uuid equals ignores the record's case", cond1("equals", "studentID", `"`+idB+`"`), true},
		{"uuid notEquals of another id", cond1("notEquals", "id", `"`+idB+`"`), true},
		{"uuid notEquals of the id in other case", cond1("notEquals", "studentID", `"`+idB+`"`), false},

		// Bool.
		{"bool equals true", cond1("equals", "hasChildcare", `true`), true},
		{"bool equals false", cond1("equals", "hasChildcare", `false`), false},
		{"bool notEquals false", cond1("notEquals", "hasChildcare", `false`), true},

		// Int: numeric order, boundaries.
		{"int equals", cond1("equals", "employmentPercent", `50`), true},
		{"int equals an integral 50.0", cond1("equals", "employmentPercent", `50.0`), true},
		{"int notEquals", cond1("notEquals", "employmentPercent", `49`), true},
		{"int greaterThan is exclusive", cond1("greaterThan", "employmentPercent", `50`), false},
		{"int greaterThan one less", cond1("greaterThan", "employmentPercent", `49`), true},
		{"int greaterOrEqual includes equal", cond1("greaterOrEqual", "employmentPercent", `50`), true},
		{"int smallerThan is exclusive", cond1("smallerThan", "employmentPercent", `50`), false},
		{"int smallerThan one more", cond1("smallerThan", "employmentPercent", `51`), true},
		{"int smallerOrEqual includes equal", cond1("smallerOrEqual", "employmentPercent", `50`), true},
		{"int order is numeric, not lexical", cond1("smallerThan", "employmentPercent", `100`), true},

		// Date: chronological; text operators on the text.
		{"date equals", cond1("equals", "startDate", `"2024-08-19"`), true},
		{"date notEquals", cond1("notEquals", "startDate", `"2024-08-20"`), true},
		{"date greaterThan is exclusive", cond1("greaterThan", "startDate", `"2024-08-19"`), false},
		{"date greaterOrEqual includes the day", cond1("greaterOrEqual", "startDate", `"2024-08-19"`), true},
		{"date smallerThan is exclusive", cond1("smallerThan", "startDate", `"2024-08-19"`), false},
		{"date smallerOrEqual includes the day", cond1("smallerOrEqual", "startDate", `"2024-08-19"`), true},
		{"date smallerThan the next day", cond1("smallerThan", "startDate", `"2024-08-20"`), true},
		{"date greaterThan across a year", cond1("greaterThan", "startDate", `"2023-12-31"`), true},
		{"date like a partial date", cond1("like", "startDate", `"2024-%"`), true},
		{"date contains the day", cond1("contains", "startDate", `["2024-08-18", "2024-08-19"]`), true},
		{"bool contains", cond1("contains", "hasChildcare", `[true]`), true},
		{"int contains", cond1("contains", "employmentPercent", `[40, 50]`), true},
		{"uuid contains ignores case", cond1("contains", "studentID", `["`+idB+`"]`), true},

		// DateTime: instants, whatever the offsets.
		{"date-time equals the same instant in UTC", cond1("equals", "archivedAt", `"2025-01-10T08:30:00Z"`), true},
		{"date-time equals the same instant with fractions", cond1("equals", "archivedAt", `"2025-01-10T10:30:00.000+02:00"`), true},
		{"date-time greaterThan is exclusive", cond1("greaterThan", "archivedAt", `"2025-01-10T08:30:00Z"`), false},
		{"date-time greaterOrEqual includes the instant", cond1("greaterOrEqual", "archivedAt", `"2025-01-10T08:30:00Z"`), true},
		{"date-time smallerOrEqual includes the instant", cond1("smallerOrEqual", "archivedAt", `"2025-01-10T08:30:00Z"`), true},
		{"date-time smallerThan compares instants, not text", cond1("smallerThan", "archivedAt", `"2025-01-10T09:00:00Z"`), true},
		{"date-time greaterThan an earlier instant at the same offset", cond1("greaterThan", "archivedAt", `"2025-01-10T09:00:00+01:00"`), true},
		{"date-time like sees the stored text", cond1("like", "archivedAt", `"2025-01-10T09:30%+01:00"`), true},

		// Lists: contains is "an element is one of the values"; equals "an element is the value".
		{"string list contains an element", cond1("contains", "roles", `["Teacher"]`), true},
		{"string list contains another element", cond1("contains", "roles", `["Scheduler", "Admin"]`), true},
		{"string list contains no such element", cond1("contains", "roles", `["Scheduler"]`), false},
		{"string list notContains no such element", cond1("notContains", "roles", `["Scheduler", "Manager"]`), true},
		{"string list notContains an element", cond1("notContains", "roles", `["Scheduler", "Teacher"]`), false},
		{"string list equals an element", cond1("equals", "roles", `"Admin"`), true},
		{"string list notEquals an element", cond1("notEquals", "roles", `"Admin"`), false},
		{"empty list contains nothing", cond1("contains", "tags", `["x"]`), false},
		{"empty list notContains anything", cond1("notContains", "tags", `["x"]`), true},
		{"uuid list contains ignores case", cond1("contains", "memberIDs", `["`+idA+`"]`), true},
		{"uuid list contains in upper case", cond1("contains", "memberIDs", `["`+strings.ToUpper(idB)+`"]`), true},
		{"uuid list notContains an absent id", cond1("notContains", "memberIDs", `["00000000-0000-0000-0000-000000000000"]`), true},

		// Nested fields: an object of the group's fields.
		{"nested greaterThan meta.updatedAt", cond1("greaterThan", "meta", `{"updatedAt": "2025-02-01T11:59:59Z"}`), true},
		{"nested greaterThan meta.updatedAt is exclusive", cond1("greaterThan", "meta", `{"updatedAt": "2025-02-01T12:00:00Z"}`), false},
		{"nested contains meta.createdBy", cond1("contains", "meta", `{"createdBy": ["`+idA+`", "`+idB+`"]}`), true},
		{"nested notContains meta.createdBy", cond1("notContains", "meta", `{"createdBy": ["`+idB+`"]}`), false},
		{"a null group adds no condition", cond1("equals", "meta", `null`), true},

		// null and notNull.
		{"null of a null field", cond1("null", "endDate", `true`), true},
		{"null of a set field", cond1("null", "startDate", `true`), false},
		{"notNull of a set field", cond1("notNull", "startDate", `true`), true},
		{"notNull of a null field", cond1("notNull", "endDate", `true`), false},
		{"null false adds no condition", cond1("null", "startDate", `false`), true},
		{"an empty list is null", cond1("null", "tags", `true`), true},
		{"a list with elements is not null", cond1("notNull", "roles", `true`), true},
		{"equals null is null", cond1("equals", "endDate", `null`), true},
		{"notEquals null is notNull", cond1("notEquals", "endDate", `null`), false},
		{"a null range value adds no condition", cond1("greaterThan", "startDate", `null`), true},
	}
	rec := testRecord()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.filter)
			if got := f.Match(rec); got != tt.want {
				t.Errorf("filter %s on %v: got %v, want %v", f, rec, got, tt.want)
			}
		})
	}
}

func TestNullFields(t *testing.T) {
	// Every operator on a null field: positive and order operators fail,
	// their negations hold (they are exact complements), null holds.
	want := map[string]bool{
		"equals": false, "notEquals": true,
		"greaterThan": false, "smallerThan": false, "greaterOrEqual": false, "smallerOrEqual": false,
		"contains": false, "notContains": true, "like": false, "notLike": true,
		"null": true, "notNull": false,
	}
	values := map[string]map[string]string{ // field → operator → value
		"endDate":           {"": `"2024-01-01"`, "contains": `["2024-01-01"]`, "like": `"%"`},
		"firstName":         {"": `""`, "contains": `[""]`, "like": `"%"`},
		"employmentPercent": {"": `0`, "contains": `[0]`},
		"archivedAt":        {"": `"2024-01-01T00:00:00Z"`, "contains": `["2024-01-01T00:00:00Z"]`, "like": `"%"`},
		"schoolYear":        {"": `"0"`, "contains": `["0"]`, "like": `"%"`},
		"studentID":         {"": `"` + idA + `"`, "contains": `["` + idA + `"]`},
		"hasChildcare":      {"": `false`, "contains": `[false]`},
		"roles":             {"": `"Admin"`, "contains": `["Admin"]`},
	}
	nulls := map[string]Record{
		"absent field":             MapRecord{},
		"nil value":                RecordFunc(func(string) (any, bool) { return nil, true }),
		"ok false":                 RecordFunc(func(string) (any, bool) { return "2024-01-01", false }),
		"nil pointer":              RecordFunc(func(string) (any, bool) { return (*string)(nil), true }),
		"value of a foreign type":  RecordFunc(func(string) (any, bool) { return struct{}{}, true }),
		"nil record":               nil,
		"unreadable date and text": RecordFunc(func(string) (any, bool) { return 3.5, true }),
	}
	for field, vals := range values {
		kind := testFields[field].Kind
		for op, wantMatch := range want {
			o, _ := opByName(op)
			if !Applies(o, kind) {
				continue
			}
			v := vals[""]
			if o.isText() {
				if x, ok := vals[strings.ToLower(strings.TrimPrefix(op, "not"))]; ok {
					v = x
				}
			}
			if o.isFlag() {
				v = "true"
			}
			f := mustParse(t, cond1(op, field, v))
			for name, rec := range nulls {
				if got := f.Match(rec); got != wantMatch {
					t.Errorf("%s on a null %s field (%s): got %v, want %v", f, kind, name, got, wantMatch)
				}
			}
		}
	}
}

func TestUnreadableRecordValuesAreNull(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		value  any
	}{
		{"a date that is not a date", cond1("null", "startDate", "true"), "2024-02-30"},
		{"a date-time that is not a date-time", cond1("null", "archivedAt", "true"), "2024-02-01 10:00"},
		{"an int out of int64 range", cond1("null", "employmentPercent", "true"), uint64(1 << 63)},
		{"a fractional float for an int", cond1("null", "employmentPercent", "true"), 1.5},
		{"a string for a bool", cond1("null", "hasChildcare", "true"), "true"},
		{"a string for a list", cond1("null", "roles", "true"), "Admin"},
		{"a time for a uuid", cond1("null", "id", "true"), time.Now()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.filter)
			if !f.Match(MapRecord{f.conds[0].field: tt.value}) {
				t.Errorf("%s: %#v is not null", f, tt.value)
			}
		})
	}
}

func TestRecordGoTypes(t *testing.T) {
	s := "Ekskolan"
	b := true
	n64 := int64(50)
	n := 50
	day := time.Date(2024, 8, 19, 23, 30, 0, 0, time.FixedZone("", 2*3600))
	roles := []string{"Teacher"}
	tests := []struct {
		name   string
		filter string
		value  any
	}{
		{"*string", cond1("equals", "title", `"Ekskolan"`), &s},
		{"*bool", cond1("equals", "hasChildcare", `true`), &b},
		{"*int64", cond1("equals", "employmentPercent", `50`), &n64},
		{"*int", cond1("equals", "employmentPercent", `50`), &n},
		{"int", cond1("equals", "employmentPercent", `50`), 50},
		{"int32", cond1("equals", "employmentPercent", `50`), int32(50)},
		{"uint8", cond1("equals", "employmentPercent", `50`), uint8(50)},
		{"integral float64", cond1("equals", "employmentPercent", `50`), 50.0},
		{"time.Time for a date is its calendar day", cond1("equals", "startDate", `"2024-08-19"`), day},
		{"*time.Time for a date-time is its instant", cond1("equals", "archivedAt", `"2024-08-19T21:30:00Z"`), &day},
		{"time.Time for a date is text for like", cond1("like", "startDate", `"2024-08-1_"`), day},
		{"*[]string", cond1("contains", "roles", `["Teacher"]`), &roles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.filter)
			if !f.Match(MapRecord{f.conds[0].field: tt.value}) {
				t.Errorf("%s does not match %#v", f, tt.value)
			}
		})
	}
}

func TestAndOr(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		want   bool
	}{
		{"AND: every condition holds", `{"equals": {"title": "Ekskolan", "schoolType": "GY"}, "orCondition": false}`, true},
		{"AND: one condition fails", `{"equals": {"title": "Ekskolan", "schoolType": "GR"}, "orCondition": false}`, false},
		{"AND across operators", `{"equals": {"title": "Ekskolan"}, "greaterThan": {"employmentPercent": 60}, "orCondition": false}`, false},
		{"OR: one condition holds", `{"equals": {"title": "Ekskolan", "schoolType": "GR"}, "orCondition": true}`, true},
		{"OR: no condition holds", `{"equals": {"title": "X", "schoolType": "GR"}, "orCondition": true}`, false},
		{"OR across operators", `{"equals": {"title": "X"}, "null": {"endDate": true}, "orCondition": true}`, true},
		{"empty AND filter matches", `{"orCondition": false}`, true},
		{"empty OR filter matches", `{"orCondition": true}`, true},
		{"OR of flags set to false only matches", `{"null": {"startDate": false}, "orCondition": true}`, true},
		{"empty operators add no conditions", `{"equals": {}, "like": {}, "orCondition": true}`, true},
		{"a nested filter is one AND condition", `{"equals": {"title": "Ekskolan"}, "nestedFilters": [{"equals": {"schoolType": "GR"}, "orCondition": false}], "orCondition": false}`, false},
		{"a nested filter is one OR condition", `{"equals": {"title": "X"}, "nestedFilters": [{"equals": {"schoolType": "GY"}, "orCondition": false}], "orCondition": true}`, true},
		{"an empty nested filter holds", `{"equals": {"title": "X"}, "nestedFilters": [{"orCondition": true}], "orCondition": true}`, true},
		{"OR of nested AND filters", `{"orCondition": true, "nestedFilters": [
			{"equals": {"title": "Ekskolan", "schoolType": "GR"}, "orCondition": false},
			{"equals": {"title": "Ekskolan", "schoolType": "GY"}, "orCondition": false}]}`, true},
		{"AND of nested OR filters", `{"orCondition": false, "nestedFilters": [
			{"equals": {"title": "X", "schoolType": "GY"}, "orCondition": true},
			{"equals": {"title": "Y", "schoolType": "GR"}, "orCondition": true}]}`, false},
	}
	rec := testRecord()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustParse(t, tt.filter).Match(rec); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNestedDepthThree(t *testing.T) {
	// GY and (title like x% or (employmentPercent >= 50 and endDate null and
	// (roles has Admin or firstName contains ÖBERG)))
	f := mustParse(t, `{
		"equals": {"schoolType": "GY"}, "orCondition": false,
		"nestedFilters": [{
			"like": {"title": "x%"}, "orCondition": true,
			"nestedFilters": [{
				"greaterOrEqual": {"employmentPercent": 50}, "null": {"endDate": true}, "orCondition": false,
				"nestedFilters": [{"contains": {"roles": ["Admin"]}, "like": {"firstName": "%ÖBERG"}, "orCondition": true}]
			}]
		}]
	}`)
	tests := []struct {
		name   string
		change MapRecord
		want   bool
	}{
		{"the record matches through the innermost level", nil, true},
		{"the top level fails", MapRecord{"schoolType": "GR"}, false},
		{"the second level's first branch holds alone", MapRecord{"title": "Xskolan", "employmentPercent": int64(10)}, true},
		{"the third level fails at its boundary", MapRecord{"employmentPercent": int64(49)}, false},
		{"the third level holds at its boundary", MapRecord{"employmentPercent": int64(50)}, true},
		{"the fourth level's OR holds by its second condition", MapRecord{"roles": []string{}}, true},
		{"the fourth level's OR fails", MapRecord{"roles": []string{}, "firstName": "Åsa"}, false},
		{"a non-null endDate fails the third level", MapRecord{"endDate": "2025-06-30"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := testRecord()
			for k, v := range tt.change {
				rec[k] = v
			}
			if got := f.Match(rec); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnicodeCaseFolding(t *testing.T) {
	tests := []struct {
		name   string
		filter string
		value  string
		want   bool
	}{
		{"like ÅSA matches åsa", cond1("like", "title", `"ÅSA"`), "åsa", true},
		{"like %åsa% matches ÅSA", cond1("like", "title", `"%åsa%"`), "Kajsa ÅSA", true},
		{"like %Ä% matches ä", cond1("like", "title", `"%Ä%"`), "Hälsingland", true},
		{"like folds ö", cond1("like", "title", `"%ÖBERG"`), "Öberg and öberg", true},
		{"like _ matches one å", cond1("like", "title", `"_sa"`), "Åsa", true},
		{"å does not match a", cond1("like", "title", `"%å%"`), "Asa", false},
		{"Kelvin sign folds to k", cond1("like", "title", `"%\u212a%"`), "ekskolan", true},
		{"the Ångström sign folds to å", cond1("like", "title", `"\u212bsa"`), "åsa", true},
		{"simple folding: ß is not ss", cond1("like", "title", `"%SS%"`), "Straße", false},
		{"contains does not fold", cond1("contains", "title", `["ÅSA"]`), "åsa", false},
		{"equals does not fold", cond1("equals", "title", `"ÅSA"`), "åsa", false},
		{"notLike folds", cond1("notLike", "title", `"%ÖST%"`), "Östra skolan", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustParse(t, tt.filter).Match(MapRecord{"title": tt.value}); got != tt.want {
				t.Errorf("%s on %q: got %v, want %v", tt.filter, tt.value, got, tt.want)
			}
		})
	}
}

func TestConcurrentMatch(t *testing.T) {
	f := mustParse(t, `{"like": {"title": "%skol%", "firstName": "%ÖB%"}, "orCondition": false}`)
	rec := testRecord()
	done := make(chan bool)
	for range 8 {
		go func() {
			ok := true
			for range 1000 {
				ok = ok && f.Match(rec)
			}
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent Match failed")
		}
	}
}

func TestNilFilterMatchesEverything(t *testing.T) {
	var f *Filter
	if !f.Match(testRecord()) || len(f.Equalities()) != 0 || f.String() != "" {
		t.Error("the nil filter must match everything, have no equalities and print empty")
	}
}
