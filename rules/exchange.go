package rules

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Surface is one of the service's URLs.
type Surface string

// The surfaces.
const (
	SurfaceAuth   Surface = "auth"   // the token endpoint, {auth_url}/oauth/token
	SurfaceA      Surface = "A"      // interface A, /directory/v1
	SurfaceB      Surface = "B"      // interface B, /api/v1
	SurfaceExport Surface = "export" // the data export, /data-export/v1
)

// Surfaces lists the surfaces in report order.
var Surfaces = []Surface{SurfaceAuth, SurfaceA, SurfaceB, SurfaceExport}

// Name is how reports name a surface.
func (s Surface) Name() string {
	switch s {
	case SurfaceA:
		return "interface A"
	case SurfaceB:
		return "interface B"
	case SurfaceAuth:
		return "the token endpoint"
	case SurfaceExport:
		return "the data export"
	}
	return string(s)
}

// Side says whose fault a finding is.
type Side string

// The sides.
const (
	SideServer Side = "server"
	SideClient Side = "client"
)

// Profile says what traffic is judged by.
type Profile string

// The profiles.
const (
	// ProfileService judges by the service's spec and the vendor's facts
	// (the default).
	ProfileService Profile = "service"
	// ProfileSS12000 judges interface B and the token endpoint by the
	// official SS 12000 2.1.0 document and the RFCs it builds on alone.
	ProfileSS12000 Profile = "ss12000"
)

// Severity is how strongly the sentence a rule enforces is worded.
type Severity string

// The severities.
const (
	MUST   Severity = "MUST"
	SHOULD Severity = "SHOULD"
	// NOTE is a remark about a client's efficiency: never a fault.
	NOTE Severity = "NOTE"
	// Off: the rule is not part of the profile.
	Off Severity = "-"
)

// Family groups rules by the kind of invariant they enforce. Families are
// open; doc.go lists the ones in use.
type Family string

// The families of server rules.
const (
	FamilyContract       Family = "contract"
	FamilyPaging         Family = "paging"
	FamilyFilters        Family = "filters"
	FamilyRepresentation Family = "representation"
	FamilyReferences     Family = "references"
	FamilyWrites         Family = "writes"
	FamilyHeaders        Family = "headers"
	FamilyDates          Family = "dates"
	FamilyErrors         Family = "errors"
	FamilyAuth           Family = "auth"
)

// The families of client rules.
const (
	FamilyRequests  Family = "requests"
	FamilyTokens    Family = "tokens"
	FamilyRateLimit Family = "ratelimit"
	FamilyRetries   Family = "retries"
	FamilyWalks     Family = "walks"
)

// SpecRef is the sentence a rule enforces, quoted verbatim, and where it
// stands.
type SpecRef struct {
	// Section of the service's spec ("Limits"), or another source ("RFC
	// 6749 §5.1", "SS 12000 2.1.0: GET /groups").
	Section string `json:"section"`
	// Quote is the sentence, verbatim.
	Quote string `json:"quote"`
	// Decision is the anchor of the entry of docs/decisions.md that fills in
	// what the spec leaves open ("interface-b-paging"), when the rule relies
	// on one.
	Decision string `json:"decision,omitempty"`
}

// DecisionsURL is where docs/decisions.md is published; reports link a
// rule's decision there.
const DecisionsURL = "https://github.com/skolkit/skolkit/blob/main/docs/decisions.md"

// DecisionPath is the rule's decision as a path in the repository
// ("docs/decisions.md#interface-b-paging"), or "" without one.
func (s SpecRef) DecisionPath() string {
	if s.Decision == "" {
		return ""
	}
	return "docs/decisions.md#" + s.Decision
}

// DecisionURL is the address of the rule's decision, or "" without one.
func (s SpecRef) DecisionURL() string {
	if s.Decision == "" {
		return ""
	}
	return DecisionsURL + "#" + s.Decision
}

// Exchange is one request and its answer as a driver saw them on the wire.
// Rules read it and never change it.
type Exchange struct {
	// Seq is assigned by the driver, increasing in arrival order.
	Seq uint64
	// Client is who sent the request, when the driver knows (a client id);
	// client rules keep their history per client.
	Client string
	// Surface is the surface the driver's Prefixes classified the URL as.
	Surface Surface
	Method  string
	// Path is relative to the surface's prefix ("/placements/6f…"); the
	// token endpoint's is "/oauth/token".
	Path             string
	Query            url.Values
	RequestHeader    http.Header
	RequestBody      []byte
	RequestTruncated bool // the driver kept only the first bytes of the body
	// Status is 0 when there was no answer (transport error, timeout,
	// client gone).
	Status            int
	ResponseHeader    http.Header
	ResponseBody      []byte
	ResponseTruncated bool
	// Start is when the request started, by the driver's clock; Duration
	// how long until the answer was read.
	Start    time.Time
	Duration time.Duration
	// Err is the transport error, when Status is 0.
	Err string
	// URL is the full URL as sent (for curl lines; reports redact secrets).
	URL string
}

// End is when the answer had been read.
func (e *Exchange) End() time.Time { return e.Start.Add(e.Duration) }

// Prefixes maps URL paths to surfaces: each field is the path prefix of a
// surface (the token endpoint's is its whole path).
type Prefixes struct {
	Token, A, B, Export string
}

// DefaultPrefixes are the prefixes of skolkit serve and of the service.
func DefaultPrefixes() Prefixes {
	return Prefixes{Token: "/oauth/token", A: "/directory/v1", B: "/api/v1", Export: "/data-export/v1"}
}

// Classify says which surface a URL path belongs to and the path relative
// to that surface's prefix ("/oauth/token" for the token endpoint). It
// reports false for paths of no surface (the mock's /__admin, a favicon).
func (p Prefixes) Classify(urlPath string) (Surface, string, bool) {
	if p.Token != "" && strings.TrimSuffix(urlPath, "/") == strings.TrimSuffix(p.Token, "/") {
		return SurfaceAuth, "/oauth/token", true
	}
	for _, c := range []struct {
		s      Surface
		prefix string
	}{{SurfaceA, p.A}, {SurfaceB, p.B}, {SurfaceExport, p.Export}} {
		prefix := strings.TrimSuffix(c.prefix, "/")
		if prefix == "" && c.prefix == "" {
			continue
		}
		if urlPath == prefix {
			return c.s, "/", true
		}
		if strings.HasPrefix(urlPath, prefix+"/") {
			return c.s, urlPath[len(prefix):], true
		}
	}
	return "", "", false
}
