package report

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewriteJSONStringsKnowsWhereEachValueStands(t *testing.T) {
	in := `{"civicNo":{"nationality":"SE","value":"a"},"emails":[{"type":"Privat","value":"b"}],"civicNos":["c","d"],` +
		`"child":{"id":"x","displayName":"e"}, "n": 1, "esc":"q\"uote", "list":[["f"]]}`
	var got []string
	out := rewriteJSONStrings([]byte(in), func(at jsonPlace, v string) (string, bool) {
		got = append(got, at.Outer+"/"+at.Key+"="+v)
		return "", false
	})
	assert.Equal(t, in, string(out), "nothing replaced, nothing changed")
	assert.Equal(t, []string{
		"civicNo/nationality=SE", "civicNo/value=a", "emails/type=Privat", "emails/value=b", "/civicNos=c", "/civicNos=d",
		"child/id=x", "child/displayName=e", "/esc=q\"uote", "list/list=f",
	}, got)
}

func TestRewriteJSONStringsReadsACutText(t *testing.T) {
	in := `{"data":[{"givenName":"Anna","familyName":"Svens`
	out := rewriteJSONStrings([]byte(in), func(at jsonPlace, v string) (string, bool) { return "<" + v + ">", true })
	assert.Equal(t, `{"data":[{"givenName":"\u003cAnna\u003e","familyName":"\u003cSvens\u003e"`, string(out))
}

func TestTheMaskerReplacesPersonalDataConsistently(t *testing.T) {
	m := NewMasker()
	person := `{"id":"6f0c","givenName":"Anna","familyName":"Svensson","civicNo":{"value":"201001011234","nationality":"SE"},` +
		`"emails":[{"type":"Privat","value":"anna@example.org"}],"phoneNumbers":[{"value":"070-123 45 67"}],` +
		`"addresses":[{"streetAddress":"Storgatan 1","postalCode":"123 45","locality":"Byn"}],"birthDate":"2010-01-01",` +
		`"meta":{"created":"2024-01-01T00:00:00Z"}}`
	out := string(m.Body("application/json", []byte(person)))
	for _, v := range []string{"Anna", "Svensson", "201001011234", "anna@example.org", "070-123 45 67", "Storgatan", "123 45", "Byn", "2010-01-01"} {
		assert.NotContains(t, out, v)
	}
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "6f0c", got["id"], "ids are not personal")
	assert.Equal(t, "2024-01-01T00:00:00Z", got["meta"].(map[string]any)["created"])
	assert.Equal(t, "190001010001", got["civicNo"].(map[string]any)["value"], "a civic number keeps its shape")
	assert.Equal(t, "000-000 00 01", got["phoneNumbers"].([]any)[0].(map[string]any)["value"])
	assert.Equal(t, "000 01", got["addresses"].([]any)[0].(map[string]any)["postalCode"])
	assert.Equal(t, "1900-01-01", got["birthDate"])
	assert.Equal(t, "person1@example.invalid", got["emails"].([]any)[0].(map[string]any)["value"])

	// The same person elsewhere (interface A's fields, a reference, a
	// message, a query) gets the same stand-ins.
	a := string(m.Body("application/json", []byte(`{"firstName":"Anna","lastName":"Svensson","identityNumber":"20100101-1234"}`)))
	assert.Equal(t, `{"firstName":"Given1","lastName":"Family1","identityNumber":"19000101-0002"}`, a,
		"another spelling of the number is another value, in its own shape")
	assert.Equal(t, "the list has Given1 Family1 (190001010001), by id Given1 Family1",
		m.Text("the list has Anna Svensson (201001011234), by id Anna Svensson"))
	assert.Equal(t, "http://h/api/v1/persons?mail=person1%40example.invalid&civicNo=190001010001&limit=2",
		m.URL("http://h/api/v1/persons?mail=anna%40example.org&civicNo=201001011234&limit=2"))
	lookup := string(m.Body("application/json", []byte(`{"civicNos":["201001011234","19991231-9999"]}`)))
	assert.Equal(t, `{"civicNos":["190001010001","19000101-0003"]}`, lookup)
	assert.Equal(t, m.Text(out), out, "masking twice changes nothing")
}

func TestTheMaskerLeavesOtherFormsAlone(t *testing.T) {
	m := NewMasker()
	for _, s := range []string{
		"RateLimit-Reset 1732290000 is in seconds", // not a date: month 32
		"placement 0012484c-52b4-45fb-89d7-d20bd756a0ee",
		"page of 100 records, limit=25",
		`{"code":"NotFound","message":"no such group"}`,
	} {
		assert.Equal(t, s, m.Text(s))
	}
}

func TestTheRedactorTakesSecretsOut(t *testing.T) {
	r := NewRedactor()
	form := "grant_type=client_credentials&client_id=me&client_secret=s3cr%26t"
	assert.Equal(t, "grant_type=client_credentials&client_id=me&client_secret=%24CLIENT_SECRET",
		string(r.Body("application/x-www-form-urlencoded", []byte(form))))
	answer := `{"access_token":"eyJhbGciOi.abc.def","token_type":"Bearer","expires_in":3600}`
	assert.Equal(t, `{"access_token":"$TOKEN","token_type":"Bearer","expires_in":3600}`, string(r.Body("application/json", []byte(answer))))

	h := http.Header{
		"Authorization": {"Bearer eyJhbGciOi.abc.def"},
		"Client-Secret": {"legacy-secret"},
		"Cookie":        {"session=abc123; theme=dark"},
		"Set-Cookie":    {"session=abc123; Path=/; HttpOnly"},
		"X-Echo":        {"token eyJhbGciOi.abc.def seen"},
	}
	got := r.Header(h)
	assert.Equal(t, "Bearer $TOKEN", got.Get("Authorization"))
	assert.Equal(t, "$CLIENT_SECRET", got.Get("Client-Secret"))
	assert.Equal(t, "session=$COOKIE; theme=$COOKIE", got.Get("Cookie"))
	assert.Equal(t, "session=$COOKIE; Path=/; HttpOnly", got.Get("Set-Cookie"))
	assert.Equal(t, "token $TOKEN seen", got.Get("X-Echo"), "a learned token anywhere")
	assert.Equal(t, "Bearer eyJhbGciOi.abc.def", h.Get("Authorization"), "the original is untouched")

	basic := r.Header(http.Header{"Authorization": {"Basic bWU6cGFzc3dvcmQx"}}) // me:password1
	assert.Equal(t, "Basic base64(me:$CLIENT_SECRET)", basic.Get("Authorization"))
	assert.Equal(t, "error: $CLIENT_SECRET and $CLIENT_SECRET and legacy $CLIENT_SECRET", r.Text("error: s3cr&t and password1 and legacy legacy-secret"))
	assert.Equal(t, "http://h/x?access_token=%24TOKEN&q=1", r.URL("http://h/x?access_token=other-token&q=1"))
	assert.Equal(t, "$TOKEN again", r.Text("other-token again"))
	assert.Equal(t, `{"code":"Unauthorized","message":"bad token $TOKEN"}`,
		string(r.Body("application/json", []byte(`{"code":"Unauthorized","message":"bad token eyJhbGciOi.abc.def"}`))))
	assert.False(t, strings.Contains(r.Text("abc"), "$"), "short strings are never learned")
}

func FuzzRewriteJSONStrings(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `["x",{"y":["z"]}]`, `{"a":"b\"`, `}}]]"`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		same := rewriteJSONStrings([]byte(s), func(jsonPlace, string) (string, bool) { return "", false })
		if string(same) != s {
			t.Fatalf("changed without a replacement: %q → %q", s, same)
		}
		out := rewriteJSONStrings([]byte(s), func(jsonPlace, string) (string, bool) { return "x", true })
		if json.Valid([]byte(s)) && !json.Valid(out) {
			t.Fatalf("valid %q became invalid %q", s, out)
		}
	})
}
