package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/report"
)

// The contract document of a surface: a document passes, anything else
// answered 200 fails, and a 404 (a path the spec does not name) is skipped.
func TestDocumentCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		body   any
		want   report.Status
	}{
		{"an OpenAPI document", 200, map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "x", "version": "1"}, "paths": map[string]any{"/persons": map[string]any{}}}, report.StatusPass},
		{"JSON that is no OpenAPI document", 200, map[string]any{"hello": "world"}, report.StatusFail},
		{"a Swagger 2 document", 200, map[string]any{"swagger": "2.0", "info": map[string]any{}, "paths": map[string]any{"/x": map[string]any{}}}, report.StatusFail},
		{"no document at the path", 404, map[string]any{"code": "NotFound", "message": "no"}, report.StatusSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tokenThen(func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tc.status, tc.body)
			}))
			defer srv.Close()
			rep, err := Run(context.Background(), hostileConfig(srv.URL, "B.document"))
			require.NoError(t, err)
			assert.Equal(t, tc.want, resultOf(t, rep, "B.document").Status)
		})
	}
}
