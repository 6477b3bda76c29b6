package mockserver

// GET /deletedEntities of SS 12000 (issue 12): the ids of the records
// deleted after a time, by resource type. The deletions come from the
// store's commit hook (store.OnCommit, see subscriptions.go), so a delete
// through any surface is recorded, at the instant the store stamped on it.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/model"
)

// ScopeDeletedEntitiesRead lets a client read GET /deletedEntities.
const ScopeDeletedEntitiesRead = "deletedEntities:read"

func init() { AllScopes = append(AllScopes, ScopeDeletedEntitiesRead) }

// MaxTombstones bounds the deletions remembered; past it the oldest are
// forgotten (and a client asking for them gets the rest).
const MaxTombstones = 100_000

// deletedKeys are the members of DeletedEntities.data by resource type
// (SS 12000's names, "activitites" included).
var deletedKeys = map[model.ResourceType]string{
	model.ResourceAbsence: "absences", model.ResourceAttendanceEvent: "attendanceEvents", model.ResourceAttendance: "attendances",
	model.ResourceGrade: "grades", model.ResourceCalendarEvent: "calendarEvents", model.ResourceAttendanceSchedule: "attendanceSchedules",
	model.ResourceResource: "resources", model.ResourceRoom: "rooms", model.ResourceActivity: "activitites", model.ResourceDuty: "duties",
	model.ResourcePlacement: "placements", model.ResourceStudyPlan: "studyPlans", model.ResourceProgramme: "programmes",
	model.ResourceSyllabus: "syllabuses", model.ResourceSchoolUnitOffering: "schoolUnitOfferings", model.ResourceGroup: "groups",
	model.ResourcePerson: "persons", model.ResourceOrganisation: "organisations",
}

// tombstone is one deleted record.
type tombstone struct {
	seq  uint64
	at   time.Time
	kind model.ResourceType
	id   string
}

// tombstones is the deletion history, oldest first.
type tombstones struct {
	mu    sync.Mutex
	seq   uint64
	items []tombstone
}

func (ts *tombstones) add(at time.Time, kind model.ResourceType, ids []string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, id := range ids {
		ts.seq++
		ts.items = append(ts.items, tombstone{seq: ts.seq, at: at, kind: kind, id: id})
	}
	if over := len(ts.items) - MaxTombstones; over > 0 {
		ts.items = slices.Delete(ts.items, 0, over)
	}
}

func (ts *tombstones) clear() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.items = nil
}

// since returns up to limit (0: all) tombstones after seq that match, and
// whether more follow.
func (ts *tombstones) since(seq uint64, after *time.Time, kinds []model.ResourceType, limit int) ([]tombstone, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var out []tombstone
	for _, t := range ts.items {
		if t.seq <= seq || (after != nil && !t.at.After(*after)) || (len(kinds) > 0 && !slices.Contains(kinds, t.kind)) {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, true
		}
		out = append(out, t)
	}
	return out, false
}

// deletedQuery is what a deletedEntities walk asks, carried by its pageToken.
type deletedQuery struct {
	After    *time.Time           `json:"after,omitempty"`
	Entities []model.ResourceType `json:"entities,omitempty"`
	Seq      uint64               `json:"seq"`
	Limit    int                  `json:"limit,omitempty"`
}

// deletedPage is the body of GET /deletedEntities.
type deletedPage struct {
	Data      map[string][]string `json:"data"`
	PageToken *string             `json:"pageToken"`
}

const deletedTokenPrefix = "deleted."

func (s *Server) listDeletedEntities(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var dq deletedQuery
	if q.Has(paramPageToken) {
		for k := range q {
			if k != paramPageToken && k != paramLimit {
				registerError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("pageToken cannot be combined with %q; the token carries the query of its walk, and only limit may accompany it", k))
				return
			}
		}
		var ok bool
		if dq, ok = s.decodeDeletedToken(q.Get(paramPageToken)); !ok {
			registerError(w, http.StatusBadRequest, CodeBadRequest, "pageToken: not a token this server issued for GET /deletedEntities")
			return
		}
	} else {
		if v := q.Get("after"); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				registerError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("query parameter \"after\": %q is not an RFC 3339 date-time", v))
				return
			}
			dq.After = &t
		}
		for _, e := range q["entities"] {
			dq.Entities = append(dq.Entities, model.ResourceType(e)) // the contract has checked the values
		}
	}
	if v := q.Get(paramLimit); v != "" {
		dq.Limit, _ = strconv.Atoi(v) // the contract has checked it is an integer ≥ 1
	}
	items, more := s.hooks.deleted.since(dq.Seq, dq.After, dq.Entities, dq.Limit)
	page := deletedPage{Data: map[string][]string{}}
	for _, t := range items {
		k := deletedKeys[t.kind]
		page.Data[k] = append(page.Data[k], t.id)
	}
	if more {
		dq.Seq = items[len(items)-1].seq
		tok := s.encodeDeletedToken(dq)
		page.PageToken = &tok
	}
	writeJSON(w, http.StatusOK, page)
}

func (s *Server) encodeDeletedToken(dq deletedQuery) string {
	b, _ := json.Marshal(dq)
	p := deletedTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.pageMAC(p))
}

func (s *Server) decodeDeletedToken(tok string) (deletedQuery, bool) {
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
