package conformance

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/rules"
)

// Helpers to read decoded JSON (maps, slices, strings, json.Number, bools).

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// refID returns the id of the reference object m[k].
func refID(m map[string]any, k string) string { return str(obj(m, k), "id") }

// intOf reads an integer JSON value.
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// The JSON helpers the rules and the checks share.
var (
	str       = rules.Str       // m[k] as a string ("" when absent or not one)
	obj       = rules.Obj       // m[k] as an object (nil when absent or not one)
	arr       = rules.Arr       // m[k] as an array (nil when absent or not one)
	objects   = rules.Objects   // the members of an array that are objects
	jsonEqual = rules.JSONEqual // two decoded JSON values, numbers by value
	compact   = rules.Compact   // a value as short JSON for messages
)

// isUUID accepts the 36-character hyphenated form only.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

// unknownID is a UUID that no server holds (version 4 form, fixed so that a
// failure is reproducible).
const unknownID = "00000000-5c01-4c17-8000-00000000dead"

// malformedID is an id that is not a UUID.
const malformedID = "not-a-uuid"
