package mockserver

// Named deviations: ways the mock departs from the spec on purpose, switched
// on by a scenario (behaviours.deviations) or Options.Deviations. Client
// developers use them to test how their client copes; our own tests use them
// to prove that the conformance suite catches each one (cmd/skolkit's kill
// matrix). scenarios.KnownDeviations describes each name; every name there
// has its effect here, and a test checks the two lists are the same.
const (
	// auth
	DevTokenCacheable       = "token-cacheable"
	DevWrongSecretAccepted  = "wrong-secret-accepted"
	DevExpiredTokenAccepted = "expired-token-accepted"
	DevNoTokenAccepted      = "no-token-accepted"
	// interface A lists
	DevPaginationTotalWrong = "pagination-total-wrong"
	DevListLimitIgnored     = "list-limit-ignored"
	// interface A writes
	DevPatchReplaces = "patch-replaces"
	DevDeleteNot204  = "delete-not-204"
	// search
	DevSearchIgnoresFilter = "search-ignores-filter"
	// interface A's vendor wire format (issue 10)
	DevAuditEventMissing       = "audit-event-missing"
	DevIdentityNumberNoHyphen  = "identity-number-without-hyphen"
	DevNestedMetaFilterIgnored = "nested-meta-filter-ignored"
	// rate-limit headers
	DevRateLimitResetInSeconds      = "ratelimit-reset-in-seconds"
	DevRateLimitHeadersMissingOn204 = "ratelimit-headers-missing-on-204"
	// interface B filters
	DevEndDateFilterDropsOpenEnded = "endDate-filter-drops-open-ended"
	DevDateBoundsExclusive         = "date-bounds-exclusive"
	DevMetaAfterInclusive          = "meta-after-inclusive"
	DevOrganisationFilterIgnored   = "organisation-filter-ignored"
	DevSortKeyIgnored              = "sortkey-ignored"
	// interface B paging
	DevPageTokenWithFilterAccepted = "pagetoken-with-filter-accepted"
	DevPageTokenRepeatsLast        = "pagetoken-repeats-last"
	DevLimitZeroAccepted           = "limit-zero-accepted"
	// expand and references
	DevExpandIgnored          = "expand-ignored"
	DevDisplayNameAlways      = "display-name-always"
	DevExpandChangesModified  = "expand-changes-modified"
	DevSecurityMarkingMissing = "security-marking-missing"
	// lookup
	DevLookupDropsFirst = "lookup-drops-first"
	// error bodies and statuses
	DevErrorBodyWrongShape = "error-body-wrong-shape"
	DevUnknownIDNot404     = "unknown-id-not-404"
	// on the wire (wire.go: the request or the answer is changed around
	// the handlers)
	DevTokenGetAccepted        = "token-get-accepted"
	DevJSONCharsetRefused      = "json-charset-refused"
	DevLimitAboveMaxRefused    = "limit-above-max-refused"
	DevCombinedFiltersDropDate = "combined-filters-drop-dates"
	DevReferenceMarkingDiffers = "reference-marking-differs"
	DevLaterPageDropsExpand    = "later-page-drops-expand"
	DevLegacyAuthRefused       = "legacy-auth-refused"
	DevFormCharsetRefused      = "form-charset-refused"
	DevAcceptParamsRefused     = "accept-params-refused"
	DevMultiValueFirstOnly     = "multi-value-first-only"
	// subscriptions (issue 12)
	DevCallbacksNotSent = "callbacks-not-sent"
	// interface A in depth (issue 13)
	DevIdentityConflictAccepted = "identity-conflict-accepted"
	DevRestoreKeepsArchived     = "restore-keeps-archived"
	DevPatchDropsOmitted        = "patch-drops-omitted"
	DevRareEnumRefused          = "rare-enum-refused"
	DevRateLimitResetSlides     = "ratelimit-reset-slides"
	DevListDropsField           = "list-drops-field"
	DevDeleteRepeat204          = "delete-repeat-204"
)

// Deviations lists every deviation the mock implements.
var Deviations = []string{
	DevTokenCacheable, DevWrongSecretAccepted, DevExpiredTokenAccepted, DevNoTokenAccepted,
	DevPaginationTotalWrong, DevListLimitIgnored,
	DevPatchReplaces, DevDeleteNot204,
	DevSearchIgnoresFilter,
	DevAuditEventMissing, DevIdentityNumberNoHyphen, DevNestedMetaFilterIgnored,
	DevRateLimitResetInSeconds, DevRateLimitHeadersMissingOn204,
	DevEndDateFilterDropsOpenEnded, DevDateBoundsExclusive, DevMetaAfterInclusive, DevOrganisationFilterIgnored, DevSortKeyIgnored,
	DevPageTokenWithFilterAccepted, DevPageTokenRepeatsLast, DevLimitZeroAccepted,
	DevExpandIgnored, DevDisplayNameAlways, DevExpandChangesModified, DevSecurityMarkingMissing,
	DevLookupDropsFirst,
	DevErrorBodyWrongShape, DevUnknownIDNot404,
	DevTokenGetAccepted, DevJSONCharsetRefused, DevLimitAboveMaxRefused, DevCombinedFiltersDropDate, DevReferenceMarkingDiffers, DevLaterPageDropsExpand, DevLegacyAuthRefused, DevFormCharsetRefused, DevAcceptParamsRefused, DevMultiValueFirstOnly,
	DevCallbacksNotSent,
	DevIdentityConflictAccepted, DevRestoreKeepsArchived, DevPatchDropsOmitted, DevRareEnumRefused, DevRateLimitResetSlides, DevListDropsField, DevDeleteRepeat204,
}

// deviates reports whether the named deviation is switched on.
func (s *Server) deviates(name string) bool { return s.deviations[name] }
