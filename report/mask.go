package report

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// personal is a kind of personal data the masker replaces.
type personal int

const (
	civicNumber personal = iota
	givenName
	middleName
	familyName
	anyName // displayName: of a person reference, or of anything (not always told apart)
	email
	phone
	street
	postalCode
	town
	estate
	birthDate
	nKinds
)

// standIns are the forms of each kind's stand-ins (n the count of values
// of the kind so far): digits, when set, fill the digits of a value whose
// shape is kept (sameShape); plain is the stand-in otherwise. A birth date
// that is a date becomes the nth day from 1900-01-01.
var standIns = [nKinds]struct{ digits, plain string }{
	civicNumber: {"19000101%04d", "civic-number-%d"},
	givenName:   {"", "Given%d"},
	middleName:  {"", "Middle%d"},
	familyName:  {"", "Family%d"},
	anyName:     {"", "Name%d"},
	email:       {"", "person%d@example.invalid"},
	phone:       {"%012d", "phone-%d"},
	street:      {"", "Street %d"},
	postalCode:  {"%05d", "postal-code-%d"},
	town:        {"", "Town%d"},
	estate:      {"", "Estate %d"},
	birthDate:   {"1900%08d", "date-%d"},
}

// personalFields says which member names hold personal data, in the
// records of interface A (the vendor's field table) and of SS 12000
// (Person, its references, lookups and filters).
var personalFields = map[string]personal{
	"identityNumber":          civicNumber, // interface A
	"civicNos":                civicNumber, // SS 12000 persons/lookup
	"givenName":               givenName,
	"firstName":               givenName,
	"middleName":              middleName,
	"familyName":              familyName,
	"lastName":                familyName,
	"displayName":             anyName,
	"emailAddress1":           email,
	"emailAddress2":           email,
	"eduPersonPrincipalName":  email,
	"eduPersonPrincipalNames": email,
	"phoneNumber1":            phone,
	"phoneNumber2":            phone,
	"streetAddress":           street,
	"postalAddress":           street,
	"postalCode":              postalCode,
	"locality":                town,
	"postalCity":              town,
	"realEstateDesignation":   estate,
	"birthDate":               birthDate,
	"dateOfBirth":             birthDate,
}

// personalValues say which objects' "value" member is personal data
// (SS 12000: civicNo, emails, phoneNumbers).
var personalValues = map[string]personal{"civicNo": civicNumber, "emails": email, "phoneNumbers": phone}

var (
	// A Swedish personal identity or co-ordination number: (CC)YYMMDD,
	// an optional - or +, and four digits; the day may be 61-91.
	civicPattern = regexp.MustCompile(`\b(?:19|20)?\d\d(?:0[1-9]|1[0-2])(?:[0-3]\d|[6-9]\d)[-+]?\d{4}\b`)
	emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
)

// Masker replaces personal data in what reports show of exchanges: civic
// numbers, names, e-mail addresses, telephone numbers, addresses and birth
// dates. Replacement is consistent: one value has one stand-in throughout
// a report, so that a record's name in a list and by id still read alike.
// Stand-ins of civic numbers, postal codes, telephone numbers and dates
// keep the original's shape (its separators and number of digits), so
// that a finding about a format still shows it. It is safe for concurrent
// use.
//
// Bodies teach it values by where they stand (a givenName member, the
// value of a civicNo); Text then replaces those values wherever they
// appear, and civic numbers and e-mail addresses anywhere by their form.
// Mask bodies before the texts that may quote them.
type Masker struct {
	mu       sync.Mutex
	stand    map[string]string // value → stand-in
	isStand  map[string]bool
	count    [nKinds]int
	replacer *strings.Replacer // of stand, nil when stale
}

// NewMasker returns a masker that knows no value yet.
func NewMasker() *Masker { return &Masker{stand: map[string]string{}, isStand: map[string]bool{}} }

// Body returns a copy of body with personal data replaced: by member
// name in JSON, by field name in forms, and as Text does everywhere.
func (m *Masker) Body(contentType string, body []byte) []byte {
	if len(body) == 0 {
		return body
	}
	switch bodyKind(contentType, body) {
	case kindJSON:
		body = rewriteJSONStrings(body, func(at jsonPlace, value string) (string, bool) {
			kind, ok := personalFields[at.Key]
			if !ok && at.Key == "value" {
				kind, ok = personalValues[at.Outer]
			}
			if !ok || value == "" {
				return "", false
			}
			return m.standIn(kind, value), true
		})
	case kindForm:
		body = []byte(rewriteForm(string(body), func(name, value string) (string, bool) {
			if kind, ok := personalFields[name]; ok && value != "" {
				return m.standIn(kind, value), true
			}
			return "", false
		}))
	}
	return []byte(m.Text(string(body)))
}

// Text replaces the values learned so far, and civic numbers and e-mail
// addresses by their form.
func (m *Masker) Text(s string) string {
	if s == "" {
		return s
	}
	s = civicPattern.ReplaceAllStringFunc(s, func(v string) string { return m.standIn(civicNumber, v) })
	s = emailPattern.ReplaceAllStringFunc(s, func(v string) string { return m.standIn(email, v) })
	m.mu.Lock()
	if m.replacer == nil {
		m.replacer = longestFirst(m.stand, func(v string) []string {
			if esc := url.QueryEscape(v); esc != v {
				return []string{v, esc}
			}
			return []string{v}
		})
	}
	rep := m.replacer
	m.mu.Unlock()
	return rep.Replace(s)
}

// Header returns a copy of h with personal data replaced.
func (m *Masker) Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		out[k] = make([]string, len(vs))
		for i, v := range vs {
			out[k][i] = m.Text(v)
		}
	}
	return out
}

// URL returns s with personal data in its query replaced (by parameter
// name and as Text does), decoded values included.
func (m *Masker) URL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.RawQuery == "" {
		return m.Text(s)
	}
	u.RawQuery = rewriteForm(u.RawQuery, func(name, value string) (string, bool) {
		if kind, ok := personalFields[name]; ok && value != "" {
			return m.standIn(kind, value), true
		}
		if masked := m.Text(value); masked != value {
			return masked, true
		}
		return "", false
	})
	return m.Text(u.String())
}

// standIn is value's stand-in, made on first sight.
func (m *Masker) standIn(kind personal, value string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.stand[value]; ok {
		return s
	}
	if m.isStand[value] { // met again: a text masked twice
		return value
	}
	m.count[kind]++
	n := m.count[kind]
	var s string
	form := standIns[kind]
	switch _, err := time.Parse(time.DateOnly, value); {
	case kind == birthDate && err == nil:
		s = time.Date(1900, 1, n, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	case form.digits != "":
		s = sameShape(value, fmt.Sprintf(form.digits, n), fmt.Sprintf(form.plain, n))
	default:
		s = fmt.Sprintf(form.plain, n)
	}
	m.stand[value], m.isStand[s] = s, true
	m.replacer = nil
	return s
}

// sameShape is value with its digits replaced by the last digits of
// digits (padded with zeros on the left), its other characters kept; for
// a value without digits, noDigits.
func sameShape(value, digits, noDigits string) string {
	nd := 0
	for _, c := range value {
		if c >= '0' && c <= '9' {
			nd++
		}
	}
	if nd == 0 {
		return noDigits
	}
	if nd > len(digits) {
		digits = strings.Repeat("0", nd-len(digits)) + digits
	}
	digits = digits[len(digits)-nd:]
	var b strings.Builder
	i := 0
	for _, c := range value {
		if c >= '0' && c <= '9' {
			b.WriteByte(digits[i])
			i++
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}
