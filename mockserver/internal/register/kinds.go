package register

import (
	"fmt"
	"slices"
	"sync"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// kinds are the resources an API serves, checked against the store's schema
// and indexed by what the engine asks of them: the resource that shows a
// table (a reference into it, a change of it), the resource of an SS 12000
// resource type (deletedEntities).
type kinds struct {
	all     []*Resource
	byTable map[string]*Resource // the stored resource of each table (not a computed list)
	byType  map[model.ResourceType]*Resource
	// refTypes holds whether a record type can hold a reference
	// (renderer.holdsRefs): reflect.Type → bool.
	refTypes sync.Map
}

// newKinds checks the descriptions against the schema (every table, filter
// index and sortkey index exists; names and types are unique) and indexes
// them. It sets a description's visible from its table's Hidden
// (store.Table) when the description has none: the descriptions are the
// API's own.
func newKinds(schema *store.Schema, resources []*Resource) (*kinds, error) {
	k := &kinds{byTable: map[string]*Resource{}, byType: map[model.ResourceType]*Resource{}}
	names := map[string]bool{}
	for _, res := range resources {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("interface B resource %q: %s", res.name, fmt.Sprintf(format, args...))
		}
		if names[res.name] {
			return nil, fail("declared twice")
		}
		names[res.name] = true
		if !schema.Has(res.table) {
			return nil, fail("no table %q in the store", res.table)
		}
		for _, f := range res.filters {
			if f.index != "" && !schema.HasIndex(res.table, f.index) {
				return nil, fail("filter %s: table %q has no index %q", f.param, res.table, f.index)
			}
		}
		for key, so := range res.sorts {
			if so.key == nil && !schema.HasIndex(res.table, so.index) {
				return nil, fail("sortkey %s: table %q has no index %q", key, res.table, so.index)
			}
		}
		if res.visible == nil {
			if hidden := schema.HiddenFunc(res.table); hidden != nil {
				res.visible = func(obj any) bool { return !hidden(obj) }
			}
		}
		if res.compute == nil {
			if _, dup := k.byTable[res.table]; !dup {
				k.byTable[res.table] = res
			}
		}
		if res.typ != "" {
			if other, dup := k.byType[res.typ]; dup {
				return nil, fail("resource type %s is %q's too", res.typ, other.name)
			}
			k.byType[res.typ] = res
		}
		k.all = append(k.all, res)
	}
	return k, nil
}

// types are the resource types of the resources: SS 12000's, in the
// document's order, then the others in the order of the resources.
func (k *kinds) types() []model.ResourceType {
	out := slices.Clone(model.ResourceTypes)
	for _, res := range k.all {
		if res.typ != "" && !slices.Contains(out, res.typ) {
			out = append(out, res.typ)
		}
	}
	return out
}

// typeOf is the SS 12000 resource type of a table's records, if interface B
// shows the table.
func (k *kinds) typeOf(table string) (model.ResourceType, bool) {
	res, ok := k.byTable[table]
	if !ok || res.typ == "" {
		return "", false
	}
	return res.typ, true
}

// displayName is the name a reference to a record of the table shows.
func (k *kinds) displayName(sn *store.Snapshot, table, id string) string {
	res, ok := k.byTable[table]
	if !ok || res.displayName == nil {
		return ""
	}
	obj, ok := sn.Get(table, id)
	if !ok {
		return ""
	}
	return res.displayName(sn, obj)
}

// byName is the resource of a path segment.
func (k *kinds) byName(name string) *Resource {
	for _, res := range k.all {
		if res.name == name {
			return res
		}
	}
	return nil
}
