package mockserver

import (
	"encoding/base64"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenEndpointIssuesBearerTokens(t *testing.T) {
	h := newHarness(t)
	id, secret := h.srv.Credentials()
	basic := func(u, p string) http.Header {
		return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(u)+":"+url.QueryEscape(p)))}}
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		header http.Header
	}{
		{"client credentials in the form", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}, nil},
		{"client credentials by HTTP Basic", url.Values{"grant_type": {"client_credentials"}}, basic(id, secret)},
		{"a subset of the client's scopes", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {register.ScopeGroupsRead}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postForm(PathToken, tc.form, tc.header)
			require.Equal(t, http.StatusOK, res.status, res)
			assert.Equal(t, "no-store", res.header.Get("Cache-Control"))
			var body map[string]any
			res.decode(&body)
			assert.Equal(t, "Bearer", body["token_type"])
			assert.EqualValues(t, 3600, body["expires_in"])
			assert.NotContains(t, body, "refresh_token")
			raw, err := base64.RawURLEncoding.DecodeString(body["access_token"].(string))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, len(raw)*8, 128, "at least 128 random bits")
		})
	}
}

func TestTokenEndpointRejectsBadRequests(t *testing.T) {
	h := newHarness(t)
	id, secret := h.srv.Credentials()
	form := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		header      http.Header
		status      int
		code        string
	}{
		{"wrong grant type", "", form("grant_type", "password", "client_id", id, "client_secret", secret).Encode(), nil, 400, surface.OAuthUnsupportedGrantType},
		{"missing grant type", "", form("client_id", id, "client_secret", secret).Encode(), nil, 400, surface.OAuthInvalidRequest},
		{"missing client secret", "", form("grant_type", "client_credentials", "client_id", id).Encode(), nil, 400, surface.OAuthInvalidRequest},
		{"missing client id", "", form("grant_type", "client_credentials", "client_secret", secret).Encode(), nil, 400, surface.OAuthInvalidRequest},
		{"JSON instead of a form", surface.ContentTypeJSON, `{"grant_type":"client_credentials"}`, nil, 400, surface.OAuthInvalidRequest},
		{"no content type", "-", form("grant_type", "client_credentials", "client_id", id, "client_secret", secret).Encode(), nil, 400, surface.OAuthInvalidRequest},
		{"repeated parameter", "", "grant_type=client_credentials&grant_type=client_credentials&client_id=" + id + "&client_secret=" + secret, nil, 400, surface.OAuthInvalidRequest},
		{"two authentication methods", "", form("grant_type", "client_credentials", "client_id", id, "client_secret", secret).Encode(),
			http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))}}, 400, surface.OAuthInvalidRequest},
		{"a bearer header on the token request", "", form("grant_type", "client_credentials", "client_id", id, "client_secret", secret).Encode(),
			http.Header{"Authorization": {"Bearer abc"}}, 400, surface.OAuthInvalidRequest},
		{"unknown client", "", form("grant_type", "client_credentials", "client_id", "nobody", "client_secret", secret).Encode(), nil, 401, surface.OAuthInvalidClient},
		{"wrong secret", "", form("grant_type", "client_credentials", "client_id", id, "client_secret", secret+"x").Encode(), nil, 401, surface.OAuthInvalidClient},
		{"wrong secret by Basic", "", form("grant_type", "client_credentials").Encode(),
			http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(id+":nope"))}}, 401, surface.OAuthInvalidClient},
		{"scope the client does not have", "", form("grant_type", "client_credentials", "client_id", id, "client_secret", secret, "scope", "admin").Encode(), nil, 400, surface.OAuthInvalidScope},
		{"body too large", "", "grant_type=client_credentials&x=" + strings.Repeat("a", tokenBodyLimit), nil, 413, surface.OAuthInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, h.ts.URL+PathToken, strings.NewReader(tc.body))
			switch tc.contentType {
			case "":
				req.Header.Set("Content-Type", surface.ContentTypeForm)
			case "-":
			default:
				req.Header.Set("Content-Type", tc.contentType)
			}
			for k, v := range tc.header {
				req.Header[k] = v
			}
			res := h.do(req)
			require.Equal(t, tc.status, res.status, res)
			var body surface.OAuthError
			res.decode(&body)
			assert.Equal(t, tc.code, body.Error, res)
			assert.NotEmpty(t, body.ErrorDescription)
			assert.Equal(t, "no-store", res.header.Get("Cache-Control"))
			if tc.status == http.StatusUnauthorized {
				assert.Contains(t, res.header.Get("WWW-Authenticate"), "Basic")
			}
		})
	}
}

func TestTokenEndpointAcceptsOnlyPost(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PathToken, nil)
	res := h.do(req)
	require.Equal(t, http.StatusMethodNotAllowed, res.status, res)
	assert.Equal(t, "POST", res.header.Get("Allow"))
}

func TestTokenLifetimeAndBasicSecretsWithSpecialCharacters(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.TokenTTL = 90 * time.Second; o.ClientSecret = "p:a+s s/ö" })
	id, secret := h.srv.Credentials()
	res := h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}}, http.Header{
		"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))},
	})
	require.Equal(t, http.StatusOK, res.status, res)
	var tr tokenResponse
	res.decode(&tr)
	assert.Equal(t, 90, tr.ExpiresIn)
}

func TestRegisterInterfaceRequiresAValidBearerToken(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.TokenTTL = time.Minute })
	for _, tc := range []struct {
		name, authorization, challenge string
	}{
		{"no Authorization header", "", `Bearer realm="skolkit"`},
		{"another scheme", "Basic " + base64.StdEncoding.EncodeToString([]byte("a:b")), `error="invalid_request"`},
		{"empty bearer", "Bearer ", `error="invalid_request"`},
		{"bearer with two tokens", "Bearer a b", `error="invalid_request"`},
		{"unknown token", "Bearer " + strings.Repeat("A", 43), `error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixB+"/placements?limit=1", nil)
			if tc.authorization != "" {
				req.Header.Set("Authorization", tc.authorization)
			}
			res := h.do(req)
			require.Equal(t, http.StatusUnauthorized, res.status, res)
			assert.Equal(t, surface.CodeUnauthorized, res.errorBody(t).Code)
			assert.Contains(t, res.header.Get("WWW-Authenticate"), tc.challenge)
		})
	}
	t.Run("lower-case scheme is accepted", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+PrefixB+"/placements?limit=1", nil)
		req.Header.Set("Authorization", "bearer "+h.token)
		assert.Equal(t, http.StatusOK, h.do(req).status)
	})
	t.Run("expired token", func(t *testing.T) {
		require.Equal(t, http.StatusOK, h.get(PrefixB+"/placements?limit=1").status)
		h.clock.Advance(time.Minute)
		res := h.get(PrefixB + "/placements?limit=1")
		require.Equal(t, http.StatusUnauthorized, res.status, res)
		assert.Contains(t, res.header.Get("WWW-Authenticate"), `error="invalid_token"`)
	})
}

func TestRegisterInterfaceChecksScopes(t *testing.T) {
	h := newHarness(t)
	id, secret := h.srv.Credentials()
	res := h.postForm(PathToken, url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "scope": {register.ScopeGroupsRead}}, nil)
	require.Equal(t, http.StatusOK, res.status, res)
	var tr tokenResponse
	res.decode(&tr)
	h.token = tr.AccessToken
	res = h.get(PrefixB + "/placements?limit=1")
	require.Equal(t, http.StatusForbidden, res.status, res)
	assert.Equal(t, surface.CodeForbidden, res.errorBody(t).Code)
	assert.Contains(t, res.header.Get("WWW-Authenticate"), `error="insufficient_scope"`)
	res = h.postJSON(PrefixB+"/groups/lookup", `{"ids":[]}`)
	assert.Equal(t, http.StatusOK, res.status, res)
}

func TestContractIsServedWithoutAuthentication(t *testing.T) {
	h := newHarness(t)
	res, err := http.Get(h.ts.URL + PrefixB + "/openapi.json")
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, surface.ContentTypeJSON, res.Header.Get("Content-Type"))
}
