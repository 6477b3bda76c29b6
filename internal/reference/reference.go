// Package reference finds, for tests, the reference documents the contract
// is compared with: the official SS 12000 2.1.0 OpenAPI document and the
// vendor's field table of interface A. They are not part of the repository
// (one is published elsewhere, the other digests a proprietary document), so
// a plain clone runs without them: a test that needs one skips with a message
// that says how to get it, except in CI (the environment variable CI set),
// where a missing document fails the test, so that a CI run cannot pass by
// skipping.
//
// The documents are looked up in the folder named by SKOLKIT_REFERENCE_DIR,
// then in shared/reference beside the clone (the maintainers' layout).
// Only tests import this package.
package reference

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// EnvDir names the environment variable that holds the folder of the
// reference documents.
const EnvDir = "SKOLKIT_REFERENCE_DIR"

// A Document is one reference document: where it sits in the reference
// folder, and how to get it.
type Document struct {
	// Path is the document's path inside the reference folder, with
	// forward slashes.
	Path string
	// What says what the document is and where it comes from.
	What string
}

var (
	// SS12000 is the official SS 12000 2.1.0 OpenAPI document (SIS TK450).
	SS12000 = Document{
		Path: "ss12000/openapi_ss12000_version2_1_0.yaml",
		What: "the official SS 12000 2.1.0 OpenAPI document of SIS TK450; public byte-identical copies: " +
			"https://github.com/ist-group/ss12k2xsd (openapi_ss12000_version2_1_0.yaml at the repository's root)",
	}
	// VendorFields is the field table of the vendor's Directory API
	// (interface A): names, types, nullability, enums and operations.
	VendorFields = Document{
		Path: "directory-api/FIELDS.md",
		What: "the field table of the vendor's Directory API, a digest of facts the maintainers keep of the vendor's " +
			"proprietary OpenAPI document (which is not redistributed): ask the maintainers for their reference folder",
	}
)

// inCI reports whether the tests run in CI, where the documents are
// required: CI set to anything but "", "0" or "false" (GitHub Actions,
// GitLab CI and .ci/run set it).
func inCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

// Path returns the path of the document d. When d is in neither place, it
// skips the test with a message that says how to get it, or fails the test
// when it runs in CI.
func Path(t testing.TB, d Document) string {
	t.Helper()
	p, tried := find(d)
	if p != "" {
		return p
	}
	msg := fmt.Sprintf("%s is not in the reference folder (looked at %s).\n"+
		"It is %s.\n"+
		"Put it at <folder>/%s and set %s=<folder> to run this test.",
		filepath.Base(d.Path), strings.Join(tried, " and "), d.What, d.Path, EnvDir)
	if inCI() {
		t.Fatalf("%s\nCI is set, so the reference documents are required.", msg)
	} else {
		t.Skip(msg)
	}
	return ""
}

// find looks for d in the folder of EnvDir, then in shared/reference beside
// the module's root. It returns the path found, or the paths it tried.
func find(d Document) (string, []string) {
	var tried []string
	var dirs []string
	if dir := os.Getenv(EnvDir); dir != "" {
		dirs = append(dirs, dir)
	} else {
		tried = append(tried, "$"+EnvDir+" (not set)")
	}
	if root, err := moduleRoot(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(root), "shared", "reference"))
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, filepath.FromSlash(d.Path))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", tried
}

// moduleRoot is the nearest folder at or above the working directory (a
// test's package folder) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// loadSS12000 parses the official document once per test binary.
var loadSS12000 = sync.OnceValues(func() (*openapi3.T, error) {
	p, _ := find(SS12000)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	return doc, nil
})

// LoadSS12000 returns the official SS 12000 document, parsed (shared by
// every test of the binary: do not change it). It skips or fails the test as
// Path does when the document is absent.
func LoadSS12000(t testing.TB) *openapi3.T {
	t.Helper()
	Path(t, SS12000)
	doc, err := loadSS12000()
	if err != nil {
		t.Fatalf("the official SS 12000 document: %v", err)
	}
	return doc
}
