package openapi

// Invariants of auth.yaml (the token endpoint, RFC 6749 client credentials).

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func authOperation(t *testing.T) (*openapi3.T, *openapi3.Operation) {
	t.Helper()
	doc := mustShared(t).Doc(NameAuth)
	require.Equal(t, 1, doc.Paths.Len())
	item := doc.Paths.Value("/oauth/token")
	require.NotNil(t, item)
	require.Len(t, item.Operations(), 1)
	require.NotNil(t, item.Post)
	return doc, item.Post
}

func TestAuthRequestIsAFormWithClientCredentials(t *testing.T) {
	doc, op := authOperation(t)
	rb := op.RequestBody.Value
	assert.True(t, rb.Required)
	require.Len(t, rb.Content, 1)
	mt := rb.Content.Get("application/x-www-form-urlencoded")
	require.NotNil(t, mt)
	s := mt.Schema.Value
	assert.Equal(t, []string{"grant_type"}, s.Required, "client_id/client_secret are optional: HTTP Basic is the alternative")
	assert.Equal(t, []any{"client_credentials"}, s.Properties["grant_type"].Value.Enum)
	assert.Contains(t, s.Properties, "client_id")
	assert.Contains(t, s.Properties, "client_secret")
	assert.True(t, s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has,
		"unrecognised form parameters must be ignored (RFC 6749 §3.2)")

	basic := doc.Components.SecuritySchemes["basicAuth"]
	require.NotNil(t, basic)
	assert.Equal(t, "http", basic.Value.Type)
	assert.Equal(t, "basic", basic.Value.Scheme)
	require.NotNil(t, op.Security)
	require.Len(t, *op.Security, 2, "credentials in the body (no scheme) or HTTP Basic")
	assert.Empty(t, (*op.Security)[0])
	assert.Contains(t, (*op.Security)[1], "basicAuth")
}

func TestAuthTokenResponse(t *testing.T) {
	_, op := authOperation(t)
	r := op.Responses.Value("200").Value
	s := r.Content.Get("application/json").Schema.Value
	assert.ElementsMatch(t, []string{"access_token", "token_type", "expires_in"}, s.Required)
	assert.Equal(t, []any{"Bearer"}, s.Properties["token_type"].Value.Enum)
	assert.True(t, s.Properties["expires_in"].Value.Type.Is("integer"))
	assert.NotContains(t, s.Properties, "refresh_token", "no refresh token is issued")

	for _, name := range []string{"Cache-Control", "Pragma"} {
		h := r.Headers[name]
		require.NotNil(t, h, name)
		assert.True(t, h.Value.Required, name)
	}
	cc := r.Headers["Cache-Control"].Value.Schema.Value
	for _, ok := range []string{"no-store", "no-store, max-age=0", "private,no-store"} {
		assert.NoError(t, cc.VisitJSON(ok), ok)
	}
	for _, bad := range []string{"no-cache", "no-storex", ""} {
		assert.Error(t, cc.VisitJSON(bad), bad)
	}
	assert.NoError(t, r.Headers["Pragma"].Value.Schema.Value.VisitJSON("no-cache"))
}

func TestAuthErrors(t *testing.T) {
	_, op := authOperation(t)
	for _, status := range []string{"400", "401", "405", "413", "429", "500"} {
		r := op.Responses.Value(status)
		require.NotNil(t, r, status)
		mt := r.Value.Content.Get("application/json")
		require.NotNil(t, mt, status)
		assert.Equal(t, "#/components/schemas/TokenError", mt.Schema.Ref, status)
	}
	s := op.Responses.Value("400").Value.Content.Get("application/json").Schema.Value
	assert.Equal(t, []string{"error"}, s.Required)
	assert.Contains(t, s.Properties, "error_description")
	assert.Subset(t, s.Properties["error"].Value.Enum, []any{
		"invalid_request", "invalid_client", "invalid_grant",
		"unauthorized_client", "unsupported_grant_type", "invalid_scope",
	}, "every RFC 6749 §5.2 code")

	h := op.Responses.Value("401").Value.Headers["WWW-Authenticate"]
	require.NotNil(t, h)
	assert.True(t, h.Value.Required)
	h = op.Responses.Value("405").Value.Headers["Allow"]
	require.NotNil(t, h)
	assert.True(t, h.Value.Required)
}
