package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeWebhookAllowHost: --webhook-allow-host lets subscriptions call
// back a host besides loopback; other hosts stay refused.
func TestServeWebhookAllowHost(t *testing.T) {
	p := startServe(t, "--addr", "127.0.0.1:0", "--scenario", "empty", "--webhook-allow-host", "hooks.example.test")
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"skolkit-client"}, "client_secret": {"skolkit-secret"}}
	resp, err := http.PostForm(p.base+"/oauth/token", form)
	require.NoError(t, err)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	defer resp.Body.Close()
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	auth := http.Header{"Authorization": {"Bearer " + tok.AccessToken}}
	subscribe := func(target string) int {
		return call(t, http.MethodPost, p.base+"/api/v1/subscriptions",
			`{"name":"n","target":"`+target+`","resourceTypes":[{"resource":"Person"}]}`, auth, nil)
	}
	assert.Equal(t, http.StatusCreated, subscribe("https://hooks.example.test/x"))
	assert.Equal(t, http.StatusCreated, subscribe("http://127.0.0.1:9/x"))
	assert.Equal(t, http.StatusBadRequest, subscribe("https://elsewhere.example.test/x"))
	require.Equal(t, 0, p.stop(t), p.output())
	assert.True(t, strings.Contains(p.output(), "skolkit mock stopped"))
}
