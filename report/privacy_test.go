package report

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/rules"
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

func TestATrafficRedactorLearnsTheSecretsItSees(t *testing.T) {
	r := NewTrafficRedactor()
	token := &rules.Exchange{Surface: rules.SurfaceAuth, Method: http.MethodPost, Path: "/oauth/token", URL: "http://h/oauth/token",
		RequestHeader:  http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		RequestBody:    []byte("grant_type=client_credentials&client_id=me&client_secret=s3cr%26t"),
		Status:         200,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Set-Cookie": {"session=abc123; Path=/; HttpOnly"}},
		ResponseBody:   []byte(`{"access_token":"eyJhbGciOi.abc.def","token_type":"Bearer","expires_in":3600}`)}
	ex := r.Excerpt(token)
	assert.Equal(t, `{"access_token":"$TOKEN","token_type":"Bearer","expires_in":3600}`, ex.ResponseBody)
	assert.Equal(t, "grant_type=client_credentials&client_id=me&client_secret=$CLIENT_SECRET", ex.RequestBody)
	assert.Equal(t, "session=$COOKIE; Path=/; HttpOnly", ex.ResponseHeader["Set-Cookie"])
	assert.Contains(t, ex.Curl, `--data-urlencode "client_secret=$CLIENT_SECRET"`)

	// Every credential the traffic carries is someone's secret, known or not.
	read := &rules.Exchange{Surface: rules.SurfaceB, Method: http.MethodGet, Path: "/persons", URL: "http://h/api/v1/persons?access_token=other-token",
		RequestHeader:  http.Header{"Authorization": {"Bearer never-issued-here"}, "Client-Secret": {"legacy-secret"}, "Cookie": {"a=1; b=2"}},
		Status:         401,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody:   []byte(`{"code":"Unauthorized","message":"token never-issued-here, eyJhbGciOi.abc.def and legacy-secret refused"}`)}
	ex = r.Excerpt(read)
	assert.Equal(t, "Bearer $TOKEN", ex.RequestHeader["Authorization"])
	assert.Equal(t, "$CLIENT_SECRET", ex.RequestHeader["Client-Secret"])
	assert.Equal(t, "a=$COOKIE; b=$COOKIE", ex.RequestHeader["Cookie"])
	assert.Equal(t, `{"code":"Unauthorized","message":"token $TOKEN, $TOKEN and $CLIENT_SECRET refused"}`, ex.ResponseBody)
	assert.Equal(t, "http://h/api/v1/persons?access_token=$TOKEN", ex.URL)
	assert.Equal(t, "Bearer never-issued-here", read.RequestHeader.Get("Authorization"), "the exchange itself is untouched")

	basic := &rules.Exchange{URL: "http://h/oauth/token", RequestHeader: http.Header{"Authorization": {"Basic bWU6cGFzc3dvcmQx"}}} // me:password1
	assert.Equal(t, "Basic base64(me:$CLIENT_SECRET)", r.Excerpt(basic).RequestHeader["Authorization"])
	assert.Equal(t, "error: $CLIENT_SECRET and $CLIENT_SECRET", r.Text("error: s3cr&t and password1"))
}

func TestARedactorThatMasksPersonalData(t *testing.T) {
	r := NewTrafficRedactor()
	r.MaskPersonalData()
	ex := r.Excerpt(&rules.Exchange{Surface: rules.SurfaceB, Method: http.MethodPost, Path: "/persons/lookup",
		URL:            "http://h/api/v1/persons/lookup?mail=anna%40example.org",
		RequestHeader:  http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer tok-123456"}},
		RequestBody:    []byte(`{"civicNos":["201001011234"]}`),
		Status:         200,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}},
		ResponseBody:   []byte(`[{"id":"p1","givenName":"Anna","familyName":"Svensson","civicNo":{"value":"201001011234"}}]`)})
	assert.Equal(t, `{"civicNos":["190001010001"]}`, ex.RequestBody)
	assert.Equal(t, `[{"id":"p1","givenName":"Given1","familyName":"Family1","civicNo":{"value":"190001010001"}}]`, ex.ResponseBody)
	assert.Equal(t, "http://h/api/v1/persons/lookup?mail=person1%40example.invalid", ex.URL)
	assert.Contains(t, ex.Curl, `--data-raw '{"civicNos":["190001010001"]}'`)
	assert.Contains(t, ex.Curl, `"Authorization: Bearer $TOKEN"`)
	assert.Equal(t, "givenName Given1 in the list, Givn by id", r.Text("givenName Anna in the list, Givn by id"),
		"texts are masked with the stand-ins the bodies taught")
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
