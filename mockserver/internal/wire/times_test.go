package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimesRewriteWritesTheSameInstant(t *testing.T) {
	for _, tc := range []struct {
		name  string
		style Times
		in    string
		want  string
	}{
		{"winter offset", Times{Zone: Stockholm}, "2026-01-15T07:30:00.445Z", "2026-01-15T08:30:00.445+01:00"},
		{"summer offset", Times{Zone: Stockholm}, "2026-06-04T06:47:33.4Z", "2026-06-04T08:47:33.4+02:00"},
		{"no fraction kept", Times{Zone: Stockholm}, "2026-06-04T06:47:33Z", "2026-06-04T08:47:33+02:00"},
		{"the hour the clocks go back", Times{Zone: Stockholm}, "2026-10-25T00:30:00Z", "2026-10-25T02:30:00+02:00"},
		{"the hour after", Times{Zone: Stockholm}, "2026-10-25T01:30:00Z", "2026-10-25T02:30:00+01:00"},
		{"seven digits", Times{Digits: 7}, "2026-06-04T06:47:33.445Z", "2026-06-04T06:47:33.4450000Z"},
		{"seven digits of a whole second", Times{Digits: 7}, "2026-06-04T06:47:33Z", "2026-06-04T06:47:33.0000000Z"},
		{"whole seconds", Times{Digits: WholeSeconds}, "2026-06-04T06:47:33.999Z", "2026-06-04T06:47:33Z"},
		{"whole seconds with an offset", Times{Zone: Stockholm, Digits: WholeSeconds}, "2026-01-15T07:30:00.5Z", "2026-01-15T08:30:00+01:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.style.Rewrite(tc.in)
			assert.Equal(t, tc.want, got)
			a, _ := ParseDateTime(tc.in)
			b, ok := ParseDateTime(got.(string))
			require.True(t, ok)
			if tc.style.Digits != WholeSeconds {
				assert.True(t, a.Equal(b), "same instant")
			}
		})
	}
}

func TestTimesRewriteLeavesOtherStringsAlone(t *testing.T) {
	v, err := Decode([]byte(`{"startDate":"2026-07-08","name":"2026-07-08 10:00","n":3,"t":"2026-07-08T10:00:00Z"}`))
	require.NoError(t, err)
	out := Times{Zone: Stockholm}.Rewrite(v)
	assert.Equal(t, `{"startDate":"2026-07-08","name":"2026-07-08 10:00","n":3,"t":"2026-07-08T12:00:00+02:00"}`+"\n", string(Encode(out)))
}

// SecondBound: comparing precise instants with the bound gives what
// comparing the instants cut to the second with the asked bound gives.
func TestSecondBound(t *testing.T) {
	at := func(s string) time.Time { v, _ := ParseDateTime(s); return v }
	cmp := func(c Comparison, t, b time.Time) bool {
		switch c {
		case After:
			return t.After(b)
		case OnOrBefore:
			return !t.After(b)
		case OnOrAfter:
			return !t.Before(b)
		}
		return t.Before(b)
	}
	instants := []string{"2026-01-01T10:00:00Z", "2026-01-01T10:00:00.001Z", "2026-01-01T10:00:00.999Z", "2026-01-01T10:00:01Z", "2026-01-01T09:59:59.999Z"}
	bounds := []string{"2026-01-01T10:00:00Z", "2026-01-01T10:00:00.5Z", "2026-01-01T11:00:00.5+01:00"}
	for _, c := range []Comparison{After, OnOrBefore, OnOrAfter, Before} {
		for _, bs := range bounds {
			b := at(bs)
			for _, ts := range instants {
				tm := at(ts)
				assert.Equal(t, cmp(c, tm.Truncate(time.Second), b), cmp(c, tm, SecondBound(b, c)), "comparison %d, instant %s, bound %s", c, ts, bs)
			}
		}
	}
}

// FuzzTimesRewrite: a date-time rewritten in another zone or with more
// digits is the same instant, and is a date-time again.
func FuzzTimesRewrite(f *testing.F) {
	for _, s := range []string{"2026-01-15T07:30:00.445Z", "2026-10-25T01:30:00+05:30", "1999-12-31t23:59:59.123456789z", "2026-07-08"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, ok := ParseDateTime(s)
		if !ok {
			return
		}
		for _, style := range []Times{{Zone: Stockholm}, {Digits: 7}, {Zone: Stockholm, Digits: 9}} {
			out, ok := ParseDateTime(style.Rewrite(s).(string))
			require.True(t, ok, "%q rewritten %+v", s, style)
			want := in
			if style.Digits > 0 && style.Digits < 9 {
				want = in.Truncate(time.Duration(pow10(9 - style.Digits)))
			}
			assert.True(t, want.Equal(out), "%q rewritten %+v: %v", s, style, out)
		}
	})
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
