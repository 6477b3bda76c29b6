package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/rules"
)

// sampleReport has one result of every status, with a failure that holds
// characters XML and HTML must escape.
func sampleReport() *Report {
	ex := &Exchange{Surface: rules.SurfaceB, Method: "GET", URL: "http://127.0.0.1:8080/api/v1/placements?limit=0", Status: 200,
		ResponseBody: `{"data": [], "note": "<script>alert(1)</script> & ]]>"}`, Curl: `curl -sS -i 'http://127.0.0.1:8080/api/v1/placements?limit=0' -H "Authorization: Bearer $TOKEN"`}
	mk := func(id, area string, s Status) Result {
		return Result{ID: id, Title: "title of " + id, Area: area, Level: "read", Severity: MUST, Spec: SpecRef{Section: "Limits", Quote: "`limit` is at least 1", Decision: "interface-b-paging"}, Status: s, Duration: 12 * time.Millisecond}
	}
	fail := mk("B.placements.limit-below-one", "B.placements", StatusFail)
	fail.Failures = []Failure{{Message: "GET answered 200 <not 400>", Expected: "status 400", Exchange: ex}}
	skip := mk("B.syllabuses.by-id", "B.records", StatusSkip)
	skip.Reason = "no syllabus id to test with"
	errd := mk("auth.B.no-token", "auth", StatusError)
	errd.Reason = "GET http://127.0.0.1:8080/api/v1/placements: dial tcp: connection refused"
	return &Report{
		Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Duration: 1500 * time.Millisecond, Level: "read", FailOn: MUST,
		URLs:    map[string]string{"register-url": "http://127.0.0.1:8080/api/v1", "auth-url": "http://127.0.0.1:8080"},
		Results: []Result{mk("auth.token.success", "auth", StatusPass), errd, fail, skip},
	}
}

// junitNode is any element of a JUnit document, kept generically so that
// the checker sees exactly what was written.
type junitNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr  `xml:",any,attr"`
	Children []junitNode `xml:",any"`
	Text     string      `xml:",chardata"`
}

func (n junitNode) attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// junitSchema is the structure of the Ant/Jenkins JUnit XSD
// (jenkins-junit.xsd) that CI systems accept: for each element, its required
// and optional attributes with their types, and the children it may have.
// Go has no XSD validator in its standard library, so the test checks this
// structure with encoding/xml.
var junitSchema = map[string]struct {
	required, optional map[string]string // attribute → type: int, decimal, string, datetime
	children           []string
}{
	"testsuites": {required: map[string]string{"name": "string", "tests": "int", "failures": "int", "errors": "int", "skipped": "int", "time": "decimal"}, optional: map[string]string{"disabled": "int"}, children: []string{"testsuite"}},
	"testsuite": {required: map[string]string{"name": "string", "tests": "int", "failures": "int", "errors": "int", "skipped": "int", "time": "decimal"},
		optional: map[string]string{"timestamp": "datetime", "hostname": "string", "id": "string", "package": "string", "disabled": "int"},
		children: []string{"properties", "testcase", "system-out", "system-err"}},
	"properties": {children: []string{"property"}},
	"property":   {required: map[string]string{"name": "string", "value": "string"}},
	"testcase": {required: map[string]string{"name": "string"}, optional: map[string]string{"classname": "string", "time": "decimal", "assertions": "string", "status": "string"},
		children: []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"failure":    {optional: map[string]string{"message": "string", "type": "string"}},
	"error":      {optional: map[string]string{"message": "string", "type": "string"}},
	"skipped":    {optional: map[string]string{"message": "string"}},
	"system-out": {},
	"system-err": {},
}

var typeCheck = map[string]*regexp.Regexp{
	"int":      regexp.MustCompile(`^[0-9]+$`),
	"decimal":  regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`),
	"datetime": regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`),
	"string":   regexp.MustCompile(`(?s).*`),
}

func checkJUnitNode(t *testing.T, n junitNode, path string) {
	name := n.XMLName.Local
	spec, ok := junitSchema[name]
	if !assert.True(t, ok, "%s: element <%s> is not in the JUnit schema", path, name) {
		return
	}
	for a, typ := range spec.required {
		v, ok := n.attr(a)
		if assert.True(t, ok, "%s/%s: required attribute %s missing", path, name, a) {
			assert.Regexp(t, typeCheck[typ], v, "%s/%s@%s is not %s", path, name, a, typ)
		}
	}
	for _, a := range n.Attrs {
		typ, ok := spec.required[a.Name.Local]
		if !ok {
			typ, ok = spec.optional[a.Name.Local]
		}
		if assert.True(t, ok, "%s/%s: attribute %s not in the schema", path, name, a.Name.Local) {
			assert.Regexp(t, typeCheck[typ], a.Value, "%s/%s@%s is not %s", path, name, a.Name.Local, typ)
		}
	}
	counts := map[string]int{}
	for _, c := range n.Children {
		assert.Contains(t, spec.children, c.XMLName.Local, "%s/%s: child <%s> not allowed", path, name, c.XMLName.Local)
		counts[c.XMLName.Local]++
		checkJUnitNode(t, c, path+"/"+name)
	}
	if name == "testcase" {
		assert.LessOrEqual(t, counts["skipped"]+counts["error"]+counts["failure"], 1, "%s: a testcase has at most one outcome element", path)
	}
	if name == "testsuite" {
		for attr, child := range map[string]string{"failures": "failure", "errors": "error", "skipped": "skipped"} {
			want := 0
			for _, tc := range n.Children {
				for _, c := range tc.Children {
					if c.XMLName.Local == child {
						want++
					}
				}
			}
			got, _ := n.attr(attr)
			assert.Equal(t, strconv.Itoa(want), got, "%s: testsuite@%s", path, attr)
		}
		tests, _ := n.attr("tests")
		assert.Equal(t, strconv.Itoa(counts["testcase"]), tests, "testsuite@tests")
	}
}

func TestJUnitMatchesTheJenkinsSchema(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, sampleReport()))
	var root junitNode
	require.NoError(t, xml.Unmarshal(b.Bytes(), &root), b.String())
	assert.Equal(t, "testsuites", root.XMLName.Local)
	checkJUnitNode(t, root, "")
	out := b.String()
	assert.Contains(t, out, `<failure message="GET answered 200 &lt;not 400&gt;" type="MUST">`)
	assert.Contains(t, out, `<skipped message="no syllabus id to test with">`)
	assert.Contains(t, out, `tests="4" failures="1" errors="1" skipped="1"`)
	assert.Contains(t, out, "$TOKEN")
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, sampleReport()))
	html := b.String()
	assert.Contains(t, html, "<style>")
	assert.NotContains(t, html, "<script>alert", "response bodies are escaped")
	assert.Contains(t, html, "&lt;script&gt;")
	// No resource is loaded from anywhere: no src, no link, no url(), no
	// @import. The only http(s) URLs are the server URLs in text and the
	// links to the decisions a check relies on, which load nothing until
	// followed.
	for _, re := range []string{`(?i)\ssrc\s*=`, `(?i)<link\b`, `(?i)url\(`, `(?i)@import`} {
		assert.NotRegexp(t, re, html)
	}
	for _, m := range regexp.MustCompile(`(?i)href\s*=\s*["']?(https?:[^"'\s>]*)`).FindAllStringSubmatch(html, -1) {
		assert.True(t, strings.HasPrefix(m[1], rules.DecisionsURL+"#"), "unexpected link %s", m[1])
	}
	assert.Contains(t, html, `<a href="`+rules.DecisionsURL+`#interface-b-paging">interface-b-paging</a>`)
	for _, u := range regexp.MustCompile(`https?://[^\s"'<>]+`).FindAllString(html, -1) {
		assert.True(t, strings.HasPrefix(u, "http://127.0.0.1:8080") || strings.HasPrefix(u, rules.DecisionsURL+"#"), "unexpected URL %s", u)
	}
	for _, want := range []string{"B.placements.limit-below-one", "status 400", "curl -sS -i", "Summary by area", "ERROR"} {
		assert.Contains(t, html, want)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	rep := sampleReport()
	require.NoError(t, WriteJSON(&b, rep))
	back, err := ReadJSON(&b)
	require.NoError(t, err)
	assert.Equal(t, rep.Results, back.Results)
	assert.Equal(t, 2, back.ExitCode())
}

func TestConsoleShowsFailuresAndSummary(t *testing.T) {
	var b bytes.Buffer
	WriteConsole(&b, sampleReport())
	out := b.String()
	for _, want := range []string{"--- FAIL B.placements.limit-below-one (MUST, read)", "expected: status 400", "request:  GET http://127.0.0.1:8080/api/v1/placements?limit=0",
		`-H "Authorization: Bearer $TOKEN"`, "SKIPPED (1)", "no syllabus id to test with", "SUMMARY BY AREA", "ERROR: 1 check could not reach the server or got no answer in time (exit 2); 1 MUST and 0 SHOULD checks failed"} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, "[ 3/12] FAIL  B.placements.limit-below-one", ProgressLine(3, 12, sampleReport().Results[2]))
}

func TestExitCodes(t *testing.T) {
	rep := &Report{FailOn: MUST, Results: []Result{{Status: StatusFail, Severity: SHOULD}}}
	assert.Equal(t, 0, rep.ExitCode(), "a SHOULD failure with --fail-on must")
	rep.FailOn = SHOULD
	assert.Equal(t, 1, rep.ExitCode())
	rep.Results = append(rep.Results, Result{Status: StatusError})
	assert.Equal(t, 2, rep.ExitCode())
}

// TestConsoleVerdict: the verdict line says why the exit status is what it
// is, counts only what happened (no "0 errors"), and an incomplete run's
// causes are printed once each.
func TestConsoleVerdict(t *testing.T) {
	fail := Result{ID: "B.x", Status: StatusFail, Severity: MUST}
	for _, tc := range []struct {
		name    string
		rep     Report
		verdict string
	}{
		{"nothing tested", Report{FailOn: MUST, Incomplete: []string{"the token endpoint and interface B were not tested: no client secret was given"}},
			"INCOMPLETE: the run could not test what it was given (exit 2), for the reasons below; 0 MUST and 0 SHOULD checks failed (failing on MUST, profile service), in 0s\n0 passed, 0 failed, 0 skipped\n" +
				"INCOMPLETE: the token endpoint and interface B were not tested: no client secret was given\n"},
		{"a check got no answer", Report{FailOn: MUST, Results: []Result{fail, {ID: "B.y", Status: StatusError}, {ID: "B.z", Status: StatusError}}},
			"ERROR: 2 checks could not reach the server or got no answer in time (exit 2); 1 MUST and 0 SHOULD checks failed (failing on MUST, profile service), in 0s\n0 passed, 1 failed, 0 skipped, 2 errors\n"},
		{"a MUST failed", Report{FailOn: MUST, Results: []Result{fail}},
			"FAIL: 1 MUST and 0 SHOULD checks failed (failing on MUST, profile service), in 0s\n0 passed, 1 failed, 0 skipped\n"},
		{"a pass", Report{FailOn: MUST, Profile: rules.ProfileSS12000, Results: []Result{{ID: "B.x", Status: StatusPass}}},
			"PASS: 0 MUST and 0 SHOULD checks failed (failing on MUST, profile ss12000), in 0s\n1 passed, 0 failed, 0 skipped\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteConsole(&b, &tc.rep)
			assert.True(t, strings.HasSuffix(b.String(), "\n"+tc.verdict), b.String())
			assert.NotContains(t, b.String(), " 0 errors")
		})
	}
}

// TestConsoleShowsABodyOnce: a long response body every failure got (an
// HTML error page) is shown under the first and named under the others.
func TestConsoleShowsABodyOnce(t *testing.T) {
	page := "<!DOCTYPE HTML>\n<html>\n  <body>\n    <h1>Error response</h1>\n    <p>Error code: 501</p>\n  </body>\n</html>\n"
	rep := &Report{FailOn: MUST}
	for _, id := range []string{"auth.token.success", "auth.token.form-request", "auth.token.lifetime"} {
		rep.Results = append(rep.Results, Result{ID: id, Status: StatusFail, Severity: MUST, Failures: []Failure{{
			Message: "POST /oauth/token answered 501", Exchange: &Exchange{Method: "POST", URL: "http://127.0.0.1:8000/oauth/token", Status: 501, ResponseBody: page}}}})
	}
	var b bytes.Buffer
	WriteConsole(&b, rep)
	out := b.String()
	assert.Equal(t, 1, strings.Count(out, "<p>Error code: 501</p>"), out)
	assert.Equal(t, 2, strings.Count(out, "(the same 105 bytes as shown under auth.token.success)"), out)
	assert.NotContains(t, out, "\n    <h1>", "bodies are shown on one line")
}

// TestHTMLOpensWithTheFailures: the HTML report opens with the verdict, the
// summary by area whose counts link to the failures, every failure in full
// (once), and the skip reasons counted; numbers are right-aligned under
// right-aligned headers; every check follows.
func TestHTMLOpensWithTheFailures(t *testing.T) {
	rep := sampleReport()
	for i := range 5 {
		r := rep.Results[3]
		r.ID = fmt.Sprintf("B.x%d.by-id", i)
		r.Reason = "the server does not offer /x"
		rep.Results = append(rep.Results, r)
	}
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, rep))
	html := b.String()
	failures := strings.Index(html, `<h2 id="failures">Failures and errors (2)</h2>`)
	skipped := strings.Index(html, `<h2 id="skipped">Skipped (6), by reason</h2>`)
	every := strings.Index(html, "<h2>Every check, by area</h2>")
	require.True(t, failures > 0 && skipped > failures && every > skipped, "failures, then skip reasons, then every check")
	assert.Less(t, strings.Index(html, `<div class="res" id="r-B.placements.limit-below-one">`), skipped, "the failure is in full under failures")
	assert.Equal(t, 1, strings.Count(html, "GET answered 200 &lt;not 400&gt;"), "a failure is shown once")
	assert.Less(t, strings.Index(html, "Summary by area"), failures)
	assert.Contains(t, html, `<td class="n fail"><a href="#r-B.placements.limit-below-one">1</a></td>`, "the summary's count links to the failure")
	assert.Contains(t, html, `<td class="n error"><a href="#r-auth.B.no-token">1</a></td>`)
	assert.Contains(t, html, `<th class="n">pass</th><th class="n">fail</th><th class="n">skip</th><th class="n">error</th>`, "numeric headers are aligned as their numbers")
	assert.Contains(t, html, "th.n,td.n{text-align:right")
	assert.Contains(t, html, `<tr><td class="n">5</td><td>the server does not offer /x</td>`, "skip reasons are counted, the most common first")
	assert.Less(t, strings.Index(html, "the server does not offer /x"), strings.Index(html, "no syllabus id to test with"))
	assert.Contains(t, html, `<span class="verdict v-ERROR">ERROR</span>`)
	assert.Contains(t, html, `<a href="#failures">1 errors</a>`)

	rep = &Report{FailOn: MUST, Incomplete: []string{"interface B was not tested: no client id was given"}}
	b.Reset()
	require.NoError(t, WriteHTML(&b, rep))
	assert.Contains(t, b.String(), `<span class="verdict v-INCOMPLETE">INCOMPLETE</span> 0 passed, 0 failed, 0 skipped</p>`, "no \"0 errors\"")
	assert.Contains(t, b.String(), "<li>interface B was not tested: no client id was given</li>")
}
