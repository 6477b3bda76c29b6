package rules

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is the start of the client stories below.
var t0 = time.Date(2026, 11, 16, 7, 0, 0, 0, time.UTC)

// at makes an exchange start at t0+d and take 10 ms.
func at(d time.Duration) exOpt {
	return func(e *Exchange) { e.Start, e.Duration = t0.Add(d), 10*time.Millisecond }
}

func bearer(tok string) exOpt { return withRequestHeader("Authorization", "Bearer "+tok) }

func tokenAnswer(tok string, expiresIn int) obj {
	return obj{"access_token": tok, "token_type": "Bearer", "expires_in": expiresIn}
}

func tokenRequest(t *testing.T, d time.Duration, tok string, expiresIn int) *Exchange {
	return mkEx(t, "POST /oauth/token", 200, tokenAnswer(tok, expiresIn), at(d),
		withRequestBody("application/x-www-form-urlencoded", "grant_type=client_credentials&client_id=c&client_secret=s3cret-value"),
		withRequestHeader("Authorization", ""))
}

func emptyPage() obj { return obj{"data": []any{}, "pageToken": nil} }

func pageWithToken(tok string) obj { return obj{"data": []any{}, "pageToken": tok} }

func offsetPage(offset, n, total int) obj {
	items := []any{}
	for i := range n {
		items = append(items, obj{"id": id(offset + i + 1)})
	}
	return obj{"data": items, "pagination": obj{"offset": offset, "limit": n, "total": total}}
}

// story is a client's traffic and what one rule makes of it.
type story struct {
	name  string
	rule  string
	exs   func(t *testing.T) []*Exchange
	fails string // a part of the finding's message; "" passes
	// nothing: the rule had nothing to look at.
	nothing bool
}

func TestClientRules(t *testing.T) {
	tooMany := func(d time.Duration, headers ...string) *Exchange {
		opts := []exOpt{at(d), withResponseHeader("Date", http.TimeFormat)}
		opts = opts[:1]
		for i := 0; i+1 < len(headers); i += 2 {
			opts = append(opts, withResponseHeader(headers[i], headers[i+1]))
		}
		return mkEx(t, "GET /api/v1/persons", 429, obj{"code": "TooManyRequests", "message": "slow down"}, opts...)
	}
	date := func(d time.Duration) string { return t0.Add(d).Format(http.TimeFormat) }
	ms := func(d time.Duration) string { return strconv.FormatInt(t0.Add(d).UnixMilli(), 10) }
	for _, s := range []story{
		{name: "a pageToken alone", rule: "client.pagetoken-with-filters",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?pageToken=abc&limit=10&expand=duties", 200, emptyPage())}
			}},
		{name: "a pageToken with a filter", rule: "client.pagetoken-with-filters", fails: "meta.modified.after",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?pageToken=abc&meta.modified.after=2026-01-01T00:00:00Z", 400, obj{"code": "x", "message": "y"})}
			}},
		{name: "a pageToken with sortkey", rule: "client.pagetoken-with-filters", fails: "sortkey",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/placements?pageToken=abc&sortkey=StartDateAsc", 400, obj{"code": "x", "message": "y"})}
			}},
		{name: "a pageToken with the parameters the operation requires", rule: "client.pagetoken-with-filters",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/calendarEvents?pageToken=abc&startTime.onOrAfter=2026-01-01T00:00:00Z&startTime.onOrBefore=2026-12-31T00:00:00Z", 200, emptyPage())}
			}},
		{name: "first pages only: nothing to look at", rule: "client.pagetoken-with-filters", nothing: true,
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?meta.modified.after=2026-01-01T00:00:00Z", 200, emptyPage())}
			}},

		{name: "the secret only in the token request", rule: "client.secret-where-it-does-not-belong",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tokenRequest(t, 0, "tok1", 3600), mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(time.Second), bearer("tok1")),
					mkEx(t, "GET /directory/v1/school", 200, offsetPage(0, 0, 0), withRequestHeader("Authorization", ""), withRequestHeader("Client-ID", "c"), withRequestHeader("Client-Secret", "s3cret-value"))}
			}},
		{name: "the secret in a URL", rule: "client.secret-where-it-does-not-belong", fails: "the URL's query",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "POST /oauth/token?client_id=c&client_secret=s3cret-value", 200, tokenAnswer("tok1", 3600), withRequestHeader("Authorization", ""))}
			}},
		{name: "the legacy secret header on interface B", rule: "client.secret-where-it-does-not-belong", fails: "Client-Secret header",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons", 200, emptyPage(), withRequestHeader("Client-Secret", "s3cret-value"))}
			}},
		{name: "the learnt secret in a query of interface B", rule: "client.secret-where-it-does-not-belong", fails: "the URL's query (key)",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tokenRequest(t, 0, "tok1", 3600), mkEx(t, "GET /api/v1/persons?key=s3cret-value", 400, obj{"code": "x", "message": "y"}, at(time.Second), bearer("tok1"))}
			}},

		{name: "one token for many requests", rule: "client.token-per-request",
			exs: func(t *testing.T) []*Exchange {
				out := []*Exchange{tokenRequest(t, 0, "tok1", 3600)}
				for i := range 5 {
					out = append(out, mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(time.Duration(i+1)*time.Second), bearer("tok1")))
				}
				return append(out, tokenRequest(t, 10*time.Second, "tok2", 3600), mkEx(t, "GET /api/v1/groups", 200, emptyPage(), at(11*time.Second), bearer("tok2")))
			}},
		{name: "a new token for every request", rule: "client.token-per-request", fails: "asked for 3 new tokens in a row",
			exs: func(t *testing.T) []*Exchange {
				var out []*Exchange
				for i := range 5 {
					tok := "tok" + strconv.Itoa(i)
					out = append(out, tokenRequest(t, time.Duration(2*i)*time.Second, tok, 3600),
						mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(time.Duration(2*i+1)*time.Second), bearer(tok)))
				}
				return out
			}},
		{name: "a new token when the old one expires", rule: "client.token-per-request",
			exs: func(t *testing.T) []*Exchange {
				var out []*Exchange
				for i := range 5 {
					tok := "tok" + strconv.Itoa(i)
					out = append(out, tokenRequest(t, time.Duration(i)*time.Hour, tok, 3600),
						mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(time.Duration(i)*time.Hour+time.Second), bearer(tok)))
				}
				return out
			}},

		{name: "a new token after a 401", rule: "client.token-after-refusal",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tokenRequest(t, 0, "tok1", 60),
					mkEx(t, "GET /api/v1/persons", 401, obj{"code": "Unauthorized", "message": "expired"}, at(time.Minute), bearer("tok1"),
						withResponseHeader("WWW-Authenticate", `Bearer error="invalid_token"`)),
					tokenRequest(t, time.Minute+time.Second, "tok2", 60),
					mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(time.Minute+2*time.Second), bearer("tok2"))}
			}},
		{name: "the refused token again", rule: "client.token-after-refusal", fails: "the access token the server refused",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tokenRequest(t, 0, "tok1", 60),
					mkEx(t, "GET /api/v1/persons", 401, obj{"code": "Unauthorized", "message": "expired"}, at(time.Minute), bearer("tok1"),
						withResponseHeader("WWW-Authenticate", `Bearer error="invalid_token"`)),
					mkEx(t, "GET /api/v1/persons", 401, obj{"code": "Unauthorized", "message": "expired"}, at(time.Minute+time.Second), bearer("tok1"))}
			}},
		{name: "requests in flight when the 401 came", rule: "client.token-after-refusal", nothing: true,
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{
					mkEx(t, "GET /api/v1/persons", 401, obj{"code": "Unauthorized", "message": "expired"}, at(time.Minute), bearer("tok1")),
					mkEx(t, "GET /api/v1/groups", 401, obj{"code": "Unauthorized", "message": "expired"}, at(time.Minute+5*time.Millisecond), bearer("tok1"))}
			}},

		{name: "waiting as Retry-After says", rule: "client.ratelimit-before-reset",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "Retry-After", "2"), mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(2*time.Second))}
			}},
		{name: "coming back at once", rule: "client.ratelimit-before-reset", fails: "before the reset",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "Retry-After", "2"), mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(20*time.Millisecond))}
			}},
		{name: "a retry of the refused request, sent before the driver saw the 429 end", rule: "client.ratelimit-before-reset", fails: "before the reset",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "Retry-After", "1"), tooMany(5*time.Millisecond, "Retry-After", "1")}
			}},
		{name: "waiting until RateLimit-Reset, read against Date", rule: "client.ratelimit-before-reset",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "RateLimit-Reset", ms(3*time.Second), "Date", date(0)),
					mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(2500*time.Millisecond))}
			}},
		{name: "ignoring RateLimit-Reset", rule: "client.ratelimit-before-reset", fails: "before the reset",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "RateLimit-Reset", ms(10*time.Second), "Date", date(0)),
					mkEx(t, "GET /api/v1/persons", 429, obj{"code": "x", "message": "y"}, at(100*time.Millisecond))}
			}},
		{name: "a server clock ahead of the client's", rule: "client.ratelimit-before-reset",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "RateLimit-Reset", ms(time.Hour+2*time.Second), "Date", date(time.Hour)),
					mkEx(t, "GET /api/v1/persons", 200, emptyPage(), at(2*time.Second))}
			}},
		{name: "another surface meanwhile", rule: "client.ratelimit-before-reset", nothing: true,
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{tooMany(0, "Retry-After", "5"), mkEx(t, "GET /directory/v1/school", 200, offsetPage(0, 0, 0), at(time.Second))}
			}},

		{name: "backing off after 5xx", rule: "client.retry-storm",
			exs: func(t *testing.T) []*Exchange {
				var out []*Exchange
				for i := range 4 {
					out = append(out, mkEx(t, "GET /api/v1/groups?limit=5", 503, obj{"code": "x", "message": "y"}, at(time.Duration(100<<i)*time.Millisecond)))
				}
				return append(out, mkEx(t, "GET /api/v1/groups?limit=5", 200, emptyPage(), at(3*time.Second)))
			}},
		{name: "a retry storm", rule: "client.retry-storm", fails: "times in a row",
			exs: func(t *testing.T) []*Exchange {
				var out []*Exchange
				for i := range 5 {
					out = append(out, mkEx(t, "GET /api/v1/groups?limit=5", 500, obj{"code": "x", "message": "y"}, at(time.Duration(i)*20*time.Millisecond)))
				}
				return out
			}},
		{name: "a retry before the 503's Retry-After", rule: "client.retry-storm", fails: "Retry-After",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/groups", 503, obj{"code": "x", "message": "y"}, at(0), withResponseHeader("Retry-After", "3")),
					mkEx(t, "GET /api/v1/groups", 200, emptyPage(), at(time.Second))}
			}},

		{name: "a create checked before it is sent again", rule: "client.write-repeated-unchecked",
			exs: func(t *testing.T) []*Exchange {
				body := withRequestBody("application/json", obj{"schoolID": id(1), "title": "7A"})
				return []*Exchange{mkEx(t, "POST /directory/v1/group", 504, "", at(0), body),
					mkEx(t, "POST /directory/v1/group/_search", 200, offsetPage(0, 0, 0), at(time.Second), withRequestBody("application/json", obj{"filter": obj{"equals": obj{"title": "7A"}, "orCondition": false}})),
					mkEx(t, "POST /directory/v1/group", 201, obj{"id": id(2)}, at(2*time.Second), body)}
			}, nothing: true},
		{name: "a create sent again unchecked", rule: "client.write-repeated-unchecked", fails: "without reading whether",
			exs: func(t *testing.T) []*Exchange {
				body := withRequestBody("application/json", obj{"schoolID": id(1), "title": "7A"})
				return []*Exchange{mkEx(t, "POST /directory/v1/group", 504, "", at(0), body),
					mkEx(t, "POST /directory/v1/group", 201, obj{"id": id(2)}, at(time.Second), body)}
			}},

		{name: "walks followed to their ends", rule: "client.walk-abandoned",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?limit=2", 200, pageWithToken("p2")),
					mkEx(t, "GET /api/v1/persons?pageToken=p2&limit=2", 200, emptyPage()),
					mkEx(t, "GET /directory/v1/school?limit=2", 200, offsetPage(0, 2, 3)),
					mkEx(t, "GET /directory/v1/school?limit=2&offset=2", 200, offsetPage(2, 1, 3))}
			}},
		{name: "a pageToken walk left after its first page", rule: "client.walk-abandoned", fails: "never asked for",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?limit=2", 200, pageWithToken("p2"))}
			}},
		{name: "a walk whose next page was refused", rule: "client.walk-abandoned", fails: "never asked for",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?meta.modified.after=2026-01-01T00:00:00Z", 200, pageWithToken("p2")),
					mkEx(t, "GET /api/v1/persons?pageToken=p2&meta.modified.after=2026-01-01T00:00:00Z", 400, obj{"code": "x", "message": "y"})}
			}},
		{name: "a walk whose next answer is not a page was followed, not left", rule: "client.walk-abandoned", nothing: true,
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /api/v1/persons?limit=2", 200, pageWithToken("p2")),
					mkEx(t, "GET /api/v1/persons?pageToken=p2&limit=2", 200, []any{})}
			}},
		{name: "an offset walk short of its total", rule: "client.walk-abandoned", fails: "read 2 of the 5 positions",
			exs: func(t *testing.T) []*Exchange {
				return []*Exchange{mkEx(t, "GET /directory/v1/school?limit=2", 200, offsetPage(0, 2, 5))}
			}},
	} {
		t.Run(s.name, func(t *testing.T) {
			j := judge(t, ProfileService, s.rule)
			for _, e := range s.exs(t) {
				e.Client = "c"
				j.Observe(e)
			}
			j.Finish()
			found, cov := findingsOf(j, s.rule), coverageOf(j, s.rule)
			switch {
			case s.fails != "":
				require.Len(t, found, 1)
				assert.Contains(t, found[0], s.fails)
			case s.nothing:
				assert.Empty(t, found)
				assert.True(t, cov.Nothing(), "judged %d", cov.Judged)
			default:
				assert.Empty(t, found)
				assert.False(t, cov.Nothing(), "the rule had nothing to look at")
			}
		})
	}
}
