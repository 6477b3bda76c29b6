// Package report is the report of a run that judged traffic — the
// conformance runner's, the tap's and the exam's alike: the model
// (Report, Result, Failure, Exchange) and its writers (console, JUnit XML,
// JSON, self-contained HTML), and the redaction applied when an exchange
// becomes a report excerpt (Redactor: client secrets, access tokens, the
// legacy Client-Secret header and Basic credentials shown as shell
// variables, bodies cut to an excerpt, a curl line that reproduces the
// request).
//
// It imports rules (for the vocabulary: severities, profiles, spec
// references, exchanges) and libraries only; it knows nothing of who made
// the report.
package report
