package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/openapi"
)

// The vendor's update schemas (StudentUpdate, ...) require some members
// (identityNumber, firstName and lastName of a person; title of a school or
// group; startDate of a placement...). Most tests of interface A's PATCH are
// about one member; withRequired lets them send just that member: it
// completes a PATCH body to an interface-A record with the required members
// it lacks, copied from the record as GET shows it. A body that is not a
// JSON object, or a record that cannot be read, is sent as it is. Tests of
// the required members themselves send their bodies with sendRaw.

// updateSchema is the request body schema of PATCH on the path, or nil.
func (h *harness) updateSchema(path string) *openapi3.Schema {
	doc := h.srv.contract.Doc(openapi.NameDirectory)
	rel := strings.TrimPrefix(path, PrefixA)
	parts := strings.Split(strings.Trim(rel, "/"), "/")
	if !strings.HasPrefix(path, PrefixA+"/") || len(parts) != 2 {
		return nil
	}
	item := doc.Paths.Value("/" + parts[0] + "/{id}")
	if item == nil || item.Patch == nil || item.Patch.RequestBody == nil {
		return nil
	}
	mt := item.Patch.RequestBody.Value.Content.Get(surface.ContentTypeJSON)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// withRequired returns body completed with the update schema's required
// members that it lacks.
func (h *harness) withRequired(path, body string) string {
	sch := h.updateSchema(path)
	if sch == nil || len(sch.Required) == 0 {
		return body
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &m) != nil || m == nil {
		return body
	}
	var cur map[string]json.RawMessage
	res := h.sendRaw(http.MethodGet, path, "")
	if res.status != http.StatusOK || json.Unmarshal(res.body, &cur) != nil {
		return body
	}
	changed := false
	for _, name := range sch.Required {
		if _, ok := m[name]; !ok {
			if v, ok := cur[name]; ok {
				m[name] = v
				changed = true
			}
		}
	}
	if !changed {
		return body
	}
	out, _ := json.Marshal(m)
	return string(out)
}
