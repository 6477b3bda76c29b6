package directory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/search"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// Path prefixes of interface A and the data export.
const (
	PrefixA      = "/directory/v1"
	PrefixExport = "/data-export/v1"
)

// List limits of interface A.
const (
	DirectoryDefaultLimit = 50
	DirectoryMaxLimit     = 500
)

// dirProblem is an error a resource hook returns; the handler writes it.
type dirProblem struct {
	status  int
	code    string
	message string
	details []surface.FieldProblem
}

func (p *dirProblem) Error() string { return p.message }

func unprocessable(details ...surface.FieldProblem) *dirProblem {
	msgs := make([]string, len(details))
	for i, d := range details {
		msgs[i] = d.Field + ": " + d.Message
	}
	return &dirProblem{status: http.StatusUnprocessableEntity, code: surface.CodeUnprocessable, message: "the request failed validation: " + strings.Join(msgs, "; "), details: details}
}

// writeProblem maps a hook's error to its status and body.
func writeProblem(w http.ResponseWriter, r *http.Request, err error) {
	var p *dirProblem
	var re *store.RefError
	var ce *store.ConflictError
	switch {
	case errors.As(err, &p):
		surface.WriteDirectoryError(w, r, p.status, p.code, p.message, p.details...)
	case errors.As(err, &re):
		surface.WriteDirectoryError(w, r, http.StatusUnprocessableEntity, surface.CodeUnprocessable, re.Error(), surface.FieldProblem{Field: "/" + strings.ReplaceAll(strings.TrimSuffix(re.Field, ".id"), ".", "/"), Message: fmt.Sprintf("no record with id %s", re.ID)})
	case errors.As(err, &ce):
		surface.WriteDirectoryError(w, r, http.StatusConflict, surface.CodeConflict, ce.Message)
	case errors.Is(err, store.ErrNotFound):
		surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, "no such record")
	default:
		surface.WriteDirectoryError(w, r, http.StatusInternalServerError, surface.CodeInternal, "unexpected server error")
	}
}

// listParams reads limit and offset (the contract has checked their ranges).
func (s *API) listParams(r *http.Request) (limit, offset int) {
	limit, offset = listParams(r)
	if s.deviates(deviation.ListLimitIgnored) {
		limit = DirectoryDefaultLimit
	}
	return limit, offset
}

func listParams(r *http.Request) (limit, offset int) {
	limit, offset = DirectoryDefaultLimit, 0
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("offset"); v != "" {
		offset, _ = strconv.Atoi(v)
	}
	return limit, offset
}

// Pagination is the pagination object of interface-A lists.
type Pagination struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	Total  int `json:"total"`
}

// writeList writes a list in the scenario's list shape: "data" as an array,
// or the alternative "data.resultArray".
func (s *API) writeList(w http.ResponseWriter, items []any, limit, offset, total int) {
	if s.deviates(deviation.PaginationTotalWrong) {
		total++
	}
	body := map[string]any{"pagination": Pagination{Offset: offset, Limit: limit, Total: total}}
	if s.core.ListShape == ListShapeResultArray {
		body["data"] = map[string]any{"resultArray": items}
	} else {
		body["data"] = items
	}
	surface.WriteJSON(w, http.StatusOK, body)
}

// List shapes of interface A.
const (
	ListShapeData        = "data"
	ListShapeResultArray = "data.resultArray"
)

// dirResource is one interface-A resource: its paths, scope, searchable
// fields and the hooks that read and write it.
type dirResource struct {
	name      string // as in messages: "school"
	path      string // "/school"
	scope     string // scope prefix: "school" → school:read, school:write
	schema    string // contract schema name of the record: "School"
	canSearch bool
	canDelete bool
	fields    search.Fields

	// scan calls fn with each stored record in list order until fn returns false.
	scan func(sn *store.Snapshot, fn func(rec any) bool)
	// get returns the stored record with the id, when it is of this resource.
	get func(sn *store.Snapshot, id string) (any, bool)
	// render turns a stored record into the wire record.
	render func(sn *store.Snapshot, rec any) any
	// getters read the searchable fields from a stored record, as render
	// shows them (search.go); every searchable field has one.
	getters fieldSet
	// lookups are the indexes an equality in a search filter may use to find
	// the candidates instead of the scan (search.go).
	lookups []equalityLookup
	// since is the index of meta.updatedAt a lower bound on it may use
	// (search.go); nil: none.
	since *sinceLookup
	// create stores a new record from a validated body and returns its id;
	// by is the writing API client's id (meta.createdBy).
	create func(s *API, by string, body map[string]json.RawMessage) (string, error)
	// patch changes the record with the id as the validated body says.
	patch func(s *API, by, id string, body map[string]json.RawMessage) error
	// remove deletes the record with the id.
	remove func(s *API, by, id string) error
	// readOnly leaves out create and PATCH (audit events).
	readOnly bool

	// table is the store table the resource shows records of, and member
	// tells the stored records it shows (nil: every record of the table).
	table  string
	member func(rec any) bool
	// logged: a deletion of one of its records is written to the deletion
	// log under the resource's schema name (else under the table's name);
	// audited: interface A shows those deletions as audit events.
	logged, audited bool
}

// shows reports whether a stored record of the table is one of the
// resource's.
func (res *dirResource) shows(table string, rec any) bool {
	return res.table == table && (res.member == nil || res.member(rec))
}

// directoryResources are interface A's resources, each a description of
// its paths, scope and hooks over a table of the store.
func (s *API) directoryResources() []*dirResource {
	return []*dirResource{s.schoolResource(), s.groupResource(), s.unitResource(), s.auditEventResource(),
		s.personResource(model.RoleStudent, "Student"), s.personResource(model.RoleEmployee, "Employee"), s.personResource(model.RoleGuardian, "Guardian"),
		s.studentPlacementResource(), s.employeePlacementResource(),
		s.gradeElementaryResource(), s.gradeUpperSecondaryResource()}
}

// endpoints returns the operations of the resource.
func (res *dirResource) endpoints(s *API) []surface.Endpoint {
	read, write := res.scope+":read", res.scope+":write"
	base := PrefixA + res.path
	eps := []surface.Endpoint{
		{Method: http.MethodGet, Path: base, Scope: read, Doc: openapi.NameDirectory, Handle: res.list(s)},
		{Method: http.MethodGet, Path: base + "/{id}", Scope: read, Doc: openapi.NameDirectory, Handle: res.getHandler(s)},
	}
	if !res.readOnly {
		eps = append(eps,
			surface.Endpoint{Method: http.MethodPost, Path: base, Scope: write, Doc: openapi.NameDirectory, Handle: res.createHandler(s)},
			surface.Endpoint{Method: http.MethodPatch, Path: base + "/{id}", Scope: write, Doc: openapi.NameDirectory, Handle: res.patchHandler(s)})
	}
	if res.canSearch {
		eps = append(eps, surface.Endpoint{Method: http.MethodPost, Path: base + "/_search", Scope: read, Doc: openapi.NameDirectory, Handle: res.searchHandler(s)})
	}
	if res.canDelete {
		eps = append(eps, surface.Endpoint{Method: http.MethodDelete, Path: base + "/{id}", Scope: write, Doc: openapi.NameDirectory, Handle: res.deleteHandler(s)})
	}
	for i := range eps {
		eps[i].Kind = surface.Directory
	}
	return eps
}

func (res *dirResource) list(s *API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit, offset := s.listParams(r)
		res.writePage(s, w, s.store.Read(), limit, offset, nil, nil)
	}
}

// withoutMember is deviation.ListDropsField: the rendered record with the member
// (when it has one) null.
func withoutMember(item any, name string) any {
	var m map[string]any
	if b, err := json.Marshal(item); err != nil || json.Unmarshal(b, &m) != nil {
		return item
	}
	if _, ok := m[name]; ok {
		m[name] = nil
	}
	return m
}

// writePage writes the page [offset, offset+limit) of the resource's stored
// records that match (all when match is nil), with the total of matching
// records. records, when not nil, replaces the resource's scan: they must be
// in list order and hold every record of the resource that match accepts.
// Only the page is rendered.
func (res *dirResource) writePage(s *API, w http.ResponseWriter, sn *store.Snapshot, limit, offset int, match func(rec any) bool, records []any) {
	items := []any{}
	total := 0
	visit := func(rec any) bool {
		if match != nil && !match(rec) {
			return true
		}
		if total >= offset && total < offset+limit {
			item := res.render(sn, rec)
			if s.deviates(deviation.ListDropsField) {
				item = withoutMember(item, "phoneNumber1")
			}
			items = append(items, item)
		}
		total++
		return true
	}
	if records != nil {
		for _, rec := range records {
			visit(rec)
		}
	} else {
		res.scan(sn, visit)
	}
	s.writeList(w, items, limit, offset, total)
}

func (res *dirResource) searchHandler(s *API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(r)
		if err != nil {
			surface.WriteDirectoryError(w, r, http.StatusBadRequest, surface.CodeBadRequest, err.Error())
			return
		}
		if s.deviates(deviation.NestedMetaFilterIgnored) {
			body = withoutMetaConditions(body)
		}
		f, violations, err := search.Parse(body, res.fields)
		switch {
		case err != nil:
			surface.WriteDirectoryError(w, r, http.StatusBadRequest, surface.CodeBadRequest, err.Error())
			return
		case len(violations) > 0:
			details := make([]surface.FieldProblem, len(violations))
			for i, v := range violations {
				details[i] = surface.FieldProblem{Field: v.Pointer, Message: v.Message}
			}
			writeProblem(w, r, unprocessable(details...))
			return
		}
		limit, offset := s.listParams(r)
		sn := s.store.Read()
		if s.deviates(deviation.SearchIgnoresFilter) {
			res.writePage(s, w, sn, limit, offset, nil, nil)
			return
		}
		res.writePage(s, w, sn, limit, offset, res.matcher(sn, f), res.candidates(sn, f))
	}
}

func (res *dirResource) getHandler(s *API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := surface.PathID(r)
		sn := s.store.Read()
		rec, ok := res.get(sn, id)
		if !ok {
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, fmt.Sprintf("no %s with id %s", res.name, id))
			return
		}
		surface.WriteJSON(w, http.StatusOK, res.render(sn, rec))
	}
}

func (res *dirResource) createHandler(s *API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, ok := decodeObject(w, r)
		if !ok {
			return
		}
		by := s.actorOf(r)
		withSource(body, by)
		id, err := res.create(s, by, body)
		if err != nil {
			writeProblem(w, r, err)
			return
		}
		sn := s.store.Read()
		rec, _ := res.get(sn, id)
		w.Header().Set("Location", PrefixA+res.path+"/"+id)
		surface.WriteJSON(w, http.StatusCreated, res.render(sn, rec))
	}
}

func (res *dirResource) patchHandler(s *API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := surface.PathID(r)
		if _, ok := res.get(s.store.Read(), id); !ok {
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, fmt.Sprintf("no %s with id %s", res.name, id))
			return
		}
		body, ok := decodeObject(w, r)
		if !ok {
			return
		}
		by := s.actorOf(r)
		withSource(body, by)
		if err := res.patch(s, by, id, body); err != nil {
			writeProblem(w, r, err)
			return
		}
		sn := s.store.Read()
		rec, ok := res.get(sn, id)
		if !ok {
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, fmt.Sprintf("no %s with id %s", res.name, id))
			return
		}
		surface.WriteJSON(w, http.StatusOK, res.render(sn, rec))
	}
}

func (res *dirResource) deleteHandler(s *API) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := surface.PathID(r)
		if _, ok := res.get(s.store.Read(), id); !ok {
			if s.deviates(deviation.DeleteRepeat204) && wasDeleted(s.store.Read(), id) {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, fmt.Sprintf("no %s with id %s", res.name, id))
			return
		}
		if err := res.remove(s, s.actorOf(r), id); err != nil {
			writeProblem(w, r, err)
			return
		}
		if s.deviates(deviation.RateLimitHeadersMissingOn204) {
			for _, h := range []string{surface.HeaderRateLimit, surface.HeaderRateRemaining, surface.HeaderRateReset} {
				w.Header().Del(h)
			}
		}
		if s.deviates(deviation.DeleteNot204) {
			surface.WriteJSON(w, http.StatusOK, map[string]string{"deleted": id})
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// wasDeleted reports whether a record with the id has a tombstone
// (deviation.DeleteRepeat204).
func wasDeleted(sn *store.Snapshot, id string) bool {
	for _, t := range sn.Tombstones(time.Time{}) {
		if t.RecordID == id {
			return true
		}
	}
	return false
}

func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("the request body could not be read")
	}
	return b, nil
}

// decodeObject reads a JSON object body (the contract has validated it) as
// its members, so that an absent member and a null one can be told apart.
func decodeObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	var body map[string]json.RawMessage
	if err := surface.DecodeWhole(r.Body, &body); err != nil || body == nil {
		surface.WriteDirectoryError(w, r, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not a JSON object")
		return nil, false
	}
	return body, true
}

// filterOps are the operators of each per-operator filter schema of the
// contract (<Name>FilterEquals, ...), as the vendor document groups them.
var filterOps = map[string]search.OpSet{
	"Equals":   search.Ops(search.OpEquals, search.OpNotEquals),
	"Range":    search.Ops(search.OpGreaterThan, search.OpSmallerThan, search.OpGreaterOrEqual, search.OpSmallerOrEqual),
	"Contains": search.Ops(search.OpContains, search.OpNotContains),
	"Like":     search.Ops(search.OpLike, search.OpNotLike),
	"Null":     search.Ops(search.OpNull, search.OpNotNull),
}

// searchFields derives a resource's searchable fields from the contract: the
// members of its per-operator filter schemas <Name>FilterEquals, -Range,
// -Contains, -Like and -Null (a field takes the operators of the schemas
// that list it), typed by the record schema <Name>. A member whose record
// property is an object (meta, external, address) is a group: its fields
// are searchable as "meta.updatedAt" and so on, with the operators of the
// group's own filter schema (MetaFilterRange, ...).
func searchFields(doc *openapi3.T, name string) (search.Fields, error) {
	rec := doc.Components.Schemas[name]
	if rec == nil {
		return nil, fmt.Errorf("contract directory has no %s schema", name)
	}
	fields := search.Fields{}
	var visit func(filter, record *openapi3.Schema, prefix string, ops search.OpSet) error
	visit = func(filter, record *openapi3.Schema, prefix string, ops search.OpSet) error {
		for prop, fref := range filter.Properties {
			rp := record.Properties[prop]
			if rp == nil {
				return fmt.Errorf("contract directory: %s has no property %q that its filter names", name, prefix+prop)
			}
			sch := unwrap(rp.Value)
			if sch.Type.Is(openapi3.TypeObject) && len(sch.Properties) > 0 {
				if err := visit(unwrap(fref.Value), sch, prefix+prop+".", ops); err != nil {
					return err
				}
				continue
			}
			fname := prefix + prop
			f, ok := fields[fname]
			if !ok {
				f = fieldOf(fname, rp.Value)
			}
			f.Ops |= ops
			fields[fname] = f
		}
		return nil
	}
	for suffix, ops := range filterOps {
		fs := doc.Components.Schemas[name+"Filter"+suffix]
		if fs == nil {
			return nil, fmt.Errorf("contract directory has no %sFilter%s schema", name, suffix)
		}
		if err := visit(fs.Value, rec.Value, "", ops); err != nil {
			return nil, err
		}
	}
	return fields, fields.Check()
}

// unwrap is the schema a nullable allOf wrapper stands for.
func unwrap(sch *openapi3.Schema) *openapi3.Schema {
	if len(sch.AllOf) == 1 {
		return sch.AllOf[0].Value
	}
	return sch
}

// fieldOf types a searchable field by its record property.
func fieldOf(name string, prop *openapi3.Schema) search.Field {
	f := search.Field{Name: name, Nullable: prop.Nullable}
	sch := unwrap(prop)
	switch {
	case sch.Type.Is(openapi3.TypeArray):
		f.Kind = search.StringList
		if sch.Items != nil {
			items := unwrap(sch.Items.Value)
			if items.Format == "uuid" {
				f.Kind = search.UUIDList
			}
			for _, e := range items.Enum {
				f.Enum = append(f.Enum, fmt.Sprint(e))
			}
		}
	case sch.Type.Is(openapi3.TypeBoolean):
		f.Kind = search.Bool
	case sch.Type.Is(openapi3.TypeInteger):
		f.Kind = search.Int
	case len(sch.Enum) > 0:
		f.Kind = search.Enum
		for _, e := range sch.Enum {
			f.Enum = append(f.Enum, fmt.Sprint(e))
		}
	case sch.Format == "uuid":
		f.Kind = search.UUID
	case sch.Format == "date":
		f.Kind = search.Date
	case sch.Format == "date-time":
		f.Kind = search.DateTime
	default:
		f.Kind = search.String
	}
	return f
}

// Helpers for reading the members of a validated request body.

// member decodes body[key] into dst when present; it reports presence.
func member(body map[string]json.RawMessage, key string, dst any) bool {
	raw, ok := body[key]
	if !ok {
		return false
	}
	_ = json.Unmarshal(raw, dst) // the contract has validated the type
	return true
}

// optString returns a nullable string member: nil for null or "".
func optString(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// today is the clock's date in Stockholm, where the service's days are.
func (s *API) today() model.Date {
	return model.DateOf(s.now().In(stockholm))
}

var stockholm = surface.Stockholm

// clientSpace is the uuid namespace of API clients' ids (meta.createdBy).
var clientSpace = uuid.MustParse("9a0c3e4b-6f0d-4b8e-b2f5-7d1c2a9e8b40")

// ClientUUID is the stable id interface A shows for an API client in
// meta.createdBy and meta.updatedBy: a name-based (SHA-1) uuid of the
// client's id, the same for every server and every run.
func ClientUUID(clientID string) string {
	if clientID == "" {
		return ""
	}
	return uuid.NewSHA1(clientSpace, []byte(clientID)).String()
}

// actorOf is the id of the API client that made the request ("" when none).
func (s *API) actorOf(r *http.Request) string {
	g, _ := surface.GrantOf(r)
	return ClientUUID(g.ClientID)
}

// withSource completes a request's external member: the vendor's
// ExternalRequest has only sourceID; the stored External names the API
// client that wrote it as its source.
func withSource(body map[string]json.RawMessage, by string) {
	raw, ok := body["external"]
	if !ok {
		return
	}
	var ext struct {
		SourceID *string `json:"sourceID"`
	}
	if json.Unmarshal(raw, &ext) != nil || ext.SourceID == nil {
		return
	}
	var src *string
	if by != "" {
		src = &by
	}
	b, _ := json.Marshal(model.External{Source: src, SourceID: ext.SourceID})
	body["external"] = b
}

// DirectoryMeta is the meta of every interface-A record (the vendor's Meta):
// when the record was created and last changed, and by which API client.
type DirectoryMeta struct {
	CreatedAt time.Time  `json:"createdAt"`
	CreatedBy *string    `json:"createdBy"`
	UpdatedAt *time.Time `json:"updatedAt"`
	UpdatedBy *string    `json:"updatedBy"`
}

// dirMeta renders a stored record's meta for interface A: created becomes
// createdAt, modified updatedAt.
func dirMeta(m model.Meta) DirectoryMeta {
	mod := m.Modified
	return DirectoryMeta{CreatedAt: m.Created, CreatedBy: m.CreatedBy, UpdatedAt: &mod, UpdatedBy: m.UpdatedBy}
}

// withoutMetaConditions drops the nested meta conditions of a search body
// (the deviation nested-meta-filter-ignored); a body it cannot read is
// returned as it is.
func withoutMetaConditions(body []byte) []byte {
	var b map[string]any
	if json.Unmarshal(body, &b) != nil {
		return body
	}
	var strip func(f any)
	strip = func(f any) {
		m, ok := f.(map[string]any)
		if !ok {
			return
		}
		for k, v := range m {
			switch k {
			case search.KeyOrCondition:
			case search.KeyNestedFilters:
				if l, ok := v.([]any); ok {
					for _, n := range l {
						strip(n)
					}
				}
			default:
				if op, ok := v.(map[string]any); ok {
					delete(op, "meta")
				}
			}
		}
	}
	strip(b[search.KeyFilter])
	out, err := json.Marshal(b)
	if err != nil {
		return body
	}
	return out
}
