package rules

import (
	"fmt"
	"net/http"
)

// The errors family: every error answer has its surface's error body.

// errorCodeA is the one code per status of interface A's error body.
var errorCodeA = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
	409: "Conflict", 422: "UnprocessableEntity", 429: "RateLimited", 500: "Internal",
}

// errorRules returns the errors family: the error body of each surface.
func errorRules() []*Rule {
	var rs []*Rule
	errorsOn := func(s Surface) func(*Operation) bool {
		return func(op *Operation) bool { return op != nil && op.Surface == s }
	}
	notShown := SpecRef{Section: "Errors", Quote: "The body shape of error responses, and any error code field: not shown."}
	for _, c := range []struct {
		s                  Surface
		title              string
		spec               SpecRef
		choice             string
		severity, standard Severity
	}{
		{SurfaceAuth, "every token-endpoint error has the RFC 6749 §5.2 body",
			SpecRef{Section: "RFC 6749 §5.2", Quote: "The authorization server responds with an HTTP 400 (Bad Request) status code (unless specified otherwise) and includes the following parameters with the response: error REQUIRED.", Decision: "token-errors"}, "", MUST, MUST},
		{SurfaceA, "every interface A error has the body {error: {code, message, requestID}} with the code of its status",
			SpecRef{Section: notShown.Section, Quote: notShown.Quote, Decision: "interface-a-error-body"}, "", SHOULD, Off},
		{SurfaceB, "every interface B error has the SS 12000 body {code, message} (under --profile ss12000 a 404 may have none)",
			SpecRef{Section: "Errors", Quote: "Error statuses of interface B: not shown.", Decision: "interface-b-errors"},
			"an error body on every status, 404 included (docs/decisions.md#interface-b-errors); the standard's 404 has no content", SHOULD, SHOULD},
		{SurfaceExport, "every data-export error has the body {error: {code, message, requestID}}",
			SpecRef{Section: notShown.Section, Quote: notShown.Quote, Decision: "export-conventions"}, "", SHOULD, Off},
	} {
		rs = append(rs, &Rule{ID: "errors." + string(c.s) + ".body", Family: FamilyErrors, Side: SideServer, Title: c.title, Spec: c.spec, Choice: c.choice,
			Severity: c.severity, Standard: c.standard, Applies: errorsOn(c.s), Concurrent: true, Check: checkErrorBody})
	}
	rs = append(rs, &Rule{ID: "errors.A.422-only-on-writes", Family: FamilyErrors, Side: SideServer,
		Title:    "interface A answers 422 only to creates, searches and updates",
		Spec:     SpecRef{Section: "Errors", Quote: "Every operation of interface A lists these statuses: … 422: request data failed validation; only on create, search and update operations", Decision: "bad-request-or-unprocessable"},
		Severity: MUST, Standard: Off, Applies: errorsOn(SurfaceA), Concurrent: true, Check: checkA422})
	return rs
}

func checkErrorBody(c *Context, o *Observation) {
	if o.Status < 400 {
		return
	}
	if c.Standard() && o.Surface == SurfaceB && o.Status == http.StatusNotFound {
		return // the standard's 404 declares no content
	}
	if o.ResponseTruncated {
		c.Undecided(o, "the answer's body was cut short by the driver")
		return
	}
	c.Judged(o)
	if problems := errorBodyProblems(o); len(problems) > 0 {
		c.Fail(o, "the error body of "+o.Surface.Name(), "%s: %s", o.Label(), joinProblems(problems))
	}
}

func joinProblems(p []string) string {
	out := ""
	for i, s := range p {
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}

// errorBodyProblems checks the error body of a 4xx or 5xx answer:
// interface A and the export {"error": {"code", "message", "requestID"}}
// with the code of the status; interface B {"code", "message"}; the token
// endpoint RFC 6749 §5.2 {"error", ...}.
func errorBodyProblems(o *Observation) []string {
	v, err := o.JSON()
	if err != nil {
		return []string{"the error body is not JSON: " + err.Error()}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{"the error body is not a JSON object"}
	}
	var out []string
	str := func(m map[string]any, k string) (string, bool) {
		v, ok := m[k].(string)
		return v, ok
	}
	switch o.Surface {
	case SurfaceA, SurfaceExport:
		inner, ok := obj["error"].(map[string]any)
		if !ok {
			return []string{`no "error" object`}
		}
		for _, k := range []string{"code", "message", "requestID"} {
			if _, ok := str(inner, k); !ok {
				out = append(out, fmt.Sprintf("error.%s is missing or not a string", k))
			}
		}
		if want, ok := errorCodeA[o.Status]; ok {
			if got, _ := str(inner, "code"); got != want {
				out = append(out, fmt.Sprintf("error.code is %q; status %d has code %q", got, o.Status, want))
			}
		}
	case SurfaceB:
		for _, k := range []string{"code", "message"} {
			if _, ok := str(obj, k); !ok {
				out = append(out, fmt.Sprintf("%s is missing or not a string", k))
			}
		}
	case SurfaceAuth:
		if _, ok := str(obj, "error"); !ok {
			out = append(out, `"error" is missing or not a string`)
		}
	}
	return out
}

func checkA422(c *Context, o *Observation) {
	if o.Status == 0 {
		return
	}
	c.Judged(o)
	if o.Status != http.StatusUnprocessableEntity {
		return
	}
	switch o.Op.Kind {
	case KindCreate, KindSearch, KindUpdate:
		return
	}
	c.Fail(o, "422 only on a create, a search or an update", "%s answered 422, but %s is neither a create, a search nor an update", o.Label(), o.Op.ID())
}
