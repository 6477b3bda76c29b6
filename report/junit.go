package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// JUnit XML in the Ant/Jenkins/Surefire dialect that CI systems read
// (GitLab, GitHub test reporters, Jenkins, Azure): one <testsuite> per area,
// one <testcase> per check with classname = area, <failure> per failed
// check, <skipped> with the reason, <error> for a server that could not be
// reached.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, rep *Report) error {
	areas, _ := rep.ByArea()
	doc := junitSuites{Name: rep.ToolName(), Time: seconds(rep.Duration)}
	for _, a := range areas {
		s := junitSuite{Name: a, Timestamp: rep.Started.UTC().Format("2006-01-02T15:04:05")}
		for k, v := range rep.URLs {
			s.Properties = append(s.Properties, junitProperty{Name: k, Value: v})
		}
		s.Properties = append(s.Properties, junitProperty{Name: "level", Value: rep.Level})
		if rep.Profile != "" {
			s.Properties = append(s.Properties, junitProperty{Name: "profile", Value: string(rep.Profile)})
		}
		slices.SortFunc(s.Properties, func(a, b junitProperty) int { return strings.Compare(a.Name, b.Name) })
		var d time.Duration
		for _, r := range rep.Results {
			if r.Area != a {
				continue
			}
			c := junitCase{Name: r.ID, Classname: a, Time: seconds(r.Duration)}
			c.SystemOut = fmt.Sprintf("%s\n%s\nspec (%s): %s", r.Title, r.Meta(), r.Spec.Section, r.Spec.Quote)
			if r.Spec.Decision != "" {
				c.SystemOut += "\ndecision: " + r.Spec.DecisionURL()
			}
			for _, n := range r.Notes {
				c.SystemOut += "\nnote: " + n
			}
			switch r.Status {
			case StatusFail:
				s.Failures++
				c.Failure = &junitMessage{Message: oneLine(r.Failures[0].Message, 300), Type: string(r.Severity), Text: failureText(r)}
			case StatusError:
				s.Errors++
				c.Error = &junitMessage{Message: oneLine(r.Reason, 300), Type: "connection", Text: r.Reason}
			case StatusSkip:
				s.Skipped++
				c.Skipped = &junitMessage{Message: oneLine(r.Reason, 300)}
			}
			s.Tests++
			d += r.Duration
			s.Cases = append(s.Cases, c)
		}
		s.Time = seconds(d)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	if len(rep.Incomplete) > 0 {
		// A run that could not test what it was given is an error a CI
		// test view shows, not only an exit status.
		s := junitSuite{Name: "run", Timestamp: rep.Started.UTC().Format("2006-01-02T15:04:05"), Time: seconds(0)}
		for i, m := range rep.Incomplete {
			s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("run.incomplete.%d", i+1), Classname: "run", Time: seconds(0),
				Error: &junitMessage{Message: oneLine(m, 300), Type: "incomplete", Text: m}})
			s.Tests++
			s.Errors++
		}
		doc.Tests += s.Tests
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failureText is the body of a <failure>: every failure with its exchange.
func failureText(r Result) string {
	var b strings.Builder
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "%s\n", f.Message)
		if f.Expected != "" {
			fmt.Fprintf(&b, "  expected: %s\n", f.Expected)
		}
		if ex := f.Exchange; ex != nil {
			fmt.Fprintf(&b, "  request:  %s %s\n", ex.Method, ex.URL)
			if ex.RequestBody != "" {
				fmt.Fprintf(&b, "  body:     %s\n", ex.RequestBody)
			}
			fmt.Fprintf(&b, "  response: %d %s\n", ex.Status, ex.ResponseBody)
			fmt.Fprintf(&b, "  %s\n", ex.Curl)
		}
		for _, rel := range f.Related {
			fmt.Fprintf(&b, "  related:  %s %s -> %d\n", rel.Method, rel.URL, rel.Status)
		}
	}
	return b.String()
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := jsonEncoder(w)
	return enc.Encode(rep)
}

// WriteReportFile writes the report in a format ("junit", "json", "html")
// to a file.
func WriteReportFile(format, path string, rep *Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var werr error
	switch format {
	case "junit":
		werr = WriteJUnit(f, rep)
	case "json":
		werr = WriteJSON(f, rep)
	case "html":
		werr = WriteHTML(f, rep)
	default:
		werr = fmt.Errorf("unknown report format %q", format)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// ReportFormats are the formats --report accepts.
var ReportFormats = []string{"junit", "json", "html"}

// CheckReportPath reports whether a report can be written to path: its
// directory exists and takes a new file, and path is not a directory. The
// command checks every --report path before the first request.
func CheckReportPath(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("the directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".skolkit-report-check-*")
	if err != nil {
		return fmt.Errorf("the directory %s does not take a new file: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
