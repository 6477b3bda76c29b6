package report

import (
	"strings"
	"time"

	"github.com/skolkit/skolkit/rules"
)

// The vocabulary reports share with the rules they report on.
type (
	Severity = rules.Severity
	SpecRef  = rules.SpecRef
	Surface  = rules.Surface
	Profile  = rules.Profile
)

// The severities and the default profile, as rules names them.
const (
	MUST           = rules.MUST
	SHOULD         = rules.SHOULD
	ProfileService = rules.ProfileService
)

// Status is the outcome of one check.
type Status string

// The outcomes. A check that cannot decide is skipped with its reason; it is
// never passed silently.
const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"
	StatusSkip  Status = "skip"
	StatusError Status = "error" // the server could not be reached or answered too slowly
)

// Result is the outcome of one check.
type Result struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Area  string `json:"area"`
	// Side is whose fault a failure is, for reports that judge both (the
	// tap's): server or client.
	Side     rules.Side    `json:"side,omitempty"`
	Level    string        `json:"level"`
	Severity Severity      `json:"severity"`
	Choice   string        `json:"choice,omitempty"` // skolkit's own choice where the standard is open
	Spec     SpecRef       `json:"spec"`
	Status   Status        `json:"status"`
	Reason   string        `json:"reason,omitempty"` // why skipped, or the error
	Failures []Failure     `json:"failures,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	Requests int           `json:"requests"`
	Duration time.Duration `json:"durationNs"`
}

// Meta is the result's severity, level and side as reports print them
// ("MUST, read"; "SHOULD, client side").
func (r Result) Meta() string {
	parts := []string{string(r.Severity)}
	if r.Level != "" {
		parts = append(parts, r.Level)
	}
	if r.Side != "" {
		parts = append(parts, string(r.Side)+" side")
	}
	return strings.Join(parts, ", ")
}

// Failure is one way the server (or, in reports that judge clients, the
// client) departed from the spec.
type Failure struct {
	Message  string    `json:"message"`
	Expected string    `json:"expected,omitempty"`
	Exchange *Exchange `json:"exchange,omitempty"`
	// Related are other exchanges that show it (the earlier read of a
	// record, the page a walk repeats).
	Related []*Exchange `json:"related,omitempty"`
}

// Exchange is one request and its response as reports show them: secrets
// redacted (the client secret as $CLIENT_SECRET, access tokens as $TOKEN),
// bodies cut to an excerpt, and a curl line that reproduces the request.
type Exchange struct {
	Surface        Surface           `json:"surface"`
	Method         string            `json:"method"`
	URL            string            `json:"url"`
	RequestHeader  map[string]string `json:"requestHeader,omitempty"`
	RequestBody    string            `json:"requestBody,omitempty"`
	Status         int               `json:"status,omitempty"`
	ResponseHeader map[string]string `json:"responseHeader,omitempty"`
	ResponseBody   string            `json:"responseBody,omitempty"`
	Error          string            `json:"error,omitempty"`
	Duration       time.Duration     `json:"durationNs"`
	Curl           string            `json:"curl"`
	Waited         time.Duration     `json:"waitedNs,omitempty"` // time spent waiting on 429 before this answer
}

// Report is the outcome of a run of the conformance runner, the tap or the
// exam.
type Report struct {
	// Tool names what made the report ("skolkit conformance"; empty reads
	// as the conformance runner).
	Tool     string            `json:"tool,omitempty"`
	Started  time.Time         `json:"started"`
	Duration time.Duration     `json:"durationNs"`
	Level    string            `json:"level"`
	Profile  Profile           `json:"profile,omitempty"`
	FailOn   Severity          `json:"failOn"`
	URLs     map[string]string `json:"urls"`
	Results  []Result          `json:"results"`
	// Waits lists the rate-limit waits the runner made (429 answers it
	// waited out as Retry-After or RateLimit-Reset said).
	Waits []Wait `json:"waits,omitempty"`
	// Notes are run-wide remarks (a --spec document loaded without
	// example validation, a derived auth URL, ...).
	Notes []string `json:"notes,omitempty"`
	// Incomplete says why the run could not test what it was asked to (a
	// surface no check could reach with credentials, fewer decided checks
	// than --min-checks); any entry makes the exit status 2.
	Incomplete []string `json:"incomplete,omitempty"`
	// Leftovers are records the runner created and could not delete.
	Leftovers []string `json:"leftovers,omitempty"`
}

// Wait is one wait on a 429.
type Wait struct {
	Check    string        `json:"check"`
	URL      string        `json:"url"`
	Duration time.Duration `json:"durationNs"`
	Basis    string        `json:"basis"` // "Retry-After: 2" or "RateLimit-Reset"
}

// Counts tallies results.
type Counts struct {
	Pass, Fail, Skip, Error int
}

// Total is the number of results counted.
func (c Counts) Total() int { return c.Pass + c.Fail + c.Skip + c.Error }

func (c *Counts) add(s Status) {
	switch s {
	case StatusPass:
		c.Pass++
	case StatusFail:
		c.Fail++
	case StatusSkip:
		c.Skip++
	case StatusError:
		c.Error++
	}
}

// Counts tallies every result of the report.
func (r *Report) Counts() Counts {
	var c Counts
	for _, res := range r.Results {
		c.add(res.Status)
	}
	return c
}

// ByArea tallies results per area, areas in the order their first result
// comes in.
func (r *Report) ByArea() ([]string, map[string]Counts) {
	m := map[string]Counts{}
	var order []string
	for _, res := range r.Results {
		c, ok := m[res.Area]
		if !ok {
			order = append(order, res.Area)
		}
		c.add(res.Status)
		m[res.Area] = c
	}
	return order, m
}

// ToolName is the report's tool, the conformance runner when unset.
func (r *Report) ToolName() string {
	if r.Tool == "" {
		return "skolkit conformance"
	}
	return r.Tool
}

// Failed reports whether a check at or above the severity failed: with
// failOn MUST only MUST checks count, with SHOULD both do.
func (r *Report) Failed(failOn Severity) bool {
	for _, res := range r.Results {
		if res.Status == StatusFail && (res.Severity == MUST || failOn == SHOULD) {
			return true
		}
	}
	return false
}

// Errored reports whether a check could not talk to the server.
func (r *Report) Errored() bool {
	for _, res := range r.Results {
		if res.Status == StatusError {
			return true
		}
	}
	return false
}

// ExitCode is the process exit code for the report: 2 when a check could
// not reach the server or the run was incomplete (Incomplete), 1 when a check at the chosen severity failed, 0
// otherwise.
func (r *Report) ExitCode() int {
	switch {
	case r.Errored(), len(r.Incomplete) > 0:
		return 2
	case r.Failed(r.FailOn):
		return 1
	}
	return 0
}

// excerpt cuts s to n bytes on a rune boundary.
func excerpt(s string, n int) string { return rules.Excerpt(s, n) }

func first[S ~[]E, E any](s S, n int) S {
	if len(s) > n {
		return s[:n]
	}
	return s
}
