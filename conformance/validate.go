package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/skolkit/skolkit/openapi"
)

// docValidator validates responses against one OpenAPI document. Operations
// are matched by method and by the request path relative to the surface URL
// the user gave (so a document's own servers entry does not matter).
type docValidator struct {
	name   string
	doc    *openapi3.T
	routes []*docRoute
}

type docRoute struct {
	template string
	re       *regexp.Regexp
	params   []string
	route    *routers.Route
}

var templateParam = regexp.MustCompile(`\{([^}/]+)\}`)

func newDocValidator(name string, doc *openapi3.T) *docValidator {
	v := &docValidator{name: name, doc: doc}
	for _, tmpl := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(tmpl)
		var params []string
		pattern := "^"
		last := 0
		for _, m := range templateParam.FindAllStringSubmatchIndex(tmpl, -1) {
			pattern += regexp.QuoteMeta(tmpl[last:m[0]]) + "([^/]+)"
			params = append(params, tmpl[m[2]:m[3]])
			last = m[1]
		}
		pattern += regexp.QuoteMeta(tmpl[last:]) + "$"
		re := regexp.MustCompile(pattern)
		for method, op := range item.Operations() {
			v.routes = append(v.routes, &docRoute{
				template: tmpl, re: re, params: params,
				route: &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: op},
			})
		}
	}
	// Literal paths before templated ones (/groups/lookup before /groups/{id}).
	sort.SliceStable(v.routes, func(i, j int) bool {
		return len(v.routes[i].params) < len(v.routes[j].params)
	})
	return v
}

// find returns the operation for a method and a relative path.
func (v *docValidator) find(method, rel string) (*docRoute, map[string]string) {
	for _, r := range v.routes {
		if r.route.Method != method {
			continue
		}
		m := r.re.FindStringSubmatch(rel)
		if m == nil {
			continue
		}
		params := map[string]string{}
		for i, p := range r.params {
			params[p], _ = url.PathUnescape(m[i+1])
		}
		return r, params
	}
	return nil, nil
}

// validate checks a response: its status is documented for the operation,
// its content type is one the operation declares, its documented headers are
// present and valid, and its body matches the schema, with the formats of
// openapi.SchemaOptions. matched is false when the document has no such
// operation.
func (v *docValidator) validate(ctx context.Context, method, rel string, query url.Values, status int, header http.Header, body []byte) (operation string, matched bool, problems []string) {
	r, params := v.find(method, rel)
	if r == nil {
		return "", false, nil
	}
	operation = method + " " + r.template
	hreq, _ := http.NewRequestWithContext(ctx, method, "http://conformance.invalid"+rel, nil)
	hreq.URL.RawQuery = query.Encode()
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: hreq, PathParams: params, QueryParams: query, Route: r.route,
		},
		Status: status,
		Header: header,
		Body:   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus:   true,
			MultiError:              true,
			SchemaValidationOptions: openapi.SchemaOptions(),
		},
	}
	if err := openapi3filter.ValidateResponse(ctx, input); err != nil {
		problems = describeValidation(err)
	}
	return operation, true, problems
}

// describeValidation turns kin-openapi's errors into one short line per
// violation, without the schema dumps.
func describeValidation(err error) []string {
	var out []string
	var walk func(prefix string, err error)
	walk = func(prefix string, err error) {
		var me openapi3.MultiError
		var re *openapi3filter.ResponseError
		var se *openapi3.SchemaError
		switch {
		case errors.As(err, &me):
			for _, e := range me {
				walk(prefix, e)
			}
		case errors.As(err, &re):
			p := prefix + re.Reason
			if re.Err == nil {
				out = append(out, p)
				return
			}
			walk(p+": ", re.Err)
		case errors.As(err, &se):
			ptr := "/" + strings.Join(se.JSONPointer(), "/")
			reason := se.Reason
			if reason == "" {
				reason = se.Error()
			}
			out = append(out, fmt.Sprintf("%sat %s: %s", prefix, ptr, excerpt(reason, 300)))
		default:
			out = append(out, prefix+excerpt(err.Error(), 300))
		}
	}
	walk("", err)
	slices.Sort(out)
	return slices.Compact(out)
}

// ledger validates every response as it arrives and keeps what the ledger
// checks (the contract checks, the date-format check, ...) report at the end.
type ledger struct {
	mu        sync.Mutex
	contract  map[Surface]*docValidator
	user      *docValidator
	surfaces  map[Surface]*tally
	userTally *tally
	dates     *tally
	a422      *tally // 422 answers to operations other than create, search, update
	errorBody map[Surface]*tally
	profile   Profile
}

// tally counts responses and keeps the first violations.
type tally struct {
	responses  int
	operations map[string]int
	unmatched  map[string]int
	violations []violation
	count      int
}

type violation struct {
	Check     string
	Operation string
	Problems  []string
	Exchange  *Exchange
}

const maxViolationsKept = 25

func newTally() *tally { return &tally{operations: map[string]int{}, unmatched: map[string]int{}} }

func (t *tally) add(v violation) {
	t.count++
	if len(t.violations) < maxViolationsKept {
		t.violations = append(t.violations, v)
	}
}

func newLedger(contract map[Surface]*docValidator, user *docValidator, profile Profile) *ledger {
	l := &ledger{
		contract: contract, user: user, profile: profile,
		surfaces: map[Surface]*tally{}, dates: newTally(), a422: newTally(),
		errorBody: map[Surface]*tally{},
	}
	for s := range contract {
		l.surfaces[s] = newTally()
		l.errorBody[s] = newTally()
	}
	if user != nil {
		l.userTally = newTally()
	}
	return l
}

// record validates one response against the contract (and the user's
// document) and scans it for dates; it keeps violations for the ledger
// checks.
func (l *ledger) record(ctx context.Context, check string, req *Request, resp *Response) {
	body := normaliseListShape(req.Surface, resp.Body)
	var contractOp string
	var contractProblems []string
	var contractMatched bool
	if v := l.contract[req.Surface]; v != nil {
		contractOp, contractMatched, contractProblems = v.validate(ctx, req.Method, req.Path, req.Query, resp.Status, resp.Header, body)
	}
	var userOp string
	var userProblems []string
	var userMatched bool
	if l.user != nil {
		userOp, userMatched, userProblems = l.user.validate(ctx, req.Method, req.Path, req.Query, resp.Status, resp.Header, body)
	}
	dateProblems, dated := scanDates(resp)
	errProblems := errorBodyProblems(req.Surface, resp)
	// The standard's 404 declares no content: any body, or none, will do.
	emptyAllowed := l.profile == ProfileSS12000 && req.Surface == SurfaceB && resp.Status == http.StatusNotFound
	// An operation the server does not offer is not judged by the
	// document's description of it (the standard makes no operation
	// mandatory; the checks skip it the same way).
	if l.profile == ProfileSS12000 && req.Surface == SurfaceB && notOffered(req, resp.Status) {
		contractProblems = nil
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.surfaces[req.Surface]; t != nil {
		t.responses++
		if contractMatched {
			t.operations[contractOp]++
			if len(contractProblems) > 0 {
				t.add(violation{Check: check, Operation: contractOp, Problems: contractProblems, Exchange: resp.ex})
			}
		} else if !req.Outside {
			op := req.Method + " " + req.Path
			t.unmatched[op]++
			t.add(violation{Check: check, Operation: op, Problems: []string{"the contract has no operation " + op}, Exchange: resp.ex})
		}
	}
	if l.userTally != nil {
		l.userTally.responses++
		if userMatched {
			l.userTally.operations[userOp]++
			if len(userProblems) > 0 {
				l.userTally.add(violation{Check: check, Operation: userOp, Problems: userProblems, Exchange: resp.ex})
			}
		} else {
			l.userTally.unmatched[string(req.Surface)+" "+req.Method+" "+req.Path]++
		}
	}
	if dated > 0 {
		l.dates.responses++
	}
	if len(dateProblems) > 0 {
		l.dates.add(violation{Check: check, Operation: req.Method + " " + req.Path, Problems: dateProblems, Exchange: resp.ex})
	}
	if req.Surface == SurfaceA {
		l.a422.responses++
		if resp.Status == http.StatusUnprocessableEntity && !allows422(req.Method) {
			l.a422.add(violation{Check: check, Operation: req.Method + " " + req.Path, Problems: []string{"422 on an operation that is neither a create, a search nor an update"}, Exchange: resp.ex})
		}
	}
	if t := l.errorBody[req.Surface]; t != nil && resp.Status >= 400 && !emptyAllowed {
		t.responses++
		if len(errProblems) > 0 {
			t.add(violation{Check: check, Operation: req.Method + " " + req.Path, Problems: errProblems, Exchange: resp.ex})
		}
	}
}

// notOffered says whether an answer means that the server does not offer
// the operation at all: 405 or 501, or 404 to a GET of a collection
// ("/attendances"), which the standard never answers 404 when offered.
func notOffered(req *Request, status int) bool {
	switch status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusNotFound:
		return req.Method == http.MethodGet && strings.Count(strings.Trim(req.Path, "/"), "/") == 0
	}
	return false
}

// allows422 says whether an interface A operation is a create, search or
// update (spec, Errors: 422 "only on create, search and update operations").
func allows422(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == http.MethodPut
}

// normaliseListShape rewrites an interface A or export list body that nests
// its items as data.resultArray into the flat data array the contract
// describes: the spec allows both shapes (Endpoints, interface A), the
// contract chose the flat one (decision A11), and the runner must not fail a
// server for the other.
func normaliseListShape(s Surface, body []byte) []byte {
	if s != SurfaceA && s != SurfaceExport || !bytes.Contains(body, []byte("resultArray")) {
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

// Field names that hold dates and date-times in every surface's records.
var (
	dateFields     = []string{"startDate", "endDate", "birthDate", "registrationDate", "dateOfBirth", "date", "gradeDate"}
	dateTimeFields = []string{"created", "modified", "startTime", "endTime", "reportedTimestamp", "archivedAt", "timestamp"}
)

// scanDates checks every string value under a date or date-time field name
// of a successful JSON response: RFC 3339 full-date or date-time. It also
// returns how many such values it saw (a response without any is no
// evidence for the check).
func scanDates(resp *Response) ([]string, int) {
	if resp.Status < 200 || resp.Status >= 300 || len(resp.Body) == 0 {
		return nil, 0
	}
	v, err := resp.JSON()
	if err != nil {
		return nil, 0
	}
	var out []string
	seen := 0
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := ptr + "/" + k
				if s, ok := c.(string); ok {
					if slices.Contains(dateFields, k) || slices.Contains(dateTimeFields, k) {
						seen++
					}
					switch {
					case slices.Contains(dateFields, k) && !isDate(s):
						out = append(out, fmt.Sprintf("at %s: %q is not an RFC 3339 full-date", p, s))
					case slices.Contains(dateTimeFields, k) && !isDateTime(s) && !isTimeOfDay(s):
						out = append(out, fmt.Sprintf("at %s: %q is not an RFC 3339 date-time", p, s))
					}
					continue
				}
				walk(p, c)
			}
		case []any:
			for i, c := range x {
				walk(fmt.Sprintf("%s/%d", ptr, i), c)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("… and %d more", len(out)-10))
	}
	return out, seen
}

func isDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}

// isTimeOfDay reports whether s is a time of day (15:04 or 15:04:05): the
// standard's attendance schedules give startTime and endTime so.
func isTimeOfDay(s string) bool {
	for _, layout := range []string{"15:04", "15:04:05"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

func isDateTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// errorBodyProblems checks the error body of the surface for
// a 4xx or 5xx answer: interface A {"error": {"code", "message",
// "requestID"}} with the code of the status; interface B {"code",
// "message"}; the token endpoint RFC 6749 §5.2 {"error", ...}.
func errorBodyProblems(s Surface, resp *Response) []string {
	if resp.Status < 400 {
		return nil
	}
	obj, err := resp.Object()
	if err != nil {
		return []string{"the error body is not a JSON object: " + err.Error()}
	}
	var out []string
	str := func(m map[string]any, k string) (string, bool) {
		v, ok := m[k].(string)
		return v, ok
	}
	switch s {
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
		if want, ok := errorCodeA[resp.Status]; ok {
			if got, _ := str(inner, "code"); got != want {
				out = append(out, fmt.Sprintf("error.code is %q; status %d has code %q", got, resp.Status, want))
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

// errorCodeA is the one code per status of interface A's error body.
var errorCodeA = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
	409: "Conflict", 422: "UnprocessableEntity", 429: "RateLimited", 500: "Internal",
}
