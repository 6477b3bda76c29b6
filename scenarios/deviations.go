package scenarios

// KnownDeviations is the catalogue of the deviations a scenario may switch
// on under behaviours.deviations: name → one-line description of how the
// mock then departs from the spec. Parse rejects any other name.
//
// Adding a deviation takes two things: a line here, and its implementation
// in the mock (which reads Scenario.Behaviours.Deviations). The conformance
// suite's own tests then prove that at least one check catches it.
var KnownDeviations = map[string]string{
	"identity-conflict-accepted":       "interface A creates a Student or Employee whose identityNumber another person already has, instead of 409",
	"restore-keeps-archived":           "PATCH …/{id}/restore of a placement answers 200 and leaves it archived",
	"patch-drops-omitted":              "PATCH on a Student, Employee or Guardian clears emailAddress1 and phoneNumber1 when it does not send them",
	"ratelimit-reset-slides":           "RateLimit-Reset is the time of the request plus the window on every answer, so the window's end moves with each request",
	"list-drops-field":                 "interface A lists and searches show phoneNumber1 as null; GET by id shows it",
	"delete-repeat-204":                "a second DELETE of an interface A record already deleted answers 204 again instead of 404",
	"rare-enum-refused":                "interface A refuses writes holding the enum values Other (Gender, GroupCategory) and CareTeam (EmployeePlacementRole) with 422",
	"token-get-accepted":               "the token endpoint issues a token to a GET with the credentials in the Authorization header",
	"json-charset-refused":             "interface B refuses a JSON request body sent as application/json; charset=utf-8 (415)",
	"limit-above-max-refused":          "the placement list answers 400 to a limit above its page size of 1000 instead of serving a page",
	"combined-filters-drop-dates":      "the placement list ignores the date filters when an organisation, group, child or owner filter is given too",
	"reference-marking-differs":        "person references carry a securityMarking other than the person's own",
	"later-page-drops-expand":          "expand and expandReferenceNames sent with a pageToken are ignored",
	"legacy-auth-refused":              "interface A ignores the Client-ID and Client-Secret headers (the older authentication) and answers 401",
	"form-charset-refused":             "the token endpoint refuses a form sent as application/x-www-form-urlencoded; charset=UTF-8 (400 invalid_request)",
	"accept-params-refused":            "interface B answers 406 to an Accept header whose media range has parameters or several ranges",
	"multi-value-first-only":           "interface B reads only the first value of a repeated query parameter (expand=child&expand=owners, groupType=A&groupType=B)",
	"token-cacheable":                  "token responses lack Cache-Control: no-store and Pragma: no-cache",
	"wrong-secret-accepted":            "the token endpoint accepts any secret for a known client",
	"expired-token-accepted":           "access tokens never expire",
	"no-token-accepted":                "interface B answers requests without an Authorization header",
	"pagination-total-wrong":           "interface A lists report one item more in pagination.total than exist",
	"list-limit-ignored":               "interface A lists ignore limit and always return up to 50 items",
	"patch-replaces":                   "PATCH on a school clears the nullable fields it does not send",
	"delete-not-204":                   "DELETE of a group answers 200 with a body instead of 204",
	"search-ignores-filter":            "_search returns every record, ignoring the filter",
	"audit-event-missing":              "deletes through interface A record no AuditEvent",
	"identity-number-without-hyphen":   "interface A shows identityNumber as 12 digits (SS 12000's form) instead of YYYYMMDD-NNNN",
	"nested-meta-filter-ignored":       "_search ignores the conditions on nested meta fields (the incremental-sync query returns everything)",
	"ratelimit-reset-in-seconds":       "RateLimit-Reset is epoch seconds instead of milliseconds",
	"ratelimit-headers-missing-on-204": "the 204 of a group deletion has no RateLimit headers",
	"endDate-filter-drops-open-ended":  "the endDate filters drop placements that have no endDate",
	"date-bounds-exclusive":            "the startDate and endDate filters exclude their bound",
	"meta-after-inclusive":             "meta.created.after and meta.modified.after include their bound",
	"organisation-filter-ignored":      "the placement list ignores the organisation filter",
	"sortkey-ignored":                  "the placement list ignores sortkey",
	"pagetoken-with-filter-accepted":   "a pageToken with filters is accepted (the filters are ignored) instead of 400",
	"pagetoken-repeats-last":           "each page after the first repeats the last placement of the page before",
	"limit-zero-accepted":              "limit=0 is accepted and answered with a default page instead of 400",
	"expand-ignored":                   "expand is ignored: no _embedded",
	"display-name-always":              "references carry displayName even without expandReferenceNames=true",
	"expand-changes-modified":          "a response with expand reports meta.modified as now",
	"security-marking-missing":         "person references have an empty securityMarking",
	"lookup-drops-first":               "groups/lookup leaves out the first existing group asked for",
	"error-body-wrong-shape":           "interface B's 404 body is {\"error\": ...} instead of {code, message}",
	"unknown-id-not-404":               "interface B answers 400 instead of 404 for an unknown id",
	"callbacks-not-sent":               "subscriptions are accepted, but their callbacks are never sent",
}
