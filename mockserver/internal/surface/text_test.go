package surface

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBodyTextProblem(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       *FieldProblem
	}{
		{"plain text", `{"a": "Åsa Öberg", "b": ["x", {"c": "y"}], "d": 1, "e": null}`, nil},
		{"tab, line feed and carriage return", `{"comment": "a\tb\nc\r"}`, nil},
		{"a replacement character the client sent", "{\"a\": \"\uFFFD\", \"b\": \"\\ufffd\"}", nil},
		{"a surrogate pair", `{"a": "\ud83d\ude00"}`, nil},
		{"invalid UTF-8 in a value", "{\"firstName\": \"Al\xffva\"}", &FieldProblem{"/firstName", "not valid UTF-8 (byte 0xff at byte 2)"}},
		{"a NUL escape", `{"a": {"b": ["ok", "x\u0000"]}}`, &FieldProblem{"/a/b/1", "the control character U+0000 is not allowed in text"}},
		{"an escape character", `{"name": "\u001b[31m"}`, &FieldProblem{"/name", "the control character U+001B is not allowed in text"}},
		{"DEL", `{"name": "a\u007f"}`, &FieldProblem{"/name", "the control character U+007F is not allowed in text"}},
		{"a C1 control", `{"name": "a\u0085"}`, &FieldProblem{"/name", "the control character U+0085 is not allowed in text"}},
		{"an unpaired surrogate", `{"ids": ["\ud800"]}`, &FieldProblem{"/ids/0", "not valid UTF-8 (an escaped surrogate without its pair)"}},
		{"a member name", `{"a": {"b\u0000": 1}}`, &FieldProblem{"/a", `member name "b\x00": the control character U+0000 is not allowed in text`}},
		{"after a nested object", `{"a": {"b": 1}, "c": [1, 2, "\u0001"]}`, &FieldProblem{"/c/2", "the control character U+0001 is not allowed in text"}},
		{"a top-level string", `"\u0000"`, &FieldProblem{"", "the control character U+0000 is not allowed in text"}},
		{"a slash in a member name", `{"a/b": "\u0000"}`, &FieldProblem{"/a~1b", "the control character U+0000 is not allowed in text"}},
		{"not JSON", `{"a": `, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, BodyTextProblem([]byte(tc.body)))
		})
	}
}

func TestQueryTextProblem(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"nameContains=%C3%85sa&limit=2", ""},
		{"nameContains=a%00b", `query parameter "nameContains": the control character U+0000 is not allowed in text`},
		{"nameContains=%FF", `query parameter "nameContains": not valid UTF-8 (byte 0xff at byte 0)`},
		{"na%00me=x", `query parameter name "na\x00me": the control character U+0000 is not allowed in text`},
	} {
		q, err := url.ParseQuery(tc.query)
		assert.NoError(t, err)
		assert.Equal(t, tc.want, QueryTextProblem(q), tc.query)
	}
}
