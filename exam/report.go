package exam

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skolkit/skolkit/report"
	"github.com/skolkit/skolkit/rules"
)

// ToolName names the exam in its reports.
const ToolName = "skolkit exam"

// Report turns the exam's result into the report the conformance runner
// and the tap write too: one result per scene and kind of finding (a
// client rule or one of the exam's own kinds), its area the scene. A kind
// with a client fault fails; one with notes only passes with the notes; one
// that had nothing to look at in the scene is skipped with the reason.
// Failing results come first. Secrets (the client secret, every access
// token the mock issued) are hidden in the excerpts and curl lines.
func (r *Result) Report() *report.Report {
	red := report.NewRedactor(r.secret)
	for _, t := range r.tokens {
		red.AddToken(t)
	}
	rep := &report.Report{Tool: ToolName, Started: r.Started, Duration: r.Duration, Level: string(r.Task), Profile: r.Profile,
		// Every client fault counts: SHOULD as much as MUST.
		FailOn: report.SHOULD, URLs: r.URLs, Incomplete: r.Incomplete}
	rep.Notes = append(rep.Notes, fmt.Sprintf("task %s, scenario %s; the exam's own time %s of %s (the rest was the client's rounds)",
		r.Task, r.Scenario, r.ExamTime.Round(1e6), r.Duration.Round(1e6)))
	for _, s := range r.Scenes {
		rep.Notes = append(rep.Notes, fmt.Sprintf("scene %s: %s", s.Scene.Name, s.Scene.Behaviour))
	}
	var results []report.Result
	for _, s := range r.Scenes {
		results = append(results, sceneResults(s, r.Profile, red)...)
	}
	order := map[string]int{}
	for i, s := range r.Scenes {
		order[s.Scene.Name] = i
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if (a.Status == report.StatusFail) != (b.Status == report.StatusFail) {
			return a.Status == report.StatusFail
		}
		return order[a.Area] < order[b.Area]
	})
	rep.Results = results
	return rep
}

// kindInfo describes a kind of finding for a report: a client rule's or
// one of the exam's own.
type kindInfo struct {
	id, title, family string
	severity          rules.Severity
	spec              SpecRef
}

// sceneResults are one scene's results, a kind each: every client rule
// the judge applied and every kind of the exam's own.
func sceneResults(s SceneResult, profile rules.Profile, red *report.Redactor) []report.Result {
	byID := map[string][]Finding{}
	for _, f := range s.Findings {
		byID[f.ID] = append(byID[f.ID], f)
	}
	var out []report.Result
	add := func(k kindInfo, judged bool, reason string) {
		res := report.Result{ID: s.Scene.Name + "/" + k.id, Title: k.title, Area: s.Scene.Name, Level: k.family,
			Severity: k.severity, Spec: k.spec, Status: report.StatusPass}
		for _, f := range byID[k.id] {
			if f.Verdict == VerdictNote {
				res.Notes = append(res.Notes, roundPrefix(f)+f.Message)
				continue
			}
			res.Status = report.StatusFail
			msg := roundPrefix(f) + f.Message
			if f.Cause != "" {
				msg += " (plain has no such finding: the cause is this scene's behaviour, " + f.Cause + ")"
			}
			fl := report.Failure{Message: msg, Expected: f.Expected}
			if f.Exchange != nil {
				fl.Exchange = red.Excerpt(f.Exchange)
			}
			res.Failures = append(res.Failures, fl)
		}
		if res.Status == report.StatusPass && len(res.Notes) == 0 && !judged {
			res.Status, res.Reason = report.StatusSkip, reason
		}
		res.Requests = s.Requests
		out = append(out, res)
	}
	if s.Coverage != nil {
		for _, rc := range s.Coverage.Rules {
			k := kindInfo{id: rc.Rule.ID, title: rc.Rule.Title, family: string(rc.Rule.Family), severity: rc.Rule.SeverityIn(profile), spec: rc.Rule.SpecIn(profile)}
			add(k, !rc.Nothing(), "nothing to look at: "+rc.Reason())
		}
	}
	for _, k := range Kinds() {
		reason, seen := s.judged[k.ID]
		if !seen {
			reason = "the scene ended before this could be judged"
		}
		add(kindInfo{id: k.ID, title: k.Title, family: k.Family, severity: rules.Severity(k.Severity), spec: k.Spec}, seen && reason == "", "nothing to look at: "+reason)
	}
	slices.SortStableFunc(out, func(a, b report.Result) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func roundPrefix(f Finding) string {
	if f.Round == 0 {
		return ""
	}
	return fmt.Sprintf("round %d: ", f.Round)
}
