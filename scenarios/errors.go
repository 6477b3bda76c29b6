package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with a scenario file, at a position in it.
type Problem struct {
	// File is the name the file was parsed under.
	File string `json:"file"`
	// Line and Column are 1-based; Column is 0 when only the line is known
	// (YAML syntax errors), both are 0 when the problem has no position.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Path names the value in the document, e.g. "records.placements[0].endDate";
	// empty for syntax errors and for the document as a whole.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String renders the problem as "file:line:col: path: message".
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
		if p.Column > 0 {
			fmt.Fprintf(&b, ":%d", p.Column)
		}
	}
	b.WriteString(": ")
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// LoadError is the error of Parse, Builtin and Build: every problem found,
// in the order of their positions in the file. Nothing is loaded when it is
// returned.
type LoadError struct {
	File     string
	Problems []Problem
}

// Error renders every problem, one a line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func (e *LoadError) sort() {
	slices.SortStableFunc(e.Problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}
