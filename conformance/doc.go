// Package conformance is the conformance runner of skolkit: one test suite
// sent against any implementation's URLs (the token endpoint, interface A,
// interface B and the data export) that tells a vendor exactly where it
// departs from the spec.
//
// It owns:
//
//   - the catalogue (check.go and checks_*.go): small named check functions,
//     each with an id such as B.placements.pagetoken-with-filter, the spec
//     sentence it enforces, a level (read is safe against production data;
//     write creates, changes and deletes only records it made and removes them
//     afterwards) and a severity (MUST or SHOULD), in the manner of
//     Schemathesis's checks;
//   - the runner (runner.go, client.go, data.go): selection by level and
//     --include/--exclude, concurrency, an HTTP client with per-request
//     timeouts, bounded reads, no redirects to other hosts, rate-limit waits,
//     OAuth 2.0 client credentials (golang.org/x/oauth2/clientcredentials) and
//     a client secret that only ever travels to the token endpoint (and, with
//     legacy authentication, to interface A);
//   - the judging of every exchange the run makes by the server rules of
//     package rules (judge.go: each selected rule is a result of the run;
//     all.user-spec validates against a user-supplied OpenAPI document too),
//     and the traffic those rules need on every operation of the contract
//     (traffic.go: walks with a changing limit, filtered and sorted walks,
//     pages, reads by id, lookups and searches, derived from the contract);
//   - the second, read-only client of auth.insufficient-permission-403;
//   - the Markdown catalogue that docs/conformance.md is generated from, with
//     the coverage table of the contract (coverage_table.go). The reports
//     themselves are package report's.
//
// The package is built from the spec independently of the mock, so that each
// catches the other's mistakes: it imports openapi, rules, report and
// libraries only, and must never import mockserver, fixtures, model or
// scenarios (its tests do not either; end-to-end runs against the mock live in
// cmd/skolkit).
package conformance

//go:generate sh -c "cd .. && go run ./cmd/skolkit conformance --list --format markdown > docs/conformance.md"
