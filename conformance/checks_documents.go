package conformance

import (
	"net/http"
	"strings"
)

// The contract documents: the design serves each surface's contract at
// /openapi.json. The spec names no such path, so a server that does not
// offer it (404, 405, 501) is not judged.

var specDocument = SpecRef{Section: "What the service does", Quote: specJSON, Decision: "interface-a-document"}

func documentChecks() []*Check {
	var out []*Check
	for _, s := range []Surface{SurfaceA, SurfaceB, SurfaceExport} {
		out = append(out, &Check{ID: string(s) + ".document", Title: "GET /openapi.json answers the surface's contract: JSON, an OpenAPI 3 document with info and paths",
			Area: "contract", Severity: SHOULD, Standard: Off, Spec: specDocument,
			Choice: "serving the contract at /openapi.json (docs/decisions.md#interface-a-document)",
			Needs:  []Surface{s}, Run: checkDocument(s)})
	}
	return out
}

func checkDocument(s Surface) func(*T) {
	return func(t *T) {
		t.requireAuth(s)
		resp := t.Do(Request{Surface: s, Method: http.MethodGet, Path: "/openapi.json", Outside: true})
		switch resp.Status {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			t.Skipf("the server does not serve a contract at /openapi.json (%d), a path the spec does not name", resp.Status)
		}
		t.RequireStatus(resp, http.StatusOK)
		doc := t.RequireObject(resp)
		version, _ := doc["openapi"].(string)
		info, _ := doc["info"].(map[string]any)
		paths, _ := doc["paths"].(map[string]any)
		if !strings.HasPrefix(version, "3.") || info == nil || len(paths) == 0 {
			t.Failf(resp, "an OpenAPI 3 document: openapi 3.x, info, paths", "the document says openapi %q, with %d paths and info %v", version, len(paths), info != nil)
		}
	}
}
