package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text in requests: every string a request carries (a member name or value
// of a JSON body, a query parameter's name or value) must be valid UTF-8
// without control characters other than tab, line feed and carriage return.
// Go's JSON decoder would silently turn invalid UTF-8 and unpaired
// surrogates into U+FFFD, and a NUL or an escape character stored and
// echoed corrupts what the next client reads; so such a request is refused,
// with the member or parameter named, before anything reads it
// (docs/decisions.md#text-in-requests).

// textFault says what is wrong with one string, or "" when nothing is.
func textFault(s string) string {
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("not valid UTF-8 (byte 0x%02x at byte %d)", s[i], i)
			}
			i += size
		}
	}
	for _, r := range s {
		if isControl(r) {
			return fmt.Sprintf("the control character %U is not allowed in text", r)
		}
	}
	return ""
}

// isControl reports whether r is a control character a request's text may
// not hold: C0 and C1 controls and DEL, except tab, line feed and carriage
// return.
func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f
}

// QueryTextProblem returns why a query's text is refused, naming the
// parameter, or "" when it is not.
func QueryTextProblem(q url.Values) string {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range names {
		if f := textFault(k); f != "" {
			return fmt.Sprintf("query parameter name %s: %s", strconv.QuoteToASCII(k), f)
		}
		for _, v := range q[k] {
			if f := textFault(v); f != "" {
				return fmt.Sprintf("query parameter %q: %s", k, f)
			}
		}
	}
	return ""
}

// BodyTextProblem returns the first string of a JSON body whose text is
// refused, as a problem at its JSON Pointer (RFC 6901), or nil. A body that
// is not JSON is nil here: its own check words that.
func BodyTextProblem(body []byte) *FieldProblem {
	dec := json.NewDecoder(bytes.NewReader(body))
	var path []string
	var stack []*jsonLevel
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON
		}
		raw := body[start:dec.InputOffset()]
		var level *jsonLevel
		if len(stack) > 0 {
			level = stack[len(stack)-1]
		}
		isKey := level != nil && level.object && level.wantKey
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if level != nil {
					path = append(path, level.next())
				}
				stack = append(stack, &jsonLevel{object: t == '{', wantKey: true})
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 {
					path = path[:len(path)-1]
				}
			}
			continue
		case string:
			if f := stringFault(t, raw); f != "" {
				at := path
				if isKey {
					return &FieldProblem{Field: Pointer(at), Message: fmt.Sprintf("member name %s: %s", strconv.QuoteToASCII(t), f)}
				}
				if level != nil {
					at = append(slices.Clone(path), level.peek())
				}
				return &FieldProblem{Field: Pointer(at), Message: f}
			}
			if isKey {
				level.key, level.wantKey = t, false
				continue
			}
		}
		if level != nil {
			level.next()
		}
	}
}

// stringFault is textFault for a decoded JSON string and its raw token:
// the decoder has already turned invalid UTF-8 and unpaired surrogate
// escapes into U+FFFD, so a U+FFFD the raw token does not hold is one of
// those.
func stringFault(decoded string, raw []byte) string {
	// raw begins with what separates the token from the one before.
	if i := bytes.IndexByte(raw, '"'); i >= 0 && len(raw)-i >= 2 {
		raw = raw[i+1 : len(raw)-1]
	}
	if !utf8.Valid(raw) {
		return textFault(string(raw))
	}
	if strings.ContainsRune(decoded, utf8.RuneError) && !bytes.ContainsRune(raw, utf8.RuneError) && !bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
		return "not valid UTF-8 (an escaped surrogate without its pair)"
	}
	return textFault(decoded)
}

// jsonLevel is an object or array being walked by BodyTextProblem.
type jsonLevel struct {
	object  bool
	wantKey bool   // in an object: the next string is a member name
	key     string // in an object: the member whose value comes next
	index   int    // in an array: the index of the next element
}

// peek names the value that comes next at this level.
func (l *jsonLevel) peek() string {
	if l.object {
		return l.key
	}
	return strconv.Itoa(l.index)
}

// next names the value that comes next at this level and moves past it.
func (l *jsonLevel) next() string {
	name := l.peek()
	if l.object {
		l.wantKey = true
	} else {
		l.index++
	}
	return name
}

// Pointer renders a JSON Pointer (RFC 6901).
func Pointer(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}
