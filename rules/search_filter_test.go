package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatchSearch: interface A's filter language on one record: every
// operator, nested objects and filters, AND and OR, date-times as instants
// (the record's +01:00 against the filter's Z).
func TestMatchSearch(t *testing.T) {
	item := map[string]any{"title": "Ekskolan", "schoolType": "GR", "unitCode": nil, "n": json.Number("5"),
		"types": []any{"Class", "Mentor"}, "tags": []any{}, "meta": map[string]any{"updatedAt": "2024-01-15T11:30:00.5+01:00", "createdBy": nil}}
	for _, tc := range []struct {
		filter string
		want   bool
	}{
		{`{"equals": {"title": "Ekskolan"}, "orCondition": false}`, true},
		{`{"equals": {"title": "ekskolan"}, "orCondition": false}`, false},
		{`{"notEquals": {"schoolType": "GR"}, "orCondition": false}`, false},
		{`{"like": {"title": "ek%"}, "orCondition": false}`, true},
		{`{"like": {"title": "Ek_kolan"}, "orCondition": false}`, true},
		{`{"notLike": {"title": "%x%"}, "orCondition": false}`, true},
		{`{"contains": {"title": ["X", "Ekskolan"]}, "orCondition": false}`, true},
		{`{"contains": {"title": ["SKOL"]}, "orCondition": false}`, false},
		{`{"notContains": {"title": ["Ekskolan"]}, "orCondition": false}`, false},
		{`{"contains": {"types": ["Class"]}, "orCondition": false}`, true},
		{`{"equals": {"types": "Mentor"}, "orCondition": false}`, true},
		{`{"null": {"tags": true}, "orCondition": false}`, true},
		{`{"greaterThan": {"meta": {"updatedAt": "2024-01-15T10:30:00Z"}}, "orCondition": false}`, true},
		{`{"greaterThan": {"meta": {"updatedAt": "2024-01-15T10:30:00.5Z"}}, "orCondition": false}`, false},
		{`{"equals": {"meta": {"createdBy": null}}, "orCondition": false}`, true},
		{`{"null": {"unitCode": true}, "orCondition": false}`, true},
		{`{"notNull": {"unitCode": true}, "orCondition": false}`, false},
		{`{"null": {"unitCode": false}, "orCondition": false}`, true},
		{`{"greaterThan": {"n": 4}, "smallerOrEqual": {"n": 5}, "orCondition": false}`, true},
		{`{"greaterThan": {"unitCode": "a"}, "orCondition": false}`, false},
		{`{"equals": {"title": "X"}, "nestedFilters": [{"equals": {"schoolType": "GR"}, "orCondition": false}], "orCondition": true}`, true},
		{`{"equals": {"title": "X"}, "nestedFilters": [{"equals": {"schoolType": "GR"}, "orCondition": false}], "orCondition": false}`, false},
		{`{"orCondition": false}`, true},
	} {
		var f map[string]any
		dec := json.NewDecoder(strings.NewReader(tc.filter))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&f))
		assert.Equal(t, tc.want, MatchSearch(f, item), tc.filter)
	}
}

// TestSearchTri: a record satisfies a filter Yes by every reading of the
// vendor's operators, No by none, Unknown between; AND and OR join them.
func TestSearchTri(t *testing.T) {
	item := map[string]any{"title": "Ekskolan", "schoolType": "GR", "unitCode": nil, "tags": []any{},
		"types": []any{"Class", "Mentor"}, "meta": map[string]any{"updatedAt": "2024-01-15T11:30:00+01:00"}}
	for _, tc := range []struct {
		filter string
		want   Tri
	}{
		{`{"contains": {"schoolType": ["GY", "GR"]}, "orCondition": false}`, Yes},
		{`{"contains": {"schoolType": ["GY"]}, "orCondition": false}`, No},
		{`{"contains": {"title": ["skol"]}, "orCondition": false}`, Unknown},
		{`{"contains": {"types": ["Mentor"]}, "orCondition": false}`, Yes},
		{`{"notContains": {"schoolType": ["GY", "GR"]}, "orCondition": false}`, No},
		{`{"like": {"title": "Ek%"}, "orCondition": false}`, Yes},
		{`{"like": {"title": "ek%"}, "orCondition": false}`, Unknown},
		{`{"like": {"title": "x%"}, "orCondition": false}`, No},
		{`{"null": {"unitCode": true}, "orCondition": false}`, Yes},
		{`{"null": {"tags": true}, "orCondition": false}`, Unknown},
		{`{"notNull": {"title": true}, "orCondition": false}`, Yes},
		{`{"greaterThan": {"meta": {"updatedAt": "2024-01-15T10:29:59Z"}}, "orCondition": false}`, Yes},
		{`{"equals": {"schoolType": "GR"}, "contains": {"schoolType": ["GY"]}, "orCondition": false}`, No},
		{`{"equals": {"schoolType": "GR"}, "contains": {"schoolType": ["GY"]}, "orCondition": true}`, Yes},
		{`{"equals": {"schoolType": "GY"}, "like": {"title": "ek%"}, "orCondition": true}`, Unknown},
		{`{"equals": {"schoolType": "GR"}, "like": {"title": "ek%"}, "orCondition": false}`, Unknown},
		{`{"equals": {"schoolType": "GY"}, "nestedFilters": [{"equals": {"title": "Ekskolan"}, "orCondition": false}], "orCondition": true}`, Yes},
		{`{"orCondition": true}`, Yes},
	} {
		var f map[string]any
		require.NoError(t, json.NewDecoder(strings.NewReader(tc.filter)).Decode(&f), tc.filter)
		assert.Equal(t, tc.want, SearchTri(f, item), tc.filter)
	}
}

// TestSearchFields: the members an operator of the search language takes,
// from the contract: scalars for equals, arrays of scalars for contains.
func TestSearchFields(t *testing.T) {
	c, err := LoadContract(ProfileService)
	require.NoError(t, err)
	op, _ := c.Match(SurfaceA, "POST", "/school/_search")
	require.NotNil(t, op)
	eq, contains := SearchFields(op, "equals"), SearchFields(op, "contains")
	assert.NotEmpty(t, eq)
	assert.NotContains(t, eq, "id")
	for _, f := range contains {
		assert.Contains(t, eq, f, "a member contains takes is one equals takes")
	}
	assert.NotEmpty(t, contains)
	assert.Empty(t, SearchFields(op, "nothing"))
}
