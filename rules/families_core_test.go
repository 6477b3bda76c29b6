package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// judgeOne runs one rule over exchanges and returns its findings and
// coverage.
func judgeOne(t *testing.T, p Profile, rule string, exs ...*Exchange) ([]string, RuleCoverage) {
	t.Helper()
	j := judge(t, p, rule)
	for _, e := range exs {
		j.Observe(e)
	}
	return findingsOf(j, rule), coverageOf(j, rule)
}

func TestContractRules(t *testing.T) {
	page := func(items ...any) obj { return obj{"data": items, "pageToken": nil} }
	for _, tc := range []struct {
		name    string
		profile Profile
		rule    string
		ex      *Exchange
		fails   string // a part of the finding's message; "" passes
	}{
		{"a placement page the contract describes", ProfileService, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, page(placement(id(1)))), ""},
		{"date-times with an offset and fractions of a second", ProfileService, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, page(placement(id(1), func(p obj) {
				p["meta"] = obj{"created": "2024-01-01T09:00:00.123456+01:00", "modified": "2024-02-01T09:00:00+01:00"}
			}))), ""},
		{"a page without pageToken under the service's contract (the last page may leave it out)", ProfileService, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{}}), ""},
		{"a page without pageToken under the standard", ProfileSS12000, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{}}), ""},
		{"a person reference without securityMarking under the service's contract", ProfileService, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, page(placement(id(1), func(p obj) { p["child"] = obj{"id": id(9)} }))), "securityMarking"},
		{"a person reference without securityMarking under the standard", ProfileSS12000, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, page(placement(id(1), func(p obj) { p["child"] = obj{"id": id(9)} }))), ""},
		{"an undocumented status", ProfileService, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 418, obj{"code": "Teapot", "message": "no"}), ""},
		{"a date that is not a date", ProfileService, "contract.B.response",
			mkEx(t, "GET /api/v1/placements", 200, page(placement(id(1), func(p obj) { p["startDate"] = "2024-13-01" }))), "startDate"},
		{"a list the server does not offer, under the standard", ProfileSS12000, "contract.B.response",
			mkEx(t, "GET /api/v1/rooms", 404, ""), ""},
		{"interface A's list nested as data.resultArray", ProfileService, "contract.A.response",
			mkEx(t, "GET /directory/v1/unit?limit=1", 200, obj{"data": obj{"resultArray": []any{}}, "pagination": obj{"offset": 0, "limit": 1, "total": 0}},
				withResponseHeader("RateLimit-Limit", "1500"), withResponseHeader("RateLimit-Remaining", "1499"), withResponseHeader("RateLimit-Reset", "1767225600000")), ""},
		{"RateLimit-Reset in seconds", ProfileService, "contract.A.response",
			mkEx(t, "GET /directory/v1/unit?limit=1", 200, obj{"data": []any{}, "pagination": obj{"offset": 0, "limit": 1, "total": 0}},
				withResponseHeader("RateLimit-Limit", "1500"), withResponseHeader("RateLimit-Remaining", "1499"), withResponseHeader("RateLimit-Reset", "1767225600")), "RateLimit-Reset"},
		{"a request the contract accepts", ProfileService, "contract.request.valid",
			mkEx(t, "GET /api/v1/placements?limit=5&expand=child", 200, page()), ""},
		{"limit below one", ProfileService, "contract.request.valid",
			mkEx(t, "GET /api/v1/placements?limit=0", 400, obj{"code": "x", "message": "y"}), "limit"},
		{"an expand value the operation does not have", ProfileService, "contract.request.valid",
			mkEx(t, "GET /api/v1/placements?expand=everything", 400, obj{"code": "x", "message": "y"}), "expand"},
		{"a lookup body with a charset parameter", ProfileService, "contract.request.valid",
			mkEx(t, "POST /api/v1/groups/lookup", 200, []any{}, withRequestBody("application/json; charset=utf-8", obj{"ids": []string{id(1)}})), ""},
		{"a lookup body that is not an object", ProfileService, "contract.request.valid",
			mkEx(t, "POST /api/v1/groups/lookup", 400, obj{"code": "x", "message": "y"}, withRequestBody("application/json", `["a"]`)), "request body"},
		{"an undeclared parameter", ProfileService, "contract.request.parameters",
			mkEx(t, "GET /api/v1/placements?colour=red", 200, page()), "colour"},
		{"no bearer token", ProfileService, "contract.request.credentials",
			mkEx(t, "GET /api/v1/placements", 401, obj{"code": "x", "message": "y"}, withRequestHeader("Authorization", "")), "no Authorization header"},
		{"interface A's legacy headers", ProfileService, "contract.request.credentials",
			mkEx(t, "GET /directory/v1/school", 200, nil, withRequestHeader("Authorization", ""), withRequestHeader("Client-ID", "c"), withRequestHeader("Client-Secret", "s")), ""},
		{"an operation the contract does not have", ProfileService, "contract.request.operation",
			mkEx(t, "GET /api/v1/teachers", 404, obj{"code": "x", "message": "y"}), "no such operation"},
		{"a method the path does not have", ProfileService, "contract.request.operation",
			mkEx(t, "DELETE /api/v1/placements", 405, obj{"code": "x", "message": "y"}), "no DELETE on this path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, cov := judgeOne(t, tc.profile, tc.rule, tc.ex)
			if tc.fails == "" {
				assert.Empty(t, found)
				return
			}
			if assert.Len(t, found, 1) {
				assert.Contains(t, found[0], tc.fails)
			}
			assert.False(t, cov.Nothing())
		})
	}
	t.Run("an undocumented status fails", func(t *testing.T) {
		found, _ := judgeOne(t, ProfileService, "contract.A.response", mkEx(t, "GET /directory/v1/school", 418, obj{"error": obj{"code": "x", "message": "y", "requestID": "z"}}))
		assert.NotEmpty(t, found)
	})
}

func TestErrorsAndDatesRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile Profile
		rule    string
		ex      *Exchange
		fails   string
		nothing bool
	}{
		{"interface B's error body", ProfileService, "errors.B.body", mkEx(t, "GET /api/v1/placements/x", 400, obj{"code": "BadRequest", "message": "no"}), "", false},
		{"interface B's error body in interface A's shape", ProfileService, "errors.B.body", mkEx(t, "GET /api/v1/placements/x", 404, obj{"error": obj{"code": "NotFound"}}), "code is missing", false},
		{"an empty 404 under the standard", ProfileSS12000, "errors.B.body", mkEx(t, "GET /api/v1/placements/x", 404, ""), "", true},
		{"interface A's code of the status", ProfileService, "errors.A.body", mkEx(t, "GET /directory/v1/school/x", 404, obj{"error": obj{"code": "BadRequest", "message": "m", "requestID": "r"}}), `status 404 has code "NotFound"`, false},
		{"a token error without error", ProfileService, "errors.auth.body", mkEx(t, "POST /oauth/token", 400, obj{"message": "no"}), `"error" is missing`, false},
		{"a 422 to a GET", ProfileService, "errors.A.422-only-on-writes", mkEx(t, "GET /directory/v1/school", 422, obj{}), "neither a create", false},
		{"a 422 to a search", ProfileService, "errors.A.422-only-on-writes", mkEx(t, "POST /directory/v1/school/_search", 422, obj{}), "", false},
		{"date-times in local time with an offset", ProfileSS12000, "dates.rfc3339", mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{placement(id(1), func(p obj) {
			p["meta"] = obj{"created": "2024-01-01T09:00:00+01:00", "modified": "2024-02-01T09:00:00.5+01:00"}
		})}, "pageToken": nil}), "", false},
		{"a date-time without a zone", ProfileService, "dates.rfc3339", mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{placement(id(1), func(p obj) {
			p["meta"] = obj{"created": "2024-01-01T09:00:00", "modified": "2024-02-01T09:00:00Z"}
		})}, "pageToken": nil}), `/data/0/meta/created: "2024-01-01T09:00:00" is not an RFC 3339 date-time`, false},
		{"an undeclared member named like a date", ProfileService, "dates.rfc3339", mkEx(t, "GET /api/v1/placements", 200, obj{"data": []any{placement(id(1), func(p obj) {
			p["x-extra"] = obj{"endDate": "31/12/2024"}
		})}, "pageToken": nil}), "full-date", false},
		{"a time of day where the schema says so", ProfileService, "dates.rfc3339", mkEx(t, "GET /api/v1/attendanceSchedule/x", 200, obj{"id": id(1), "startTime": "08:00"}), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, cov := judgeOne(t, tc.profile, tc.rule, tc.ex)
			assert.Equal(t, tc.nothing, cov.Nothing(), "nothing to judge")
			if tc.fails == "" {
				assert.Empty(t, found)
				return
			}
			if assert.Len(t, found, 1) {
				assert.Contains(t, found[0], tc.fails)
			}
		})
	}
}
