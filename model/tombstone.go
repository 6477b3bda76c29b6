package model

import "time"

// KindLeftRegister is the Kind of the tombstone the store writes when a
// write hides from interface B a record B showed (a grade whose teacher or
// value interface A removes): for SS 12000's deleted entities the record went
// away, although the store and interface A keep it. Interface A's audit
// events do not list this kind.
const KindLeftRegister = "LeftRegister"

// Tombstone records one deletion: the store writes one for every record it
// deletes, whatever the table and whoever deletes it, so that readers can
// tell which records went away since a given time (interface A's audit
// events, SS 12000's deleted entities).
//
// Kind names what the deleted record was, in the terms of the caller that
// deleted it: by default the store's kind function gives it (interface A's
// resource name, such as "Student" or "Group", for the records interface A
// shows; the table name otherwise). A record that was several things at
// once (a person who was both a Student and a Guardian) leaves one
// tombstone per kind. A tombstone may also record a deletion that removed a
// record from one view without deleting it from the store (a person who
// stops being a Student through interface A but stays a Guardian).
type Tombstone struct {
	ID        string    `json:"id"`        // the tombstone's own id (an interface-A AuditEvent's id)
	Table     string    `json:"table"`     // the store table the record was in
	RecordID  string    `json:"recordID"`  // the id of the deleted record
	Kind      string    `json:"kind"`      // what the record was: "Student", "Group", ... or a table name
	DeletedAt time.Time `json:"deletedAt"` // the server clock at the deletion
	DeletedBy *string   `json:"deletedBy"` // the API client that deleted it; nil: the control plane
	// RegisterHidden: interface B never showed the record (its table's Hidden),
	// so its deletedEntities leaves the deletion out.
	RegisterHidden bool `json:"registerHidden,omitempty"`
	Meta           Meta `json:"-"` // unused: the store's tables all have one
}
