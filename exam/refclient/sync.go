package refclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// state is what a client keeps between runs: when its last run started
// (in the server's clock) and every record it holds, by list, id and
// version.
type state struct {
	Since   time.Time                    `json:"since"`
	Records map[string]map[string]string `json:"records"`
}

func loadState(dir, name string) (*state, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &st, nil
}

// begin loads a client's state: full is true for a first run (no state)
// and for a client that reads everything whatever it holds.
func (c *conn) begin(name string) (st *state, full bool, err error) {
	if st, err = loadState(c.cfg.Dir, name); err != nil {
		return nil, false, err
	}
	full = st == nil || c.defect(RereadsEverything)
	if st == nil {
		st = &state{Records: map[string]map[string]string{}}
	}
	return st, full, nil
}

// take keeps what a run read of a list: all of it after a full read, the
// records read added to those held after a read of what changed.
func (st *state) take(list string, got map[string]string, full bool) {
	if full || st.Records[list] == nil {
		st.Records[list] = got
		return
	}
	for id, v := range got {
		st.Records[list][id] = v
	}
}

func (st *state) save(dir, name string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, name+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// since is the bookmark of the next run: the server's time at this run's
// start, a second early (the Date header has whole seconds; a record seen
// twice costs nothing, one missed is lost).
func (c *conn) since() time.Time {
	if c.serverStart.IsZero() {
		return time.Now().UTC().Add(-time.Minute)
	}
	return c.serverStart.UTC().Add(-time.Second)
}

func versionOf(r map[string]any) string {
	meta, _ := r["meta"].(map[string]any)
	for _, k := range []string{"modified", "updatedAt", "created", "createdAt"} {
		if v, ok := meta[k].(string); ok {
			return v
		}
	}
	return ""
}

// resourcesB are the interface-B lists the SS 12000 client mirrors, with
// their entity names for deletedEntities and their names in its answer.
var resourcesB = []struct{ path, entity, deleted string }{
	{"/organisations", "Organisation", "organisations"},
	{"/persons", "Person", "persons"},
	{"/groups", "Group", "groups"},
	{"/placements", "Placement", "placements"},
	{"/duties", "Duty", "duties"},
	{"/attendances", "Attendance", "attendances"},
	{"/absences", "Absence", "absences"},
}

const stateB = "skolkit-refclient-b.json"

// SyncB mirrors interface B's organisations, persons, groups, placements,
// duties, attendance and absence records into the state in cfg.Dir: every
// record on its first run, what changed since on later runs.
func SyncB(ctx context.Context, cfg Config) error {
	c := newConn(cfg)
	st, full, err := c.begin(stateB)
	if err != nil {
		return err
	}
	for _, res := range resourcesB {
		q := url.Values{"limit": {"100"}}
		if res.path == "/placements" {
			q.Set("sortkey", "StartDateAsc")
		}
		if !full {
			q.Set("meta.modified.after", st.Since.Format(time.RFC3339))
		}
		got := map[string]string{}
		err := c.walkB(ctx, res.path, q, func(data json.RawMessage) error {
			var recs []map[string]any
			if err := json.Unmarshal(data, &recs); err != nil {
				return err
			}
			for _, r := range recs {
				if err := c.checkReferences(r); err != nil {
					return err
				}
				id, _ := r["id"].(string)
				got[id] = versionOf(r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		st.take(res.path, got, full)
	}
	if !full && !c.defect(IgnoresDeletions) {
		q := url.Values{"after": {st.Since.Format(time.RFC3339)}}
		for _, res := range resourcesB {
			q.Add("entities", res.entity)
		}
		err := c.walkB(ctx, "/deletedEntities", q, func(data json.RawMessage) error {
			// Members the client does not know (a server may add its own)
			// are left alone.
			var gone map[string]json.RawMessage
			if err := json.Unmarshal(data, &gone); err != nil {
				return err
			}
			for _, res := range resourcesB {
				var ids []string
				if raw, ok := gone[res.deleted]; ok {
					if err := json.Unmarshal(raw, &ids); err != nil {
						return fmt.Errorf("deletedEntities: %s: %w", res.deleted, err)
					}
				}
				for _, id := range ids {
					delete(st.Records[res.path], id)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	st.Since = c.since()
	return st.save(cfg.Dir, stateB)
}

// walkB reads a list of interface B to its end (pageToken null), handing
// each page's data to page.
func (c *conn) walkB(ctx context.Context, path string, q url.Values, page func(json.RawMessage) error) error {
	u := c.cfg.RegisterURL + path + "?" + q.Encode()
	for {
		var p struct {
			Data      json.RawMessage `json:"data"`
			PageToken *string         `json:"pageToken"`
		}
		if err := c.do(ctx, http.MethodGet, u, nil, &p); err != nil {
			return err
		}
		if err := page(p.Data); err != nil {
			return err
		}
		if p.PageToken == nil || *p.PageToken == "" || c.defect(FirstPageOnly) {
			return nil
		}
		next := url.Values{"pageToken": {*p.PageToken}}
		if c.defect(PageTokenWithFilters) {
			next = url.Values{}
			for k, v := range q {
				next[k] = v
			}
			next.Set("pageToken", *p.PageToken)
		} else if l := q.Get("limit"); l != "" {
			next.Set("limit", l)
		}
		u = c.cfg.RegisterURL + path + "?" + next.Encode()
	}
}

// checkReferences reads the person references of a record: whether a
// placement's child has a protected identity. The standard's
// PersonReference does not require securityMarking: the correct client
// takes its absence as unknown; the broken one counts on it.
func (c *conn) checkReferences(r map[string]any) error {
	child, ok := r["child"].(map[string]any)
	if !ok {
		return nil
	}
	marking, ok := child["securityMarking"].(string)
	if !ok && c.defect(CrashesOnAbsentOptional) {
		panic(fmt.Sprintf("placement %v: child.securityMarking is %v", r["id"], child["securityMarking"]))
	}
	_ = marking
	return nil
}

// resourcesA are the interface-A lists the directory client mirrors, with
// their names in the audit events.
var resourcesA = []struct{ path, audit string }{
	{"/school", ""},
	{"/student", "Student"},
	{"/guardian", "Guardian"},
	{"/employee", "Employee"},
	{"/group", "Group"},
	{"/student-placement", "StudentPlacement"},
	{"/employee-placement", "EmployeePlacement"},
}

const stateA = "skolkit-refclient-a.json"

// SyncA mirrors interface A's schools, students, guardians, employees,
// groups and placements into the state in cfg.Dir: every record on its
// first run, on later runs the records updated since (a _search on
// meta.updatedAt) and the deletions since (the audit events).
func SyncA(ctx context.Context, cfg Config) error {
	c := newConn(cfg)
	st, full, err := c.begin(stateA)
	if err != nil {
		return err
	}
	var changed any
	if !full {
		changed = map[string]any{"filter": map[string]any{"greaterThan": map[string]any{"meta": map[string]any{"updatedAt": st.Since.Format(time.RFC3339)}}, "orCondition": false}}
	}
	for _, res := range resourcesA {
		got := map[string]string{}
		err := c.walkA(ctx, res.path, changed, func(r map[string]any) {
			// Interface A writes a member that has no value as null; a
			// server may as well leave it out. The broken client counts on
			// seeing it.
			if _, ok := r["external"]; !ok && c.defect(CrashesOnAbsentOptional) {
				panic(fmt.Sprintf("%s %v: no member external", res.path, r["id"]))
			}
			id, _ := r["id"].(string)
			got[id] = versionOf(r)
		})
		if err != nil {
			return err
		}
		st.take(res.path, got, full)
	}
	if !full && !c.defect(IgnoresDeletions) {
		deletions := map[string]any{"filter": map[string]any{"greaterThan": map[string]any{"timestamp": st.Since.Format(time.RFC3339)}, "orCondition": false}}
		err := c.walkA(ctx, "/audit-event", deletions, func(e map[string]any) {
			for _, res := range resourcesA {
				if res.audit != "" && e["resource"] == res.audit && e["type"] == "Delete" {
					id, _ := e["resourceID"].(string)
					delete(st.Records[res.path], id)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	st.Since = c.since()
	return st.save(cfg.Dir, stateA)
}

// walkA reads a list of interface A (or its _search, with a filter) to
// pagination.total, advancing the offset by the records each page held.
func (c *conn) walkA(ctx context.Context, path string, search any, each func(map[string]any)) error {
	offset := 0
	for {
		q := url.Values{"limit": {"100"}, "offset": {strconv.Itoa(offset)}}
		method, u := http.MethodGet, c.cfg.BaseURL+path+"?"+q.Encode()
		if search != nil {
			method, u = http.MethodPost, c.cfg.BaseURL+path+"/_search?"+q.Encode()
		}
		var p struct {
			Data       []map[string]any `json:"data"`
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		if err := c.do(ctx, method, u, search, &p); err != nil {
			return err
		}
		for _, r := range p.Data {
			each(r)
		}
		offset += len(p.Data)
		if len(p.Data) == 0 || offset >= p.Pagination.Total || c.defect(FirstPageOnly) {
			return nil
		}
	}
}
