package exam

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/rules"
)

// resourceKey names a resource on one surface: "B /persons", "A /student",
// "export /attendance". Records read by id, by lookup or by search count
// for the resource whose list holds them.
type resourceKey string

// Surfaces as the exam names them in resource keys.
const (
	surfaceA      = rules.SurfaceA
	surfaceB      = rules.SurfaceB
	surfaceExport = rules.SurfaceExport
)

// Paging styles of a list.
const (
	pagingToken  = "pageToken"
	pagingOffset = "offset"
)

// listOp is a list the oracle can read whole: a GET without path or
// required parameters that answers an array of records under data.
type listOp struct {
	Key     resourceKey
	Surface rules.Surface
	// Path is the full path, with the surface's prefix.
	Path   string
	Paging string
}

// surfaceDocs are the documents whose lists the oracle reads, with their
// prefixes.
var surfaceDocs = []struct {
	name    openapi.Name
	surface rules.Surface
	prefix  string
}{
	{openapi.NameRegister, surfaceB, mockserver.PrefixB},
	{openapi.NameDirectory, surfaceA, mockserver.PrefixA},
	{openapi.NameExport, surfaceExport, mockserver.PrefixExport},
}

// listOps derives from the contract every list the oracle reads.
func listOps(c *openapi.Contract) []listOp {
	var out []listOp
	for _, d := range surfaceDocs {
		doc := c.Doc(d.name)
		for _, path := range doc.Paths.InMatchingOrder() {
			item := doc.Paths.Value(path)
			op := item.Get
			if op == nil || strings.Contains(path, "{") || !answersRecords(op) {
				continue
			}
			paging, ok := pagingOf(append(slices.Clone(item.Parameters), op.Parameters...))
			if !ok {
				continue
			}
			out = append(out, listOp{Key: keyOf(d.surface, path), Surface: d.surface, Path: d.prefix + path, Paging: paging})
		}
	}
	slices.SortFunc(out, func(a, b listOp) int { return strings.Compare(string(a.Key), string(b.Key)) })
	return out
}

// keyOf is the resource key of a path relative to its surface: its first
// segment (interface A's /student-placements/{id} is an alias of
// /student-placement).
func keyOf(surface rules.Surface, rel string) resourceKey {
	seg, _, _ := strings.Cut(strings.TrimPrefix(rel, "/"), "/")
	if surface == surfaceA && seg == "student-placements" {
		seg = "student-placement"
	}
	return resourceKey(string(surface) + " /" + seg)
}

// pagingOf returns a list's paging style; a list with a required parameter
// cannot be read whole.
func pagingOf(params openapi3.Parameters) (string, bool) {
	style := ""
	for _, p := range params {
		if p.Value == nil {
			continue
		}
		if p.Value.Required {
			return "", false
		}
		switch p.Value.Name {
		case "pageToken":
			style = pagingToken
		case "offset":
			style = pagingOffset
		}
	}
	return style, style != ""
}

// answersRecords reports whether an operation's 200 answer is an object
// whose data is an array (or holds one as resultArray) of objects with an
// id.
func answersRecords(op *openapi3.Operation) bool {
	r := op.Responses.Status(http.StatusOK)
	if r == nil || r.Value == nil {
		return false
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return false
	}
	data := mt.Schema.Value.Properties["data"]
	if data == nil || data.Value == nil {
		return false
	}
	items := data.Value.Items
	if items == nil {
		if ra := data.Value.Properties["resultArray"]; ra != nil && ra.Value != nil {
			items = ra.Value.Items
		}
	}
	if items == nil || items.Value == nil {
		return false
	}
	return hasProperty(items.Value, "id")
}

func hasProperty(s *openapi3.Schema, name string) bool {
	if _, ok := s.Properties[name]; ok {
		return true
	}
	for _, sub := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if sub.Value != nil && hasProperty(sub.Value, name) {
			return true
		}
	}
	return false
}

// record is one record as a list, a read by id or a lookup showed it: its
// id and its version (meta.modified on interface B, meta.updatedAt on
// interface A, else when it was created; empty for a record without meta).
type record struct {
	ID, Version string
}

// versionOf reads a record's version.
func versionOf(m map[string]any) string {
	meta, _ := m["meta"].(map[string]any)
	for _, k := range []string{"modified", "updatedAt", "created", "createdAt"} {
		if v, ok := meta[k].(string); ok {
			return v
		}
	}
	return ""
}

// recordOf reads a JSON object as a record; ok is false when it has no id.
func recordOf(v any) (record, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return record{}, false
	}
	id, ok := m["id"].(string)
	if !ok || id == "" {
		return record{}, false
	}
	return record{ID: strings.ToLower(id), Version: versionOf(m)}, true
}

// listPage reads a list answer: its records and how it continues (the
// pageToken, or the offset paging's total).
type listPage struct {
	Records   []record
	PageToken string
	HasToken  bool // the answer has a pageToken member (null or not)
	Total     int
	HasTotal  bool
}

func readListPage(body []byte) (listPage, bool) {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil {
		return listPage{}, false
	}
	var p listPage
	var items []any
	switch d := doc["data"].(type) {
	case []any:
		items = d
	case map[string]any:
		ra, ok := d["resultArray"].([]any)
		if !ok {
			return listPage{}, false
		}
		items = ra
	default:
		return listPage{}, false
	}
	for _, it := range items {
		if r, ok := recordOf(it); ok {
			p.Records = append(p.Records, r)
		}
	}
	if t, ok := doc["pageToken"]; ok {
		p.HasToken = true
		p.PageToken, _ = t.(string)
	}
	if pg, ok := doc["pagination"].(map[string]any); ok {
		if t, ok := pg["total"].(float64); ok {
			p.Total, p.HasTotal = int(t), true
		}
	}
	return p, true
}

// snapshot is what the mock holds of every list at one moment: per
// resource, every record's version by id.
type snapshot map[resourceKey]map[string]string

// oracle reads the mock as a client of its own, in process: the exam's
// knowledge of which records exist at which version. It authenticates as
// the exam's own client (stage.go), whose quota is never spent.
type oracle struct {
	http             *http.Client
	clientID, secret string
	token            string
	lists            []listOp
}

// oracleBase is the URL the oracle's requests name; they never leave the
// process.
const oracleBase = "http://127.0.0.1"

// newToken asks the mock for a token.
func (o *oracle) newToken(ctx context.Context) error {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {o.clientID}, "client_secret": {o.secret}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, oracleBase+mockserver.PathToken, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := o.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		return fmt.Errorf("the mock issued the exam no token (%s)", resp.Status)
	}
	o.token = tok.AccessToken
	return nil
}

// do sends one request as the exam's client, with a new token when the
// one it holds is refused, and returns the answer's status and body.
func (o *oracle) do(ctx context.Context, method, path string, query url.Values, body any) (int, []byte, error) {
	for attempt := 0; ; attempt++ {
		if o.token == "" {
			if err := o.newToken(ctx); err != nil {
				return 0, nil, err
			}
		}
		u := oracleBase + path
		if len(query) > 0 {
			u += "?" + query.Encode()
		}
		var rd io.Reader
		if body != nil {
			b, err := json.Marshal(body)
			if err != nil {
				return 0, nil, err
			}
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, method, u, rd)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+o.token)
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := o.http.Do(req)
		if err != nil {
			return 0, nil, err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, nil, err
		}
		if resp.StatusCode == http.StatusUnauthorized && attempt == 0 {
			o.token = ""
			continue
		}
		return resp.StatusCode, data, nil
	}
}

// maxOracleLimit is the page size the oracle asks for; the mock serves at
// most its own cap.
const (
	oracleLimitB = 1000
	oracleLimitA = 500
)

// walk reads a whole list (or search, when search is not nil) with the
// given filters and returns every record in it.
func (o *oracle) walk(ctx context.Context, op listOp, filters url.Values, search any) ([]record, error) {
	var out []record
	method, path := http.MethodGet, op.Path
	if search != nil {
		method, path = http.MethodPost, op.Path+"/_search"
	}
	q := url.Values{}
	for k, v := range filters {
		q[k] = v
	}
	offset := 0
	for pages := 0; ; pages++ {
		if pages > 100_000 {
			return nil, fmt.Errorf("%s %s: the walk does not end", method, path)
		}
		switch op.Paging {
		case pagingToken:
			q.Set("limit", strconv.Itoa(oracleLimitB))
		case pagingOffset:
			q.Set("limit", strconv.Itoa(oracleLimitA))
			q.Set("offset", strconv.Itoa(offset))
		}
		status, body, err := o.do(ctx, method, path, q, search)
		if err != nil {
			return nil, err
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("%s %s?%s: %d %s", method, path, q.Encode(), status, excerpt(body, 300))
		}
		page, ok := readListPage(body)
		if !ok {
			return nil, fmt.Errorf("%s %s: the answer is not a list: %s", method, path, excerpt(body, 300))
		}
		out = append(out, page.Records...)
		switch op.Paging {
		case pagingToken:
			if page.PageToken == "" {
				return out, nil
			}
			q = url.Values{"pageToken": {page.PageToken}}
		case pagingOffset:
			offset += len(page.Records)
			if len(page.Records) == 0 || offset >= page.Total {
				return out, nil
			}
		default:
			return out, nil
		}
	}
}

// snapshot reads every list whole.
func (o *oracle) snapshot(ctx context.Context) (snapshot, error) {
	snap := snapshot{}
	for _, op := range o.lists {
		recs, err := o.walk(ctx, op, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("the exam could not read %s: %w", op.Key, err)
		}
		m := make(map[string]string, len(recs))
		for _, r := range recs {
			m[r.ID] = r.Version
		}
		snap[op.Key] = m
	}
	return snap, nil
}

// excerpt cuts a body for a message.
func excerpt(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
