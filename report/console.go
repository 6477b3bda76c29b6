package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ProgressLine is the console line for a check that just ended.
func ProgressLine(done, total int, r Result) string {
	w := len(fmt.Sprint(total))
	line := fmt.Sprintf("[%*d/%d] %-5s %s", w, done, total, strings.ToUpper(string(r.Status)), r.ID)
	if r.Status == StatusSkip || r.Status == StatusError {
		line += "  (" + oneLine(r.Reason, 120) + ")"
	}
	return line
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return excerpt(s, n)
	}
	return s
}

// WriteConsole writes the end-of-run report: every failure with its
// request, response excerpt, expectation and curl line; the skipped checks
// with their reasons; a summary by area; the rate-limit waits and records
// left behind.
func WriteConsole(w io.Writer, rep *Report) {
	var fails, errs, skips []Result
	for _, r := range rep.Results {
		switch r.Status {
		case StatusFail:
			fails = append(fails, r)
		case StatusError:
			errs = append(errs, r)
		case StatusSkip:
			skips = append(skips, r)
		}
	}
	if len(fails) > 0 {
		fmt.Fprintf(w, "\nFAILURES (%d)\n", len(fails))
		shown := map[string]string{} // response body → the check it was shown under
		for _, r := range fails {
			writeConsoleResult(w, r, shown)
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(w, "\nERRORS (%d): the server could not be reached or did not answer in time\n", len(errs))
		for _, r := range errs {
			fmt.Fprintf(w, "  %s: %s\n", r.ID, oneLine(r.Reason, 400))
		}
	}
	if len(skips) > 0 {
		// Checks skipped for the same reason (every check of a resource the
		// server does not offer) share one line.
		fmt.Fprintf(w, "\nSKIPPED (%d)\n", len(skips))
		var reasons []string
		ids := map[string][]string{}
		for _, r := range skips {
			if _, ok := ids[r.Reason]; !ok {
				reasons = append(reasons, r.Reason)
			}
			ids[r.Reason] = append(ids[r.Reason], r.ID)
		}
		for _, reason := range reasons {
			list := ids[reason]
			names := strings.Join(first(list, 4), ", ")
			if len(list) > 4 {
				names += fmt.Sprintf(" and %d more", len(list)-4)
			}
			fmt.Fprintf(w, "  %s: %s\n", names, oneLine(reason, 300))
		}
	}
	if len(rep.Waits) > 0 {
		var total time.Duration
		for _, wt := range rep.Waits {
			total += wt.Duration
		}
		fmt.Fprintf(w, "\nRATE LIMITS: waited %d times, %s in all, as the server asked\n", len(rep.Waits), total.Round(time.Millisecond))
		for _, wt := range rep.Waits {
			fmt.Fprintf(w, "  %s: %s for %s (%s)\n", wt.Check, wt.Duration.Round(time.Millisecond), wt.URL, wt.Basis)
		}
	}
	if len(rep.Leftovers) > 0 {
		fmt.Fprintf(w, "\nRECORDS LEFT BEHIND (%d)\n", len(rep.Leftovers))
		for _, l := range rep.Leftovers {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "\nNOTE: %s\n", n)
	}
	writeSummary(w, rep)
}

// writeConsoleResult writes one failed result. A response body already
// shown under another check (an HTML error page every check got) is named,
// not repeated; shown records where each body was shown.
func writeConsoleResult(w io.Writer, r Result, shown map[string]string) {
	fmt.Fprintf(w, "\n--- FAIL %s (%s)\n    %s\n", r.ID, r.Meta(), r.Title)
	fmt.Fprintf(w, "    spec (%s): %q", r.Spec.Section, r.Spec.Quote)
	if r.Spec.Decision != "" {
		fmt.Fprintf(w, " [decision %s]", r.Spec.DecisionPath())
	}
	fmt.Fprintln(w)
	if r.Choice != "" {
		fmt.Fprintf(w, "    skolkit's choice, not the standard's: %s\n", r.Choice)
	}
	for i, f := range r.Failures {
		if i == 10 {
			fmt.Fprintf(w, "    … and %d more failures (see the JSON or HTML report)\n", len(r.Failures)-10)
			break
		}
		fmt.Fprintf(w, "    • %s\n", f.Message)
		if f.Expected != "" {
			fmt.Fprintf(w, "      expected: %s\n", f.Expected)
		}
		if ex := f.Exchange; ex != nil {
			fmt.Fprintf(w, "      request:  %s %s\n", ex.Method, ex.URL)
			if ex.RequestBody != "" {
				fmt.Fprintf(w, "      body:     %s\n", oneLine(ex.RequestBody, 300))
			}
			if where, ok := shown[ex.ResponseBody]; ok && len(ex.ResponseBody) > 80 {
				start := strings.Join(strings.Fields(ex.ResponseBody), " ")
				start = strings.ToValidUTF8(start[:min(len(start), 40)], "")
				fmt.Fprintf(w, "      response: %d %s… (the same %d bytes as shown under %s)\n", ex.Status, start, len(ex.ResponseBody), where)
			} else {
				fmt.Fprintf(w, "      response: %d %s\n", ex.Status, oneLine(ex.ResponseBody, 300))
				shown[ex.ResponseBody] = r.ID
			}
			fmt.Fprintf(w, "      %s\n", ex.Curl)
		}
		for _, rel := range f.Related {
			fmt.Fprintf(w, "      related:  %s %s -> %d\n", rel.Method, rel.URL, rel.Status)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "    note: %s\n", n)
	}
}

func writeSummary(w io.Writer, rep *Report) {
	areas, by := rep.ByArea()
	fmt.Fprintf(w, "\nSUMMARY BY AREA\n  %-14s %5s %5s %5s %5s\n", "area", "pass", "fail", "skip", "error")
	for _, a := range areas {
		c := by[a]
		fmt.Fprintf(w, "  %-14s %5d %5d %5d %5d\n", a, c.Pass, c.Fail, c.Skip, c.Error)
	}
	c := rep.Counts()
	fmt.Fprintf(w, "  %-14s %5d %5d %5d %5d\n", "total", c.Pass, c.Fail, c.Skip, c.Error)
	must, should := 0, 0
	for _, r := range rep.Results {
		if r.Status == StatusFail {
			if r.Severity == MUST {
				must++
			} else {
				should++
			}
		}
	}
	profile := rep.Profile
	if profile == "" {
		profile = ProfileService
	}
	failed := fmt.Sprintf("%d MUST and %d SHOULD checks failed (failing on %s, profile %s)", must, should, rep.FailOn, profile)
	verdict := Verdict(rep) + ": " + failed
	switch Verdict(rep) {
	case "INCOMPLETE":
		verdict = "INCOMPLETE: the run could not test what it was given (exit 2), for the reasons below; " + failed
	case "ERROR":
		checks := "checks"
		if c.Error == 1 {
			checks = "check"
		}
		verdict = fmt.Sprintf("ERROR: %d %s could not reach the server or got no answer in time (exit 2); %s", c.Error, checks, failed)
	}
	fmt.Fprintf(w, "\n%s, in %s\n", verdict, rep.Duration.Round(time.Millisecond))
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped", c.Pass, c.Fail, c.Skip)
	if c.Error > 0 {
		fmt.Fprintf(w, ", %d errors", c.Error)
	}
	fmt.Fprintln(w)
	for _, m := range rep.Incomplete {
		fmt.Fprintf(w, "INCOMPLETE: %s\n", m)
	}
}
