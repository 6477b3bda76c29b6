package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// dateRules returns the dates family: every date and date-time in every
// body is valid RFC 3339; rules that compare them compare instants
// (Instant), never text.
func dateRules() []*Rule {
	return []*Rule{{
		ID: "dates.rfc3339", Family: FamilyDates, Side: SideServer,
		Title: "every date in an answer is an RFC 3339 full-date and every date-time an RFC 3339 date-time (any offset, any fraction of a second)",
		Spec:  SpecRef{Section: "Resources: Conventions", Quote: "`meta`: object with `created` and `modified`, both date-time (RFC 3339). … Date fields: string, format date (RFC 3339 full-date)."},
		StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: Meta.created, Meta.modified (format: date-time); date fields (format: date)",
			Quote: "Datum och tid för när entiteten skapades (RFC 3339 format tex \"2015-12-12T10:30:00+01:00\")."},
		Severity: MUST, Standard: MUST,
		Applies:    func(op *Operation) bool { return op != nil && op.Kind != KindOther },
		Concurrent: true,
		Check:      checkDates,
	}, {
		ID: "dates.modified-not-before-created", Family: FamilyDates, Side: SideServer,
		Title:        "no record was modified before it was created (meta.modified, meta.updatedAt at or after meta.created, meta.createdAt, compared as instants)",
		Spec:         SpecRef{Section: "Resources: Conventions", Quote: "`modified` is the last time an attribute directly belonging to the entity changed."},
		StandardSpec: &SpecRef{Section: "SS 12000 2.1.0: Meta.modified", Quote: "Tidpunkten avser den senaste tidpunkt när något av de attribut som direkt tillhör entiteten har ändrats."},
		Severity:     SHOULD, Standard: SHOULD, Applies: readsRecords, Concurrent: true, Check: checkModifiedAfterCreated,
	}}
}

func checkModifiedAfterCreated(c *Context, o *Observation) {
	if !o.OK() {
		return
	}
	judged := 0
	for _, rec := range o.Records() {
		meta, _ := rec["meta"].(map[string]any)
		created, modified := Str(meta, "created"), Str(meta, "modified")
		if created == "" {
			created, modified = Str(meta, "createdAt"), Str(meta, "updatedAt")
		}
		tc, ok1 := Instant(created)
		tm, ok2 := Instant(modified)
		if !ok1 || !ok2 {
			continue
		}
		judged++
		if tm.Before(tc) {
			c.Fail(o, "modified at or after created", "%s: record %v was modified (%s) before it was created (%s)", o.Label(), rec["id"], modified, created)
			return
		}
	}
	c.JudgedN(o, judged)
}

// Instant parses an RFC 3339 date-time: any offset (Z, +01:00), any number
// of fractional digits or none. Two date-times are equal when their
// instants are.
func Instant(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// IsDate reports whether s is an RFC 3339 full-date.
func IsDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}

// responseSchema is the schema of an operation's answer with the status.
func responseSchema(op *Operation, status int) *openapi3.Schema {
	if op == nil || op.route == nil {
		return nil
	}
	r := op.route.Operation.Responses.Status(status)
	if r == nil || r.Value == nil {
		return nil
	}
	for mt, c := range r.Value.Content {
		if strings.Contains(mt, "json") && c.Schema != nil {
			return c.Schema.Value
		}
	}
	return nil
}

func checkDates(c *Context, o *Observation) {
	if !o.OK() || len(o.ResponseBody) == 0 {
		return
	}
	v, err := o.JSON()
	if err != nil {
		return // the contract family says so
	}
	s := responseSchema(o.Op, o.Status)
	var problems []string
	seen := 0
	WalkDates(v, s, func(ptr, format, value string) {
		seen++
		switch format {
		case "date":
			if !IsDate(value) {
				problems = append(problems, fmt.Sprintf("at %s: %q is not an RFC 3339 full-date", ptr, value))
			}
		case "date-time":
			if _, ok := Instant(value); !ok {
				problems = append(problems, fmt.Sprintf("at %s: %q is not an RFC 3339 date-time", ptr, value))
			}
		}
	})
	if seen == 0 {
		return
	}
	c.JudgedN(o, seen)
	if len(problems) > 0 {
		slices.Sort(problems)
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("… and %d more", len(problems)-10))
		}
		c.Fail(o, "RFC 3339 dates and date-times", "%s: %s", o.Label(), strings.Join(problems, "; "))
	}
}

// dateNames are members that hold dates or date-times wherever they
// appear, for members a schema does not declare (extra properties).
var dateNames = map[string]string{
	"startDate": "date", "endDate": "date", "birthDate": "date", "registrationDate": "date", "dateOfBirth": "date", "gradeDate": "date",
	"created": "date-time", "modified": "date-time", "reportedTimestamp": "date-time", "archivedAt": "date-time", "timestamp": "date-time",
	"createdAt": "date-time", "updatedAt": "date-time",
}

// WalkDates calls visit for every string of a JSON value that its schema
// (or, for members the schema does not declare, its name) says is a date
// or a date-time, with its JSON pointer. _embedded records are walked by
// name.
func WalkDates(v any, s *openapi3.Schema, visit func(ptr, format, value string)) {
	var walk func(v any, s *openapi3.Schema, ptr, name string, declared bool)
	walk = func(v any, s *openapi3.Schema, ptr, name string, declared bool) {
		switch x := v.(type) {
		case string:
			format := ""
			if declared && s != nil {
				format = formatOf(s)
			} else if !declared {
				format = dateNames[name]
			}
			if format == "date" || format == "date-time" {
				visit(ptr, format, x)
			}
		case map[string]any:
			for k, c := range x {
				sub := propertyOf(s, k)
				if sub == nil && s != nil {
					sub = propertyInAlternatives(s, k)
				}
				walk(c, sub, ptr+"/"+k, k, sub != nil)
			}
		case []any:
			var items *openapi3.Schema
			if s != nil && s.Items != nil {
				items = s.Items.Value
			}
			for i, c := range x {
				walk(c, items, ptr+"/"+strconv.Itoa(i), name, items != nil)
			}
		}
	}
	walk(v, s, "", "", s != nil)
}

func formatOf(s *openapi3.Schema) string {
	if s.Format != "" {
		return s.Format
	}
	for _, alts := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, a := range alts {
			if a != nil && a.Value != nil && a.Value.Format != "" {
				return a.Value.Format
			}
		}
	}
	return ""
}

// propertyInAlternatives finds a property in a oneOf or anyOf alternative.
func propertyInAlternatives(s *openapi3.Schema, name string) *openapi3.Schema {
	for _, alts := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, a := range alts {
			if a != nil {
				if p := propertyOf(a.Value, name); p != nil {
					return p
				}
			}
		}
	}
	return nil
}
