package search

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// fuzzRecords are the records FuzzParse evaluates every filter on: a full
// one, an empty one, one of pointers and foreign types, and nil.
func fuzzRecords() []Record {
	s, n := "Ekskolan", int64(-3)
	return []Record{
		testRecord(),
		MapRecord{},
		MapRecord{
			"title": &s, "firstName": 42, "employmentPercent": &n, "hasChildcare": "yes",
			"startDate": time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "endDate": "2024-02-30",
			"archivedAt": "not a time", "roles": []string{"", "Admin"}, "tags": "x",
			"memberIDs": []string{"x"}, "id": strings.Repeat("%", 36), "schoolType": "",
		},
		nil,
	}
}

// FuzzParse checks that Parse never panics and gives exactly one of an
// error, violations and a filter; that violations are well formed; and that
// a filter evaluates without panicking and survives its canonical form:
// String parses to a filter that prints and matches the same.
func FuzzParse(f *testing.F) {
	records := fuzzRecords()
	f.Fuzz(func(t *testing.T, data []byte) {
		flt, vs, err := Parse(data, testFields)
		outcomes := 0
		for _, b := range []bool{err != nil, vs != nil, flt != nil} {
			if b {
				outcomes++
			}
		}
		if outcomes != 1 {
			t.Fatalf("got filter %v, violations %v and error %v; want exactly one", flt, vs, err)
		}
		if vs != nil {
			if len(vs) == 0 || len(vs) > MaxViolations+1 {
				t.Fatalf("%d violations", len(vs))
			}
			for _, v := range vs {
				if v.Message == "" || v.Pointer != "" && v.Pointer[0] != '/' {
					t.Fatalf("malformed violation %#v", v)
				}
			}
			return
		}
		if flt == nil {
			return
		}
		canon := flt.String()
		if !json.Valid([]byte(canon)) {
			t.Fatalf("String is not JSON: %s", canon)
		}
		again, vs, err := Parse([]byte(canon), testFields)
		if err != nil || vs != nil {
			t.Fatalf("the canonical form %s does not parse: %v %v", canon, err, vs)
		}
		if again.String() != canon {
			t.Fatalf("String is not stable:\n%s\n%s", canon, again)
		}
		for i, r := range records {
			if flt.Match(r) != again.Match(r) {
				t.Fatalf("record %d: %s and its canonical form disagree", i, canon)
			}
		}
		_ = flt.Equalities()
	})
}
