package report

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skolkit/skolkit/rules"
)

func TestRedactionAndCurl(t *testing.T) {
	red := NewRedactor("s3cret'$x")
	red.AddToken("tok-123456")
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"client"}, "client_secret": {"s3cret'$x"}}
	ex := red.Excerpt(&rules.Exchange{Surface: rules.SurfaceAuth, Method: http.MethodPost, Path: "/oauth/token", URL: "http://auth.example/oauth/token",
		RequestHeader: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "User-Agent": {"skolkit-conformance"}}, RequestBody: []byte(form.Encode()),
		Status: 200, ResponseBody: []byte(`{"access_token":"tok-123456"}`)})
	for _, s := range []string{ex.URL, ex.RequestBody, ex.ResponseBody, ex.Curl} {
		assert.NotContains(t, s, "s3cret")
		assert.NotContains(t, s, "tok-123456")
	}
	assert.Contains(t, ex.Curl, `--data-urlencode "client_secret=$CLIENT_SECRET"`)
	assert.NotContains(t, ex.Curl, "User-Agent", "what the HTTP client adds is left out")
	assert.Contains(t, ex.ResponseBody, "$TOKEN")

	b := &rules.Exchange{Surface: rules.SurfaceB, Method: http.MethodGet, Path: "/placements", URL: "http://b.example/api/v1/placements?x=it's",
		RequestHeader: http.Header{"Authorization": {"Bearer tok-123456"}}}
	assert.Equal(t, `curl -sS -i 'http://b.example/api/v1/placements?x=it'\''s' -H "Authorization: Bearer $TOKEN"`, red.Excerpt(b).Curl)
	// An unknown (deliberately wrong) token is shown as sent.
	b.RequestHeader = http.Header{"Authorization": {"Bearer garbage-token-value"}}
	assert.Contains(t, red.Excerpt(b).Curl, "garbage-token-value")
	// A second client's secret has a variable of its own.
	red.AddSecret("limited-secret", "$LIMITED_CLIENT_SECRET")
	b.RequestHeader = http.Header{"Authorization": {"Basic " + "bGltaXRlZDpsaW1pdGVkLXNlY3JldA=="}}
	assert.Contains(t, red.Excerpt(b).Curl, `-u "limited:$LIMITED_CLIENT_SECRET"`)
}

func TestShellQuoteKeepsOnlyTheVariables(t *testing.T) {
	assert.Equal(t, `"Authorization: Bearer $TOKEN"`, ShellQuote("Authorization: Bearer $TOKEN"))
	assert.Equal(t, `"a\$b $CLIENT_SECRET \"q\""`, ShellQuote(`a$b $CLIENT_SECRET "q"`))
	assert.Equal(t, `'plain $HOME'`, ShellQuote("plain $HOME"))
}
