package exam

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skolkit/skolkit/mockserver"
	"github.com/skolkit/skolkit/scenarios"
)

// Scene is one named behaviour of the server that a client must cope with:
// a way the standard, the service's spec or the vendor's facts allow a
// server to answer, or that real servers show. A scene changes how the mock
// serves, never which records it holds: every scene of an exam serves the
// same scenario at the same instant.
type Scene struct {
	// Name is the scene's name in the CLI (--scenes), the reports and the
	// docs.
	Name string
	// Behaviour says what the server does, in one sentence a report shows
	// as the cause of a finding that plain does not have.
	Behaviour string
	// Basis is why a server may behave so.
	Basis SpecRef

	// Variants are the mock's legal variants switched on.
	Variants []string
	// Rules are fault and latency rules put on the mock (its
	// /__admin/faults) while a round runs.
	Rules scenarios.Behaviours
	// TokenTTL, when positive, is the lifetime of the mock's access tokens.
	TokenTTL time.Duration
	// ExpireTokensInWalks makes every token issued so far expire when a
	// client asks for the second page of a walk (the mock's clock jumps
	// past their lifetime), once per list and round.
	ExpireTokensInWalks bool
	// RateLimit, when set, limits the client's requests to interface A, B
	// and the export to a quota per short window, with 429 answers,
	// Retry-After and the RateLimit headers.
	RateLimit *RateWindow
	// ChangeBetweenPages makes the exam create and delete records of a
	// list between a client's first and second page of it, once per list
	// and round.
	ChangeBetweenPages bool
}

// RateWindow is the rate-limit scene's quota: Quota requests a window of
// Window (the first window of a round FirstQuota), each answer announcing
// the window's end (RateLimit-Reset) and what is left of it; requests
// beyond the quota before the window ends are answered 429 with
// Retry-After.
type RateWindow struct {
	Quota, FirstQuota int
	Window            time.Duration
}

// Names of the scenes.
const (
	ScenePlain       = "plain"
	SceneSparse      = "sparse"
	ScenePaging      = "paging"
	SceneTokenExpiry = "token-expiry"
	SceneRateLimit   = "rate-limit"
	SceneFaults      = "faults"
	SceneVariants    = "variants"
)

// Sentences the scenes rest on.
var (
	basisPlain = SpecRef{Section: "the scenario with complete data",
		Quote: "The baseline: every other scene differs from it by one behaviour, so a finding that plain does not have names that scene's behaviour as its cause."}
	basisSparse = SpecRef{Section: "SS 12000 2.1.0: the schemas' required members; JSON Schema Validation §5.15 (required)",
		Quote: "An object instance is valid against this keyword if every item in the array is the name of a property in the instance."}
	basisPaging = SpecRef{Section: "SS 12000 2.1.0: parameter limit; service spec, interface B placement list",
		Quote: "Antal poster som ska visas i resultatet. Utelämnas det så returnas så många poster som möjligt av servern, se `pageToken`. … limit: number of records; when omitted the server returns as many as it chooses, continued through `pageToken`"}
	basisTokenExpiry = SpecRef{Section: "service spec, Authentication, item 4",
		Quote: "No refresh token is issued. When the token expires, the client requests a new one with the same credentials."}
	basisRateLimit = SpecRef{Section: "service spec, Limits; RFC 6585 §4",
		Quote: "Exceeding the rate limit yields 429. … The response representations SHOULD include details explaining the condition, and MAY include a Retry-After header indicating how long to wait before making a new request."}
	basisFaults = SpecRef{Section: "service spec, Errors; RFC 9110 §15.6.4",
		Quote: "500 | unexpected server error … The 503 (Service Unavailable) status code indicates that the server is currently unable to handle the request due to a temporary overload or scheduled maintenance, which will likely be alleviated after some delay."}
	basisVariants = SpecRef{Section: "SS 12000 2.1.0 and RFC 6749 (each variant's own sentence: docs/exam.md)",
		Quote: "Behaviour the standard allows that the mock does not choose by default: a correct client copes with every one of them."}
)

// rateLimitScene is the rate-limit scene's window: windows of two seconds
// holding 20 requests, the first 5. A wait longer than the second a Date
// header rounds away lets the client rules see a client that comes back
// before the reset.
var rateLimitScene = RateWindow{Quota: 20, FirstQuota: 5, Window: 2 * time.Second}

// tokenExpirySceneTTL is the token lifetime of the token-expiry scene.
const tokenExpirySceneTTL = time.Minute

// Scenes returns every scene, in the order an exam runs them. Each call
// builds them afresh, so a caller may change what it gets.
func Scenes() []Scene {
	rateLimit := rateLimitScene
	return []Scene{
		{Name: ScenePlain, Behaviour: "the scenario with complete data: every optional member the store holds is present (unless it would contradict another), no empty collections", Basis: basisPlain},
		{Name: SceneSparse, Behaviour: "every member the standard does not require is left out (interface B: persons without contact details or identifiers, groups without members, person references without securityMarking; interface A: the members that are null)",
			Basis: basisSparse, Variants: []string{mockserver.VarAbsentOptionalMembers, mockserver.VarReferencesWithoutSecurityMarking}},
		{Name: ScenePaging, Behaviour: "pages are smaller than the limit asked for (half of it; 7 records without one; placements 25 at most), and records are created and deleted between a client's first and second page of a list",
			Basis: basisPaging, Variants: []string{mockserver.VarShortPages, mockserver.VarClampedLimit, mockserver.VarSmallDefaultPage}, ChangeBetweenPages: true},
		{Name: SceneTokenExpiry, Behaviour: "access tokens live a minute, and every token expires when a client asks for the second page of a list",
			Basis: basisTokenExpiry, TokenTTL: tokenExpirySceneTTL, ExpireTokensInWalks: true},
		{Name: SceneRateLimit, Behaviour: fmt.Sprintf("windows of %s holding %d requests (the first %d), each answer announcing the window's end (RateLimit-Reset) and what is left of it (RateLimit-Remaining); requests beyond the quota before the window ends are answered 429 with Retry-After", rateLimitScene.Window, rateLimitScene.Quota, rateLimitScene.FirstQuota),
			Basis: basisRateLimit, RateLimit: &rateLimit},
		{Name: SceneFaults, Behaviour: "transient 500 and 503 answers (every sixth read of each interface, and the first two reads of groups) and slow answers (organisations and schools take a second)",
			Basis: basisFaults, Rules: faultRules()},
		{Name: SceneVariants, Behaviour: "every legal variant of the mock at once: " + strings.Join(mockserver.Variants, ", "),
			Basis: basisVariants, Variants: slices.Clone(mockserver.Variants)},
	}
}

// faultRules are the faults scene's rules on the mock.
func faultRules() scenarios.Behaviours {
	get := func(path string) scenarios.Route { return scenarios.Route{Method: "GET", Path: path} }
	const (
		bBody = `{"code":"ServiceUnavailable","message":"the service is briefly unavailable; try again"}`
		aBody = `{"error":{"code":"Internal","message":"a transient failure; try again"}}`
	)
	return scenarios.Behaviours{
		Faults: []scenarios.FaultRule{
			{Route: get(mockserver.PrefixB + "/groups*"), Status: 500, Body: `{"code":"InternalServerError","message":"a transient failure; try again"}`, FirstN: 2},
			{Route: get(mockserver.PrefixA + "/group*"), Status: 500, Body: aBody, FirstN: 2},
			{Route: get(mockserver.PrefixB + "/*"), Status: 503, Body: bBody, EveryNth: 6},
			{Route: get(mockserver.PrefixA + "/*"), Status: 500, Body: aBody, EveryNth: 6},
		},
		Latency: []scenarios.LatencyRule{
			{Route: get(mockserver.PrefixB + "/organisations*"), Delay: scenarios.Delay{Min: time.Second, Max: time.Second}},
			{Route: get(mockserver.PrefixA + "/school*"), Delay: scenarios.Delay{Min: time.Second, Max: time.Second}},
		},
	}
}

// SceneNames lists the scenes' names in order.
func SceneNames() []string {
	scenes := Scenes()
	out := make([]string, len(scenes))
	for i, s := range scenes {
		out[i] = s.Name
	}
	return out
}

// SelectScenes returns the named scenes in catalogue order; no names means
// every scene. An unknown name is an error that lists the known ones.
func SelectScenes(names []string) ([]Scene, error) {
	if len(names) == 0 {
		return Scenes(), nil
	}
	for _, n := range names {
		if !slices.Contains(SceneNames(), n) {
			return nil, fmt.Errorf("unknown scene %q; the scenes are %s", n, strings.Join(SceneNames(), ", "))
		}
	}
	var out []Scene
	for _, s := range Scenes() {
		if slices.Contains(names, s.Name) {
			out = append(out, s)
		}
	}
	return out, nil
}
