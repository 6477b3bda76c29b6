package tap

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// Judging is the tap's observer: one rules.Judge with the rules of both
// sides, fed on the tap's judging goroutine, and what the tap knows of who
// is who. The clients are told apart by what the traffic shows: the
// client_id of a token request (its form, or its Basic credentials), the
// tokens that request was given, interface A's Client-ID header. A
// request with a token issued before the tap started, whose client the
// tap cannot know, is judged as the traffic of one unnamed client.
type Judging struct {
	judge   *rules.Judge
	profile rules.Profile
	red     *report.Redactor
	// clients maps access tokens seen issued to their client (bounded:
	// least recently used tokens are forgotten first).
	clients *rules.Bounded[string, string]
}

// maxListed bounds the operations a note lists.
const maxListed = 40

// maxTokens bounds the tokens the tap remembers the client of.
const maxTokens = 4096

// NewJudging builds the judge of both sides by cfg (cfg.Sides is
// ignored: the tap judges both). With maskPersonalData, reports mask
// personal data as well as secrets.
func NewJudging(cfg rules.Config, maskPersonalData bool) (*Judging, error) {
	cfg.Sides = nil
	j, err := rules.NewJudge(cfg)
	if err != nil {
		return nil, err
	}
	red := report.NewTrafficRedactor()
	if maskPersonalData {
		red.MaskPersonalData()
	}
	return &Judging{judge: j, profile: j.Profile(), red: red, clients: rules.NewBounded[string, string](maxTokens)}, nil
}

// Observe names the exchange's client and judges it. It is called from
// one goroutine (the tap's judging goroutine).
func (j *Judging) Observe(ex *rules.Exchange) {
	j.attribute(ex)
	j.judge.Observe(ex)
}

// Begin tells the judge of a write under way, so that readings that
// change during it are not taken for faults.
func (j *Judging) Begin(ex *rules.Exchange) { j.judge.Begin(ex) }

// attribute names the client of an exchange where Capture could not (it
// names the Client-ID header's and Basic credentials' user).
func (j *Judging) attribute(ex *rules.Exchange) {
	if ex.Surface == rules.SurfaceAuth {
		if ex.Client == "" {
			if form, err := url.ParseQuery(string(ex.RequestBody)); err == nil {
				ex.Client = form.Get("client_id")
			}
		}
		if ex.Client != "" && ex.Status == 200 {
			var answer struct {
				AccessToken string `json:"access_token"`
			}
			if json.Unmarshal(ex.ResponseBody, &answer) == nil && answer.AccessToken != "" {
				j.clients.Put(answer.AccessToken, ex.Client)
			}
		}
		return
	}
	if ex.Client != "" {
		return
	}
	scheme, token, _ := strings.Cut(ex.RequestHeader.Get("Authorization"), " ")
	if strings.EqualFold(scheme, "Bearer") {
		ex.Client, _ = j.clients.Get(strings.TrimSpace(token))
	}
}

// Finish tells the rules that the traffic is over, so that those judging
// what never came (a walk left before its end) do. Call it once the tap is
// closed, before the final report.
func (j *Judging) Finish() { j.judge.Finish() }

// Run says what a report is of.
type Run struct {
	Started time.Time
	// Target is the server's URL, Listen the tap's.
	Target, Listen string
	Stats          Stats
	// MaxBody is the bound bodies were cut at for the judge.
	MaxBody int
}

// Report is what the tap has judged so far, as the runner's and the
// exam's reports are: a result per rule (failed with its findings and
// whose fault they are, passed on evidence, or skipped with the reason it
// had nothing to look at), and notes on what the tap could not judge.
// Secrets are redacted, and personal data masked when asked.
func (j *Judging) Report(run Run) *report.Report {
	cov := j.judge.Coverage()
	rep := &report.Report{
		Tool: "skolkit tap", Started: run.Started, Duration: time.Since(run.Started),
		Profile: j.profile, FailOn: rules.MUST,
		URLs: map[string]string{"target": run.Target, "tap": run.Listen},
	}
	for _, c := range cov.Rules {
		rep.Results = append(rep.Results, report.RuleResult(c, j.profile, j.red, c.Reason()))
	}
	st := run.Stats
	rep.Notes = append(rep.Notes, fmt.Sprintf("%d requests forwarded, %d of them to a surface; %d exchanges judged", st.Forwarded, st.Seen, st.Judged))
	if st.Dropped > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d exchanges were not judged: the judge fell behind the traffic (its queue was full, or it kept to its share of a core); rules over history judged what remained", st.Dropped))
	}
	if st.CutBodies > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d exchanges had a body longer than %d bytes (--max-body): the rules saw its beginning only", st.CutBodies, run.MaxBody))
	}
	if st.NoAnswer > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the target did not answer %d requests (the client got a 502 from the tap)", st.NoAnswer))
	}
	if seen := operationsSeen(cov); len(seen) > 0 {
		more := ""
		if len(seen) > maxListed {
			more = fmt.Sprintf(" and %d more", len(seen)-maxListed)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d operations seen (exchanges): %s%s", len(seen), strings.Join(seen[:min(len(seen), maxListed)], ", "), more))
	}
	if len(cov.Unjudged) > 0 {
		ops := slices.Sorted(maps.Keys(cov.Unjudged))
		for i, op := range ops {
			ops[i] = fmt.Sprintf("%s (%d)", op, cov.Unjudged[op])
		}
		rep.Notes = append(rep.Notes, "operations seen that no rule concerns: "+strings.Join(ops, ", "))
	}
	if len(cov.Dropped) > 0 {
		kinds := slices.Sorted(maps.Keys(cov.Dropped))
		for i, k := range kinds {
			kinds[i] = fmt.Sprintf("%s %d", k, cov.Dropped[k])
		}
		rep.Notes = append(rep.Notes, "the rules' history forgot entries to stay within its bounds (rules over history could not compare with them): "+strings.Join(kinds, ", "))
	}
	return rep
}

// operationsSeen lists every operation the traffic showed, with its
// exchanges, the most frequent first: those some rule concerned and those
// none did.
func operationsSeen(cov rules.Coverage) []string {
	n := maps.Clone(cov.Unjudged)
	if n == nil {
		n = map[string]int{}
	}
	for _, rc := range cov.Rules {
		for op, k := range rc.Operations {
			n[op] = max(n[op], k)
		}
	}
	ops := slices.Sorted(maps.Keys(n))
	slices.SortStableFunc(ops, func(a, b string) int { return n[b] - n[a] })
	for i, op := range ops {
		ops[i] = fmt.Sprintf("%s (%d)", op, n[op])
	}
	return ops
}
