package report

import (
	"encoding/base64"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/skolkit/skolkit/rules"
)

// ExcerptBytes is how much of each body a report keeps.
const ExcerptBytes = 2048

// The shell variables secrets are replaced with in reports and curl lines.
const (
	RedactedSecret = "$CLIENT_SECRET"
	RedactedToken  = "$TOKEN"
)

// minRedactLen keeps a one-letter "token" from garbling every report.
const minRedactLen = 4

// Redactor replaces secrets (client secrets, the legacy Client-Secret
// header, Basic credentials) and every access token it has been told of
// in anything that goes into a report, and cookie values. A redactor of
// observed traffic (NewTrafficRedactor) also learns the secrets of each
// exchange it makes an excerpt of, from where they stand; one that masks
// personal data (MaskPersonalData) masks excerpts and texts too. It is
// safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []secret
	tokens  []string
	// learn: every credential an exchange carries is a secret (the tap's
	// traffic is someone else's); otherwise a token the redactor was not
	// told of is shown as sent (the runner's deliberately wrong ones).
	learn bool
	mask  *Masker
}

type secret struct{ value, variable string }

// NewRedactor makes a redactor of the client secret (shown as
// $CLIENT_SECRET).
func NewRedactor(clientSecret string) *Redactor {
	r := &Redactor{}
	r.AddSecret(clientSecret, RedactedSecret)
	return r
}

// NewTrafficRedactor makes a redactor for traffic observed between others:
// it knows no secret at first and learns each from the exchanges it makes
// excerpts of (bearer tokens, Basic and legacy credentials, a token
// request's client_secret, a token answer's tokens).
func NewTrafficRedactor() *Redactor { return &Redactor{learn: true} }

// MaskPersonalData makes the redactor mask personal data (Masker) in
// excerpts and in Text.
func (r *Redactor) MaskPersonalData() { r.mask = NewMasker() }

// AddSecret adds a secret to hide, shown as the shell variable given
// ("$LIMITED_CLIENT_SECRET").
func (r *Redactor) AddSecret(value, variable string) {
	if len(value) < minRedactLen {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.ContainsFunc(r.secrets, func(s secret) bool { return s.value == value }) {
		r.secrets = append(r.secrets, secret{value, variable})
	}
}

// AddToken adds an access token to hide (shown as $TOKEN).
func (r *Redactor) AddToken(tok string) {
	if len(tok) < minRedactLen {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.tokens, tok) {
		r.tokens = append(r.tokens, tok)
	}
}

// IsToken reports whether tok is a token the redactor hides.
func (r *Redactor) IsToken(tok string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Contains(r.tokens, tok)
}

// Redact hides every secret and token in s.
func (r *Redactor) Redact(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec.value, sec.variable)
		if esc := url.QueryEscape(sec.value); esc != sec.value {
			s = strings.ReplaceAll(s, esc, sec.variable)
		}
	}
	for _, t := range r.tokens {
		s = strings.ReplaceAll(s, t, RedactedToken)
	}
	return s
}

// Text is s as a report may show it: secrets hidden and, when the
// redactor masks personal data, personal data masked.
func (r *Redactor) Text(s string) string {
	s = r.Redact(s)
	if r.mask != nil {
		s = r.mask.Text(s)
	}
	return s
}

// RedactHeader shows a header's value without its secret parts: a bearer
// token the redactor knows as $TOKEN, Basic credentials decoded with the
// secret hidden, cookies without their values.
func (r *Redactor) RedactHeader(name, v string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Cookie", "Set-Cookie":
		return redactCookies(v)
	case "Authorization":
	default:
		return r.Redact(v)
	}
	scheme, cred, _ := strings.Cut(v, " ")
	switch {
	case strings.EqualFold(scheme, "Bearer") && r.IsToken(cred):
		return "Bearer " + RedactedToken
	case strings.EqualFold(scheme, "Basic"):
		if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
			return "Basic base64(" + r.Redact(string(raw)) + ")"
		}
	}
	return r.Redact(v)
}

// Excerpt turns an exchange into what reports show of it: secrets hidden,
// personal data masked when the redactor masks it, bodies cut to
// ExcerptBytes, and a curl line that reproduces the request. Headers the
// HTTP client adds by itself (User-Agent) are left out of the curl line.
func (r *Redactor) Excerpt(ex *rules.Exchange) *Exchange {
	if r.learn {
		r.learnFrom(ex)
	}
	out := &Exchange{
		Surface:       ex.Surface,
		Method:        ex.Method,
		URL:           r.url(ex.URL),
		RequestHeader: map[string]string{},
		Duration:      ex.Duration,
		Error:         r.Text(ex.Err),
	}
	for k, vs := range ex.RequestHeader {
		if http.CanonicalHeaderKey(k) == "User-Agent" {
			continue
		}
		out.RequestHeader[k] = r.maskText(r.RedactHeader(k, strings.Join(vs, ", ")))
	}
	reqBody := r.body(ex.RequestHeader, ex.RequestBody)
	if len(reqBody) > 0 {
		out.RequestBody = excerpt(reqBody, ExcerptBytes)
	}
	if ex.Status != 0 {
		out.Status = ex.Status
		out.ResponseHeader = map[string]string{}
		for k, vs := range ex.ResponseHeader {
			out.ResponseHeader[k] = r.maskText(r.RedactHeader(k, strings.Join(vs, ", ")))
		}
		out.ResponseBody = excerpt(r.body(ex.ResponseHeader, ex.ResponseBody), ExcerptBytes)
	}
	out.Curl = r.curl(ex, out, reqBody)
	return out
}

// body is a whole body as a report may show it (before it is cut).
func (r *Redactor) body(h http.Header, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	s := r.Redact(string(b))
	if r.mask != nil {
		s = string(r.mask.Body(h.Get("Content-Type"), []byte(s)))
	}
	return s
}

// url is a URL as a report may show it.
func (r *Redactor) url(u string) string {
	u = r.Redact(u)
	if r.mask != nil {
		u = r.mask.URL(u)
	}
	return u
}

func (r *Redactor) maskText(s string) string {
	if r.mask != nil {
		return r.mask.Text(s)
	}
	return s
}

// curl builds a command line that reproduces the request. Secrets appear as
// shell variables ($CLIENT_SECRET, $TOKEN) for the user to set.
func (r *Redactor) curl(ex *rules.Exchange, out *Exchange, body string) string {
	parts := []string{"curl", "-sS", "-i"}
	if ex.Method != http.MethodGet || len(ex.RequestBody) > 0 {
		parts = append(parts, "-X", ex.Method)
	}
	parts = append(parts, ShellQuote(out.URL))
	for _, k := range slices.Sorted(maps.Keys(out.RequestHeader)) {
		v := out.RequestHeader[k]
		if http.CanonicalHeaderKey(k) == "Authorization" && strings.HasPrefix(v, "Basic base64(") {
			parts = append(parts, "-u", ShellQuote(strings.TrimSuffix(strings.TrimPrefix(v, "Basic base64("), ")")))
			continue
		}
		parts = append(parts, "-H", ShellQuote(k+": "+v))
	}
	if len(ex.RequestBody) > 0 {
		mt, _ := rules.MediaType(ex.RequestHeader.Get("Content-Type"))
		form, err := url.ParseQuery(body)
		if mt == "application/x-www-form-urlencoded" && err == nil {
			for _, k := range slices.Sorted(maps.Keys(form)) {
				for _, v := range form[k] {
					parts = append(parts, "--data-urlencode", ShellQuote(k+"="+r.Redact(v)))
				}
			}
		} else {
			parts = append(parts, "--data-raw", ShellQuote(body))
		}
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes for a POSIX shell. Values holding one of the redaction
// variables are double-quoted so that the shell expands them.
func ShellQuote(s string) string {
	if strings.Contains(s, "$") && (strings.Contains(s, RedactedToken) || strings.Contains(s, "_SECRET")) {
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`")
		out := r.Replace(s)
		// Dollar signs other than the variables are escaped.
		out = strings.ReplaceAll(out, "$", `\$`)
		for _, v := range variablesIn(s) {
			out = strings.ReplaceAll(out, `\`+v, v)
		}
		return `"` + out + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// variablesIn lists the redaction variables in s ($TOKEN, $…_SECRET).
func variablesIn(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z') {
			j++
		}
		v := s[i:j]
		if v == RedactedToken || strings.HasSuffix(v, "_SECRET") {
			out = append(out, v)
		}
	}
	return out
}
