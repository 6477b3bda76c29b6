package openapi

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/openapi/internal/gengo"
)

func TestLoadParsesEveryDocument(t *testing.T) {
	c, err := Load()
	require.NoError(t, err)

	var want []Name
	for _, d := range documents {
		want = append(want, d.name)
	}
	assert.Equal(t, want, c.Names())
	assert.Contains(t, c.Names(), NameAuth)
	assert.Contains(t, c.Names(), NameRegister)

	for _, name := range c.Names() {
		doc := c.Doc(name)
		require.NotNil(t, doc, name)
		assert.Equal(t, "3.0.3", doc.OpenAPI, "%s: OpenAPI version", name)
		assert.NotEmpty(t, doc.Info.Title, name)
		assert.NotZero(t, doc.Paths.Len(), "%s: no paths", name)
	}
}

func TestMustLoadReturnsTheContract(t *testing.T) {
	var c *Contract
	require.NotPanics(t, func() { c = MustLoad() })
	assert.Equal(t, len(documents), len(c.Names()))
}

func TestDocumentTableNamesAreUnique(t *testing.T) {
	seenName := map[Name]bool{}
	seenFile := map[string]bool{}
	for _, d := range documents {
		assert.False(t, seenName[d.name], "name %q listed twice", d.name)
		assert.False(t, seenFile[d.file], "file %q listed twice", d.file)
		seenName[d.name], seenFile[d.file] = true, true
	}
}

func TestEveryListedDocumentIsEmbedded(t *testing.T) {
	embedded, err := fs.Glob(files, "*.yaml")
	require.NoError(t, err)
	for _, d := range documents {
		assert.Contains(t, embedded, d.file, "document %q", d.name)
		// Each document's embedded JSON is its own rendering (a variable
		// per document: the table could pair a document with another's).
		rendered, err := os.ReadFile(jsonFile(d.file))
		require.NoError(t, err, "document %q: run go generate ./openapi/", d.name)
		assert.True(t, bytes.Equal(rendered, d.json), "document %q embeds another JSON than %s", d.name, jsonFile(d.file))
	}
}

// Load does not validate the documents (start-up time): this test is what
// keeps an invalid document out. It validates the YAML source and the
// document the contract hands out.
func TestEveryDocumentIsValid(t *testing.T) {
	c := mustShared(t)
	for _, d := range documents {
		t.Run(string(d.name), func(t *testing.T) {
			src, err := files.ReadFile(d.file)
			require.NoError(t, err)
			_, err = LoadFrom(d.name, src)
			assert.NoError(t, err, "the YAML source")
			assert.NoError(t, c.Doc(d.name).Validate(t.Context()), "the loaded document")
		})
	}
}

// TestEmbeddedJSONIsCurrent fails when a generated JSON file is not the
// rendering of its YAML source: the YAML changed without go generate.
func TestEmbeddedJSONIsCurrent(t *testing.T) {
	for _, d := range documents {
		t.Run(string(d.name), func(t *testing.T) {
			src, err := files.ReadFile(d.file)
			require.NoError(t, err)
			doc, err := LoadFrom(d.name, src)
			require.NoError(t, err)
			want, err := doc.MarshalJSON()
			require.NoError(t, err)
			if !bytes.Equal(want, d.json) {
				t.Fatalf("%s is stale: it is not the rendering of %s; regenerate it with\n  go generate ./openapi/", jsonFile(d.file), d.file)
			}
		})
	}
}

// TestGeneratedGoIsCurrent fails when documents_gen.go is not what go
// generate writes from the JSON renderings (TestEmbeddedJSONIsCurrent checks
// those against the YAML sources).
func TestGeneratedGoIsCurrent(t *testing.T) {
	sources, err := fs.Glob(files, "*.yaml") // as go generate finds them
	require.NoError(t, err)
	var docs []gengo.Document
	for _, file := range sources {
		js, err := os.ReadFile(jsonFile(file))
		require.NoError(t, err)
		docs = append(docs, gengo.Document{Func: gengo.FuncName(file), JSON: js})
	}
	want, err := gengo.Source("openapi", docs)
	require.NoError(t, err)
	have, err := os.ReadFile(gengo.File)
	require.NoError(t, err)
	if !bytes.Equal(want, have) {
		t.Fatalf("%s is stale; regenerate it with\n  go generate ./openapi/", gengo.File)
	}
	for _, d := range documents {
		assert.Equal(t, gengo.FuncName(d.file), runtime.FuncForPC(reflect.ValueOf(d.build).Pointer()).Name()[len("github.com/skolkit/skolkit/openapi."):],
			"document %q is built by another document's function", d.name)
	}
}

// The contract builds each document with the generated function; the
// document must be the very one the YAML source gives, so that requests are
// validated as the YAML says.
func TestLoadedDocumentIsTheYAMLDocument(t *testing.T) {
	c := mustShared(t)
	for _, d := range documents {
		t.Run(string(d.name), func(t *testing.T) {
			src, err := files.ReadFile(d.file)
			require.NoError(t, err)
			fromYAML, err := LoadFrom(d.name, src)
			require.NoError(t, err)
			if diff := graphDiff(reflect.ValueOf(fromYAML), reflect.ValueOf(c.Doc(d.name)), "doc", newGraphPairs()); diff != "" {
				t.Fatalf("%s builds another document than %s gives (go generate ./openapi/): %s", gengo.File, d.file, diff)
			}
		})
	}
}

func TestYAMLIsTheEmbeddedSource(t *testing.T) {
	c := mustShared(t)
	for _, d := range documents {
		src, err := files.ReadFile(d.file)
		require.NoError(t, err)
		assert.Equal(t, src, c.YAML(d.name), d.name)
	}
}

func TestJSONRoundTripsToTheSameDocument(t *testing.T) {
	c := mustShared(t)
	for _, name := range c.Names() {
		t.Run(string(name), func(t *testing.T) {
			js := c.JSON(name)
			require.NotEmpty(t, js)
			assert.Equal(t, byte('{'), js[0], "JSON() must be JSON, not YAML")

			back, err := LoadFrom(name, js)
			require.NoError(t, err)
			orig := c.Doc(name)

			assert.Equal(t, orig.OpenAPI, back.OpenAPI)
			assert.Equal(t, sortedKeys(orig.Paths.Map()), sortedKeys(back.Paths.Map()))
			for path, item := range orig.Paths.Map() {
				assert.Equal(t, sortedKeys(item.Operations()), sortedKeys(back.Paths.Value(path).Operations()), path)
			}
			assert.Equal(t, sortedKeys(orig.Components.Schemas), sortedKeys(back.Components.Schemas))
			assert.Equal(t, sortedKeys(orig.Components.SecuritySchemes), sortedKeys(back.Components.SecuritySchemes))
		})
	}
}

func TestJSONIsRenderedOnce(t *testing.T) {
	c := mustShared(t)
	a, b := c.JSON(NameRegister), c.JSON(NameRegister)
	require.NotEmpty(t, a)
	assert.Same(t, &a[0], &b[0], "JSON() should return the pre-rendered bytes")
}

func TestUnknownNamePanics(t *testing.T) {
	c := mustShared(t)
	assert.PanicsWithValue(t, `openapi: no document named "nope"`, func() { c.Doc("nope") })
	assert.Panics(t, func() { c.JSON("nope") })
	assert.Panics(t, func() { c.YAML("nope") })
}

func TestNamesReturnsACopy(t *testing.T) {
	c := mustShared(t)
	names := c.Names()
	names[0] = "changed"
	assert.NotEqual(t, Name("changed"), c.Names()[0])
}

func TestLoadFromAcceptsAMinimalDocument(t *testing.T) {
	doc, err := LoadFrom("minimal", []byte(minimalDocument))
	require.NoError(t, err)
	assert.NotNil(t, doc.Paths.Value("/ping"))
}

func TestLoadFromRejectsABadReference(t *testing.T) {
	broken := minimalDocument + `
components:
  schemas:
    Pong:
      $ref: '#/components/schemas/DoesNotExist'
`
	_, err := LoadFrom("broken", []byte(broken))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `document "broken"`)
	assert.Contains(t, err.Error(), "DoesNotExist")
}

func TestLoadFromRejectsInvalidYAML(t *testing.T) {
	_, err := LoadFrom("garbled", []byte("openapi: 3.0.3\ninfo: [unclosed\n  title: x\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `document "garbled"`)
	assert.Contains(t, err.Error(), "parse")
}

func TestLoadFromRejectsADocumentThatDoesNotValidate(t *testing.T) {
	// Parses, but an operation without responses is not a valid OpenAPI 3.0 document.
	invalid := `openapi: 3.0.3
info: {title: invalid, version: "1"}
paths:
  /ping:
    get: {}
`
	_, err := LoadFrom("invalid", []byte(invalid))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `document "invalid"`)
	assert.Contains(t, err.Error(), "invalid:")
}

func TestLoadFromDoesNotFollowExternalReferences(t *testing.T) {
	external := `openapi: 3.0.3
info: {title: external, version: "1"}
paths:
  /ping:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                $ref: 'auth.yaml#/components/schemas/TokenError'
`
	// auth.yaml exists beside the test, so only the policy can refuse it.
	_, err := LoadFrom("external", []byte(external))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `document "external"`)
	assert.Contains(t, err.Error(), "external reference")
}

func TestPackageDoesNotImportItsUsers(t *testing.T) {
	sources, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, file := range sources {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, forbidden := range []string{"/mockserver", "/conformance"} {
				assert.NotContains(t, path, "github.com/skolkit/skolkit"+forbidden, "%s imports %s", file, path)
			}
		}
	}
}

const minimalDocument = `openapi: 3.0.3
info: {title: minimal, version: "1"}
paths:
  /ping:
    get:
      responses:
        '200':
          description: ok
`

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// effectiveSecurity is the security requirement that applies to op.
func effectiveSecurity(doc *openapi3.T, op *openapi3.Operation) openapi3.SecurityRequirements {
	if op.Security != nil {
		return *op.Security
	}
	return doc.Security
}

// mustShared returns the process-wide contract for tests that read it.
func mustShared(t testing.TB) *Contract {
	t.Helper()
	c, err := Shared()
	require.NoError(t, err)
	return c
}

func TestSharedIsLoadedOnce(t *testing.T) {
	a, b := mustShared(t), mustShared(t)
	assert.Same(t, a, b)
}

// graphDiff, which the test above relies on, sees a changed value and a
// value that is equal but not shared as the loader shares it.
func TestGraphDiffSeesValuesAndSharing(t *testing.T) {
	diff := func(a, b *openapi3.T) string {
		return graphDiff(reflect.ValueOf(a), reflect.ValueOf(b), "doc", newGraphPairs())
	}
	assert.Empty(t, diff(docRegister(), docRegister()))

	changed := docRegister()
	changed.Info.Title += "!"
	assert.Equal(t, `doc.Info.Title: "`+changed.Info.Title+`", not "`+docRegister().Info.Title+`"`, diff(docRegister(), changed))

	unshared := docRegister()
	op := unshared.Paths.Value("/placements").Get
	var ref *openapi3.ParameterRef
	for _, p := range op.Parameters {
		if p.Ref != "" {
			ref = p
			break
		}
	}
	require.NotNil(t, ref, "GET /placements has a parameter by reference")
	copied := *ref.Value
	ref.Value = &copied
	assert.Contains(t, diff(docRegister(), unshared), "not shared the same way")
}

// graphPairs pairs the values of two documents reached by pointers.
type graphPairs struct{ ab, ba map[uintptr]uintptr }

func newGraphPairs() *graphPairs {
	return &graphPairs{ab: map[uintptr]uintptr{}, ba: map[uintptr]uintptr{}}
}

// graphDiff says where two documents differ, or "" when they are the same
// graph: equal values, and a value reached twice in one (a reference and its
// component, a recursive schema) reached at the same two places in the other.
// It is reflect.DeepEqual with that second condition, but for the loader's
// bookkeeping, which the generated functions leave out (package gengo's
// skipped: refPath, read only by kin-openapi's InternalizeRefs and
// ReferencesComponentInRootDocument; visited, reset before every walk that
// reads it).
func graphDiff(a, b reflect.Value, path string, g *graphPairs) string {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return path + ": another type"
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil in one only"
			}
			return ""
		}
		pa, pb := a.Pointer(), b.Pointer()
		qb, seenA := g.ab[pa]
		qa, seenB := g.ba[pb]
		if seenA != seenB || seenA && (qb != pb || qa != pa) {
			return path + ": a value shared in one document is not shared the same way in the other"
		}
		if seenA {
			return ""
		}
		g.ab[pa], g.ba[pb] = pb, pa
		return graphDiff(a.Elem(), b.Elem(), path, g)
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if !f.IsExported() && (f.Name == "refPath" || f.Name == "visited") {
				continue
			}
			if d := graphDiff(a.Field(i), b.Field(i), path+"."+f.Name, g); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path + ": another map"
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, k)
			}
			if d := graphDiff(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k), g); d != "" {
				return d
			}
		}
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path + ": another slice"
		}
		for i := range a.Len() {
			if d := graphDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), g); d != "" {
				return d
			}
		}
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil in one only"
			}
			return ""
		}
		return graphDiff(a.Elem(), b.Elem(), path, g)
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q, not %q", path, b.String(), a.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return path + ": another bool"
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return path + ": another number"
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return path + ": another number"
		}
	case reflect.Float32, reflect.Float64:
		if a.Float() != b.Float() {
			return path + ": another number"
		}
	case reflect.Func:
		if !a.IsNil() || !b.IsNil() {
			return path + ": a function"
		}
	default:
		return path + ": cannot compare a " + a.Kind().String()
	}
	return ""
}
