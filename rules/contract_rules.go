package rules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/skolkit/skolkit/openapi"
)

// The contract family: every answer is one the contract describes (server
// side), and every request one it accepts (client side).

var specJSON = SpecRef{Section: "What the service does", Quote: "All request and response bodies are JSON unless stated otherwise."}

// specTokenResponse is the spec's sentence about the token endpoint's answer.
var specTokenResponse = SpecRef{Section: "Authentication", Quote: "Token response: JSON with `access_token` (string), `token_type` (`Bearer`), `expires_in` (integer, lifetime in seconds).", Decision: "token-request"}

func onSurface(s Surface) func(*Operation) bool {
	return func(op *Operation) bool { return op != nil && op.Surface == s }
}

// contractRules returns the contract family: answers and requests judged
// against the embedded OpenAPI documents.
func contractRules() []*Rule {
	var rs []*Rule
	surfaceDoc := map[Surface]string{SurfaceAuth: "openapi/auth.yaml", SurfaceA: "openapi/directory.yaml", SurfaceB: "openapi/register.yaml, relaxed to the standard where the spec says no more (under --profile ss12000: to the standard)", SurfaceExport: "openapi/export.yaml"}
	for _, c := range []struct {
		s        Surface
		spec     SpecRef
		std      *SpecRef
		standard Severity
	}{
		{SurfaceAuth, specTokenResponse, &SpecRef{Section: "RFC 6749 §5.1", Quote: "access_token REQUIRED. The access token issued by the authorization server. token_type REQUIRED. The type of the token issued … expires_in RECOMMENDED."}, MUST},
		{SurfaceA, SpecRef{Section: specJSON.Section, Quote: specJSON.Quote, Decision: "interface-a-contract"}, nil, Off},
		{SurfaceB, SpecRef{Section: specJSON.Section, Quote: specJSON.Quote, Decision: "interface-b-contract"}, &SpecRef{Section: "SS 12000 2.1.0: the responses of every operation", Quote: "content: application/json … default: description: Okänt fel. (schema Error)"}, MUST},
		{SurfaceExport, SpecRef{Section: specJSON.Section, Quote: specJSON.Quote, Decision: "data-export"}, nil, Off},
	} {
		rs = append(rs, &Rule{
			ID: "contract." + string(c.s) + ".response", Family: FamilyContract, Side: SideServer,
			Title: "every answer of " + c.s.Name() + " has a documented status, content type, headers and body (" + surfaceDoc[c.s] + ")",
			Spec:  c.spec, StandardSpec: c.std,
			Severity: MUST, Standard: c.standard,
			Applies:    onSurface(c.s),
			Concurrent: true,
			Check:      checkResponseContract,
		})
	}
	rs = append(rs,
		&Rule{ID: "contract.request.operation", Family: FamilyContract, Side: SideClient,
			Title:    "every request is of an operation the contract has (path and method)",
			Spec:     SpecRef{Section: "Endpoints", Quote: "The operations of each interface are the ones listed in its endpoint table."},
			Severity: MUST, Standard: MUST, Concurrent: true,
			Check: checkRequestOperation},
		&Rule{ID: "contract.request.parameters", Family: FamilyContract, Side: SideClient,
			Title:    "every query parameter a request sends is one its operation declares",
			Spec:     SpecRef{Section: "Endpoints", Quote: "The operations of each interface are the ones listed in its endpoint table, with their parameters."},
			Severity: SHOULD, Standard: SHOULD, Concurrent: true,
			Applies: func(op *Operation) bool { return op != nil },
			Check:   checkRequestParameters},
		&Rule{ID: "contract.request.valid", Family: FamilyContract, Side: SideClient,
			Title:    "every request's parameters and body are valid for its operation (types, formats, enumerations, bounds, required members)",
			Spec:     specJSON,
			Severity: MUST, Standard: MUST, Concurrent: true,
			Applies: func(op *Operation) bool { return op != nil },
			Check:   checkRequestValid},
		&Rule{ID: "contract.request.credentials", Family: FamilyContract, Side: SideClient,
			Title:    "every request to an operation that requires credentials carries them: a bearer token (interface A: or the Client-ID and Client-Secret headers)",
			Spec:     SpecRef{Section: "Authentication", Quote: "Every request to interface A, interface B and the data export carries `Authorization: Bearer <access_token>`."},
			Severity: MUST, Standard: MUST, Concurrent: true,
			Applies: func(op *Operation) bool { return op != nil && op.Secured },
			Check:   checkRequestCredentials},
	)
	return rs
}

// notOffered says whether an answer means that the server does not offer
// the operation at all: 405 or 501, or 404 to a GET of a collection (the
// standard makes no operation mandatory).
func notOffered(o *Observation) bool {
	switch o.Status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusNotFound:
		return o.Op != nil && o.Op.Kind == KindList
	}
	return false
}

func checkResponseContract(c *Context, o *Observation) {
	if o.Status == 0 {
		c.Undecided(o, "no answer (transport error)")
		return
	}
	if o.ResponseTruncated {
		c.Undecided(o, "the answer's body was cut short by the driver")
		return
	}
	if c.Standard() && o.Surface == SurfaceB && notOffered(o) {
		c.Undecided(o, "the server does not offer the operation (the standard makes none mandatory)")
		return
	}
	problems := c.Contract.validated.validate(o)
	c.Judged(o)
	if len(problems) > 0 {
		c.Fail(o, "an answer the contract describes", "%s: %s", o.OperationName(), strings.Join(problems, "; "))
	}
}

// ValidateResponse validates an answer against its operation: the status
// is documented, the content type declared, the documented headers present
// and valid, the body matches the schema (with the formats of
// openapi.SchemaOptions). Interface A's and the export's lists nested as
// data.resultArray are read as the flat data array the contract chose
// (the spec allows both).
func ValidateResponse(o *Observation) []string {
	if o.Op == nil {
		return nil
	}
	return validateWith(o.Op.route, o, o.PathParams)
}

func validateWith(route *routers.Route, o *Observation, params map[string]string) []string {
	ctx := context.Background()
	body := o.ResponseBody
	if o.Surface == SurfaceA || o.Surface == SurfaceExport {
		body = normaliseListShape(body)
	}
	hreq, _ := http.NewRequestWithContext(ctx, o.Method, "http://rules.invalid"+o.Path, nil)
	hreq.URL.RawQuery = o.Query.Encode()
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: hreq, PathParams: params, QueryParams: o.Query, Route: route,
		},
		Status: o.Status,
		Header: o.ResponseHeader,
		Body:   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus:   true,
			MultiError:              true,
			SchemaValidationOptions: openapi.SchemaOptions(),
		},
	}
	if err := openapi3filter.ValidateResponse(ctx, input); err != nil {
		return DescribeValidation(err)
	}
	return nil
}

// DocValidator validates answers against one OpenAPI document other than
// the contract (a user's --spec), its operations matched by method and
// path relative to the surface.
type DocValidator struct {
	name string
	ops  []*Operation
}

// NewDocValidator indexes a document's operations.
func NewDocValidator(name string, doc *openapi3.T) (*DocValidator, error) {
	ops, err := operationsOf("", doc)
	if err != nil {
		return nil, err
	}
	return &DocValidator{name: name, ops: ops}, nil
}

// Name is the document's label.
func (v *DocValidator) Name() string { return v.name }

// Validate validates an exchange's answer against the document. matched
// is false when the document has no such operation.
func (v *DocValidator) Validate(ex *Exchange) (operation string, matched bool, problems []string) {
	c := &Contract{by: map[Surface][]*Operation{"": v.ops}}
	op, params := c.Match("", ex.Method, ex.Path)
	if op == nil {
		return "", false, nil
	}
	o := &Observation{Exchange: ex, Op: op, PathParams: params}
	return op.Method + " " + op.Path, true, validateWith(op.route, o, params)
}

// DescribeValidation turns kin-openapi's errors into one short line per
// violation, without the schema dumps.
func DescribeValidation(err error) []string {
	var out []string
	var walk func(prefix string, err error)
	walk = func(prefix string, err error) {
		// The error itself first: a ResponseError wraps a MultiError, and
		// its reason names the header or body at fault.
		var me openapi3.MultiError
		var re *openapi3filter.ResponseError
		var rq *openapi3filter.RequestError
		var se *openapi3.SchemaError
		switch x := err.(type) {
		case openapi3.MultiError:
			me = x
		case *openapi3filter.ResponseError:
			re = x
		case *openapi3filter.RequestError:
			rq = x
		case *openapi3.SchemaError:
			se = x
		default:
			switch {
			case errors.As(err, &re), errors.As(err, &rq), errors.As(err, &me), errors.As(err, &se):
			}
		}
		switch {
		case me != nil:
			for _, e := range me {
				walk(prefix, e)
			}
		case re != nil:
			p := prefix + re.Reason
			if re.Err == nil {
				out = append(out, p)
				return
			}
			walk(p+": ", re.Err)
		case rq != nil:
			p := prefix
			if rq.Parameter != nil {
				p += "parameter " + rq.Parameter.Name + ": "
			} else if rq.RequestBody != nil {
				p += "request body: "
			}
			if rq.Reason != "" {
				p += rq.Reason
			}
			if rq.Err == nil {
				out = append(out, p)
				return
			}
			if rq.Reason != "" {
				p += ": "
			}
			walk(p, rq.Err)
		case se != nil:
			ptr := "/" + strings.Join(se.JSONPointer(), "/")
			var inner *openapi3.SchemaError
			var innerMulti openapi3.MultiError
			if se.Origin != nil && (errors.As(se.Origin, &inner) || errors.As(se.Origin, &innerMulti)) {
				// allOf, oneOf: the violation inside says what is wrong,
				// with its own pointer.
				walk(prefix, se.Origin)
				return
			}
			reason := se.Reason
			if reason == "" {
				reason = se.Error()
			}
			out = append(out, fmt.Sprintf("%sat %s: %s", prefix, ptr, Excerpt(reason, 300)))
		default:
			out = append(out, prefix+Excerpt(err.Error(), 300))
		}
	}
	walk("", err)
	slices.Sort(out)
	return slices.Compact(out)
}

// normaliseListShape rewrites a list body that nests its items as
// data.resultArray into the flat data array the contract describes.
func normaliseListShape(body []byte) []byte {
	if !bytes.Contains(body, []byte("resultArray")) {
		return body
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	var data struct {
		ResultArray json.RawMessage `json:"resultArray"`
	}
	if json.Unmarshal(obj["data"], &data) != nil || data.ResultArray == nil {
		return body
	}
	obj["data"] = data.ResultArray
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

func checkRequestOperation(c *Context, o *Observation) {
	c.Judged(o)
	if o.Op != nil {
		return
	}
	if c.Contract != nil && c.Contract.PathExists(o.Surface, o.Path) {
		c.Fail(o, "a method the contract has for "+o.Path, "%s %s: the contract has no %s on this path", o.Method, o.Path, o.Method)
		return
	}
	c.Fail(o, "an operation of the contract", "%s %s: %s has no such operation", o.Method, o.Path, o.Surface.Name())
}

func checkRequestParameters(c *Context, o *Observation) {
	c.Judged(o)
	var unknown []string
	for name := range o.Query {
		if !o.Op.HasParam(name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		c.Fail(o, "only the parameters "+o.Op.ID()+" declares", "%s sends parameters the operation does not declare: %s", o.Label(), strings.Join(unknown, ", "))
	}
}

func checkRequestValid(c *Context, o *Observation) {
	if o.RequestTruncated {
		c.Undecided(o, "the request's body was cut short by the driver")
		return
	}
	ctx := context.Background()
	var body io.Reader
	if len(o.RequestBody) > 0 {
		body = bytes.NewReader(o.RequestBody)
	}
	hreq, _ := http.NewRequestWithContext(ctx, o.Method, "http://rules.invalid"+o.Path, body)
	hreq.URL.RawQuery = o.Query.Encode()
	hreq.Header = o.RequestHeader.Clone()
	if hreq.Header == nil {
		hreq.Header = http.Header{}
	}
	input := &openapi3filter.RequestValidationInput{
		Request: hreq, PathParams: o.PathParams, QueryParams: o.Query, Route: o.Op.route,
		Options: &openapi3filter.Options{
			MultiError:              true,
			AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
			SchemaValidationOptions: openapi.SchemaOptions(),
		},
	}
	c.Judged(o)
	if err := openapi3filter.ValidateRequest(ctx, input); err != nil {
		c.Fail(o, "a request "+o.Op.ID()+" accepts", "%s: %s", o.Label(), strings.Join(DescribeValidation(err), "; "))
	}
}

func checkRequestCredentials(c *Context, o *Observation) {
	c.Judged(o)
	auth := o.RequestHeader.Get("Authorization")
	scheme, token, _ := strings.Cut(auth, " ")
	if strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != "" {
		return
	}
	if o.Surface == SurfaceA && o.RequestHeader.Get("Client-ID") != "" && o.RequestHeader.Get("Client-Secret") != "" {
		return
	}
	what := "no Authorization header"
	if auth != "" {
		what = "an Authorization header that is not a bearer token"
	}
	c.Fail(o, "Authorization: Bearer <access_token>", "%s was sent with %s", o.Label(), what)
}
