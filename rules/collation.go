package rules

import (
	"strings"
	"unicode"
)

// The orders a name or code may be sorted in. The standard says a sortkey
// orders by a member but names no collation, so a rule judges a pair of
// names only where every plausible collation agrees on their order: the
// order of bytes, the same with case folded, Swedish (case folded; å, ä, ö
// after z; ü as y; é as e) and an accent-blind order that skips spaces and
// punctuation (the root collation's first level, as a database's default
// locale sorts).

// collations are the orders judged; each maps a key to a string compared by
// bytes.
var collations = []func(string) string{
	func(s string) string { return s },
	strings.ToLower,
	swedishKey,
	accentBlindKey,
}

// swedishLetters places å, ä, ö after z and reads the letters Swedish
// treats as variants of another as that letter.
var swedishLetters = map[rune]string{
	'å': "{", 'ä': "|", 'æ': "|", 'ö': "}", 'ø': "}",
	'ü': "y", 'é': "e", 'è': "e", 'ê': "e", 'à': "a", 'á': "a",
}

func swedishKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if v, ok := swedishLetters[r]; ok {
			b.WriteString(v)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// baseLetters reads an accented letter as its base letter.
var baseLetters = map[rune]rune{
	'å': 'a', 'ä': 'a', 'à': 'a', 'á': 'a', 'â': 'a', 'æ': 'a',
	'ö': 'o', 'ø': 'o', 'ó': 'o', 'ô': 'o',
	'ü': 'u', 'ú': 'u', 'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ï': 'i', 'ñ': 'n', 'ç': 'c', 'ß': 's',
}

func accentBlindKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if v, ok := baseLetters[r]; ok {
			r = v
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CompareText orders two names or codes: -1, 0 or +1 when every collation
// agrees (0: none orders them apart), and ok false when they disagree.
func CompareText(a, b string) (cmp int, ok bool) {
	for i, key := range collations {
		c := strings.Compare(key(a), key(b))
		if i == 0 {
			cmp = c
		} else if c != cmp {
			return 0, false
		}
	}
	return cmp, true
}
