// Package deviation is the one list of the named deviations: the ways the
// mock departs from the spec on purpose when a scenario
// (behaviours.deviations) or mockserver.Options.Deviations switches them on.
// Client developers use them to see how their client copes with a server
// that gets something wrong; the kill matrix of cmd/skolkit proves that the
// conformance suite catches each one.
//
// The mock (mockserver), the scenario loader (scenarios), the kill matrix
// and the conformance runner's fake all take their names from here. The
// package imports nothing of skolkit, so that every other package may use
// it.
//
// Adding a deviation takes a constant and a line in [All] here, its effect
// in mockserver, and a row in the kill matrix; the tests fail until all three
// exist.
package deviation

import (
	"slices"
	"strings"
)

// The names of the deviations, grouped by the surface they affect.
const (
	// auth
	TokenCacheable       = "token-cacheable"
	WrongSecretAccepted  = "wrong-secret-accepted"
	ExpiredTokenAccepted = "expired-token-accepted"
	NoTokenAccepted      = "no-token-accepted"
	// interface A lists
	PaginationTotalWrong = "pagination-total-wrong"
	ListLimitIgnored     = "list-limit-ignored"
	// interface A writes
	PatchReplaces = "patch-replaces"
	DeleteNot204  = "delete-not-204"
	// search
	SearchIgnoresFilter = "search-ignores-filter"
	// interface A's vendor wire format
	AuditEventMissing       = "audit-event-missing"
	IdentityNumberNoHyphen  = "identity-number-without-hyphen"
	NestedMetaFilterIgnored = "nested-meta-filter-ignored"
	// rate-limit headers
	RateLimitResetInSeconds      = "ratelimit-reset-in-seconds"
	RateLimitHeadersMissingOn204 = "ratelimit-headers-missing-on-204"
	// interface B filters
	EndDateFilterDropsOpenEnded = "endDate-filter-drops-open-ended"
	DateBoundsExclusive         = "date-bounds-exclusive"
	MetaAfterInclusive          = "meta-after-inclusive"
	OrganisationFilterIgnored   = "organisation-filter-ignored"
	SortKeyIgnored              = "sortkey-ignored"
	// interface B paging
	PageTokenWithFilterAccepted = "pagetoken-with-filter-accepted"
	PageTokenRepeatsLast        = "pagetoken-repeats-last"
	LimitZeroAccepted           = "limit-zero-accepted"
	// expand and references
	ExpandIgnored          = "expand-ignored"
	DisplayNameAlways      = "display-name-always"
	ExpandChangesModified  = "expand-changes-modified"
	SecurityMarkingMissing = "security-marking-missing"
	// lookup
	LookupDropsFirst = "lookup-drops-first"
	// subscriptions
	CallbacksNotSent = "callbacks-not-sent"
	// error bodies and statuses
	ErrorBodyWrongShape = "error-body-wrong-shape"
	UnknownIDNot404     = "unknown-id-not-404"
	// on the wire (the request or the answer is changed around the handlers)
	TokenGetAccepted        = "token-get-accepted"
	JSONCharsetRefused      = "json-charset-refused"
	LimitAboveMaxRefused    = "limit-above-max-refused"
	CombinedFiltersDropDate = "combined-filters-drop-dates"
	ReferenceMarkingDiffers = "reference-marking-differs"
	LaterPageDropsExpand    = "later-page-drops-expand"
	LegacyAuthRefused       = "legacy-auth-refused"
	FormCharsetRefused      = "form-charset-refused"
	AcceptParamsRefused     = "accept-params-refused"
	MultiValueFirstOnly     = "multi-value-first-only"
	// interface A in depth: read-back, updates, transitions, conflicts, enums
	IdentityConflictAccepted = "identity-conflict-accepted"
	RestoreKeepsArchived     = "restore-keeps-archived"
	PatchDropsOmitted        = "patch-drops-omitted"
	RareEnumRefused          = "rare-enum-refused"
	ListDropsField           = "list-drops-field"
	DeleteRepeat204          = "delete-repeat-204"
	RateLimitResetSlides     = "ratelimit-reset-slides"
	AWritesHiddenInB         = "a-writes-hidden-in-b"
)

// Deviation is one named deviation and what the mock then does.
type Deviation struct {
	Name        string
	Description string
}

// all is the catalogue, in the order of the constants.
var all = []Deviation{
	{TokenCacheable, "token responses lack Cache-Control: no-store and Pragma: no-cache"},
	{WrongSecretAccepted, "the token endpoint accepts any secret for a known client"},
	{ExpiredTokenAccepted, "access tokens never expire"},
	{NoTokenAccepted, "interface B answers requests without an Authorization header"},
	{PaginationTotalWrong, "interface A lists report one item more in pagination.total than exist"},
	{ListLimitIgnored, "interface A lists ignore limit and always return up to 50 items"},
	{PatchReplaces, "PATCH on a school clears the nullable fields it does not send"},
	{DeleteNot204, "DELETE of a group answers 200 with a body instead of 204"},
	{SearchIgnoresFilter, "_search returns every record, ignoring the filter"},
	{AuditEventMissing, "deletes through interface A record no AuditEvent"},
	{IdentityNumberNoHyphen, "interface A shows identityNumber as 12 digits (SS 12000's form) instead of YYYYMMDD-NNNN"},
	{NestedMetaFilterIgnored, "_search ignores the conditions on nested meta fields (the incremental-sync query returns everything)"},
	{RateLimitResetInSeconds, "RateLimit-Reset is epoch seconds instead of milliseconds"},
	{RateLimitHeadersMissingOn204, "the 204 of a group deletion has no RateLimit headers"},
	{EndDateFilterDropsOpenEnded, "the endDate filters drop placements that have no endDate"},
	{DateBoundsExclusive, "the startDate and endDate filters exclude their bound"},
	{MetaAfterInclusive, "meta.created.after and meta.modified.after include their bound"},
	{OrganisationFilterIgnored, "the placement list ignores the organisation filter"},
	{SortKeyIgnored, "the placement list ignores sortkey"},
	{PageTokenWithFilterAccepted, "a pageToken with filters is accepted (the filters are ignored) instead of 400"},
	{PageTokenRepeatsLast, "each page after the first repeats the last placement of the page before"},
	{LimitZeroAccepted, "limit=0 is accepted and answered with a default page instead of 400"},
	{ExpandIgnored, "expand is ignored: no _embedded"},
	{DisplayNameAlways, "references carry displayName even without expandReferenceNames=true"},
	{ExpandChangesModified, "a response with expand reports meta.modified as now"},
	{SecurityMarkingMissing, "person references have an empty securityMarking"},
	{LookupDropsFirst, "groups/lookup leaves out the first existing group asked for"},
	{CallbacksNotSent, "subscriptions are accepted, but their callbacks are never sent"},
	{ErrorBodyWrongShape, "interface B's 404 body is {\"error\": ...} instead of {code, message}"},
	{UnknownIDNot404, "interface B answers 400 instead of 404 for an unknown id"},
	{TokenGetAccepted, "the token endpoint issues a token to a GET with the credentials in the Authorization header"},
	{JSONCharsetRefused, "interface B refuses a JSON request body sent as application/json; charset=utf-8 (415)"},
	{LimitAboveMaxRefused, "the placement list answers 400 to a limit above its page size of 1000 instead of serving a page"},
	{CombinedFiltersDropDate, "the placement list ignores the date filters when an organisation, group, child or owner filter is given too"},
	{ReferenceMarkingDiffers, "person references carry a securityMarking other than the person's own"},
	{LaterPageDropsExpand, "expand and expandReferenceNames sent with a pageToken are ignored"},
	{LegacyAuthRefused, "interface A ignores the Client-ID and Client-Secret headers (the older authentication) and answers 401"},
	{FormCharsetRefused, "the token endpoint refuses a form sent as application/x-www-form-urlencoded; charset=UTF-8 (400 invalid_request)"},
	{AcceptParamsRefused, "interface B answers 406 to an Accept header whose media range has parameters or several ranges"},
	{MultiValueFirstOnly, "interface B reads only the first value of a repeated query parameter (expand=child&expand=owners, groupType=A&groupType=B)"},
	{IdentityConflictAccepted, "interface A creates a Student or Employee whose identityNumber another person already has, instead of 409"},
	{RestoreKeepsArchived, "PATCH …/{id}/restore of a placement answers 200 and leaves it archived"},
	{PatchDropsOmitted, "PATCH on a Student, Employee or Guardian clears emailAddress1 and phoneNumber1 when it does not send them"},
	{RareEnumRefused, "interface A refuses writes holding the enum values Other (Gender, GroupCategory) and CareTeam (EmployeePlacementRole) with 422"},
	{ListDropsField, "interface A lists and searches show phoneNumber1 as null; GET by id shows it"},
	{DeleteRepeat204, "a second DELETE of an interface A record already deleted answers 204 again instead of 404"},
	{RateLimitResetSlides, "RateLimit-Reset is the time of the request plus the window on every answer, so the window's end moves with each request"},
	{AWritesHiddenInB, "interface B answers 404 by id for a person or group created through interface A"},
}

// All returns every deviation, sorted by name.
func All() []Deviation {
	out := slices.Clone(all)
	slices.SortFunc(out, func(a, b Deviation) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns every deviation's name, sorted.
func Names() []string {
	names := make([]string, len(all))
	for i, d := range all {
		names[i] = d.Name
	}
	slices.Sort(names)
	return names
}

// Describe returns the description of the named deviation, and whether
// there is one by that name.
func Describe(name string) (string, bool) {
	for _, d := range all {
		if d.Name == name {
			return d.Description, true
		}
	}
	return "", false
}

// Known reports whether name is a deviation's name.
func Known(name string) bool {
	_, ok := Describe(name)
	return ok
}
