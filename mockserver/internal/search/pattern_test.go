package search

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// likeRegexp is the reference implementation of a LIKE pattern: a regexp
// with (?is), % as .* and _ as ., everything else quoted.
func likeRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?is)^(?:`)
	for _, r := range p {
		switch r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}

func containsRegexp(s string) *regexp.Regexp {
	return regexp.MustCompile(`(?is)` + regexp.QuoteMeta(s))
}

func TestLikeMatcher(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"", "", true},
		{"", "a", false},
		{"%", "", true},
		{"%%", "anything", true},
		{"_", "", false},
		{"_", "å", true},
		{"__", "å", false},
		{"a%", "A", true},
		{"%a", "bA", true},
		{"%a%", "xxAxx", true},
		{"%a%", "xxx", false},
		{"a%b%c", "a-b-c", true},
		{"a%b%c", "a-c-b", false},
		{"a%%b", "ab", true},
		{"%_%", "", false},
		{"%_%", "x", true},
		{"_%_", "x", false},
		{"_%_", "xy", true},
		{"%ab%ab", "abab", true},
		{"%ab%ab", "aab", false},
		{"%aab", "aaab", true},
		{"a_c", "a\nc", true},
		{"\\%", "\\x", true},
		{"[a]", "[A]", true},
		{"(x|y)", "x", false},
		{"%.%", "ab", false},
		{"\u212a", "k", true},
		{"\u00df", "ss", false},
		{"%\ufffd", "ab\xff", true},
	}
	for _, tt := range tests {
		if got := compileLike(tt.pattern).match(tt.text); got != tt.want {
			t.Errorf("%q like %q: got %v, want %v", tt.text, tt.pattern, got, tt.want)
		}
	}
}

func TestContainsMatcher(t *testing.T) {
	tests := []struct {
		sub, text string
		want      bool
	}{
		{"", "", true},
		{"", "x", true},
		{"a", "", false},
		{"%", "100%", true},
		{"%", "100", false},
		{"_", "a_b", true},
		{"_", "ab", false},
		{"ÅSA", "kajsa åsa", true},
		{"aab", "aaab", true},
		{"abab", "ababa", true},
		{"abac", "ababac", true},
	}
	for _, tt := range tests {
		if got := compileContains(tt.sub).match(tt.text); got != tt.want {
			t.Errorf("%q contains %q: got %v, want %v", tt.text, tt.sub, got, tt.want)
		}
	}
}

// TestLikeExhaustive compares the matcher with the reference on every pattern
// and text over small alphabets.
func TestLikeExhaustive(t *testing.T) {
	all := func(alphabet []string, max int) []string {
		out := []string{""}
		last := []string{""}
		for range max {
			var next []string
			for _, s := range last {
				for _, a := range alphabet {
					next = append(next, s+a)
				}
			}
			out = append(out, next...)
			last = next
		}
		return out
	}
	patterns := all([]string{"a", "%", "_", "Å"}, 4)
	texts := all([]string{"a", "A", "b", "å"}, 4)
	for _, p := range patterns {
		re, m := likeRegexp(p), compileLike(p)
		for _, s := range texts {
			if got, want := m.match(s), re.MatchString(s); got != want {
				t.Fatalf("%q like %q: got %v, reference %v", s, p, got, want)
			}
		}
	}
}

// TestLongPatterns covers patterns of more than 63 tokens, whose state sets
// take several words, including every word boundary.
func TestLongPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(alphabet string, n int) string {
		r := []rune(alphabet)
		var b strings.Builder
		for range n {
			b.WriteRune(r[rng.IntN(len(r))])
		}
		return b.String()
	}
	for i := range 400 {
		n := 60 + i%150
		text := pick("ab", n+rng.IntN(40))
		// Patterns derived from the text match more often than random ones.
		p := []rune(text[:n])
		for j := range p {
			switch rng.IntN(8) {
			case 0:
				p[j] = '%'
			case 1:
				p[j] = '_'
			case 2:
				p[j] = 'A'
			}
		}
		pattern := string(p)
		if rng.IntN(2) == 0 {
			pattern += "%"
		}
		if got, want := compileLike(pattern).match(text), likeRegexp(pattern).MatchString(text); got != want {
			t.Fatalf("%q like %q: got %v, reference %v", text, pattern, got, want)
		}
		lo := rng.IntN(len(text) / 4)
		if sub := text[lo:min(len(text), lo+56+rng.IntN(n))]; !compileContains(strings.ToUpper(sub)).match(text) {
			t.Fatalf("%q does not contain its own substring %q", text, sub)
		}
	}
	// Exactly 63, 64 and 65 tokens: the accepting state crosses a word.
	for _, n := range []int{62, 63, 64, 65, 127, 128, 129} {
		text := strings.Repeat("a", n)
		for _, p := range []string{strings.Repeat("_", n), strings.Repeat("A", n-1) + "%", "%" + strings.Repeat("_", n-1), strings.Repeat("_", n+1)} {
			if got, want := compileLike(p).match(text), likeRegexp(p).MatchString(text); got != want {
				t.Errorf("%d a's like %q: got %v, reference %v", n, p, got, want)
			}
		}
	}
}

// TestManyDistinctLiterals covers patterns whose literal masks would be
// large, which keep token positions instead.
func TestManyDistinctLiterals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	matched := 0
	for iter := range 20 {
		var text, pattern strings.Builder
		for i := range 1000 {
			r := rune(0x4e00 + i) // 1000 distinct CJK characters
			text.WriteRune(r)
			switch rng.IntN(20 + 500*(iter%2)) { // odd iterations: rarely a wrong character
			case 0:
				pattern.WriteString("%")
			case 1:
				pattern.WriteString("_")
			case 2:
				pattern.WriteRune(r + 1)
			default:
				pattern.WriteRune(r)
			}
		}
		m := compileLike(pattern.String())
		if m.pos == nil {
			t.Fatal("the pattern uses masks")
		}
		got, want := m.match(text.String()), likeRegexp(pattern.String()).MatchString(text.String())
		if got != want {
			t.Fatalf("got %v, reference %v for pattern %q", got, want, pattern.String())
		}
		if got {
			matched++
		}
	}
	if matched == 0 || matched == 20 {
		t.Errorf("%d of 20 patterns matched; the test needs both outcomes", matched)
	}
}

// pathologicalPatterns are patterns a backtracking matcher takes
// exponential time over on a text without b; the automaton takes one pass.
func pathologicalPatterns() []struct {
	name string
	m    *pattern
} {
	return []struct {
		name string
		m    *pattern
	}{
		{"%a%a%a%a%a%a%a%a%b", compileLike("%a%a%a%a%a%a%a%a%b")},
		{"%a_a_a_a_%b", compileLike("%a_a_a_a_%b")},
		{"a long one: (%a)×100 %b", compileLike(strings.Repeat("%a", 100) + "%b")},
		{"contains a×30 b", compileContains(strings.Repeat("a", 30) + "b")},
	}
}

// TestPathologicalPatternsDoNotMatch: the answer on the text a backtracking
// matcher blows up on. How long it takes (one pass: milliseconds for
// 256 KiB) is BenchmarkPathologicalPatterns.
func TestPathologicalPatternsDoNotMatch(t *testing.T) {
	text := strings.Repeat("a", 1<<18)
	for _, tt := range pathologicalPatterns() {
		t.Run(tt.name, func(t *testing.T) {
			if tt.m.match(text) {
				t.Fatal("matched a text without b")
			}
		})
	}
}

// BenchmarkPathologicalPatterns reports the time per byte of text on the
// patterns a backtracking matcher takes exponential time over: linear means
// the same ns/byte for every pattern and text length.
func BenchmarkPathologicalPatterns(b *testing.B) {
	for _, size := range []int{1 << 14, 1 << 18} {
		text := strings.Repeat("a", size)
		for _, tt := range pathologicalPatterns() {
			b.Run(fmt.Sprintf("%s/%dKiB", tt.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					if tt.m.match(text) {
						b.Fatal("matched a text without b")
					}
				}
			})
		}
	}
}

func TestFold(t *testing.T) {
	for _, c := range []struct{ a, b rune }{{'a', 'A'}, {'å', 'Å'}, {'ä', 'Ä'}, {'ö', 'Ö'}, {'k', '\u212a'}, {'s', 'ſ'}, {'Å', '\u212b'}, {'σ', 'ς'}} {
		if fold(c.a) != fold(c.b) {
			t.Errorf("fold(%q)=%q, fold(%q)=%q", c.a, fold(c.a), c.b, fold(c.b))
		}
	}
	for r := rune(0); r < 0x3000; r++ {
		if f := fold(r); !strings.EqualFold(string(r), string(f)) || fold(f) != f {
			t.Fatalf("fold(%U) = %U", r, f)
		}
	}
}

// FuzzLike compares the like and contains matchers with regexp on short
// inputs.
func FuzzLike(f *testing.F) {
	f.Add("%a%b_", "xxaxxbc")
	f.Add("ÅSA%", "åsa öberg")
	f.Add("_", "\xff")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 40 || len(text) > 80 || !utf8.ValidString(pattern) {
			t.Skip()
		}
		if got, want := compileLike(pattern).match(text), likeRegexp(pattern).MatchString(text); got != want {
			t.Errorf("%q like %q: got %v, reference %v", text, pattern, got, want)
		}
		if got, want := compileContains(pattern).match(text), containsRegexp(pattern).MatchString(text); got != want {
			t.Errorf("%q contains %q: got %v, reference %v", text, pattern, got, want)
		}
	})
}
