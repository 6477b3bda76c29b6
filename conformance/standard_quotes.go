package conformance

import "strings"

// The sentences of the SS 12000 2.1.0 document and of the RFCs that the
// checks enforce under --profile ss12000, for the checks whose Spec quotes
// the service's spec (where it restates the document). That profile judges
// by the document alone, and its reports quote it
// (docs/decisions.md#reports-quote-the-standard). Checks that
// set StandardSpec themselves keep theirs; checks labelled with Choice quote
// the service's spec and say it is skolkit's choice.

const (
	ssPlacements = "SS 12000 2.1.0: GET /placements"
	ssPlacement  = "SS 12000 2.1.0: GET /placements/{id}"
)

// standardQuotes is keyed by the service spec's quote: every check that
// quotes that sentence enforces the same sentence of the document.
var standardQuotes = map[string]SpecRef{
	specPageTokenNull.Quote: {Section: ssPlacements + ", Placements.pageToken",
		Quote: "Om värdet är null finns inget mer att hämta på det token som skickades in som query parameter."},
	specLimitParam.Quote: {Section: ssPlacements + ", parameter limit (minimum: 1)",
		Quote: "Antal poster som ska visas i resultatet. Utelämnas det så returnas så många poster som möjligt av servern, se `pageToken`."},
	specLimitB.Quote: {Section: ssPlacements + ", parameter limit (minimum: 1)",
		Quote: "Antal poster som ska visas i resultatet. Utelämnas det så returnas så många poster som möjligt av servern, se `pageToken`."},
	specPageToken.Quote: {Section: ssPlacements + ", parameter pageToken and 400",
		Quote: "Ett opakt värde som servern givit som svar på en tidigare ställd fråga. Kan inte komibineras med andra filter men väl med `limit`. … 400: Filter (ex `sortkey`, `meta.modified.after`, `meta.modified.before`, `meta.created.after`, `meta.created.before` etc.) kan inte kombineras med `pageToken`."},
	"The date filters can be combined to select active placements.": {Section: ssPlacements + ", parameter organisation",
		Quote: "Begränsa urvalet till de barn som har en placering (placedAt) på angivet organisationselement. Detta kan kombineras med startDate.onOrBefore och endDate.onOrAfter för att begränsa till aktiva placeringar."},
	specSort.Quote: {Section: ssPlacements + ", parameter sortkey (enum StartDateAsc, StartDateDesc, EndDateAsc, EndDateDesc, ModifiedDesc)",
		Quote: "Anger hur resultatet ska sorteras."},
	specExpand.Quote: {Section: ssPlacements + ", parameter expand (enum child, owners); PlacementExpanded._embedded",
		Quote: "Beskriver om expanderade data ska hämtas"},
	specRefNames.Quote: {Section: "SS 12000 2.1.0: ObjectReference.displayName, parameter expandReferenceNames",
		Quote: "Namn för visningsyfte för det refererade objektet. Skall endast returneras när query parametern `expandReferenceNames` är satt till \"true\"."},
	specPersonRefMarking.Quote: {Section: "SS 12000 2.1.0: PersonReference.securityMarking (enum Ingen, Sekretessmarkering, Skyddad folkbokföring)",
		Quote: "Återspeglar värdet från folkbokföringsregistret."},
	specSecMarking.Quote: {Section: "SS 12000 2.1.0: PersonReference.securityMarking (enum Ingen, Sekretessmarkering, Skyddad folkbokföring)",
		Quote: "Återspeglar värdet från folkbokföringsregistret."},
	specModified.Quote: {Section: "SS 12000 2.1.0: Meta.modified",
		Quote: "Attribut som kan tas fram med parametrarna expand eller expandReferenceNames räknas **inte** som ett attribut till entiteten, och ska således **inte** påverka detta värde."},
	specMetaModified.Quote: {Section: "SS 12000 2.1.0: Meta.modified",
		Quote: "Tidpunkten avser den senaste tidpunkt när något av de attribut som direkt tillhör entiteten har ändrats."},
	"Date fields: string, format date (RFC 3339 full-date). Start and end dates are inclusive.": {Section: ssPlacements + ", parameters startDate.*, endDate.* (format: date)",
		Quote: "Begränsa urvalet till placeringar som har ett startDate värde innan eller på det angivna datumet (RFC 3339-format, t.ex. \"2016-10-15\")."},
	"`meta`: object with `created` and `modified`, both date-time (RFC 3339). … Date fields: string, format date (RFC 3339 full-date).": {Section: "SS 12000 2.1.0: Meta.created, Meta.modified (format: date-time); date fields (format: date)",
		Quote: "Datum och tid för när entiteten skapades (RFC 3339 format tex \"2015-12-12T10:30:00+01:00\")."},

	// The token endpoint is not in the document: RFC 6749 and 6750 judge it.
	specTokenResp.Quote: {Section: "RFC 6749 §5.1",
		Quote: "access_token REQUIRED. The access token issued by the authorization server. token_type REQUIRED. The type of the token issued … expires_in RECOMMENDED."},
	specNoRefresh.Quote: {Section: "RFC 6749 §4.4.3",
		Quote: "If the access token request is valid and authorized, the authorization server issues an access token as described in Section 5.1. A refresh token SHOULD NOT be included."},
	specLifetime.Quote: {Section: "RFC 6749 §5.1",
		Quote: "expires_in RECOMMENDED. The lifetime in seconds of the access token."},
	specBToken.Quote: {Section: "RFC 6750 §2.1; SS 12000 2.1.0: security",
		Quote: "Clients SHOULD make authenticated requests with a bearer token using the \"Authorization\" request header field with the \"Bearer\" HTTP authorization scheme. … security: - BearerAuth: []"},
}

// standardQuotesByID covers checks that share a service sentence but
// enforce different sentences of the document.
var standardQuotesByID = map[string]SpecRef{
	"B.placements.filter.startDate-onOrBefore": {Section: ssPlacements + ", parameter startDate.onOrBefore",
		Quote: "Begränsa urvalet till placeringar som har ett startDate värde innan eller på det angivna datumet (RFC 3339-format, t.ex. \"2016-10-15\")."},
	"B.placements.filter.startDate-onOrAfter": {Section: ssPlacements + ", parameter startDate.onOrAfter",
		Quote: "Begränsa urvalet till placeringar som har ett startDate värde på eller efter det angivna datumet (RFC 3339-format, t.ex. \"2016-10-15\")."},
	"B.placements.filter.endDate-onOrBefore": {Section: ssPlacements + ", parameter endDate.onOrBefore",
		Quote: "Begränsa urvalet till placeringar som har ett endDate värde innan eller på det angivna datumet (RFC 3339-format, t.ex. \"2016-10-15\"). Poster med ett endDate som ej är satt, tas alltid med."},
	"B.placements.filter.endDate-keeps-open-ended": {Section: ssPlacements + ", parameters endDate.onOrBefore, endDate.onOrAfter",
		Quote: "Poster med ett endDate som ej är satt, tas alltid med."},
	"B.placements.filter.endDate-onOrAfter": {Section: ssPlacements + ", parameter endDate.onOrAfter",
		Quote: "Begränsa urvalet till placeringar som har ett endDate värde på eller efter det angivna datumet (RFC 3339-format, t.ex. \"2016-10-15\"). Poster med ett endDate som ej är satt, tas alltid med."},
	"B.placements.filter.organisation": {Section: ssPlacements + ", parameter organisation",
		Quote: "Begränsa urvalet till de barn som har en placering (placedAt) på angivet organisationselement."},
	"B.placements.filter.group": {Section: ssPlacements + ", parameter group",
		Quote: "Begränsa urvalet till de barn som har en placering på angiven grupp."},
	"B.placements.filter.child": {Section: ssPlacements + ", parameter child",
		Quote: "Begränsa urvalet till ett barn."},
	"B.placements.filter.owner": {Section: ssPlacements + ", parameter owner",
		Quote: "Begränsa urvalet till placeringar med denna ägare."},
	"B.placements.filter.created-before": {Section: ssPlacements + ", parameter meta.created.before",
		Quote: "Endast poster skapade på eller före detta timestamp (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). Inkluderande."},
	"B.placements.filter.created-after": {Section: ssPlacements + ", parameter meta.created.after",
		Quote: "Endast poster skapade efter detta timestamp (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). Exkluderande."},
	"B.placements.filter.modified-before": {Section: ssPlacements + ", parameter meta.modified.before",
		Quote: "Endast poster modifierade på eller före detta timestamp (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). Inkluderande."},
	"B.placements.filter.modified-after": {Section: ssPlacements + ", parameter meta.modified.after",
		Quote: "Endast poster modifierade efter detta timestamp (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). Exkluderande."},
	"B.placements.by-id": {Section: ssPlacement, Quote: "Placering baserat på id … 200: Anropet lyckades."},
	"B.groups.by-id":     {Section: "SS 12000 2.1.0: GET /groups/{id}", Quote: "Hämta grupper baserat på ID … 200: Anropet lyckades."},
	"B.groups.expand-assignment-roles": {Section: "SS 12000 2.1.0: GET /groups/{id}, parameter expand",
		Quote: "Beskriver om expanderade data ska hämtas"},
	"B.syllabuses.by-id":  {Section: "SS 12000 2.1.0: GET /syllabuses/{id}", Quote: "Hämta syllabus baserat på ID … 200: Anropet lyckades."},
	"B.attendances.by-id": {Section: "SS 12000 2.1.0: GET /attendances/{id}", Quote: "Hämta en närvaro post utifrån ID. … 200: Anropet lyckades."},
	"B.absences.by-id":    {Section: "SS 12000 2.1.0: GET /absences/{id}", Quote: "Hämta anmäld frånvaro baserat på ID … 200: Anropet lyckades."},
	"B.groups.lookup": {Section: "SS 12000 2.1.0: POST /groups/lookup",
		Quote: "Istället för att hämta grupper en i taget med en loop av GET-anrop så finns det även möjlighet att hämta många grupper på en gång genom att skicka ett anrop med en lista med önskade grupper."},
	"auth.token.form-request": {Section: "RFC 6749 §4.4.2",
		Quote: "The client makes a request to the token endpoint by adding the following parameters using the \"application/x-www-form-urlencoded\" format … grant_type REQUIRED. Value MUST be set to \"client_credentials\"."},
	"auth.token.reissue": {Section: "RFC 6749 §4.4",
		Quote: "The client can request an access token using only its client credentials … when the client is requesting access to the protected resources under its control"},
}

// standardSpecOf returns the sentence a check enforces under --profile
// ss12000 when the check does not name one itself: nil when its own Spec
// already quotes the document or an RFC, or when it is labelled as
// skolkit's choice.
func standardSpecOf(c *Check) *SpecRef {
	if c.StandardSpec != nil || c.Choice != "" || c.Standard == Off {
		return c.StandardSpec
	}
	if strings.HasPrefix(c.Spec.Section, "SS 12000") || strings.HasPrefix(c.Spec.Section, "RFC") {
		return nil
	}
	if s, ok := standardQuotesByID[c.ID]; ok {
		return &s
	}
	if s, ok := standardQuotes[c.Spec.Quote]; ok {
		return &s
	}
	return nil
}
