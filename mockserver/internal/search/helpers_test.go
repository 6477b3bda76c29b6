package search

import (
	"strings"
	"testing"
)

// testFields is a resource with a field of every kind, shaped like the
// directory's placements.
var testFields = Fields{
	"id":                {Name: "id", Kind: UUID},
	"studentID":         {Name: "studentID", Kind: UUID, Nullable: true},
	"title":             {Name: "title", Kind: String},
	"firstName":         {Name: "firstName", Kind: String, Nullable: true},
	"schoolType":        {Name: "schoolType", Kind: Enum, Enum: []string{"GR", "GRAN", "GY", "GYAN", "FS", "VUX", "VUXSFI"}},
	"schoolYear":        {Name: "schoolYear", Kind: Enum, Enum: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, Nullable: true},
	"hasChildcare":      {Name: "hasChildcare", Kind: Bool},
	"employmentPercent": {Name: "employmentPercent", Kind: Int, Nullable: true},
	"startDate":         {Name: "startDate", Kind: Date},
	"endDate":           {Name: "endDate", Kind: Date, Nullable: true},
	"archivedAt":        {Name: "archivedAt", Kind: DateTime, Nullable: true},
	"roles":             {Name: "roles", Kind: StringList, Enum: []string{"Admin", "CareTeam", "Manager", "MealPlanner", "OtherPersonnel", "Scheduler", "Teacher"}},
	"tags":              {Name: "tags", Kind: StringList},
	"memberIDs":         {Name: "memberIDs", Kind: UUIDList},
	"meta.createdBy":    {Name: "meta.createdBy", Kind: UUID, Nullable: true, Ops: Ops(OpEquals, OpNotEquals, OpContains, OpNotContains)},
	"meta.updatedAt":    {Name: "meta.updatedAt", Kind: DateTime, Nullable: true, Ops: Ops(OpEquals, OpNotEquals, OpGreaterThan, OpSmallerThan, OpGreaterOrEqual, OpSmallerOrEqual, OpNull, OpNotNull)},
}

const (
	idA = "0b3c6a44-8f4e-4d5e-9a55-3c1b2f6a7d10"
	idB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
)

// testRecord has a value of every kind; endDate is null and tags empty.
func testRecord() MapRecord {
	return MapRecord{
		"id":                idA,
		"studentID":         strings.ToUpper(idB),
		"title":             "Ekskolan",
		"firstName":         "åsa öberg",
		"schoolType":        "GY",
		"schoolYear":        "7",
		"hasChildcare":      true,
		"employmentPercent": int64(50),
		"startDate":         "2024-08-19",
		"endDate":           nil,
		"archivedAt":        "2025-01-10T09:30:00+01:00",
		"roles":             []string{"Teacher", "Admin"},
		"tags":              []string{},
		"memberIDs":         []string{strings.ToUpper(idA), idB},
		"meta.createdBy":    idB,
		"meta.updatedAt":    "2025-02-01T12:00:00Z",
	}
}

// body wraps a filter in a search body.
func body(filter string) []byte { return []byte(`{"filter": ` + filter + `}`) }

// mustParse parses a filter (the value of "filter") that must be valid.
func mustParse(t testing.TB, filter string) *Filter {
	t.Helper()
	f, vs, err := Parse(body(filter), testFields)
	if err != nil || len(vs) > 0 {
		t.Fatalf("Parse(%s): err %v, violations %v", filter, err, vs)
	}
	return f
}
