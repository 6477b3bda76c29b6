package rules

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheValidationMemoAnswersAsTheValidationDoes(t *testing.T) {
	c, err := LoadContract(ProfileService)
	require.NoError(t, err)
	m := newValidationMemo()
	answer := func(body string) *Observation {
		return NewObservation(c, &Exchange{Surface: SurfaceB, Method: http.MethodGet, Path: "/organisations/6f0c7c52-8a2f-4bd4-9d5c-2b7d1b1f1a11",
			Status: http.StatusOK, ResponseHeader: http.Header{"Content-Type": {"application/json"}}, ResponseBody: []byte(body)})
	}
	bad := answer(`{"id":"6f0c7c52-8a2f-4bd4-9d5c-2b7d1b1f1a11"}`)
	require.NotNil(t, bad.Op)
	want := ValidateResponse(bad)
	require.NotEmpty(t, want, "a record without its required members")
	assert.Equal(t, want, m.validate(bad))
	assert.Equal(t, want, m.validate(answer(`{"id":"6f0c7c52-8a2f-4bd4-9d5c-2b7d1b1f1a11"}`)), "met again")
	assert.Equal(t, 1, m.entries.Len())

	other := answer(`{"id":"6f0c7c52-8a2f-4bd4-9d5c-2b7d1b1f1a11","displayName":1}`)
	assert.Equal(t, ValidateResponse(other), m.validate(other), "another body is validated anew")
	assert.Equal(t, 2, m.entries.Len())
	html := answer(`{"id":"6f0c7c52-8a2f-4bd4-9d5c-2b7d1b1f1a11"}`)
	html.ResponseHeader.Set("Content-Type", "text/html")
	assert.Equal(t, ValidateResponse(html), m.validate(html), "another content type is validated anew")
	assert.Equal(t, 3, m.entries.Len())
}
