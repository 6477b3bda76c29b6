package search_test

import (
	"encoding/json"
	"fmt"

	"github.com/skolkit/skolkit/mockserver/internal/search"
)

var schoolFields = search.Fields{
	"id":         {Name: "id", Kind: search.UUID},
	"title":      {Name: "title", Kind: search.String},
	"unitCode":   {Name: "unitCode", Kind: search.String, Nullable: true},
	"schoolType": {Name: "schoolType", Kind: search.Enum, Enum: []string{"GR", "GY", "FS"}},
}

func ExampleParse() {
	f, _, _ := search.Parse([]byte(`{"filter": {"orCondition": false, "like": {"title": "ek%"}, "equals": {"schoolType": "GR"}}}`), schoolFields)
	fmt.Println(f)
	fmt.Println(f.Match(search.MapRecord{"title": "Ekskolan", "schoolType": "GR"}))
	fmt.Println(f.Equalities())
	// Output:
	// {"filter":{"equals":{"schoolType":"GR"},"like":{"title":"ek%"},"orCondition":false}}
	// true
	// map[schoolType:GR]
}

func ExampleParse_violations() {
	_, violations, _ := search.Parse([]byte(`{"filter": {"equals": {"titel": "Ekskolan", "schoolType": "GYAN"}, "like": {"id": "0b3c%"}}}`), schoolFields)
	details, _ := json.MarshalIndent(violations, "", "  ")
	fmt.Println(string(details))
	// Output:
	// [
	//   {
	//     "field": "/filter/equals/titel",
	//     "message": "unknown field \"titel\"; the searchable fields are id, schoolType, title, unitCode (did you mean \"title\"?)"
	//   },
	//   {
	//     "field": "/filter/equals/schoolType",
	//     "message": "must be one of GR, GY, FS; got \"GYAN\""
	//   },
	//   {
	//     "field": "/filter/like/id",
	//     "message": "like does not apply to \"id\", a uuid field; the field takes equals, notEquals, contains, notContains, null, notNull"
	//   },
	//   {
	//     "field": "/filter/orCondition",
	//     "message": "required: false joins this filter's conditions with AND, true with OR"
	//   }
	// ]
}
