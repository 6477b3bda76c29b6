package rules

import (
	"fmt"
	"net/http"
	"strings"
)

// The walks family (client side): a client that starts a walk of a list
// follows it to its end (a null pageToken; every position up to
// pagination.total), since the records it has not read are as much the
// list's as those it has.

var (
	specWalkEnd = SpecRef{Section: "Interface B, placement list; Interface A, lists",
		Quote: "When the response `pageToken` is null, nothing more can be fetched. … A list response has the shape `data` plus `pagination`, where `pagination` holds integers `offset`, `limit`, `total`. `total` is the number of items that exist."}
	specWalkEndStandard = SpecRef{Section: "SS 12000 2.1.0: pageToken of every list",
		Quote: "Om värdet är null finns inget mer att hämta på det token som skickades in som query parameter."}
)

// clientWalkRules returns the rule that a client follows its walks to their end.
func clientWalkRules() []*Rule {
	return []*Rule{{ID: "client.walk-abandoned", Family: FamilyWalks, Side: SideClient,
		Title: "a walk of a list the client starts is followed to its end: to a null pageToken (interface B), to pagination.total (interface A, the export)",
		Spec:  specWalkEnd, StandardSpec: &specWalkEndStandard,
		Severity: SHOULD, Standard: SHOULD,
		Applies: func(op *Operation) bool { return op != nil && op.Paging != PagingNone },
		Check:   checkWalkEnd,
		Finish:  finishWalks}}
}

// checkWalkEnd counts the walks that reach their end.
func checkWalkEnd(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	switch o.Op.Paging {
	case PagingPageToken:
		m := o.Object()
		if m == nil {
			return
		}
		if tok, _ := m["pageToken"].(string); tok == "" {
			c.Judged(o)
		}
	case PagingOffset:
		total, ok := PaginationTotal(o)
		offset, _ := o.IntParam("offset")
		if ok && offset+len(o.Records()) >= total {
			c.Judged(o)
		}
	}
}

// finishWalks finds the walks that never reached their end.
func finishWalks(c *Context) {
	report := func(w *Walk, next string) {
		last := w.Pages[len(w.Pages)-1]
		o := NewObservation(c.Contract, last)
		c.Judged(o)
		records := 0
		for _, n := range w.Sizes {
			records += n
		}
		c.Fail(o, "the walk followed to its end",
			"the walk of %s begun by %s was left after %d page(s) and %d record(s): %s", w.Op.ID(), firstLine(w.Pages[0]), len(w.Pages), records, next)
	}
	c.History.Walks.Each(func(next string, w *Walk) bool {
		if len(w.Pages) > 0 && !w.Complete {
			report(w, "its last answer gave a pageToken that was never asked for")
		}
		return true
	})
	c.History.Offsets.Each(func(_ string, w *Walk) bool {
		if len(w.Pages) == 0 || w.Complete {
			return true
		}
		read := len(w.Positions)
		report(w, fmt.Sprintf("it read %d of the %d positions pagination.total announced", read, w.Total()))
		return true
	})
}

// firstLine names a walk's first request: "GET /placements?limit=100".
func firstLine(ex *Exchange) string {
	s := ex.Method + " " + ex.Path
	if len(ex.Query) > 0 {
		s += "?" + ex.Query.Encode()
	}
	if ex.Method != http.MethodGet && len(ex.RequestBody) > 0 {
		s += " " + strings.TrimSpace(string(ex.RequestBody))
	}
	return s
}
