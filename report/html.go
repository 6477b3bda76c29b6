package report

import (
	"fmt"
	"html/template"
	"io"
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
		"upper":   func(s Status) string { return strings.ToUpper(string(s)) },
		"dur":     func(d time.Duration) string { return d.Round(time.Millisecond).String() },
		"verdict": verdict,
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
th{background:#f5f5f7}td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#116b2b}.fail{color:#b3261e;font-weight:600}.skip{color:#8a6d00}.error{color:#7b1fa2;font-weight:600}
.badge{display:inline-block;min-width:3.6em;text-align:center;border-radius:3px;padding:0 .3em;font-size:.85em;font-weight:600;color:#fff}
.b-pass{background:#2e7d32}.b-fail{background:#c62828}.b-skip{background:#b08900}.b-error{background:#7b1fa2}
.verdict{font-size:1.2em;font-weight:700;padding:.4em .7em;border-radius:4px;display:inline-block}
.v-PASS{background:#e6f4ea;color:#116b2b}.v-FAIL{background:#fce8e6;color:#b3261e}.v-ERROR{background:#f3e5f5;color:#7b1fa2}
details{border:1px solid #e3e3e3;border-radius:4px;margin:.35em 0;padding:.3em .6em}summary{cursor:pointer}
pre{white-space:pre-wrap;word-break:break-all;background:#f7f7f9;border:1px solid #eee;padding:.5em;margin:.3em 0;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
.q{color:#555;font-style:italic}.meta{color:#555}.fl{margin:.6em 0 .8em;padding-left:.6em;border-left:3px solid #c62828}
</style>
</head>
<body>
<h1>{{.Rep.ToolName}} report</h1>
<p class="meta">Started {{.Rep.Started.UTC.Format "2006-01-02 15:04:05"}} UTC · took {{dur .Rep.Duration}}{{if .Rep.Level}} · level {{.Rep.Level}}{{end}} · profile {{if .Rep.Profile}}{{.Rep.Profile}}{{else}}service{{end}} · failing on {{.Rep.FailOn}}</p>
{{if .Rep.Incomplete}}<h2>Incomplete run</h2><ul>{{range .Rep.Incomplete}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p><span class="verdict v-{{verdict .Rep}}">{{verdict .Rep}}</span> {{.Counts.Pass}} passed, {{.Counts.Fail}} failed, {{.Counts.Skip}} skipped, {{.Counts.Error}} errors</p>
<table>{{range $k, $v := .Rep.URLs}}<tr><th>{{$k}}</th><td><code>{{$v}}</code></td></tr>{{end}}</table>

<h2>Summary by area</h2>
<table><tr><th>area</th><th>pass</th><th>fail</th><th>skip</th><th>error</th></tr>
{{range .Areas}}<tr><td>{{.Name}}</td><td class="n pass">{{.C.Pass}}</td><td class="n fail">{{.C.Fail}}</td><td class="n skip">{{.C.Skip}}</td><td class="n error">{{.C.Error}}</td></tr>
{{end}}</table>
{{if .Rep.Leftovers}}<h2>Records left behind</h2><ul>{{range .Rep.Leftovers}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{if .Rep.Waits}}<h2>Rate-limit waits</h2><ul>{{range .Rep.Waits}}<li>{{.Check}}: {{dur .Duration}} for <code>{{.URL}}</code> ({{.Basis}})</li>{{end}}</ul>{{end}}
{{if .Rep.Notes}}<h2>Notes</h2><ul>{{range .Rep.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}

{{range .Areas}}<h2>{{.Name}}</h2>
{{range .Results}}<details{{if eq .Status "fail" "error"}} open{{end}}>
<summary><span class="badge b-{{.Status}}">{{upper .Status}}</span> <code>{{.ID}}</code> — {{.Title}} <span class="meta">({{.Meta}}, {{dur .Duration}})</span></summary>
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
</details>
{{end}}{{end}}
</body>
</html>
`))
})

func verdict(rep *Report) string {
	switch rep.ExitCode() {
	case 1:
		return "FAIL"
	case 2:
		return "ERROR"
	}
	return "PASS"
}

type htmlArea struct {
	Name    string
	C       Counts
	Results []Result
}

// WriteHTML writes the self-contained HTML report.
func WriteHTML(w io.Writer, rep *Report) error {
	names, by := rep.ByArea()
	var areas []htmlArea
	for _, n := range names {
		a := htmlArea{Name: n, C: by[n]}
		for _, r := range rep.Results {
			if r.Area == n {
				a.Results = append(a.Results, r)
			}
		}
		areas = append(areas, a)
	}
	data := struct {
		Rep    *Report
		Counts Counts
		Areas  []htmlArea
	}{rep, rep.Counts(), areas}
	if err := htmlTemplate().Execute(w, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}
