package conformance

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/openapi"
)

// The vendor's wire format: helpers the interface-A checks share.
//
// The vendor's update schemas (GroupUpdate, StudentUpdate, ...) require some
// members; a check that changes one field sends those along with the values
// the record has (withRequired), as a client of the vendor's SDK must.

// updateRequired is the members the contract's PATCH body of the resource
// at prefix ("/group", "/student-placements") requires.
var updateRequired = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	c, err := openapi.Shared()
	if err != nil {
		return out
	}
	for path, item := range c.Doc(openapi.NameDirectory).Paths.Map() {
		prefix, ok := strings.CutSuffix(path, "/{id}")
		if !ok || item.Patch == nil || item.Patch.RequestBody == nil {
			continue
		}
		mt := item.Patch.RequestBody.Value.Content.Get(mimeJSON)
		if mt != nil && mt.Schema != nil {
			out[prefix] = mt.Schema.Value.Required
		}
	}
	return out
})

// createMembers is the members the contract's POST body of the resource at
// prefix ("/grade-elementary") has.
var createMembers = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	c, err := openapi.Shared()
	if err != nil {
		return out
	}
	for path, item := range c.Doc(openapi.NameDirectory).Paths.Map() {
		if item.Post == nil || item.Post.RequestBody == nil {
			continue
		}
		if mt := item.Post.RequestBody.Value.Content.Get(mimeJSON); mt != nil && mt.Schema != nil {
			out[path] = slices.Sorted(maps.Keys(mt.Schema.Value.Properties))
		}
	}
	return out
})

// withRequired returns the patch completed with the required members of the
// resource's update body that it lacks, taken from the current record.
func withRequired(prefix string, cur, patch map[string]any) map[string]any {
	out := maps.Clone(patch)
	for _, name := range updateRequired()[prefix] {
		if _, ok := out[name]; !ok {
			if v, ok := cur[name]; ok {
				out[name] = v
			}
		}
	}
	return out
}

// current GETs an interface-A record (nil when it cannot be read).
func (t *T) current(path string) map[string]any {
	resp := t.Get(SurfaceA, path, nil)
	if resp.Status != http.StatusOK {
		return nil
	}
	o, _ := resp.Object()
	return o
}
