package scenarios

// KnownVariants is the catalogue of the legal variants a scenario may
// switch on under behaviours.variants: behaviours the SS 12000 standard and
// the RFCs it builds on allow that the mock does not do by default. Parse
// rejects any other name. Each has its implementation in the mock
// (mockserver/variants.go), and the conformance suite's tests prove that
// the runner with --profile ss12000 passes a mock doing all of them.
var KnownVariants = map[string]string{
	"clamped-limit":                       "the placement list serves at most 25 records a page, whatever limit asks for",
	"small-default-page":                  "the placement list serves 7 records a page when limit is omitted",
	"references-without-security-marking": "person references carry no securityMarking",
	"empty-404":                           "interface B's 404 answers have no body",
	"extra-properties":                    "every object of interface B's answers carries an extra vendor member",
	"pagetoken-encoding":                  "pageTokens are wrapped in another opaque encoding",
	"token-type-lowercase":                "the token response says token_type bearer, in lower case",
	"extra-token-fields":                  "the token response carries members beyond access_token, token_type and expires_in",
}
