package scenarios

// KnownVariants is the catalogue of the legal variants a scenario may
// switch on under behaviours.variants: behaviours the SS 12000 standard and
// the RFCs it builds on (for interface A the vendor's facts) allow that the
// mock does not do by default. Parse rejects any other name. Each has its
// implementation in the mock (mockserver/variants.go), and the conformance
// suite's tests prove that the runner with --profile ss12000 passes a mock
// doing each of them.
var KnownVariants = map[string]string{
	"clamped-limit":                       "the placement list serves at most 25 records a page, whatever limit asks for",
	"small-default-page":                  "the placement list serves 7 records a page when limit is omitted",
	"short-pages":                         "every list of interface B serves pages smaller than asked: half the limit sent (at least one record), 7 records when none is sent",
	"references-without-security-marking": "person references carry no securityMarking",
	"absent-optional-members":             "interface B leaves out every member the standard does not require and no filter, sort key or lookup reads (records a client wrote keep theirs); interface A leaves out the members that are null",
	"empty-404":                           "interface B's 404 answers have no body",
	"extra-properties":                    "every object of interface B's answers carries an extra vendor member",
	"reordered-members":                   "the members of every JSON object come in reverse order",
	"local-time-offset":                   "date-times are Swedish local time with its offset (+01:00, in summer +02:00) instead of UTC with Z",
	"long-fractional-seconds":             "date-times carry seven digits of fractional seconds",
	"whole-seconds":                       "interface B keeps date-times to the second: no fractional seconds, and its date-time filters compare at that precision",
	"pagetoken-encoding":                  "pageTokens are wrapped in another opaque encoding",
	"token-type-lowercase":                "the token response says token_type bearer, in lower case",
	"extra-token-fields":                  "the token response carries members beyond access_token, token_type and expires_in",
}

// KnownProfiles are the values of a scenario's profile: what interface B
// follows where the service's spec and the official SS 12000 2.1.0 document
// differ (the mock implements them in mockserver/profile.go). Parse rejects
// any other value.
var KnownProfiles = map[string]string{
	"service": "the service's spec (the default): its absence types and members, its required members, its parameters",
	"ss12000": "the SS 12000 2.1.0 document alone: its absence types and required members, lookups without members, integer schedule end times",
}
