package report

import (
	"encoding/base64"
	"mime"
	"net/url"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/rules"
)

// The stand-ins of credentials other than the client secret and tokens.
const (
	RedactedCredentials = "$CREDENTIALS"
	RedactedCookie      = "$COOKIE"
)

// tokenFields name the token-like fields of token requests and answers
// (RFC 6749 §4.4, §5.1; RFC 7523), form-encoded or JSON.
var tokenFields = []string{"access_token", "refresh_token", "id_token", "client_assertion", "assertion", "password"}

// learnFrom learns the secrets an exchange carries, from where they stand:
// the credentials of its Authorization and Client-Secret headers, the
// client_secret and token fields of its query and of a form or JSON body
// either way.
func (r *Redactor) learnFrom(ex *rules.Exchange) {
	for _, v := range ex.RequestHeader["Authorization"] {
		scheme, cred, _ := strings.Cut(strings.TrimSpace(v), " ")
		cred = strings.TrimSpace(cred)
		switch {
		case strings.EqualFold(scheme, "Bearer"):
			r.AddToken(cred)
		case strings.EqualFold(scheme, "Basic"):
			if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
				_, pass, _ := strings.Cut(string(raw), ":")
				r.AddSecret(pass, RedactedSecret)
				continue
			}
			r.AddSecret(cred, RedactedCredentials)
		default:
			r.AddSecret(cred, RedactedCredentials)
		}
	}
	for _, v := range ex.RequestHeader["Client-Secret"] {
		r.AddSecret(v, RedactedSecret)
	}
	learn := func(name, value string) (string, bool) {
		switch {
		case name == "client_secret":
			r.AddSecret(value, RedactedSecret)
		case slices.Contains(tokenFields, name):
			r.AddToken(value)
		}
		return "", false
	}
	if u, err := url.Parse(ex.URL); err == nil && u.RawQuery != "" {
		rewriteForm(u.RawQuery, learn)
	}
	for _, b := range []struct {
		ct   string
		body []byte
	}{{ex.RequestHeader.Get("Content-Type"), ex.RequestBody}, {ex.ResponseHeader.Get("Content-Type"), ex.ResponseBody}} {
		switch bodyKind(b.ct, b.body) {
		case kindForm:
			rewriteForm(string(b.body), learn)
		case kindJSON:
			rewriteJSONStrings(b.body, func(at jsonPlace, v string) (string, bool) { return learn(at.Key, v) })
		}
	}
}

// redactCookies keeps cookie names and attributes, not values.
func redactCookies(v string) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if ok && (i == 0 || !isCookieAttribute(name)) {
			parts[i] = name + "=" + RedactedCookie
		}
	}
	return strings.Join(parts, ";")
}

func isCookieAttribute(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "expires", "max-age", "domain", "path", "samesite", "priority", "partitioned":
		return true
	}
	return false
}

type contentKind int

const (
	kindText contentKind = iota
	kindJSON
	kindForm
)

// bodyKind says how to read a body: by its media type, or, without one, by
// its first byte.
func bodyKind(contentType string, body []byte) contentKind {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded":
		return kindForm
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return kindJSON
	case mt == "" && len(body) > 0 && (body[0] == '{' || body[0] == '['):
		return kindJSON
	}
	return kindText
}

// rewriteForm replaces the values of a form-encoded text (a body or a
// query) for which f gives a replacement, keeping the order and encoding
// of everything else.
func rewriteForm(s string, f func(name, value string) (string, bool)) string {
	parts := strings.Split(s, "&")
	changed := false
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			continue
		}
		if repl, ok := f(name, value); ok {
			parts[i] = k + "=" + url.QueryEscape(repl)
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(parts, "&")
}

// longestFirst builds a replacer of the keys of m (each spelled as spell
// gives) by their values, longer keys first so that a value containing
// another is replaced whole.
func longestFirst(m map[string]string, spell func(string) []string) *strings.Replacer {
	type pair struct{ old, new string }
	var pairs []pair
	for k, v := range m {
		for _, s := range spell(k) {
			pairs = append(pairs, pair{s, v})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if d := len(b.old) - len(a.old); d != 0 {
			return d
		}
		return strings.Compare(a.old, b.old)
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, p.new)
	}
	return strings.NewReplacer(args...)
}
