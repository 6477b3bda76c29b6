package mockserver

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/openapi"
)

// fastOp is an operation whose validator has a fast check.
type fastOp struct {
	method, path string
	v            *validator
}

func fastOps(t testing.TB) []fastOp {
	t.Helper()
	srv, err := New(Options{SelfCheck: true})
	require.NoError(t, err)
	eps, err := srv.endpoints()
	require.NoError(t, err)
	var ops []fastOp
	for _, e := range eps {
		if e.Doc == "" {
			continue
		}
		v, err := newValidator(srv.contract, e.Doc, e.Method, e.Path)
		require.NoError(t, err)
		if v.fast != nil {
			ops = append(ops, fastOp{e.Method, e.Path, v})
		}
	}
	return ops
}

// fastCandidates are values near the edges of what the formats, bounds and
// enums of the contract accept.
var fastCandidates = []string{
	"", " ", "x", "%", "null", "0", "1", "01", "+1", "-1", "1e2", "1.0", " 1", "100", "999", "1000", "1001", "999999999", "9999999999",
	"true", "false", "True", "TRUE", "t", "yes",
	"7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61", "7F2C1A84-3B5E-4C1D-9A6F-2E8B0C4D5A61", "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a6",
	"7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a611", "{7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61}", "urn:uuid:7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61",
	"7f2c1a843b5e4c1d9a6f2e8b0c4d5a61", "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5g61", "7f2c1a84_3b5e_4c1d_9a6f_2e8b0c4d5a61", "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5ä6",
	"2025-01-02", "2025-02-30", "2025-1-2", "20250102", "+2025-01-02", "0000-01-01", "9999-12-31", "2025-13-01", "2025-01-02T00:00:00Z",
	"2025-01-02T03:04:05Z", "2025-01-02T03:04:05.123+01:00", "2025-01-02 03:04:05Z", "2025-01-02T03:04:05", "2025-01-02T24:00:00Z", "2025-01-02t03:04:05z",
	"StartDateAsc", "startdateasc", "ModifiedDesc", "EndDateDesc ", "child", "owners", "Child", "child,owners", "assignmentRoles", "assignmentroles",
	"eyJ2IjoxfQ.abc", "a/b", "\x00", "\xff", "日本",
}

// TestFastCheckAcceptsOnlyWhatKinOpenAPIAccepts holds the fast check to its
// promise: over combinations of edge values for every parameter of every
// operation that has one, a request it accepts is one kin-openapi accepts.
func TestFastCheckAcceptsOnlyWhatKinOpenAPIAccepts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	accepted, refused := 0, 0
	for _, op := range fastOps(t) {
		names := make([]string, 0, len(op.v.query))
		for name := range op.v.query {
			names = append(names, name)
		}
		pick := func() string { return fastCandidates[rng.IntN(len(fastCandidates))] }
		for i := range 3000 {
			q := url.Values{}
			for _, name := range names {
				if rng.IntN(3) == 0 {
					q.Add(name, pick())
					if op.v.query[name] && rng.IntN(3) == 0 {
						q.Add(name, pick())
					}
				}
			}
			id := pick()
			if i%2 == 0 {
				id = "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61"
			}
			if assertFastImpliesKin(t, op, q.Encode(), id) {
				accepted++
			} else {
				refused++
			}
		}
	}
	assert.Greater(t, accepted, 1000, "the fast check accepts the common requests")
	assert.Greater(t, refused, 1000, "and leaves the others to kin-openapi")
}

// assertFastImpliesKin checks one request; it reports whether the fast check
// accepted it.
func assertFastImpliesKin(t testing.TB, op fastOp, rawQuery, id string) bool {
	t.Helper()
	params := map[string]string{}
	if strings.Contains(op.path, "{id}") {
		params["id"] = id
	}
	target := strings.ReplaceAll(op.path, "{id}", url.PathEscape(id)) + "?" + rawQuery
	r := httptest.NewRequest(op.method, "http://localhost/", nil)
	var err error
	r.URL, err = url.Parse(target)
	if err != nil {
		return false
	}
	// The query as the server reads it: the URL's, without a fragment (a "#"
	// in rawQuery starts one; no client sends it, and the validator reads
	// r.URL.RawQuery).
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return false // the validator refuses these before either check
	}
	if !op.v.fast.accepts(r, query, params) {
		return false
	}
	err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: op.v.route, Options: op.v.opts,
	})
	assert.NoError(t, err, "%s %s (id %q): the fast check accepted what kin-openapi refuses", op.method, target, id)
	return true
}

// TestFastCheckRefusesRequestsWithABody: kin-openapi reads a body even where
// the operation takes none (and answers 413 for a huge one), so the fast
// check leaves every request with a body to it.
func TestFastCheckRefusesRequestsWithABody(t *testing.T) {
	for _, op := range fastOps(t) {
		r := httptest.NewRequest(op.method, "/", strings.NewReader("x"))
		assert.False(t, op.v.fast.accepts(r, url.Values{}, map[string]string{"id": "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61"}), "%s %s", op.method, op.path)
	}
}

func FuzzFastCheck(f *testing.F) {
	for i, v := range fastCandidates {
		f.Add(uint8(i), "limit="+url.QueryEscape(v)+"&organisation="+url.QueryEscape(v), v)
		f.Add(uint8(i), "expand="+url.QueryEscape(v)+"&expandReferenceNames="+url.QueryEscape(v), "7f2c1a84-3b5e-4c1d-9a6f-2e8b0c4d5a61")
	}
	ops := fastOps(f)
	f.Fuzz(func(t *testing.T, which uint8, rawQuery, id string) {
		op := ops[int(which)%len(ops)]
		if op.method != http.MethodGet && op.method != http.MethodDelete && op.method != http.MethodPatch {
			return
		}
		assertFastImpliesKin(t, op, rawQuery, id)
	})
}

// schemaKeywords gives, for every schema of every operation's parameters,
// the members of the schema's JSON rendering, and so the fast check is built
// for the same operations as when it rendered and read back each schema.
func TestSchemaKeywordsAreTheMembersOfTheSchemasJSON(t *testing.T) {
	c, err := openapi.Shared()
	require.NoError(t, err)
	n := 0
	for _, name := range c.Names() {
		for path, item := range c.Doc(name).Paths.Map() {
			for method, op := range item.Operations() {
				for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
					for _, p := range params {
						if p.Value == nil || p.Value.Schema == nil || p.Value.Schema.Value == nil {
							continue
						}
						for _, sch := range []*openapi3.Schema{p.Value.Schema.Value, itemsOf(p.Value.Schema.Value)} {
							if sch == nil {
								continue
							}
							data, err := sch.MarshalJSON()
							require.NoError(t, err)
							var m map[string]any
							want, wantOK := []string(nil), json.Unmarshal(data, &m) == nil
							for k := range m {
								want = append(want, k)
							}
							have, ok := schemaKeywords(sch)
							assert.Equal(t, wantOK, ok, "%s %s %s", method, path, p.Value.Name)
							assert.ElementsMatch(t, want, have, "%s %s %s", method, path, p.Value.Name)
							n++
						}
					}
				}
			}
		}
	}
	assert.Greater(t, n, 300, "parameter schemas compared")

	// And for schemas the contract does not have, with keywords set and
	// empty in each way a field can be.
	yes, one := true, 1.0
	for i, sch := range []*openapi3.Schema{
		{},
		{Type: &openapi3.Types{}, Enum: []any{}, Properties: openapi3.Schemas{}, Required: []string{}},
		{Type: &openapi3.Types{"string"}, Pattern: "^a$", MaxLength: new(uint64)},
		{Extensions: map[string]any{"x-a": 1}, Default: "d", Nullable: true},
		{ExclusiveMin: openapi3.ExclusiveBound{Bool: &yes}, Min: &one, AdditionalProperties: openapi3.AdditionalProperties{Has: new(bool)}},
		{Always: &yes},
	} {
		data, err := sch.MarshalJSON()
		require.NoError(t, err)
		var m map[string]any
		want, wantOK := []string(nil), json.Unmarshal(data, &m) == nil
		for k := range m {
			want = append(want, k)
		}
		have, ok := schemaKeywords(sch)
		assert.Equal(t, wantOK, ok, "schema %d: %s", i, data)
		assert.ElementsMatch(t, want, have, "schema %d: %s", i, data)
	}
}

func itemsOf(sch *openapi3.Schema) *openapi3.Schema {
	if sch.Items == nil {
		return nil
	}
	return sch.Items.Value
}
