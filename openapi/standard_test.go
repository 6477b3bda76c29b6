package openapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandardResourcesDigestTheStandard compares the table the runner's
// generic checks come from with the official document.
func TestStandardResourcesDigestTheStandard(t *testing.T) {
	doc := loadSS12000(t)
	var want []StandardResource
	skip := []string{"/aggregatedAttendance", "/deletedEntities", "/subscriptions"}
	for path, item := range doc.Paths.Map() {
		if strings.Count(path, "/") != 1 || strings.Contains(path, "{") || item.Get == nil || slices.Contains(skip, path) {
			continue
		}
		r := StandardResource{Path: path}
		if it := doc.Paths.Value(path + "/{id}"); it != nil && it.Get != nil {
			r.ByID = true
		}
		if it := doc.Paths.Value(path + "/lookup"); it != nil && it.Post != nil {
			body := it.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
			_, ids := body.Properties["ids"]
			r.Lookup = ids
		}
		r.ListNames = item.Get.Parameters.GetByInAndName(openapi3.ParameterInQuery, "expandReferenceNames") != nil
		for _, p := range item.Get.Parameters {
			if p.Value.Required && p.Value.In == openapi3.ParameterInQuery {
				r.Required = append(r.Required, p.Value.Name)
			}
		}
		if sk := item.Get.Parameters.GetByInAndName(openapi3.ParameterInQuery, "sortkey"); sk != nil {
			r.ModifiedDesc = slices.Contains(sk.Schema.Value.Enum, any("ModifiedDesc"))
		}
		want = append(want, r)
	}
	slices.SortFunc(want, func(a, b StandardResource) int { return strings.Compare(a.Path, b.Path) })
	assert.Equal(t, want, StandardResources)
}

// TestStandardModeRelaxesOurChoices: the standard-mode register document
// accepts what the standard allows and our contract does not.
func TestStandardModeRelaxesOurChoices(t *testing.T) {
	std, err := Standard(NameRegister)
	require.NoError(t, err)
	ours := MustLoad().Doc(NameRegister)
	byID := func(doc *openapi3.T) *openapi3.Operation { return doc.Paths.Value("/groups/{id}").Get }
	assert.NotNil(t, byID(ours).Responses.Status(http.StatusNotFound).Value.Content, "our 404 has a body")
	assert.Nil(t, byID(std).Responses.Status(http.StatusNotFound).Value.Content, "the standard's 404 has none")
	assert.NotNil(t, byID(std).Responses.Default(), "any other status with the Error body")
	ref := std.Components.Schemas["PersonReference"].Value
	for _, part := range ref.AllOf {
		assert.NotContains(t, part.Value.Required, "securityMarking")
	}
	assert.NotContains(t, std.Components.Schemas["Placements"].Value.Required, "pageToken")
	assert.Contains(t, ours.Components.Schemas["Placements"].Value.Required, "pageToken", "the shared document is untouched")

	svc, err := Service(NameRegister)
	require.NoError(t, err)
	assert.Nil(t, byID(svc).Responses.Status(http.StatusNotFound).Value.Content, "service mode: the 404 body is our choice")
	for _, part := range svc.Components.Schemas["PersonReference"].Value.AllOf {
		if part.Value.Properties["securityMarking"] != nil {
			assert.Contains(t, part.Value.Required, "securityMarking", "service mode: the spec requires the marking")
		}
	}
	svcAuth, err := Service(NameAuth)
	require.NoError(t, err)
	assert.Contains(t, svcAuth.Components.Schemas["TokenResponse"].Value.Required, "expires_in")
	assert.NotNil(t, svcAuth.Components.Schemas["TokenResponse"].Value.Properties["token_type"].Value.Enum)

	auth, err := Standard(NameAuth)
	require.NoError(t, err)
	tr := auth.Components.Schemas["TokenResponse"].Value
	assert.Nil(t, tr.Properties["token_type"].Value.Enum)
	assert.NotContains(t, tr.Required, "expires_in")
	assert.Nil(t, tr.AdditionalProperties.Has)
}
