// Package exam is the client exam: skolkit's mock judges a client of the
// service, as the OpenID Foundation's conformance suite plays the server and
// grades the client.
//
// An exam runs a client once per round of each scene. A scene (scene.go) is
// one named behaviour of the server that the SS 12000 standard, the
// service's spec or the vendor's facts allow, or that real servers show:
// plain, sparse, paging, token-expiry, rate-limit, faults, variants. Every
// scene runs a mock of its own (package mockserver) built from the same
// scenario at the same instant, so every scene serves the same records and a
// finding in one scene that plain does not have names that scene's
// behaviour as its cause. The client runs in a working directory of its own
// per scene, kept between the scene's rounds.
//
// The evidence is what went over the wire and what the mock knows it
// holds: every exchange between the client and the mock is captured, and at
// each round's start and end the exam reads every list of both interfaces
// as a client of its own (the oracle, oracle.go) to know which records
// exist at which version. Two kinds of finding come out of it:
//
//   - the client rules of package rules, which judge from the traffic alone
//     (and which the tap shares): requests the contract forbids, tokens,
//     rate limits, retries, walks left before their end;
//   - the exam's own findings (findings.go), which need the mock's
//     knowledge: completeness (every record of what the client reads
//     delivered at its latest version; for incremental-sync every change
//     since the previous round delivered, or its deletion), the client's
//     exit status, and efficiency notes.
//
// The exam may import mockserver (it runs the mock); mockserver must not
// import exam. The exam changes the mock only through its public Go API
// (Options, Clock, AddRules, RemoveRule, ServeHTTP) and its HTTP surfaces.
package exam
