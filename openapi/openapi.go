package openapi

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:generate go run ./internal/genjson

// files holds the YAML sources of the documents (what skolkit spec prints).
//
//go:embed *.yaml
var files embed.FS

// The JSON renderings of the documents (json/*.json, generated from the YAML
// sources by go generate: what is served at .../openapi.json), one variable
// each: an embedded []byte is used where it lies, where embed.FS.ReadFile
// would copy it at every start. documents_gen.go builds the documents.
var (
	//go:embed json/auth.json
	authJSON []byte
	//go:embed json/register.json
	registerJSON []byte
	//go:embed json/directory.json
	directoryJSON []byte
	//go:embed json/export.json
	exportJSON []byte
	//go:embed json/admin.json
	adminJSON []byte
)

// Name identifies one contract document.
type Name string

// The contract documents.
const (
	// NameAuth is the token endpoint (POST /oauth/token).
	NameAuth Name = "auth"
	// NameRegister is interface B, the register API under /api/v1.
	NameRegister Name = "register"
	// NameDirectory is interface A, the directory API under /directory/v1.
	NameDirectory Name = "directory"
	// NameExport is the data export under /data-export/v1.
	NameExport Name = "export"
	// NameAdmin is the mock's control plane under /__admin.
	NameAdmin Name = "admin"
)

// documents lists the documents of the contract in a stable order. Adding a
// document is its YAML file in this directory, its JSON rendering and the
// function that builds it (go generate ./openapi/), a Name constant, a
// variable above embedding the JSON and one line here. Only listed documents
// are loaded.
var documents = []struct {
	name  Name
	file  string
	json  []byte
	build func() *openapi3.T // generated in documents_gen.go
}{
	{NameAuth, "auth.yaml", authJSON, docAuth},
	{NameRegister, "register.yaml", registerJSON, docRegister},
	{NameDirectory, "directory.yaml", directoryJSON, docDirectory},
	{NameExport, "export.yaml", exportJSON, docExport},
	{NameAdmin, "admin.yaml", adminJSON, docAdmin},
}

// Contract holds every listed document, built as kin-openapi's loader gives
// it from its source (which the tests validate).
// It is read-only after Load and safe for concurrent use; callers must not
// modify the documents it returns.
type Contract struct {
	names []Name
	docs  map[Name]*document
}

type document struct {
	doc  *openapi3.T
	json []byte
	// yaml is the YAML source, read from files when first asked for (only
	// skolkit spec prints it).
	yaml func() []byte
}

// Load builds every listed document. The error names the document that
// failed.
//
// Load neither parses, resolves nor validates: each document is built by a
// function that go generate writes from its JSON rendering (the document
// kin-openapi's loader gives from it, references resolved, in Go). Decoding
// and resolving the JSON cost many times more, most of a server's start-up.
// The documents are constant, generation refuses a document that does not
// validate, and the package's tests fail when a document is invalid, a
// generated file is stale, or a built document is not the one kin-openapi's
// loader gives from the YAML source.
func Load() (*Contract, error) {
	// The documents are independent: build them in parallel, then assemble
	// in table order.
	loaded := make([]*document, len(documents))
	errs := make([]error, len(documents))
	var wg sync.WaitGroup
	for i, d := range documents {
		wg.Go(func() { loaded[i], errs[i] = loadDocument(d.name, d.file, d.json, d.build) })
	}
	wg.Wait()
	c := &Contract{docs: make(map[Name]*document, len(documents))}
	for i, d := range documents {
		if errs[i] != nil {
			return nil, errs[i]
		}
		c.names = append(c.names, d.name)
		c.docs[d.name] = loaded[i]
	}
	return c, nil
}

// jsonFile is the generated JSON rendering of the YAML document file.
func jsonFile(file string) string {
	return "json/" + strings.TrimSuffix(file, ".yaml") + ".json"
}

func loadDocument(name Name, file string, js []byte, build func() *openapi3.T) (*document, error) {
	if _, err := fs.Stat(files, file); err != nil {
		return nil, fmt.Errorf("openapi: document %q: %w", name, err)
	}
	if len(js) == 0 {
		return nil, fmt.Errorf("openapi: document %q: no JSON rendering (run go generate ./openapi/)", name)
	}
	yaml := sync.OnceValue(func() []byte {
		src, _ := files.ReadFile(file) // it exists (above)
		return src
	})
	return &document{doc: build(), json: js, yaml: yaml}, nil
}

// MustLoad is Load that panics on error. The embedded documents are fixed at
// build time and covered by tests, so an error is a programming error.
func MustLoad() *Contract {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

// LoadFrom parses one OpenAPI document from YAML or JSON and validates it.
// External references are not followed. name only labels errors.
func LoadFrom(name Name, data []byte) (*openapi3.T, error) {
	doc, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi: document %q: invalid: %w", name, err)
	}
	return doc, nil
}

// parse parses one document from YAML or JSON without validating it.
// External references are not followed.
func parse(name Name, data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: document %q: parse: %w", name, err)
	}
	return doc, nil
}

// Names returns the names of the documents in the contract, in a stable order.
func (c *Contract) Names() []Name {
	return append([]Name(nil), c.names...)
}

// Doc returns the document. It panics if name is not in the contract.
func (c *Contract) Doc(name Name) *openapi3.T { return c.get(name).doc }

// JSON returns the document rendered as JSON, for serving at .../openapi.json:
// kin-openapi's rendering of the document parsed from its YAML source.
// The bytes are shared: do not modify them. It panics if name is not in the
// contract.
func (c *Contract) JSON(name Name) []byte { return c.get(name).json }

// YAML returns the embedded YAML source of the document. The bytes are
// shared: do not modify them. It panics if name is not in the contract.
func (c *Contract) YAML(name Name) []byte { return c.get(name).yaml() }

func (c *Contract) get(name Name) *document {
	d, ok := c.docs[name]
	if !ok {
		panic(fmt.Sprintf("openapi: no document named %q", name))
	}
	return d
}

// shared is the contract loaded once per process.
var shared = sync.OnceValues(Load)

// Shared returns the contract loaded once for the whole process. The
// documents are read-only, so every server and runner in a process may use
// the same one; loading is then paid once.
func Shared() (*Contract, error) { return shared() }
