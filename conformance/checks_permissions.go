package conformance

import (
	"net/http"
	"strings"

	"github.com/skolkit/skolkit/rules"
)

// A second client that may read and not write (--limited-client-id,
// --limited-client-secret): every write operation of every configured
// surface, derived from the contract, must answer it 403. The requests
// cannot change anything on a server that enforces the permission, nor on
// one that does not: unknown ids in the path and an empty body.

var specPermission = SpecRef{Section: "Authentication", Quote: "Scopes and per-operation permissions: not shown. An insufficient permission yields 403.", Decision: "read-only-client"}

func permissionChecks() []*Check {
	return []*Check{{ID: "auth.insufficient-permission-403", Title: "every write operation of every configured surface answers 403 to a client that may only read (--limited-client-id)",
		Area: "auth", Level: LevelWrite, Severity: MUST, Standard: MUST, Spec: specPermission,
		StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: the responses of every operation", Quote: "403: Åtkomst nekad."},
		Evidence:     "the limited client's token is issued and a read with it answers 2xx",
		Run:          checkInsufficientPermission}}
}

// writeOperations are the operations of the configured surfaces that
// change something: creates, updates, deletes and the other non-read
// operations (logs, statistics), but not searches and lookups, which read.
func (e *env) writeOperations(c *rules.Contract) []*rules.Operation {
	var out []*rules.Operation
	for _, op := range c.Operations() {
		if !e.has(op.Surface) || op.Surface == SurfaceAuth || op.Method == http.MethodGet {
			continue
		}
		switch op.Kind {
		case rules.KindSearch, rules.KindLookup, rules.KindToken:
			continue
		}
		if e.cfg.Profile == ProfileSS12000 && op.Surface != SurfaceB {
			continue
		}
		out = append(out, op)
	}
	return out
}

func checkInsufficientPermission(t *T) {
	e := t.env
	switch {
	case e.cfg.LimitedClientID == "":
		t.Skipf("no second client: give --limited-client-id and --limited-client-secret (a client that may read and not write)")
	case e.limited == nil:
		t.Skipf("no token endpoint to get the limited client's token from: give --auth-url")
	}
	tok, err := e.limited.token()
	if err != nil {
		t.Skipf("the token endpoint issued the limited client no token: %v", err)
	}
	c, err := rules.LoadContract(e.cfg.Profile)
	if err != nil {
		t.Skipf("%v", err)
	}
	ops := e.writeOperations(c)
	if len(ops) == 0 {
		t.Skipf("no configured surface has a write operation")
	}
	// The token must work for reads, or a refusal proves nothing.
	var read *Response
	for _, s := range []Surface{SurfaceB, SurfaceA, SurfaceExport} {
		if !e.has(s) || (e.cfg.Profile == ProfileSS12000 && s != SurfaceB) {
			continue
		}
		path, q := probe(s)
		read = t.Do(Request{Surface: s, Method: http.MethodGet, Path: path, Query: q, Auth: authToken, Token: tok})
		if read.Status/100 != 2 {
			t.Skipf("a read with the limited client's token (GET %s) answered %d: the token must work for reads before its refusals prove anything", path, read.Status)
		}
	}
	refused := 0
	for _, op := range ops {
		path := op.Path
		for _, seg := range strings.Split(op.Path, "/") {
			if strings.HasPrefix(seg, "{") {
				path = strings.Replace(path, seg, unknownID, 1)
			}
		}
		req := Request{Surface: op.Surface, Method: op.Method, Path: path, Auth: authToken, Token: tok, NoRetry: true}
		if op.Body {
			req.Body, req.ContentType = []byte("{}"), mimeJSON
		}
		resp := t.Do(req)
		if resp.Status == http.StatusForbidden {
			refused++
			continue
		}
		t.Failf(resp, "403", "%s %s with the limited client's token answered %d", op.Method, path, resp.Status)
	}
	t.Notef("%d of %d write operations answered 403", refused, len(ops))
}
