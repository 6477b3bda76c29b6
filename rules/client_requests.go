package rules

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The requests family (client side): what a request may carry, beyond
// what the contract's schemas say (the contract family's request rules):
// a pageToken alone with limit, expand and expandReferenceNames; the
// client secret only where the spec sends it.

// pageTokenCompanions are the parameters that may accompany a pageToken
// (docs/decisions.md#pagetoken-companions: limit by the spec's sentence; expand and
// expandReferenceNames change how records are shown, not which).
var pageTokenCompanions = []string{"pageToken", "limit", "expand", "expandReferenceNames"}

var (
	specPageTokenAlone = SpecRef{Section: "Interface B, placement list query parameters",
		Quote:    "pageToken | string | opaque value from an earlier response; cannot be combined with other filters, but can be combined with `limit`",
		Decision: "pagetoken-companions"}
	specPageTokenAloneStandard = SpecRef{Section: "SS 12000 2.1.0: parameter pageToken and 400 (every list)",
		Quote: "Ett opakt värde som servern givit som svar på en tidigare ställd fråga. Kan inte komibineras med andra filter men väl med `limit`. … 400: Filter (ex `sortkey`, `meta.modified.after`, `meta.modified.before`, `meta.created.after`, `meta.created.before` etc.) kan inte kombineras med `pageToken`."}
	specSecretPlace = SpecRef{Section: "Authentication, items 1 and 5; RFC 6749 §2.3.1",
		Quote: "Token request: POST {auth_url}/oauth/token with content type `application/x-www-form-urlencoded` and form fields `grant_type` (value `client_credentials`), `client_id`, `client_secret`. … In interface A, the older method of sending a client identifier and a client secret in request headers is still accepted alongside bearer tokens. … The parameters can only be transmitted in the request-body and MUST NOT be included in the request URI."}
	specSecretPlaceStandard = SpecRef{Section: "RFC 6749 §2.3.1; RFC 6750 §2.1; SS 12000 2.1.0: security (BearerAuth)",
		Quote: "The parameters can only be transmitted in the request-body and MUST NOT be included in the request URI. … Clients SHOULD make authenticated requests with a bearer token using the \"Authorization\" request header field with the \"Bearer\" HTTP authorization scheme."}
)

// clientRequestRules returns the rules over what a client's requests carry.
func clientRequestRules() []*Rule {
	return []*Rule{
		{ID: "client.pagetoken-with-filters", Family: FamilyRequests, Side: SideClient,
			Title: "a request with a pageToken carries nothing else but limit, expand and expandReferenceNames",
			Spec:  specPageTokenAlone, StandardSpec: &specPageTokenAloneStandard,
			Severity: MUST, Standard: MUST, Concurrent: true,
			Applies: func(op *Operation) bool { return op != nil && op.Paging == PagingPageToken },
			Check:   checkPageTokenAlone},
		{ID: "client.secret-where-it-does-not-belong", Family: FamilyRequests, Side: SideClient,
			Title: "the client secret goes only to the token endpoint (in its form or Basic credentials) and, on interface A, in the Client-Secret header: never in a URL, never to interface B or the export",
			Spec:  specSecretPlace, StandardSpec: &specSecretPlaceStandard,
			Severity: MUST, Standard: MUST,
			NewState: func() any { return map[string][]string{} },
			Check:    checkSecretPlace},
	}
}

func checkPageTokenAlone(c *Context, o *Observation) {
	if o.Query.Get("pageToken") == "" {
		return
	}
	c.Judged(o)
	var extra []string
	for name := range o.Query {
		// Parameters the operation requires go with every page
		// (docs/decisions.md#pagetoken-companions).
		if p, ok := o.Op.Param(name); slices.Contains(pageTokenCompanions, name) || ok && p.Required {
			continue
		}
		extra = append(extra, name)
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		c.Fail(o, "pageToken with at most limit, expand and expandReferenceNames",
			"%s sends %s beside its pageToken: the token carries the first page's query, and SS 12000 answers a filter beside it with 400", o.Label(), strings.Join(extra, ", "))
	}
}

// secretNames are the names a client secret goes by in forms, queries and
// headers.
var secretNames = []string{"client_secret", "clientsecret", "client-secret"}

// checkSecretPlace learns each client's secret from its token requests
// (the form's client_secret, the password of Basic credentials, interface
// A's Client-Secret header) and finds it, or a parameter named for it,
// where it does not belong.
func checkSecretPlace(c *Context, o *Observation) {
	known := c.State().(map[string][]string)
	learn := func(s string) {
		if s != "" && !slices.Contains(known[o.Client], s) {
			known[o.Client] = append(known[o.Client], s)
		}
	}
	c.Judged(o)
	var where []string
	for name, vs := range o.Query {
		if slices.Contains(secretNames, strings.ToLower(name)) {
			where = append(where, "the URL's query ("+name+")")
			continue
		}
		for _, v := range vs {
			if slices.Contains(known[o.Client], v) {
				where = append(where, "the URL's query ("+name+")")
			}
		}
	}
	switch o.Surface {
	case SurfaceAuth:
		if form, err := url.ParseQuery(string(o.RequestBody)); err == nil {
			learn(form.Get("client_secret"))
		}
		if _, pw, ok := basicAuth(o.RequestHeader.Get("Authorization")); ok {
			learn(pw)
		}
	case SurfaceA:
		learn(o.RequestHeader.Get("Client-Secret"))
		where = append(where, secretInBody(o, known[o.Client])...)
	default:
		if o.RequestHeader.Get("Client-Secret") != "" {
			where = append(where, "the Client-Secret header (interface A's older method; "+o.Surface.Name()+" has none)")
		}
		if _, _, ok := basicAuth(o.RequestHeader.Get("Authorization")); ok {
			where = append(where, "Basic credentials in the Authorization header (the token endpoint's)")
		}
		where = append(where, secretInBody(o, known[o.Client])...)
	}
	if len(where) > 0 {
		c.Fail(o, "the secret only in the token request (and interface A's Client-Secret header)", "%s carries the client secret in %s", o.Label(), strings.Join(where, ", "))
	}
}

// secretInBody reports a known secret in a request body other than the
// token endpoint's.
func secretInBody(o *Observation, secrets []string) []string {
	for _, s := range secrets {
		if len(s) >= 8 && strings.Contains(string(o.RequestBody), s) {
			return []string{"the request body"}
		}
	}
	return nil
}

// basicAuth reads Basic credentials from an Authorization header.
func basicAuth(h string) (user, password string, ok bool) {
	r := &http.Request{Header: http.Header{"Authorization": {h}}}
	return r.BasicAuth()
}
