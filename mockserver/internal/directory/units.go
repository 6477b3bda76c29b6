package directory

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// Units and audit events: the two interface-A resources that the vendor
// document has beyond the service spec.
//
// A Unit is an organisation element of the store of type
// model.OrganisationTypeUnit (Förvaltning) with a Unit extension: interface
// B lists it among its organisations. Units can be listed, created, searched,
// read and changed, not deleted. A School's unitID must name a Unit (an
// interface-A link only: the school's SS 12000 parent stays the organiser).
//
// An AuditEvent is the interface-A view of the store's deletion log
// (store/tombstones.go): one event per tombstone of the six kinds the vendor
// audits. Events are read-only.

// DirectoryUnit is a Unit of interface A.
type DirectoryUnit struct {
	ID          string          `json:"id"`
	Meta        DirectoryMeta   `json:"meta"`
	External    *model.External `json:"external"`
	Title       string          `json:"title"`
	Description *string         `json:"description"`
}

func renderUnit(o *model.Organisation) DirectoryUnit {
	out := DirectoryUnit{ID: o.ID, Meta: dirMeta(o.Meta), Title: o.DisplayName}
	if x := o.Unit; x != nil {
		out.External, out.Description = x.External, x.Description
	}
	return out
}

// unitGetters read the searchable fields of a Unit as renderUnit shows them.
var unitGetters = fieldGetters[model.Organisation]{
	"id":          func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return textField(o.ID) },
	"title":       func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return textField(o.DisplayName) },
	"description": func(_ *store.Snapshot, o *model.Organisation) (any, bool) { return ptrText(o.Unit.Description) },
}

func isUnit(o *model.Organisation) bool { return o.Unit != nil }

func (s *API) unitResource() *dirResource {
	return &dirResource{
		name: "unit", path: "/unit", scope: "unit", schema: "Unit", canSearch: true,
		table: store.TableOrganisations, member: func(o any) bool { return isUnit(o.(*model.Organisation)) },
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TableOrganisations, store.IndexUnitsByCreated, "", fn)
		},
		get: func(sn *store.Snapshot, id string) (any, bool) {
			o, ok := sn.Organisation(id)
			return o, ok && isUnit(o)
		},
		render: func(_ *store.Snapshot, rec any) any { return renderUnit(rec.(*model.Organisation)) },
		since: &sinceLookup{table: store.TableOrganisations, member: func(obj any) bool { return isUnit(obj.(*model.Organisation)) },
			listOrder: orgListOrder},
		getters: withRecordGetters(unitGetters, func(o *model.Organisation) *model.Meta { return &o.Meta },
			func(o *model.Organisation) *model.External { return o.Unit.External }),
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			o := model.Organisation{ID: uuid.NewString(), OrganisationType: model.OrganisationTypeUnit, Unit: &model.UnitExtra{}}
			applyUnit(&o, body)
			return o.ID, s.store.WriteBy(by, func(w *store.Writer) error {
				if org, ok := organiser(w.Read()); ok {
					o.ParentOrganisation = &model.ObjectReference{ID: org}
				}
				_, _, err := w.PutOrganisation(o)
				return err
			})
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().Organisation(id)
				if !ok || !isUnit(cur) {
					return store.ErrNotFound
				}
				o := *cur
				x := *cur.Unit
				o.Unit = &x
				applyUnit(&o, body)
				_, _, err := w.PutOrganisation(o)
				return err
			})
		},
	}
}

// applyUnit copies the members present in a validated Unit body.
func applyUnit(o *model.Organisation, body map[string]json.RawMessage) {
	var title string
	if member(body, "title", &title) {
		o.DisplayName = title
	}
	var str *string
	if member(body, "description", &str) {
		o.Unit.Description = str
	}
	var ext *model.External
	if member(body, "external", &ext) {
		o.Unit.External = ext
	}
}

// organiser is the id of the organisation's organiser (Huvudman), if any.
func organiser(sn *store.Snapshot) (string, bool) {
	id := ""
	_ = sn.Scan(store.TableOrganisations, store.IndexOrganisationType, string(model.OrganisationTypeOrganiser), func(obj any) bool {
		id = obj.(*model.Organisation).ID
		return false
	})
	return id, id != ""
}

// checkUnitID is the 422 problem of a school whose unitID names no Unit.
func checkUnitID(sn *store.Snapshot, unitID *string) []surface.FieldProblem {
	if unitID == nil {
		return nil
	}
	if o, ok := sn.Organisation(*unitID); !ok || !isUnit(o) {
		return []surface.FieldProblem{{Field: "/unitID", Message: fmt.Sprintf("no unit with id %s", *unitID)}}
	}
	return nil
}

// The audit trail.

// auditTypeDelete is the type of every audit event: interface A audits
// deletions.
const auditTypeDelete = "Delete"

// DirectoryAuditEvent is an AuditEvent of interface A.
type DirectoryAuditEvent struct {
	ID         string        `json:"id"`
	Meta       DirectoryMeta `json:"meta"`
	Timestamp  time.Time     `json:"timestamp"`
	Resource   string        `json:"resource"`
	ResourceID string        `json:"resourceID"`
	Type       string        `json:"type"`
}

func renderAuditEvent(t *model.Tombstone) DirectoryAuditEvent {
	at := t.DeletedAt
	return DirectoryAuditEvent{
		ID: t.ID, Meta: DirectoryMeta{CreatedAt: at, CreatedBy: t.DeletedBy, UpdatedAt: &at, UpdatedBy: t.DeletedBy},
		Timestamp: at, Resource: t.Kind, ResourceID: t.RecordID, Type: auditTypeDelete,
	}
}

func (s *API) isAudited(t *model.Tombstone) bool { return slices.Contains(s.auditedKinds(), t.Kind) }

var auditEventGetters = fieldGetters[model.Tombstone]{
	"id":         func(_ *store.Snapshot, t *model.Tombstone) (any, bool) { return textField(t.ID) },
	"timestamp":  func(_ *store.Snapshot, t *model.Tombstone) (any, bool) { return timeText(t.DeletedAt) },
	"resource":   func(_ *store.Snapshot, t *model.Tombstone) (any, bool) { return textField(t.Kind) },
	"resourceID": func(_ *store.Snapshot, t *model.Tombstone) (any, bool) { return textField(t.RecordID) },
	"type":       func(_ *store.Snapshot, _ *model.Tombstone) (any, bool) { return textField(auditTypeDelete) },
	"meta.createdAt": func(_ *store.Snapshot, t *model.Tombstone) (any, bool) {
		return timeText(t.DeletedAt)
	},
	"meta.updatedAt": func(_ *store.Snapshot, t *model.Tombstone) (any, bool) {
		return timeText(t.DeletedAt)
	},
	"meta.createdBy": func(_ *store.Snapshot, t *model.Tombstone) (any, bool) { return ptrText(t.DeletedBy) },
	"meta.updatedBy": func(_ *store.Snapshot, t *model.Tombstone) (any, bool) { return ptrText(t.DeletedBy) },
}

func (s *API) auditEventResource() *dirResource {
	return &dirResource{
		name: "audit event", path: "/audit-event", scope: "audit-event", schema: "AuditEvent", canSearch: true, readOnly: true,
		table: store.TableTombstones, member: func(t any) bool { return s.isAudited(t.(*model.Tombstone)) },
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			for _, t := range sn.Tombstones(time.Time{}, s.auditedKinds()...) {
				if s.hidesAuditEvent(t) {
					continue
				}
				if !fn(t) {
					return
				}
			}
		},
		get: func(sn *store.Snapshot, id string) (any, bool) {
			t, ok := sn.Tombstone(id)
			return t, ok && s.isAudited(t) && !s.hidesAuditEvent(t)
		},
		render:  func(_ *store.Snapshot, rec any) any { return renderAuditEvent(rec.(*model.Tombstone)) },
		getters: auditEventGetters,
	}
}

// hidesAuditEvent: under the deviation audit-event-missing, the deletions
// made through interface A (by an API client) have no audit event.
func (s *API) hidesAuditEvent(t *model.Tombstone) bool {
	return t.DeletedBy != nil && s.deviates(deviation.AuditEventMissing)
}
