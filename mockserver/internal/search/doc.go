// Package search parses and evaluates the filter language of interface A's
// `POST /directory/v1/<resource>/_search` endpoints (docs/decisions.md#search).
//
// It owns the language only: turning a request body into a [Filter] (or into
// every [Violation] the body has), evaluating a Filter against one record at a
// time, and printing it in a canonical form. It knows nothing of HTTP, of the
// store or of the contract: the caller says which fields a resource can search
// ([Fields]), hands over records through [Record], maps a Parse error to a 400
// and violations to a 422, and may use [Filter.Equalities] to narrow a scan
// with an index (every candidate must still pass [Filter.Match]).
//
// # The language
//
//	{"filter": {"equals": {"title": "Ekskolan"}, "like": {"unitCode": "7%"},
//	            "contains": {"schoolType": ["GR", "GY"]},
//	            "greaterThan": {"meta": {"updatedAt": "2024-01-15T10:30:00Z"}},
//	            "null": {"unitID": true}, "orCondition": false,
//	            "nestedFilters": [{"equals": {"schoolType": "GR"}, "orCondition": true}]}}
//
// Each operator maps field names to values, and every field in every operator
// is one condition; every entry of nestedFilters is one more condition.
// orCondition (required at every level) joins the conditions of its level with
// AND (false) or OR (true). A filter without conditions matches every record,
// whatever its orCondition. `null` and `notNull` map fields to booleans: true
// adds the condition "is null" ("is not null"), false adds none.
//
// Nested fields (a [Fields] name with a dot, "meta.updatedAt") are written as
// objects inside the operators: {"greaterThan": {"meta": {"updatedAt": T}}}; a
// dotted name in the body is an unknown field. A JSON null as a value adds no
// condition, except in equals ("is null") and notEquals ("is not null"), and
// a null group ({"meta": null}) adds none.
//
// # Operators by kind
//
//	kind        equals/notEquals        order operators        contains/notContains       like/notLike
//	String      exact, case-sensitive   byte order             value in the array         pattern, fold case
//	Enum        exact, value in enum    byte order, in enum    value in the array         pattern, fold case
//	UUID        case-insensitive        -                      value in the array (fold)  -
//	Bool        exact                   -                      value in the array         -
//	Int         numeric                 numeric                value in the array         -
//	Date        same day                chronological          value in the array         on the text
//	DateTime    same instant            chronological          value in the array         on the text
//	StringList  an element is it        -                      an element in the array    -
//	UUIDList    an element is it (fold) -                      an element in the array    -
//
// null and notNull apply to every kind; on a list, null means empty. "Order
// operators" are greaterThan, smallerThan (both exclusive), greaterOrEqual and
// smallerOrEqual (inclusive). An operator marked "-" is a violation, and so is
// an operator outside a field's [Field.Ops] when it has them (the vendor lists
// the fields of each operator). contains and notContains take a JSON array;
// each element must be a value of the field's kind (on a list, of its
// elements). Comparison values must be of the field's kind: a JSON string for
// String, Enum (one of the enum values), UUID (the 36-character form), Date
// (YYYY-MM-DD) and DateTime (RFC 3339 with an offset; a bare date is not
// accepted); a JSON boolean for Bool; a JSON number with an integral value
// for Int (50, 50.0 and 5e1 alike). like takes any JSON string of at most
// [MaxTextLength] characters (so `like: {"startDate": "2024-%"}` works).
//
// "Fold case" is Unicode simple case folding, the equivalence of
// [strings.EqualFold] and of regexp's (?i): "ÅSA" is like "åsa" and "k"
// matches the Kelvin sign; "ß" does not match "ss". In like patterns `%`
// matches any run of characters (also none) and `_` exactly one character (one
// Unicode code point); there is no escape character. The matcher is a
// bit-parallel NFA: one pass over the text, O(len(text) × len(pattern)/64),
// with no backtracking.
//
// Date-times compare as instants: "2024-05-01T10:00:00+02:00" equals
// "2024-05-01T08:00:00Z". like on a DateTime sees the record's text as stored.
//
// # Null
//
// A record's field is null when Record.Value reports ok=false or returns nil
// (or a nil pointer), and also when the value's Go type does not fit the
// field's kind or cannot be read as one (a Date that is not a date): the
// evaluator never guesses. For a null field: null matches; notNull does not;
// equals, contains, like and the order operators do not match; notEquals,
// notContains and notLike match. Every "not" operator is the exact complement
// of its positive (equals X and notEquals X partition the records); add
// notNull to leave the nulls out. An empty list counts as null for null and
// notNull only.
//
// # Violations
//
// Parse reports every violation of a body, each with an RFC 6901 JSON Pointer
// into the body (`/filter/nestedFilters/0/equals/titel`) and a message that
// says what is allowed; a body that is not JSON at all is an error instead.
// Filters nest at most [MaxDepth] levels and have at most [MaxConditions]
// conditions in all; at most [MaxViolations] violations are listed.
package search
