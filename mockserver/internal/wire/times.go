package wire

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Stockholm on machines and images without a zone database
)

// Stockholm is the zone Swedish servers write their local times in: +01:00
// in winter, +02:00 in summer.
var Stockholm = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		panic(err) // time/tzdata is linked in: cannot happen
	}
	return loc
}()

// WholeSeconds as Times.Digits writes date-times without fractional
// seconds, the instants cut to the second.
const WholeSeconds = -1

// Times says how an answer writes its date-times (strings that are RFC 3339
// date-times): in which zone's offset, and with how many digits of
// fractional seconds. The zero value writes them as the handler did.
type Times struct {
	// Zone, when set, writes the local time of the zone with its offset
	// instead of UTC with Z: the same instant.
	Zone *time.Location
	// Digits of fractional seconds: 0 as the handler wrote them,
	// WholeSeconds none, n > 0 exactly n (zeros added; the mock's instants
	// are whole milliseconds, so from 3 on nothing is cut).
	Digits int
}

// On reports whether the style changes anything.
func (ts Times) On() bool { return ts.Zone != nil || ts.Digits != 0 }

// Rewrite writes every date-time string of the tree in the style.
func (ts Times) Rewrite(v any) any {
	if !ts.On() {
		return v
	}
	return Map(v, func(_ string, v any) any {
		if s, ok := v.(string); ok {
			if t, ok := ParseDateTime(s); ok {
				if out := ts.format(t, s); isDateTime(out) { // not when the zone moves it past year 9999
					return out
				}
			}
		}
		return v
	})
}

// format writes t in the style; given is how the handler wrote it.
func (ts Times) format(t time.Time, given string) string {
	if ts.Zone != nil {
		if _, offset := t.In(ts.Zone).Zone(); offset%60 == 0 { // RFC 3339 offsets are whole minutes (local mean time before 1900 is not)
			t = t.In(ts.Zone)
		}
	}
	var frac string
	switch {
	case ts.Digits == WholeSeconds:
		t = t.Truncate(time.Second)
	case ts.Digits > 0:
		digits := fmt.Sprintf("%09d", t.Nanosecond()) + strings.Repeat("0", max(ts.Digits-9, 0))
		frac = "." + digits[:ts.Digits]
	default:
		frac = fractionOf(given)
	}
	return t.Format("2006-01-02T15:04:05") + frac + t.Format("Z07:00")
}

// fractionOf returns the fractional seconds of an RFC 3339 date-time with
// their dot, or "".
func fractionOf(s string) string {
	if len(s) > 19 && s[19] == '.' {
		end := 20
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		return s[19:end]
	}
	return ""
}

// ParseDateTime parses an RFC 3339 date-time (section 5.6: a date, T, a
// time with optional fractional seconds, Z or an offset) and reports
// whether s is one.
func ParseDateTime(s string) (time.Time, bool) {
	if !dateTimeForm.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	return t, err == nil
}

func isDateTime(s string) bool { _, ok := ParseDateTime(s); return ok }

// dateTimeForm is RFC 3339's date-time, whose digits time.Parse checks less
// strictly (it takes a one-digit hour).
var dateTimeForm = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`)

// Comparison is how a filter compares a record's instant t with its bound b.
type Comparison int

// The comparisons of date-time bounds.
const (
	After      Comparison = iota // t > b
	OnOrBefore                   // t <= b
	OnOrAfter                    // t >= b
	Before                       // t < b
)

// SecondBound returns the bound that makes the comparison of the mock's
// precise instants give the answer the comparison of the same instants cut
// to the second gives with b: what a server that keeps whole seconds
// answers. For t > b and t <= b that is the last instant of b's second;
// for t >= b and t < b the first whole second at or after b.
func SecondBound(b time.Time, c Comparison) time.Time {
	floor := b.Truncate(time.Second)
	switch c {
	case After, OnOrBefore:
		return floor.Add(time.Second - time.Nanosecond)
	default:
		if floor.Equal(b) {
			return b
		}
		return floor.Add(time.Second)
	}
}

// FormatBound writes a bound that SecondBound returned, to the nanosecond.
func FormatBound(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z07:00") }
