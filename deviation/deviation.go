// Package deviation is the one table of deviations: the ways the mock
// departs from the spec on purpose when a scenario (behaviours.deviations)
// or mockserver.Options.Deviations switches them on, what each changes, on
// which surface, and which conformance checks catch it. Client developers
// use the deviations to see how their client copes with a server that gets
// something wrong; the kill matrix of cmd/skolkit proves that each one is
// caught by exactly the checks named here.
//
// Beside the mock's deviations, [Others] lists kinds of wrong server the
// mock has no switch for, with the checks that would catch them, so that
// the docs say in one place what the suite looks for.
//
// The mock (mockserver), the scenario loader (scenarios), the kill matrix,
// the conformance runner's fake, docs/conformance.md and docs/scenarios.md
// all read this table. The package imports nothing of skolkit, so that
// every other package may use it.
//
// Adding a deviation takes a constant and a row of the table here, and its
// effect in mockserver; the kill matrix (cmd/skolkit) then reports which
// checks catch it, and needs a row of its own only when the deviation needs
// a special setup (a token lifetime, a flag of the run).
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
	// each rule family on operations other than those its first check
	// looked at (on the wire)
	LaterPageLimitIgnored        = "later-page-limit-ignored"
	LaterPagesSkipFirst          = "later-pages-skip-first"
	TotalOneShort                = "total-one-short"
	SearchContainsFirstOnly      = "search-contains-first-only"
	SearchDropsLastCondition     = "search-drops-last-condition"
	TimeBoundsExclusive          = "time-bounds-exclusive"
	DateTimeBoundsComparedAsText = "date-time-bounds-compared-as-text"
	ListDropsContactDetails      = "list-drops-contact-details"
	LookupIgnoresExpand          = "lookup-ignores-expand"
	MembershipMarkingDiffers     = "membership-marking-differs"
	ReferenceNameDiffers         = "reference-name-differs"
	BRareEnumRefused             = "b-rare-enum-refused"
	AJSONCharsetRefused          = "a-json-charset-refused"
	RateLimitRemainingGrows      = "ratelimit-remaining-grows"
	RateLimitResetInPast         = "ratelimit-reset-in-past"
	ContentTypeLatin1            = "content-type-latin1"
	DateTimeWithoutOffset        = "date-time-without-offset"
	InsufficientScopeAccepted    = "insufficient-scope-accepted"
	DateTimeWithoutSeconds       = "date-time-without-seconds"
	DateInvalidDay               = "date-invalid-day"
	AErrorBodyWrongShape         = "a-error-body-wrong-shape"
	ErrorBodyWithoutMessage      = "error-body-without-message"
	NameSortReversed             = "name-sort-reversed"
	PersonFiltersLoose           = "person-filters-loose"
	RelatedFiltersIgnored        = "related-filters-ignored"
)

// Surfaces a deviation concerns.
const (
	SurfaceToken   = "token endpoint"
	SurfaceA       = "interface A"
	SurfaceB       = "interface B"
	SurfaceAB      = "interfaces A and B"
	SurfaceAExport = "interface A and the data export"
	SurfaceExport  = "data export"
	SurfaceAny     = "every surface"
)

// Deviation is one way a server departs from the spec: what it does, where,
// how the conformance suite looks for it and which checks catch it.
type Deviation struct {
	// Name is the deviation's name (kebab case); for [All] it is what a
	// scenario's behaviours.deviations names.
	Name string
	// Surface is the part of the service it concerns (one of the Surface
	// constants).
	Surface string
	// Description says what the server does.
	Description string
	// How says how the suite looks for it.
	How string
	// CaughtBy are the ids of the conformance checks that fail against a
	// server showing it. For [All] they are exactly the checks that fail
	// when the whole suite runs against the mock with the deviation on (the
	// kill matrix asserts it); for [Others] they are the checks written to
	// catch it, and empty when every check does (a hanging server).
	CaughtBy []string
	// Operations are operations of the contract whose exchanges the
	// deviation breaks, named as the rules name them ("B GET /persons",
	// "A GET /school/{id}", "auth POST /oauth/token"): all of them for a
	// deviation of a few operations, some for one of a whole surface. Every
	// deviation of [All] names at least one; the tests of package
	// conformance check each against the contract, and the whole kill matrix
	// that the failures a deviation causes show at least one of them
	// whenever they carry exchanges of the contract.
	Operations []string
	// Pending names the rule that is to catch the deviation while no check
	// does yet (CaughtBy empty): the kill matrix skips the deviation, and
	// fails once a check by that id exists, so that the marker goes as soon
	// as the rule lands. The finished table has none.
	Pending string
}

// all is the table of the mock's deviations, in the order of the
// constants.
var all = []Deviation{
	{
		Name: TokenCacheable, Surface: SurfaceToken,
		Description: "token responses lack Cache-Control: no-store and Pragma: no-cache",
		How:         "token answers are checked for Cache-Control: no-store and Pragma: no-cache, which the contract requires too",
		CaughtBy:    []string{"auth.token.no-store", "auth.token.pragma-no-cache", "contract.auth.response"},
		Operations:  []string{"auth POST /oauth/token"},
	},
	{
		Name: WrongSecretAccepted, Surface: SurfaceToken,
		Description: "the token endpoint accepts any secret for a known client",
		How:         "a wrong secret is sent for the run's client and must be refused with 401 invalid_client",
		CaughtBy:    []string{"auth.token.wrong-secret"},
		Operations:  []string{"auth POST /oauth/token"},
	},
	{
		Name: ExpiredTokenAccepted, Surface: SurfaceAB,
		Description: "access tokens never expire",
		How:         "a short-lived token is waited out and sent to each interface (skipped when tokens live longer than the bound; the kill matrix runs it with a one-second token lifetime)",
		CaughtBy:    []string{"auth.B.expired-token", "auth.A.expired-token"},
		Operations:  []string{"B GET /placements", "A GET /school"},
	},
	{
		Name: NoTokenAccepted, Surface: SurfaceB,
		Description: "interface B answers requests without an Authorization header",
		How:         "a request without credentials must be 401 with a WWW-Authenticate challenge",
		CaughtBy:    []string{"auth.B.no-token", "auth.B.www-authenticate"},
		Operations:  []string{"B GET /placements", "B GET /groups"},
	},
	{
		Name: PaginationTotalWrong, Surface: SurfaceA,
		Description: "interface A's lists and searches report one item more in pagination.total than exist",
		How:         "the offset walk counts the distinct items and compares them with pagination.total; searches compare total with the runner's own count; the audit check counts the events of one delete",
		CaughtBy:    []string{"A.school.list.defaults", "A.unit.list.defaults", "A.audit.delete-recorded", "paging.offset-page-full"},
		Operations:  []string{"A GET /school", "A GET /unit", "A POST /school/_search", "A GET /audit-event"},
	},
	{
		Name: ListLimitIgnored, Surface: SurfaceA,
		Description: "interface A's lists and searches ignore limit and always return up to 50 items",
		How:         "every page must hold at most the limit sent with it (paging.page-within-limit), and an offset page exactly what pagination says",
		CaughtBy:    []string{"paging.offset-page-full", "paging.page-within-limit"},
		Operations:  []string{"A GET /school", "A GET /group", "A POST /school/_search"},
	},
	{
		Name: PatchReplaces, Surface: SurfaceA,
		Description: "PATCH on a school clears the nullable fields it does not send",
		How:         "a school the runner made (opt-in) is PATCHed with one member, and the others must be unchanged",
		CaughtBy:    []string{"A.school.update"},
		Operations:  []string{"A PATCH /school/{id}"},
	},
	{
		Name: DeleteNot204, Surface: SurfaceA,
		Description: "interface A's DELETE answers 200 with a body instead of 204",
		How:         "every DELETE the runner sends must answer 204 without a body, with the rate-limit headers the contract requires on a 204",
		CaughtBy:    []string{"A.group.delete", "A.grade-elementary.delete", "A.grade-upper-secondary.delete", "A.audit.delete-recorded", "A.student.delete-twice", "A.employee.delete-twice", "A.student-placement.delete-twice", "A.employee-placement.delete-twice", "A.guardian.delete-twice", "contract.A.response"},
		Operations:  []string{"A DELETE /group/{id}", "A DELETE /student/{id}", "A DELETE /employee/{id}", "A DELETE /guardian/{id}", "A DELETE /student-placement/{id}", "A DELETE /employee-placement/{id}"},
	},
	{
		Name: SearchIgnoresFilter, Surface: SurfaceA,
		Description: "interface A's _search returns every record, ignoring the filter",
		How:         "every record a search returns must satisfy its filter (filters.records-match over every search the runner sends); the read-back checks find their records by _search on the id",
		CaughtBy:    []string{"A.school.search.operators", "A.group.search.operators", "A.unit.search.operators", "A.audit.delete-recorded", "A.student.read-back", "A.employee.read-back", "A.guardian.read-back", "A.group.read-back", "A.student-placement.read-back", "A.employee-placement.read-back", "filters.records-match"},
		Operations:  []string{"A POST /school/_search", "A POST /group/_search", "A POST /unit/_search", "A POST /student/_search", "A POST /audit-event/_search"},
	},
	{
		Name: AuditEventMissing, Surface: SurfaceA,
		Description: "deletes through interface A record no AuditEvent",
		How:         "a group the runner made and deleted must leave exactly one AuditEvent of the delete",
		CaughtBy:    []string{"A.audit.delete-recorded"},
		Operations:  []string{"A DELETE /group/{id}", "A POST /audit-event/_search"},
	},
	{
		Name: IdentityNumberNoHyphen, Surface: SurfaceA,
		Description: "interface A shows identityNumber as 12 digits (SS 12000's form) instead of YYYYMMDD-NNNN",
		How:         "every identityNumber interface A shows must have the form YYYYMMDD-NNNN; the checks that write persons read back the number they sent",
		CaughtBy:    []string{"A.student.eppn", "A.employee.eppn", "A.student.identity-number-form", "A.employee.identity-number-form", "A.guardian.identity-number-form", "A.student.read-back", "A.student.update-keeps-omitted", "A.employee.read-back", "A.employee.update-keeps-omitted", "A.guardian.read-back", "A.guardian.update-keeps-omitted", "A.student.identity-conflict", "A.employee.identity-conflict", "writes.read-back"},
		Operations:  []string{"A GET /student", "A GET /student/{id}", "A GET /employee/{id}", "A GET /guardian/{id}", "A POST /student"},
	},
	{
		Name: NestedMetaFilterIgnored, Surface: SurfaceA,
		Description: "_search ignores the conditions on nested meta fields (the incremental-sync query returns everything)",
		How:         "the incremental-sync search (greaterThan meta.updatedAt) is among the searches the rules' traffic sends, and every record it returns must satisfy it; the operator checks compare with the runner's own filtering",
		CaughtBy:    []string{"A.school.search.operators", "A.group.search.operators", "A.unit.search.operators", "filters.records-match"},
		Operations:  []string{"A POST /school/_search", "A POST /group/_search", "A POST /unit/_search"},
	},
	{
		Name: RateLimitResetInSeconds, Surface: SurfaceAExport,
		Description: "RateLimit-Reset is epoch seconds instead of milliseconds",
		How:         "RateLimit-Reset read as epoch milliseconds lands in 1970; the failure says it looks like seconds (headers.ratelimit-values). The contract's 13-digit pattern fails too",
		CaughtBy:    []string{"contract.A.response", "contract.export.response", "headers.ratelimit-values"},
		Operations:  []string{"A GET /school", "export GET /attendance"},
	},
	{
		Name: RateLimitHeadersMissingOn204, Surface: SurfaceA,
		Description: "the 204 of an interface A deletion has no RateLimit headers",
		How:         "every answer of interface A must carry the three headers, the 204 of a deletion included (headers.ratelimit-present; the contract requires them too)",
		CaughtBy:    []string{"contract.A.response", "headers.ratelimit-present"},
		Operations:  []string{"A DELETE /group/{id}", "A DELETE /student/{id}"},
	},
	{
		Name: EndDateFilterDropsOpenEnded, Surface: SurfaceB,
		Description: "the endDate filters drop placements that have no endDate",
		How:         "a complete walk with an endDate bound must hold every record of the unfiltered walk that satisfies it, open-ended ones included (filters.keeps-every-match)",
		CaughtBy:    []string{"filters.keeps-every-match"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: DateBoundsExclusive, Surface: SurfaceB,
		Description: "the startDate and endDate filters exclude their bound",
		How:         "bounds are values records have, so a complete filtered walk that drops the records at the bound leaves out records that satisfy it (filters.keeps-every-match)",
		CaughtBy:    []string{"filters.keeps-every-match"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: MetaAfterInclusive, Surface: SurfaceB,
		Description: "meta.created.after and meta.modified.after include their bound",
		How:         "bounds are timestamps records have, and a record at an exclusive bound must not be returned (filters.records-match)",
		CaughtBy:    []string{"filters.records-match"},
		Operations:  []string{"B GET /placements", "B GET /persons", "B GET /groups"},
	},
	{
		Name: OrganisationFilterIgnored, Surface: SurfaceB,
		Description: "the placement list ignores the organisation filter",
		How:         "every record of a filtered walk must satisfy its filters (filters.records-match), on every list that declares the filter",
		CaughtBy:    []string{"filters.records-match"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: SortKeyIgnored, Surface: SurfaceB,
		Description: "interface B's lists ignore sortkey",
		How:         "every walk with a date or date-time sortkey must be in that order across its pages (paging.sort-order), on every list",
		CaughtBy:    []string{"B.placements.sort.open-ended-position", "paging.sort-order"},
		Operations:  []string{"B GET /placements", "B GET /groups", "B GET /organisations"},
	},
	{
		Name: PageTokenWithFilterAccepted, Surface: SurfaceB,
		Description: "a pageToken with filters is accepted (the filters are ignored) instead of 400",
		How:         "pageToken is sent with each kind of filter and with sortkey",
		CaughtBy:    []string{"B.placements.pagetoken-with-filter", "B.placements.pagetoken-with-sortkey"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: PageTokenRepeatsLast, Surface: SurfaceB,
		Description: "each page after the first repeats the last record of the page before",
		How:         "every walk is followed page by page: no record may come twice (paging.walk-without-repeats), and every page stays within the limit sent with it",
		CaughtBy:    []string{"B.placements.pagetoken-with-limit", "B.placements.sort.open-ended-position", "paging.page-within-limit", "paging.walk-without-repeats"},
		Operations:  []string{"B GET /placements", "B GET /persons", "B GET /groups"},
	},
	{
		Name: LimitZeroAccepted, Surface: SurfaceAB,
		Description: "limit=0 is accepted and answered with a default page instead of 400",
		How:         "limit=0 (and limit=-1 on interface B) must be 400",
		CaughtBy:    []string{"A.school.list.limit-zero", "A.group.list.limit-zero", "A.unit.list.limit-zero", "B.placements.limit-below-one", "paging.offset-page-full"},
		Operations:  []string{"A GET /school", "A GET /group", "A GET /unit", "B GET /placements"},
	},
	{
		Name: ExpandIgnored, Surface: SurfaceB,
		Description: "expand is ignored: no _embedded",
		How:         "every answer to expand must embed the referenced records (representation.expand-honoured), on lists, later pages, reads by id and lookups",
		CaughtBy:    []string{"representation.expand-honoured"},
		Operations:  []string{"B GET /placements", "B GET /groups", "B GET /placements/{id}", "B POST /placements/lookup"},
	},
	{
		Name: DisplayNameAlways, Surface: SurfaceB,
		Description: "references carry displayName even without expandReferenceNames=true",
		How:         "no reference may carry displayName unless expandReferenceNames=true (representation.reference-names-only-when-asked), on every operation with references",
		CaughtBy:    []string{"representation.reference-names-only-when-asked"},
		Operations:  []string{"B GET /placements", "B GET /groups", "B GET /persons/{id}"},
	},
	{
		Name: ExpandChangesModified, Surface: SurfaceB,
		Description: "a response with expand reports meta.modified as now",
		How:         "a record read with and without expand must agree in every member but _embedded and the references' names (representation.presentation-only-adds)",
		CaughtBy:    []string{"representation.presentation-only-adds", "representation.same-everywhere"},
		Operations:  []string{"B GET /placements", "B GET /groups/{id}"},
	},
	{
		Name: SecurityMarkingMissing, Surface: SurfaceB,
		Description: "person references have an empty securityMarking",
		How:         "every person reference must carry an allowed securityMarking (references.person-marking-present; the contract requires it too)",
		CaughtBy:    []string{"contract.B.response", "references.person-marking-present", "references.security-marking-agrees"},
		Operations:  []string{"B GET /placements", "B GET /groups", "B GET /persons/{id}"},
	},
	{
		Name: LookupDropsFirst, Surface: SurfaceB,
		Description: "interface B's lookups leave out the first record found",
		How:         "a lookup must return every record asked for that the runner has seen elsewhere (representation.lookup-exact), on every lookup",
		CaughtBy:    []string{"B.persons.lookup-civic-numbers", "representation.lookup-exact"},
		Operations:  []string{"B POST /persons/lookup", "B POST /groups/lookup", "B POST /placements/lookup"},
	},
	{
		Name: CallbacksNotSent, Surface: SurfaceB,
		Description: "subscriptions are accepted, but their callbacks are never sent",
		How:         "a subscription is made to a receiver the runner starts, a record of its type is changed, and the callback must arrive",
		CaughtBy:    []string{"B.subscriptions.callback"},
		Operations:  []string{"B POST /subscriptions"},
	},
	{
		Name: ErrorBodyWrongShape, Surface: SurfaceB,
		Description: "interface B's 404 body is {\"error\": ...} instead of {code, message}",
		How:         "every error answer's body is checked (a 404's body is our choice: SHOULD; other statuses have the standard's Error body in the contract)",
		CaughtBy:    []string{"errors.B.body"},
		Operations:  []string{"B GET /placements/{id}", "B GET /groups/{id}"},
	},
	{
		Name: UnknownIDNot404, Surface: SurfaceB,
		Description: "interface B answers 400 instead of 404 for an unknown id",
		How:         "every by-id operation is sent an unknown id; the write and subscription checks read their records back after deleting them",
		CaughtBy:    []string{"B.placements.unknown-id", "B.groups.unknown-id", "B.syllabuses.unknown-id", "B.attendances.unknown-id", "B.absences.unknown-id", "B.activities.list.unknown-id", "B.attendanceEvents.list.unknown-id", "B.attendanceSchedule.list.unknown-id", "B.calendarEvents.list.unknown-id", "B.duties.list.unknown-id", "B.grades.list.unknown-id", "B.organisations.list.unknown-id", "B.persons.list.unknown-id", "B.programmes.list.unknown-id", "B.resources.list.unknown-id", "B.rooms.list.unknown-id", "B.schoolUnitOfferings.list.unknown-id", "B.studyplans.list.unknown-id", "B.attendances.delete", "B.attendanceEvents.create-delete", "B.attendanceSchedule.create-delete", "B.subscriptions.lifecycle", "B.subscriptions.callback", "B.deletedEntities.after-delete", "B.subscriptions.no-callback-after-delete"},
		Operations:  []string{"B GET /placements/{id}", "B GET /groups/{id}", "B GET /syllabuses/{id}", "B GET /persons/{id}", "B DELETE /attendances/{id}"},
	},
	{
		Name: TokenGetAccepted, Surface: SurfaceToken,
		Description: "the token endpoint issues a token to a GET with the credentials in the Authorization header",
		How:         "a GET to the token endpoint with the credentials in the Authorization header must issue no token",
		CaughtBy:    []string{"auth.token.method"},
		Operations:  []string{"auth POST /oauth/token"},
	},
	{
		Name: JSONCharsetRefused, Surface: SurfaceB,
		Description: "interface B refuses a JSON request body sent as application/json; charset=utf-8 (415)",
		How:         "the lookups of the rules' traffic are sent as application/json; charset=utf-8 and must not be refused for it (writes.media-type-parameters)",
		CaughtBy:    []string{"writes.media-type-parameters"},
		Operations:  []string{"B POST /persons/lookup", "B POST /groups/lookup"},
	},
	{
		Name: LimitAboveMaxRefused, Surface: SurfaceB,
		Description: "the placement list answers 400 to a limit above its page size of 1000 instead of serving a page",
		How:         "a limit of 100000 must be a page of at most limit records whose pageToken walk yields the unpaged set, never a 400",
		CaughtBy:    []string{"B.placements.limit-large"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: CombinedFiltersDropDate, Surface: SurfaceB,
		Description: "the placement list ignores the date filters when an organisation, group, child or owner filter is given too",
		How:         "the traffic walks each list with two filters at once, and every record must satisfy both (filters.records-match)",
		CaughtBy:    []string{"filters.records-match"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: ReferenceMarkingDiffers, Surface: SurfaceB,
		Description: "person references carry a securityMarking other than the person's own",
		How:         "a person reference's securityMarking is compared with the person wherever both are seen: embedded, by id, in a list (references.security-marking-agrees)",
		CaughtBy:    []string{"references.security-marking-agrees"},
		Operations:  []string{"B GET /placements", "B GET /groups", "B GET /persons/{id}"},
	},
	{
		Name: LaterPageDropsExpand, Surface: SurfaceB,
		Description: "expand and expandReferenceNames sent with a pageToken are ignored",
		How:         "a later page asks for expand and expandReferenceNames beside its pageToken after a first page that did not, and every record must embed and name (representation rules, under the service profile)",
		CaughtBy:    []string{"representation.expand-honoured", "representation.reference-names-when-asked", "representation.same-everywhere"},
		Operations:  []string{"B GET /placements"},
	},
	{
		Name: LegacyAuthRefused, Surface: SurfaceA,
		Description: "interface A ignores the Client-ID and Client-Secret headers (the older authentication) and answers 401",
		How:         "with --legacy-auth every interface A request carries the Client-ID and Client-Secret headers, so every check that reads or writes interface A fails; auth.A.legacy-headers names the cause",
		CaughtBy:    []string{"auth.A.legacy-headers", "A.school.list.defaults", "A.school.list.shape", "A.school.list.invalid-params", "A.school.list.limit-zero", "A.school.get.unknown-id", "A.school.get.malformed-id", "A.group.list.defaults", "A.group.list.shape", "A.group.list.invalid-params", "A.group.list.limit-zero", "A.group.get.unknown-id", "A.group.get.malformed-id", "A.unit.list.defaults", "A.unit.list.shape", "A.unit.list.invalid-params", "A.unit.list.limit-zero", "A.unit.get.unknown-id", "A.unit.get.malformed-id", "A.school.search.invalid-body", "A.school.search.unknown-field", "A.school.search.invalid-params", "A.group.search.invalid-body", "A.group.search.unknown-field", "A.group.search.invalid-params", "A.unit.search.invalid-body", "A.unit.search.unknown-field", "A.unit.search.invalid-params", "A.guardian.no-eppn", "A.grade-elementary.values", "A.grade-upper-secondary.values", "A.group.update-unknown", "A.group.delete-unknown", "A.school.create", "A.school.update", "A.grade-elementary.create", "A.grade-elementary.update", "A.grade-elementary.delete", "A.grade-upper-secondary.create", "A.grade-upper-secondary.update", "A.grade-upper-secondary.delete", "A.school.update-unknown", "A.unit.update-unknown", "A.student.eppn", "A.employee.eppn", "A.student.identity-number-form", "A.employee.identity-number-form", "A.guardian.identity-number-form", "A.student.read-back", "A.student.update-keeps-omitted", "A.student.read-back-b", "A.employee.read-back", "A.employee.update-keeps-omitted", "A.employee.read-back-b", "A.guardian.read-back", "A.guardian.update-keeps-omitted", "A.guardian.read-back-b", "A.student.delete-twice", "A.employee.delete-twice", "A.guardian.delete-twice", "A.student.identity-conflict", "A.employee.identity-conflict", "A.student.enum-values"},
		Operations:  []string{"A GET /school", "A GET /group", "A POST /student", "A PATCH /school/{id}"},
	},
	{
		Name: FormCharsetRefused, Surface: SurfaceToken,
		Description: "the token endpoint refuses a form sent as application/x-www-form-urlencoded; charset=UTF-8 (400 invalid_request)",
		How:         "the token request is sent as application/x-www-form-urlencoded; charset=UTF-8 and must be answered 200",
		CaughtBy:    []string{"auth.token.form-charset"},
		Operations:  []string{"auth POST /oauth/token"},
	},
	{
		Name: AcceptParamsRefused, Surface: SurfaceB,
		Description: "interface B answers 406 to an Accept header whose media range has parameters or several ranges",
		How:         "reads by id are sent with Accept: application/json; charset=utf-8 and with two media ranges, and must not be answered 406 (headers.accept-parameters)",
		CaughtBy:    []string{"headers.accept-parameters"},
		Operations:  []string{"B GET /absences/{id}", "B GET /activities/{id}", "B GET /duties/{id}", "B GET /organisations/{id}"},
	},
	{
		Name: MultiValueFirstOnly, Surface: SurfaceB,
		Description: "interface B reads only the first value of a repeated query parameter (expand=child&expand=owners, groupType=A&groupType=B)",
		How:         "array filters are sent with two values and must keep the records of either (filters.keeps-every-match against the unfiltered walk); expand with two values must embed both",
		CaughtBy:    []string{"filters.keeps-every-match", "filters.records-match", "representation.expand-honoured", "representation.same-everywhere"},
		Operations:  []string{"B GET /placements", "B GET /groups", "B GET /persons"},
	},
	{
		Name: IdentityConflictAccepted, Surface: SurfaceA,
		Description: "interface A creates a Student or Employee whose identityNumber another person already has, instead of 409",
		How:         "a second Student and a second Employee are created with the identityNumber of one the runner made, and must be 409",
		CaughtBy:    []string{"A.student.identity-conflict", "A.employee.identity-conflict"},
		Operations:  []string{"A POST /student", "A POST /employee"},
	},
	{
		Name: RestoreKeepsArchived, Surface: SurfaceA,
		Description: "PATCH …/{id}/restore of a placement answers 200 and leaves it archived",
		How:         "a placement is restored while active, archived, archived again (archivedAt kept) and restored twice; each answer and the GET after it are compared",
		CaughtBy:    []string{"A.student-placement.archive-restore", "A.employee-placement.archive-restore"},
		Operations:  []string{"A PATCH /student-placement/{id}/restore", "A PATCH /employee-placement/{id}/restore"},
	},
	{
		Name: PatchDropsOmitted, Surface: SurfaceA,
		Description: "PATCH on a Student, Employee or Guardian clears emailAddress1 and phoneNumber1 when it does not send them",
		How:         "a record made with optional members is PATCHed with only the update schema's required members, and the optional ones must be unchanged in the answer and a GET",
		CaughtBy:    []string{"A.student.update-keeps-omitted", "A.employee.update-keeps-omitted", "A.guardian.update-keeps-omitted"},
		Operations:  []string{"A PATCH /student/{id}", "A PATCH /employee/{id}", "A PATCH /guardian/{id}"},
	},
	{
		Name: RareEnumRefused, Surface: SurfaceA,
		Description: "interface A refuses writes holding the enum values Other (Gender, GroupCategory) and CareTeam (EmployeePlacementRole) with 422",
		How:         "every value of GroupType, GroupCategory, Gender, EmployeePlacementRole and StudentPlacementSchoolType is written and read back; the contract does not list the 422",
		CaughtBy:    []string{"A.group.enum-values", "A.student.enum-values", "A.employee-placement.enum-values", "contract.A.response", "headers.ratelimit-present"},
		Operations:  []string{"A POST /group", "A POST /student", "A POST /employee-placement"},
	},
	{
		Name: ListDropsField, Surface: SurfaceA,
		Description: "interface A lists and searches show phoneNumber1 as null; GET by id shows it",
		How:         "what a write sent must read back in every view (writes.read-back), and a record must read the same in a list as by id (representation.same-everywhere)",
		CaughtBy:    []string{"A.student.read-back", "A.employee.read-back", "A.guardian.read-back", "representation.same-everywhere", "writes.read-back"},
		Operations:  []string{"A GET /student", "A POST /student/_search", "A GET /employee", "A GET /guardian"},
	},
	{
		Name: DeleteRepeat204, Surface: SurfaceA,
		Description: "a second DELETE of an interface A record already deleted answers 204 again instead of 404",
		How:         "records the runner made are deleted, read (404) and deleted again (404)",
		CaughtBy:    []string{"A.group.delete", "A.grade-elementary.delete", "A.grade-upper-secondary.delete", "A.student.delete-twice", "A.employee.delete-twice", "A.student-placement.delete-twice", "A.employee-placement.delete-twice", "A.guardian.delete-twice"},
		Operations:  []string{"A DELETE /group/{id}", "A DELETE /student/{id}", "A DELETE /employee/{id}", "A DELETE /guardian/{id}"},
	},
	{
		Name: RateLimitResetSlides, Surface: SurfaceA,
		Description: "RateLimit-Reset is the time of the request plus the window on every answer, so the window's end moves with each request",
		How:         "over the sequence of answers, RateLimit-Reset must stay while RateLimit-Remaining falls (headers.ratelimit-window)",
		CaughtBy:    []string{"headers.ratelimit-window"},
		Operations:  []string{"A GET /school", "A GET /group"},
	},
	{
		Name: AWritesHiddenInB, Surface: SurfaceAB,
		Description: "interface B answers 404 by id for a person or group created through interface A",
		How:         "a student, an employee, a guardian and a group made through interface A are read by id through interface B, with the names sent",
		CaughtBy:    []string{"A.student.read-back-b", "A.employee.read-back-b", "A.guardian.read-back-b", "A.group.read-back-b"},
		Operations:  []string{"B GET /persons/{id}", "B GET /groups/{id}"},
	},
	{
		Name: LaterPageLimitIgnored, Surface: SurfaceB,
		Description: "interface B's lists other than placements ignore the limit sent with a pageToken: a later page has the size the first request asked for",
		How:         "every list is walked with a limit that changes after the first page, and every page is compared with the limit sent with that request (paging.page-within-limit)",
		CaughtBy:    []string{"paging.page-within-limit"},
		Operations:  []string{"B GET /persons", "B GET /groups", "B GET /organisations"},
	},
	{
		Name: LaterPagesSkipFirst, Surface: SurfaceB,
		Description: "on interface B's lists other than placements, each page after the first leaves out its first record",
		How:         "every list is walked unpaged and with a limit that changes from page to page, and the two walks must yield the same records (paging.walks-agree); filtered walks must keep every record of the unfiltered walk that satisfies them (filters.keeps-every-match)",
		CaughtBy:    []string{"filters.keeps-every-match", "paging.walks-agree"},
		Operations:  []string{"B GET /persons", "B GET /groups", "B GET /organisations"},
	},
	{
		Name: TotalOneShort, Surface: SurfaceA,
		Description: "interface A's lists of students, employees, guardians and placements report one item fewer in pagination.total than exist",
		How:         "every list is walked by offset with a limit that changes from page to page: each page must hold what pagination says, and the walk must yield pagination.total records (paging.offset-page-full, paging.total-matches-walk)",
		CaughtBy:    []string{"paging.offset-page-full", "paging.total-matches-walk"},
		Operations:  []string{"A GET /student", "A GET /employee", "A GET /guardian", "A GET /student-placement", "A GET /employee-placement"},
	},
	{
		Name: SearchContainsFirstOnly, Surface: SurfaceA,
		Description: "the _search of interface A's students, employees, guardians and placements reads only the first value of each contains and notContains array",
		How:         "contains and notContains are sent with several values, and every item is compared with every value",
		CaughtBy:    []string{"filters.keeps-every-match"},
		Operations:  []string{"A POST /student/_search", "A POST /employee/_search", "A POST /guardian/_search", "A POST /student-placement/_search"},
	},
	{
		Name: SearchDropsLastCondition, Surface: SurfaceA,
		Description: "the _search of interface A's students, employees, guardians and placements ignores the last condition of a filter that has several (orCondition false or true)",
		How:         "the rules' traffic searches with two conditions joined by AND and by OR; every item must satisfy the filter (filters.records-match) and the search must hold every listed record that does (filters.keeps-every-match)",
		CaughtBy:    []string{"filters.keeps-every-match", "filters.records-match"},
		Operations:  []string{"A POST /student/_search", "A POST /employee/_search", "A POST /guardian/_search", "A POST /employee-placement/_search"},
	},
	{
		Name: TimeBoundsExclusive, Surface: SurfaceB,
		Description: "interface B's lists other than placements exclude the bound of their inclusive date-time filters (meta.created.before, meta.modified.before, startTime and endTime onOrBefore and onOrAfter)",
		How:         "date-time bounds are values records have, so a walk that drops the record at an inclusive bound leaves out a record that satisfies it (filters.keeps-every-match), on every list",
		CaughtBy:    []string{"filters.keeps-every-match"},
		Operations:  []string{"B GET /persons", "B GET /groups", "B GET /calendarEvents"},
	},
	{
		Name: DateTimeBoundsComparedAsText, Surface: SurfaceB,
		Description: "interface B's lists other than placements read a date-time bound written with an offset (+01:00) as if it were UTC, as a comparison of text does",
		How:         "date-time bounds are sent in +01:00, the same instants as records' values, and judged as instants (filters.records-match, filters.keeps-every-match)",
		CaughtBy:    []string{"filters.keeps-every-match", "filters.records-match"},
		Operations:  []string{"B GET /absences", "B GET /attendanceEvents", "B GET /attendances"},
	},
	{
		Name: ListDropsContactDetails, Surface: SurfaceB,
		Description: "interface B's lists of persons and organisations leave out emails, phoneNumbers and addresses, which GET by id and the lookups show",
		How:         "a record read in a list, by id and through a lookup must show the same members and values (representation.same-everywhere)",
		CaughtBy:    []string{"representation.same-everywhere"},
		Operations:  []string{"B GET /persons", "B GET /organisations"},
	},
	{
		Name: LookupIgnoresExpand, Surface: SurfaceB,
		Description: "interface B's lookups (POST …/lookup) ignore expand and expandReferenceNames, which GET by id and the lists honour",
		How:         "the lookups of the rules' traffic are sent with every expand value and expandReferenceNames, and every record must embed and name (representation rules)",
		CaughtBy:    []string{"representation.expand-honoured", "representation.reference-names-when-asked", "representation.same-everywhere"},
		Operations:  []string{"B POST /placements/lookup", "B POST /groups/lookup", "B POST /persons/lookup"},
	},
	{
		Name: MembershipMarkingDiffers, Surface: SurfaceB,
		Description: "the person references of groups' groupMemberships and of persons' responsibles carry a securityMarking other than the person's own",
		How:         "every person reference is compared with the person wherever both are seen, in a list, by id or embedded (references.security-marking-agrees)",
		CaughtBy:    []string{"references.security-marking-agrees"},
		Operations:  []string{"B GET /groups", "B GET /groups/{id}", "B GET /persons/{id}"},
	},
	{
		Name: ReferenceNameDiffers, Surface: SurfaceB,
		Description: "with expandReferenceNames=true, references to organisations on every resource but placements carry a stale displayName, not the organisation's",
		How:         "every reference's displayName is compared with the referenced record's own wherever both are seen (references.display-name-agrees)",
		CaughtBy:    []string{"references.display-name-agrees"},
		Operations:  []string{"B GET /groups", "B GET /persons", "B GET /duties"},
	},
	{
		Name: BRareEnumRefused, Surface: SurfaceB,
		Description: "interface B's writes refuse the last value of their enums with 400: eventType Ut, absence type Ogiltig, schedule state Nekat, severityLevel Error, resource Organisation",
		How:         "the write checks write their records again with every other value the contract lists for each enumerated member; a refusal of a write that differs from an accepted one only there fails (writes.enum-values-accepted)",
		CaughtBy:    []string{"writes.enum-values-accepted"},
		Operations:  []string{"B POST /attendanceEvents", "B POST /absences", "B POST /attendanceSchedule", "B POST /log", "B POST /statistics", "B POST /subscriptions"},
	},
	{
		Name: AJSONCharsetRefused, Surface: SurfaceA,
		Description: "interface A refuses request bodies sent as application/json; charset=utf-8 with 415",
		How:         "the rules' traffic sends interface A searches as application/json; charset=utf-8, which must not be refused for it (writes.media-type-parameters)",
		CaughtBy:    []string{"contract.A.response", "headers.ratelimit-present", "writes.media-type-parameters"},
		Operations:  []string{"A POST /school/_search", "A POST /student/_search"},
	},
	{
		Name: RateLimitRemainingGrows, Surface: SurfaceAExport,
		Description: "on interface A's persons and placements and on the data export, RateLimit-Remaining grows on every third answer within a window",
		How:         "RateLimit-Remaining is followed over the sequence of a client's answers and must never grow while RateLimit-Reset stays (headers.ratelimit-window)",
		CaughtBy:    []string{"headers.ratelimit-remaining-falls", "headers.ratelimit-window"},
		Operations:  []string{"A GET /student", "A GET /student-placement", "export GET /attendance"},
	},
	{
		Name: RateLimitResetInPast, Surface: SurfaceAExport,
		Description: "on interface A's persons and placements and on the data export, RateLimit-Reset is a minute before the answer's Date",
		How:         "RateLimit-Reset must lie after the answer's Date (headers.ratelimit-values) and stay within its window (headers.ratelimit-window)",
		CaughtBy:    []string{"headers.ratelimit-values", "headers.ratelimit-window"},
		Operations:  []string{"A GET /student", "A GET /student-placement", "export GET /attendance"},
	},
	{
		Name: ContentTypeLatin1, Surface: SurfaceAny,
		Description: "the data export and interface B's lookups answer JSON as application/json; charset=iso-8859-1",
		How:         "every answer's Content-Type must say JSON and, when it names a charset, UTF-8 (headers.json-utf8)",
		CaughtBy:    []string{"headers.json-utf8"},
		Operations:  []string{"export GET /attendance", "B POST /persons/lookup", "B POST /groups/lookup"},
	},
	{
		Name: DateTimeWithoutOffset, Surface: SurfaceB,
		Description: "interface B writes the startTime and endTime of calendar events and absences as local time without an offset (2026-03-16T08:00:00)",
		How:         "every date-time of every body is parsed as RFC 3339, and validated against the contract's date-time format",
		CaughtBy:    []string{"contract.B.response", "dates.rfc3339"},
		Operations:  []string{"B GET /calendarEvents", "B GET /calendarEvents/{id}", "B GET /absences", "B GET /absences/{id}", "B POST /absences"},
	},
	{
		Name: InsufficientScopeAccepted, Surface: SurfaceAny,
		Description: "the client's scopes are not enforced: an operation the client has no permission for answers as for a client that has",
		How:         "with a second, read-only client (--limited-client-id, --limited-client-secret; serve's default scenario has one), every write operation of the contract must answer 403 (auth.insufficient-permission-403)",
		CaughtBy:    []string{"auth.insufficient-permission-403"},
		Operations:  []string{"A POST /school", "A PATCH /group/{id}", "B POST /attendances", "B POST /subscriptions"},
	},
	{
		Name: DateTimeWithoutSeconds, Surface: SurfaceA,
		Description: "interface A writes the meta.createdAt and meta.updatedAt of schools and groups without seconds (2026-03-16T08:00Z)",
		How:         "every date-time of every body is parsed as RFC 3339, which requires the seconds (dates.rfc3339), and validated against the contract's date-time format",
		CaughtBy:    []string{"A.group.update", "A.school.update", "contract.A.response", "dates.rfc3339"},
		Operations:  []string{"A GET /school", "A GET /group", "A POST /school/_search", "A PATCH /school/{id}", "A PATCH /group/{id}"},
	},
	{
		Name: DateInvalidDay, Surface: SurfaceB,
		Description: "interface B writes the startDate and endDate of organisations with day 00 (2024-08-00), a date no calendar has",
		How:         "every date of every body must be an RFC 3339 full-date, a day that exists (dates.rfc3339), and is validated against the contract's date format",
		CaughtBy:    []string{"contract.B.response", "dates.rfc3339"},
		Operations:  []string{"B GET /organisations", "B GET /organisations/{id}", "B POST /organisations/lookup"},
	},
	{
		Name: AErrorBodyWrongShape, Surface: SurfaceA,
		Description: "interface A's 404 body is {\"message\": ...} instead of {\"error\": {code, message, requestID}}",
		How:         "every error answer's body is checked (errors.A.body), the 404s of the unknown-id checks and of every read after a delete among them",
		CaughtBy:    []string{"contract.A.response", "errors.A.body"},
		Operations:  []string{"A GET /school/{id}", "A GET /group/{id}", "A GET /unit/{id}", "A DELETE /group/{id}", "A PATCH /group/{id}"},
	},
	{
		Name: ErrorBodyWithoutMessage, Surface: SurfaceB,
		Description: "interface B's 400 body is {\"code\": \"BadRequest\"} without the message SS 12000's Error requires",
		How:         "every error answer's body must have code and message (errors.B.body); the contract's Error requires both",
		CaughtBy:    []string{"contract.B.response", "errors.B.body"},
		Operations:  []string{"B GET /placements", "B GET /placements/{id}", "B GET /groups/{id}"},
	},
	{
		Name: NameSortReversed, Surface: SurfaceB,
		Description: "interface B's persons and syllabuses answer a sortkey by a name or code in the opposite direction (FamilyNameAsc as FamilyNameDesc, SubjectCodeDesc as SubjectCodeAsc)",
		How:         "every list is walked in each order its sortkey names; a pair of neighbouring records in the opposite order under every plausible collation (bytes, case folded, Swedish, accent-blind) fails (paging.sort-order)",
		CaughtBy:    []string{"paging.sort-order"},
		Operations:  []string{"B GET /persons", "B GET /syllabuses"},
	},
	{
		Name: PersonFiltersLoose, Surface: SurfaceB,
		Description: "interface B's person list reads only the first value of nameContains and ignores eduPersonPrincipalName and identifier.context",
		How:         "the person list is walked with two parts of a record's names in the other case, with a principal name, an identifier's value and its context taken from the records; every person listed must hold each part in one of its names and the principal name and identifier asked for (filters.records-match)",
		CaughtBy:    []string{"filters.records-match"},
		Operations:  []string{"B GET /persons"},
	},
	{
		Name: RelatedFiltersIgnored, Surface: SurfaceB,
		Description: "interface B ignores the filters that select through related records: calendarEvents' student, teacher and group, activities' member and teacher, attendanceSchedule's group",
		How:         "each such list is walked with a value the related records have (a group of an event's activity, a member of an activity's group, the group of a schedule's placement); every record listed whose related records, as the runner has seen them, do not name the value fails (filters.records-match)",
		CaughtBy:    []string{"filters.records-match"},
		Operations:  []string{"B GET /calendarEvents", "B GET /activities", "B GET /attendanceSchedule"},
	},
}

// others are kinds of wrong server the mock has no switch for, with the
// checks written to catch them.
var others = []Deviation{
	{
		Name: "pagetoken-duplicates, pagetoken-skips", Surface: SurfaceB,
		Description: "a pageToken walk repeats or skips records",
		How:         "every walk is followed page by page for repeats, and two walks of one query must yield the same records (paging.walk-without-repeats, paging.walks-agree)",
		CaughtBy:    []string{"paging.walk-without-repeats", "paging.walks-agree"},
	},
	{
		Name: "pagetoken-never-null", Surface: SurfaceB,
		Description: "the last page still carries a pageToken",
		How:         "walks are bounded by --max-pages and a pageToken that comes back is a loop (paging.walk-without-repeats)",
		CaughtBy:    []string{"paging.walk-without-repeats"},
	},
	{
		Name: "limit-ignored", Surface: SurfaceB,
		Description: "interface B's lists ignore limit",
		How:         "every page, first and later, must hold at most the limit sent with it (paging.page-within-limit)",
		CaughtBy:    []string{"paging.page-within-limit"},
	},
	{
		Name: "meta-before-exclusive", Surface: SurfaceB,
		Description: "meta.created.before and meta.modified.before drop their bound",
		How:         "bounds are timestamps records have, so a walk that drops the record at an inclusive bound leaves out a record that satisfies it (filters.keeps-every-match)",
		CaughtBy:    []string{"filters.keeps-every-match"},
	},
	{
		Name: "filter-ignored", Surface: SurfaceB,
		Description: "the placement list ignores the group, child or owner filter",
		How:         "every record of a filtered walk must satisfy its filters (filters.records-match), on every list and filter",
		CaughtBy:    []string{"filters.records-match"},
	},
	{
		Name: "sort-wrong", Surface: SurfaceB,
		Description: "a list is sorted in another order than its sortkey says",
		How:         "every walk with a date or date-time sortkey must be in that order across its pages (paging.sort-order)",
		CaughtBy:    []string{"paging.sort-order"},
		Operations:  []string{"B GET /persons", "B GET /syllabuses"},
	},
	{
		Name: "embedded-mismatch", Surface: SurfaceB,
		Description: "_embedded holds other persons than the references name",
		How:         "the embedded records must be the ones the references name (representation.expand-honoured)",
		CaughtBy:    []string{"representation.expand-honoured"},
	},
	{
		Name: "display-name-never", Surface: SurfaceB,
		Description: "references lack displayName even with expandReferenceNames=true",
		How:         "with expandReferenceNames=true every reference must carry displayName (representation.reference-names-when-asked), on every operation with references",
		CaughtBy:    []string{"representation.reference-names-when-asked"},
	},
	{
		Name: "lookup-returns-unknown", Surface: SurfaceB,
		Description: "a lookup returns records that were not asked for",
		How:         "a lookup must return only records asked for (representation.lookup-exact)",
		CaughtBy:    []string{"representation.lookup-exact"},
	},
	{
		Name: "malformed-id-not-400", Surface: SurfaceAB,
		Description: "a malformed id in the path is answered otherwise than 400 (interface B) or 404/400 as documented (interface A)",
		How:         "every by-id operation is sent a malformed id",
		CaughtBy:    []string{"B.placements.malformed-id", "B.groups.malformed-id", "A.school.get.malformed-id", "A.group.get.malformed-id"},
	},
	{
		Name: "restore-ignored", Surface: SurfaceA,
		Description: "an archived placement patched with endDate null or a future date stays archived",
		How:         "an archived placement is patched with endDate null or a future date and must be active again",
		CaughtBy:    []string{"A.student-placement.restore-null-enddate", "A.student-placement.restore-future-enddate", "A.employee-placement.restore-null-enddate"},
	},
	{
		Name: "patch-keeps-modified", Surface: SurfaceA,
		Description: "a PATCH leaves meta.updatedAt unchanged",
		How:         "a PATCH must change only what it sends and move the modification time",
		CaughtBy:    []string{"A.group.update", "A.school.update"},
	},
	{
		Name: "wrong-token-error", Surface: SurfaceToken,
		Description: "the token endpoint answers an unknown client or an unsupported grant with another error than RFC 6749's",
		How:         "unknown clients and wrong grants are sent",
		CaughtBy:    []string{"auth.token.unknown-client", "auth.token.unsupported-grant"},
	},
	{
		Name: "credentials-not-checked", Surface: SurfaceAny,
		Description: "a surface answers a request with a garbage token or without credentials",
		How:         "requests without credentials and with a garbage token must be 401",
		CaughtBy:    []string{"auth.B.garbage-token", "auth.A.no-credentials", "auth.A.garbage-token", "auth.export.no-credentials", "auth.export.garbage-token"},
	},
	{
		Name: "error-body-wrong-shape (other surfaces)", Surface: SurfaceAny,
		Description: "an error answer of interface A, the token endpoint or the export has another body than its spec's",
		How:         "every error answer's body is checked",
		CaughtBy:    []string{"errors.A.body", "errors.auth.body", "errors.export.body", "contract.A.response"},
	},
	{
		Name: "status-undocumented, wrong-content-type", Surface: SurfaceAny,
		Description: "an answer has a status, header or body its contract does not allow",
		How:         "every answer is validated against the contract",
		CaughtBy:    []string{"contract.auth.response", "contract.A.response", "contract.B.response", "contract.export.response"},
	},
	{
		Name: "dates-not-rfc3339", Surface: SurfaceAny,
		Description: "a date or timestamp is not RFC 3339",
		How:         "every date and timestamp field is parsed",
		CaughtBy:    []string{"dates.rfc3339", "contract.B.response"},
	},
	{
		Name: "export-total-wrong", Surface: SurfaceExport,
		Description: "the data export's pagination.total differs from the items it serves",
		How:         "an offset page must hold what pagination says, and a complete walk yields pagination.total (paging.offset-page-full, paging.total-matches-walk)",
		CaughtBy:    []string{"paging.offset-page-full", "paging.total-matches-walk"},
	},
	{
		Name: "no-429, 429-without-retry", Surface: SurfaceA,
		Description: "a spent quota is not answered 429, or the 429 does not say when to retry",
		How:         "the quota is spent until 429 (opt-in)",
		CaughtBy:    []string{"A.ratelimit.exhaust-429"},
	},
	{
		Name: "route-missing", Surface: SurfaceB,
		Description: "a by-id or lookup route does not exist",
		How:         "the unknown-id, malformed-id and lookup-refusal checks first prove the route with a known id (a 2xx); without it they skip and the by-id check fails",
		CaughtBy:    []string{"B.groups.by-id", "B.syllabuses.by-id"},
	},
	{
		Name: "refuses-everything", Surface: SurfaceAny,
		Description: "a surface answers 401 to every request",
		How:         "the refusal checks first prove the same request with the run's token answers 2xx; the run exits 2 when no authenticated request to a surface was answered 2xx",
		CaughtBy:    []string{"auth.B.token-accepted", "auth.A.token-accepted", "auth.export.token-accepted", "auth.B.no-token"},
	},
	{
		Name: "slow or hanging answers", Surface: SurfaceAny,
		Description: "the server answers slowly or not at all",
		How:         "every request has --timeout; a request that times out ends its check with status error (exit 2)",
	},
}

// All returns the mock's deviations, sorted by name.
func All() []Deviation {
	out := slices.Clone(all)
	slices.SortFunc(out, func(a, b Deviation) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Others returns the kinds of wrong server the mock has no switch for, with
// the checks written to catch them.
func Others() []Deviation { return slices.Clone(others) }

// Names returns every deviation's name, sorted.
func Names() []string {
	names := make([]string, len(all))
	for i, d := range all {
		names[i] = d.Name
	}
	slices.Sort(names)
	return names
}

// Lookup returns the named deviation of the mock, and whether there is
// one by that name.
func Lookup(name string) (Deviation, bool) {
	i := slices.IndexFunc(all, func(d Deviation) bool { return d.Name == name })
	if i < 0 {
		return Deviation{}, false
	}
	return all[i], true
}

// Known reports whether name is a deviation's name.
func Known(name string) bool {
	_, ok := Lookup(name)
	return ok
}
