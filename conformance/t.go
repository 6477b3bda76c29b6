package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/report"
)

// T is handed to a check's Run function, in the manner of testing.T: it
// sends requests, records failures with the exchange that shows them, and
// stops the check on Skipf and Fatalf.
type T struct {
	ctx      context.Context
	env      *env
	check    *Check
	res      *report.Result
	last     *Response
	cleanups []func(context.Context)
}

// stop is the panic value that ends a check early (Skipf, Fatalf, errors).
type stop struct{}

// standard reports whether the run judges by the SS 12000 standard.
func (t *T) standard() bool { return t.env.cfg.Profile == ProfileSS12000 }

// Skipf ends the check as skipped, with the reason. A check skips when the
// server's data or the configuration does not allow it to decide.
func (t *T) Skipf(format string, args ...any) {
	t.res.Status = report.StatusSkip
	t.res.Reason = fmt.Sprintf(format, args...)
	panic(stop{})
}

// Notef adds a remark to the result (which list shape the server uses, how
// many records were compared).
func (t *T) Notef(format string, args ...any) {
	t.res.Notes = append(t.res.Notes, fmt.Sprintf(format, args...))
}

// Failf records a failure shown by resp (nil: not tied to one response).
func (t *T) Failf(resp *Response, expected, format string, args ...any) {
	f := report.Failure{Message: fmt.Sprintf(format, args...), Expected: expected}
	if resp != nil {
		f.Exchange = resp.ex
	}
	t.res.Failures = append(t.res.Failures, f)
}

// Fatalf records a failure and ends the check.
func (t *T) Fatalf(resp *Response, expected, format string, args ...any) {
	t.Failf(resp, expected, format, args...)
	panic(stop{})
}

// Failed reports whether the check has recorded a failure.
func (t *T) Failed() bool { return len(t.res.Failures) > 0 }

// Cleanup registers f to run when the check ends, whatever its outcome, in
// reverse order of registration. f gets a fresh context, so that cleanup
// runs even when the run is cancelled.
func (t *T) Cleanup(f func(ctx context.Context)) { t.cleanups = append(t.cleanups, f) }

// Do sends a request and returns the response. It ends the check with
// status error when the server cannot be reached, skips it when no access
// token can be had or the server keeps answering 429, and fails it when the
// body exceeds the size cap.
func (t *T) Do(req Request) *Response {
	t.res.Requests++
	resp, err := t.env.do(t.ctx, t.check.ID, req)
	if resp != nil {
		t.last = resp
	}
	var te *transportError
	switch {
	case err == nil:
	case errors.As(err, &te):
		t.res.Status = report.StatusError
		t.res.Reason = err.Error()
		panic(stop{})
	case errors.Is(err, errBodyTooLarge):
		t.Fatalf(resp, fmt.Sprintf("a body of at most %d bytes", t.env.cfg.MaxBodyBytes), "the response body is larger than the runner's cap of %d bytes", t.env.cfg.MaxBodyBytes)
	case errors.Is(err, errNoToken):
		t.Skipf("%v", err)
	default:
		t.Skipf("%v", err)
	}
	if resp.Status == http.StatusTooManyRequests && !req.NoRetry {
		t.Skipf("rate limited: %s %s answered 429 and the wait it asked for exceeds the runner's bound of %s; rerun later", req.Method, req.Path, t.env.cfg.MaxRateLimitWait)
	}
	return resp
}

// Get is Do for a GET with the default authentication.
func (t *T) Get(s Surface, path string, query map[string][]string) *Response {
	return t.Do(Request{Surface: s, Method: http.MethodGet, Path: path, Query: query})
}

// ExpectStatus records a failure unless resp has one of the statuses. It
// reports whether the status was expected.
func (t *T) ExpectStatus(resp *Response, want ...int) bool {
	if slices.Contains(want, resp.Status) {
		return true
	}
	t.Failf(resp, "status "+statusList(want), "%s %s answered %d", resp.ex.Method, resp.ex.URL, resp.Status)
	return false
}

// RequireStatus is ExpectStatus that ends the check on a mismatch.
func (t *T) RequireStatus(resp *Response, want ...int) {
	if !t.ExpectStatus(resp, want...) {
		panic(stop{})
	}
}

// RequireObject returns resp's body as a JSON object or ends the check.
func (t *T) RequireObject(resp *Response) map[string]any {
	obj, err := resp.Object()
	if err != nil {
		t.Fatalf(resp, "a JSON object", "the body is not a JSON object: %v", err)
	}
	return obj
}

func statusList(codes []int) string {
	var s []string
	for _, c := range codes {
		s = append(s, fmt.Sprint(c))
	}
	return strings.Join(s, " or ")
}
