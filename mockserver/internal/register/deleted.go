package register

// GET /deletedEntities of SS 12000: the ids of the records deleted after a
// time, by resource type. They come from the store's deletion log (a
// model.Tombstone for every delete of any table, through any surface, in
// the deleting transaction; the same log interface A's audit events show),
// mapped to SS 12000 types by the resource that shows each table.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// ScopeDeletedEntitiesRead lets a client read GET /deletedEntities.
const ScopeDeletedEntitiesRead = "deletedEntities:read"

// deletion is one SS 12000 deletion: a record gone from its table.
type deletion struct {
	at   time.Time
	tomb string // the first tombstone's id: deletions are ordered by (at, tomb)
	kind model.ResourceType
	id   string
}

// deletions returns the deletions after the cursor (at, tomb) and after
// `after`, of the kinds (all without any), oldest first: up to limit (0:
// all), and whether more follow. A tombstone whose record is still in its
// table (a person who stopped being a Student but stays a Guardian) is not
// an SS 12000 deletion, nor is one of a record interface B never showed (a
// grade without a teacher or a value, a compulsory-school placement); the
// several tombstones of one record's deletion (one per interface-A kind) are
// one deletion. A record a write hid from B (model.KindLeftRegister) is one
// while B does not show it, though the store keeps it.
func (k *kinds) deletions(sn *store.Snapshot, after *time.Time, types []model.ResourceType, cur deletedCursor, limit int) ([]deletion, bool) {
	since := cur.At
	if after != nil && after.After(since) {
		since = *after
	}
	var out []deletion
	seen := map[string]bool{}
	for _, t := range sn.Tombstones(since) {
		if after != nil && !t.DeletedAt.After(*after) {
			continue
		}
		if !cur.At.IsZero() && (t.DeletedAt.Before(cur.At) || (t.DeletedAt.Equal(cur.At) && t.ID <= cur.Tomb)) {
			continue
		}
		kind, ok := k.typeOf(t.Table)
		if !ok || t.RegisterHidden || (len(types) > 0 && !slices.Contains(types, kind)) {
			continue // not a record of SS 12000, or one interface B never showed (docs/decisions.md#b-hidden-records)
		}
		key := t.Table + "/" + t.RecordID + "/" + t.DeletedAt.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		if rec, ok := sn.Get(t.Table, t.RecordID); ok && (t.Kind != model.KindLeftRegister || !sn.Schema().Hidden(t.Table, rec)) {
			continue // still there: left one view only, or shown again since it left B's
		}
		if limit > 0 && len(out) == limit {
			return out, true
		}
		out = append(out, deletion{at: t.DeletedAt, tomb: t.ID, kind: kind, id: t.RecordID})
	}
	return out, false
}

// deletedCursor is where a deletedEntities walk stands: after the deletion
// of the tombstone Tomb at At.
type deletedCursor struct {
	At   time.Time `json:"at"`
	Tomb string    `json:"tomb"`
}

// deletedQuery is what a deletedEntities walk asks, carried by its pageToken.
type deletedQuery struct {
	After    *time.Time           `json:"after,omitempty"`
	Entities []model.ResourceType `json:"entities,omitempty"`
	Cursor   deletedCursor        `json:"cursor"`
	Limit    int                  `json:"limit,omitempty"`
}

// deletedPage is the body of GET /deletedEntities.
type deletedPage struct {
	Data      map[string][]string `json:"data"`
	PageToken *string             `json:"pageToken"`
}

const deletedTokenPrefix = "deleted."

func (s *API) listDeletedEntities(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var dq deletedQuery
	if q.Has(ParamPageToken) {
		for k := range q {
			if k != ParamPageToken && k != ParamLimit {
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("pageToken cannot be combined with %q; the token carries the query of its walk, and only limit may accompany it", k))
				return
			}
		}
		var ok bool
		if dq, ok = s.decodeDeletedToken(q.Get(ParamPageToken)); !ok {
			surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "pageToken: not a token this server issued for GET /deletedEntities")
			return
		}
	} else {
		if v := q.Get("after"); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("query parameter \"after\": %q is not an RFC 3339 date-time", v))
				return
			}
			dq.After = &t
		}
		for _, e := range q["entities"] {
			dq.Entities = append(dq.Entities, model.ResourceType(e)) // the contract has checked the values
		}
	}
	if v := q.Get(ParamLimit); v != "" {
		dq.Limit, _ = strconv.Atoi(v) // the contract has checked it is an integer ≥ 1
	}
	items, more := s.kinds.deletions(s.store.Read(), dq.After, dq.Entities, dq.Cursor, dq.Limit)
	page := deletedPage{Data: map[string][]string{}}
	for _, d := range items {
		k := s.kinds.byType[d.kind].deletedKey
		page.Data[k] = append(page.Data[k], d.id)
	}
	if more {
		last := items[len(items)-1]
		dq.Cursor = deletedCursor{At: last.at, Tomb: last.tomb}
		tok := s.encodeDeletedToken(dq)
		page.PageToken = &tok
	}
	surface.WriteJSON(w, http.StatusOK, page)
}

func (s *API) encodeDeletedToken(dq deletedQuery) string {
	b, _ := json.Marshal(dq)
	p := deletedTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.pageMAC(p))
}

func (s *API) decodeDeletedToken(tok string) (deletedQuery, bool) {
	var dq deletedQuery
	i := strings.LastIndexByte(tok, '.')
	if i < 0 || !strings.HasPrefix(tok, deletedTokenPrefix) {
		return dq, false
	}
	p, m := tok[:i], tok[i+1:]
	mac, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil || string(mac) != string(s.pageMAC(p)) {
		return dq, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(p, deletedTokenPrefix))
	if err != nil || json.Unmarshal(b, &dq) != nil {
		return dq, false
	}
	return dq, true
}
