package openapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegisterSS12000IsAValidDocument: the ss12000 profile's document
// validates, and its JSON rendering loads back as the same document.
func TestRegisterSS12000IsAValidDocument(t *testing.T) {
	doc, js := RegisterSS12000()
	require.NoError(t, doc.Validate(context.Background()))
	back, err := LoadFrom(NameRegister, js)
	require.NoError(t, err, "the JSON rendering loads")
	assert.Equal(t, "ss12000", back.Info.Extensions["x-skolkit-profile"])
	assert.Equal(t, []any{"Beviljad ledighet", "Anmäld frånvaro"}, back.Components.Schemas["Absence"].Value.Properties["type"].Value.Enum)
	service := mustShared(t).Doc(NameRegister)
	assert.Equal(t, len(service.Paths.Map()), len(doc.Paths.Map()), "the same operations")
	assert.Contains(t, service.Components.Schemas["Absence"].Value.Required, "registrationDate", "the shared document is left as it was")
}
