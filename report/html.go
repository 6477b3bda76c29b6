package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// The HTML report is one self-contained file: inline CSS, no scripts, no
// fonts, images or links to load, so that it opens offline and in CI
// artefact viewers. Server URLs appear as text only.

// htmlTemplate is parsed when first used, not at initialisation: every
// command of the binary (skolkit serve's start included) would pay for it.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"upper":    func(s Status) string { return strings.ToUpper(string(s)) },
		"dur":      func(d time.Duration) string { return d.Round(time.Millisecond).String() },
		"anchorOf": anchorOf,
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Rep.ToolName}} report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:1.5em;color:#1d1d1f;background:#fff}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25em .5em;border-bottom:1px solid #eee;vertical-align:top}
th{background:#f5f5f7}th.n,td.n{text-align:right;font-variant-numeric:tabular-nums;width:5em}
.pass{color:#116b2b}.fail{color:#b3261e;font-weight:600}.skip{color:#8a6d00}.error{color:#7b1fa2;font-weight:600}
.badge{display:inline-block;min-width:3.6em;text-align:center;border-radius:3px;padding:0 .3em;font-size:.85em;font-weight:600;color:#fff}
.b-pass{background:#2e7d32}.b-fail{background:#c62828}.b-skip{background:#b08900}.b-error{background:#7b1fa2}
.verdict{font-size:1.2em;font-weight:700;padding:.4em .7em;border-radius:4px;display:inline-block}
.v-PASS{background:#e6f4ea;color:#116b2b}.v-FAIL{background:#fce8e6;color:#b3261e}.v-ERROR,.v-INCOMPLETE{background:#f3e5f5;color:#7b1fa2}
details{border:1px solid #e3e3e3;border-radius:4px;margin:.35em 0;padding:.3em .6em}summary{cursor:pointer}
pre{white-space:pre-wrap;word-break:break-all;background:#f7f7f9;border:1px solid #eee;padding:.5em;margin:.3em 0;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
.q{color:#555;font-style:italic}.meta{color:#555}.fl{margin:.6em 0 .8em;padding-left:.6em;border-left:3px solid #c62828}
.res{margin:.5em 0 1em;padding:.4em .6em;border:1px solid #e3e3e3;border-radius:4px}
</style>
</head>
<body>
<h1>{{.Rep.ToolName}} report</h1>
<p class="meta">Started {{.Rep.Started.UTC.Format "2006-01-02 15:04:05"}} UTC · took {{dur .Rep.Duration}}{{if .Rep.Level}} · level {{.Rep.Level}}{{end}} · profile {{if .Rep.Profile}}{{.Rep.Profile}}{{else}}service{{end}} · failing on {{.Rep.FailOn}}</p>
<p><span class="verdict v-{{.Verdict}}">{{.Verdict}}</span> {{.Counts.Pass}} passed, {{if .Counts.Fail}}<a href="#failures">{{.Counts.Fail}} failed</a>{{else}}0 failed{{end}}, {{if .Counts.Skip}}<a href="#skipped">{{.Counts.Skip}} skipped</a>{{else}}0 skipped{{end}}{{if .Counts.Error}}, <a href="#failures">{{.Counts.Error}} errors</a>{{end}}</p>
{{if .Rep.Incomplete}}<h2 id="incomplete">Incomplete run: it could not test what it was given</h2><ul>{{range .Rep.Incomplete}}<li>{{.}}</li>{{end}}</ul>{{end}}
<table>{{range $k, $v := .Rep.URLs}}<tr><th>{{$k}}</th><td><code>{{$v}}</code></td></tr>{{end}}</table>

<h2>Summary by area</h2>
<table><tr><th>area</th><th class="n">pass</th><th class="n">fail</th><th class="n">skip</th><th class="n">error</th></tr>
{{range .Areas}}<tr><td><a href="#{{.Anchor}}">{{.Name}}</a></td><td class="n pass">{{.C.Pass}}</td><td class="n fail">{{if .FirstFailure}}<a href="#{{.FirstFailure}}">{{.C.Fail}}</a>{{else}}{{.C.Fail}}{{end}}</td><td class="n skip">{{.C.Skip}}</td><td class="n error">{{if .FirstError}}<a href="#{{.FirstError}}">{{.C.Error}}</a>{{else}}{{.C.Error}}{{end}}</td></tr>
{{end}}<tr><th>total</th><th class="n">{{.Counts.Pass}}</th><th class="n">{{.Counts.Fail}}</th><th class="n">{{.Counts.Skip}}</th><th class="n">{{.Counts.Error}}</th></tr></table>

{{if .Failures}}<h2 id="failures">Failures and errors ({{len .Failures}})</h2>
{{range .Failures}}<div class="res" id="{{anchorOf .ID}}">
<p><span class="badge b-{{.Status}}">{{upper .Status}}</span> <code>{{.ID}}</code> — {{.Title}} <span class="meta">({{.Meta}}, {{dur .Duration}})</span></p>
<p class="q">“{{.Spec.Quote}}” — {{.Spec.Section}}{{if .Spec.Decision}}; decision <a href="{{.Spec.DecisionURL}}">{{.Spec.Decision}}</a>{{end}}</p>
{{if .Choice}}<p class="meta">skolkit's choice, not the standard's: {{.Choice}}</p>{{end}}
{{if .Reason}}<p>{{.Reason}}</p>{{end}}
{{range .Notes}}<p class="meta">{{.}}</p>{{end}}
{{range .Failures}}<div class="fl"><p><b>{{.Message}}</b></p>{{if .Expected}}<p>expected: {{.Expected}}</p>{{end}}
{{with .Exchange}}<pre>{{.Method}} {{.URL}}{{if .RequestBody}}
{{.RequestBody}}{{end}}</pre><pre>{{.Status}}
{{.ResponseBody}}</pre><pre>{{.Curl}}</pre>{{end}}
{{range .Related}}<p class="meta">related:</p><pre>{{.Method}} {{.URL}}
{{.Status}}
{{.ResponseBody}}</pre>{{end}}</div>{{end}}
</div>
{{end}}{{end}}
{{if .Skips}}<h2 id="skipped">Skipped ({{.Counts.Skip}}), by reason</h2>
<table><tr><th class="n">checks</th><th>reason</th><th>which</th></tr>
{{range .Skips}}<tr><td class="n">{{len .IDs}}</td><td>{{.Reason}}</td><td>{{range $i, $id := .Shown}}{{if $i}}, {{end}}<a href="#{{anchorOf $id}}"><code>{{$id}}</code></a>{{end}}{{if .More}} and {{.More}} more{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .Rep.Leftovers}}<h2>Records left behind</h2><ul>{{range .Rep.Leftovers}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{if .Rep.Waits}}<h2>Rate-limit waits</h2><ul>{{range .Rep.Waits}}<li>{{.Check}}: {{dur .Duration}} for <code>{{.URL}}</code> ({{.Basis}})</li>{{end}}</ul>{{end}}
{{if .Rep.Notes}}<h2>Notes</h2><ul>{{range .Rep.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2>Every check, by area</h2>
{{range .Areas}}<h2 id="{{.Anchor}}">{{.Name}}</h2>
{{range .Results}}{{if or (eq .Status "fail") (eq .Status "error")}}<p><span class="badge b-{{.Status}}">{{upper .Status}}</span> <a href="#{{anchorOf .ID}}"><code>{{.ID}}</code></a> — {{.Title}} <span class="meta">(above, under failures)</span></p>
{{else}}<details id="{{anchorOf .ID}}">
<summary><span class="badge b-{{.Status}}">{{upper .Status}}</span> <code>{{.ID}}</code> — {{.Title}} <span class="meta">({{.Meta}}, {{dur .Duration}})</span>{{if .Reason}} <span class="meta">— {{.Reason}}</span>{{end}}</summary>
<p class="q">“{{.Spec.Quote}}” — {{.Spec.Section}}{{if .Spec.Decision}}; decision <a href="{{.Spec.DecisionURL}}">{{.Spec.Decision}}</a>{{end}}</p>
{{if .Choice}}<p class="meta">skolkit's choice, not the standard's: {{.Choice}}</p>{{end}}
{{range .Notes}}<p class="meta">{{.}}</p>{{end}}
</details>
{{end}}{{end}}{{end}}
</body>
</html>
`))
})

// Verdict is the one word the reports open with: INCOMPLETE or ERROR (exit
// status 2: the run could not test what it was given, or checks got no
// answer), FAIL (1) or PASS (0).
func Verdict(rep *Report) string {
	switch {
	case len(rep.Incomplete) > 0:
		return "INCOMPLETE"
	case rep.Errored():
		return "ERROR"
	case rep.ExitCode() == 1:
		return "FAIL"
	}
	return "PASS"
}

// anchorOf is the HTML id of a result.
func anchorOf(id string) string { return "r-" + id }

type htmlArea struct {
	Name, Anchor string
	C            Counts
	Results      []Result
	// FirstFailure and FirstError are the anchors of the area's first
	// failed and first errored result ("" when none).
	FirstFailure, FirstError string
}

// htmlSkips are the skipped results that share a reason.
type htmlSkips struct {
	Reason string
	IDs    []string
	Shown  []string // the first few IDs
	More   int      // how many IDs are not shown
}

// WriteHTML writes the self-contained HTML report. It opens with the
// verdict, the summary by area (whose counts link to the failures), every
// failure and error in full, and the skip reasons with their counts; every
// check follows, by area.
func WriteHTML(w io.Writer, rep *Report) error {
	names, by := rep.ByArea()
	var areas []htmlArea
	var failures []Result
	var skips []*htmlSkips
	skipOf := map[string]*htmlSkips{}
	for _, n := range names {
		a := htmlArea{Name: n, Anchor: "area-" + n, C: by[n]}
		for _, r := range rep.Results {
			if r.Area != n {
				continue
			}
			a.Results = append(a.Results, r)
			switch r.Status {
			case StatusFail, StatusError:
				failures = append(failures, r)
				if r.Status == StatusFail && a.FirstFailure == "" {
					a.FirstFailure = anchorOf(r.ID)
				}
				if r.Status == StatusError && a.FirstError == "" {
					a.FirstError = anchorOf(r.ID)
				}
			case StatusSkip:
				sk, ok := skipOf[r.Reason]
				if !ok {
					sk = &htmlSkips{Reason: r.Reason}
					skipOf[r.Reason] = sk
					skips = append(skips, sk)
				}
				sk.IDs = append(sk.IDs, r.ID)
			}
		}
		areas = append(areas, a)
	}
	// The most common reasons first: they say most about the run.
	slices.SortStableFunc(skips, func(a, b *htmlSkips) int { return len(b.IDs) - len(a.IDs) })
	for _, sk := range skips {
		sk.Shown = first(sk.IDs, 6)
		sk.More = len(sk.IDs) - len(sk.Shown)
	}
	data := struct {
		Rep      *Report
		Verdict  string
		Counts   Counts
		Areas    []htmlArea
		Failures []Result
		Skips    []*htmlSkips
	}{rep, Verdict(rep), rep.Counts(), areas, failures, skips}
	if err := htmlTemplate().Execute(w, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}
