// Package rules is skolkit's engine of rules over exchanges: small named
// predicates over one request and its answer, or over the history of
// exchanges so far, that judge a server (this page holds at most the limit
// sent with this request; this record reads the same in the list as by id)
// or a client (this request does not combine pageToken with a filter; this
// client asked for a new token after its 401).
//
// A rule judges only from what it sees on the wire, never from what a
// driver meant to send, so that one rule serves three drivers: the
// conformance runner (traffic it generates, judging the server), the tap
// (traffic between someone's client and someone's server, judging both)
// and the exam (a client's traffic against the mock, judging the client).
//
// It owns:
//
//   - the exchange (exchange.go): one request and answer as a driver saw
//     them, the surfaces and Prefixes that classify URL paths into them, and
//     Capture (capture.go), the middleware that hands a handler's exchanges
//     to a sink;
//   - the operation index (contract.go): every operation of the embedded
//     contract (package openapi) with its kind, resource, parameters,
//     expand values, paging style and the filters its parameters express,
//     derived from the documents (and their x-skolkit-filter extensions)
//     under a profile, never from a list of paths;
//   - Rule, Context, History, Judge, Finding and Coverage (rule.go,
//     context.go, history.go, judge.go): each family's file has one
//     function that returns its rules, rule.go lists those functions, and
//     Catalogue lists the rules; a Judge applies them to a stream of
//     exchanges, safe for concurrent use, keeps a bounded History (walks,
//     records seen per presentation, referents, writes, clients) that says
//     when it dropped, and reports findings and, per rule, what it could
//     judge (nothing seen is never a pass);
//   - the families of server rules: contract (answers the contract
//     describes), errors (error bodies), dates (RFC 3339 everywhere,
//     compared as instants), and, over every operation they concern,
//     paging, filters, representation, references, writes and headers;
//   - the families of client rules: contract (requests the contract
//     accepts: an operation it has, parameters it declares, valid values,
//     credentials), and the traffic-only families the exam and the tap add
//     as files here (requests, tokens, ratelimit, retries, walks).
//
// It imports openapi and libraries only. It must never import mockserver,
// conformance, exam, tap, model, fixtures or scenarios: the drivers depend
// on it, and the mock is judged by it, not known to it.
package rules
