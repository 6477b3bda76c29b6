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
//   - contract validation of every response (validate.go) against the
//     embedded contract (package openapi) and, optionally, a user-supplied
//     OpenAPI document;
//   - the reporters: console, JUnit XML, JSON, self-contained HTML, and the
//     Markdown catalogue that docs/conformance.md is generated from.
//
// The package is built from the spec independently of the mock, so that each
// catches the other's mistakes: it imports openapi and libraries only, and
// must never import mockserver, fixtures, model or scenarios (its tests do
// not either; end-to-end runs against the mock live in cmd/skolkit).
package conformance

//go:generate sh -c "cd .. && go run ./cmd/skolkit conformance --list --format markdown > docs/conformance.md"
