package exam

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/rules"
)

// Verdict says whose fault a finding is.
type Verdict string

// The verdicts: the exam judges the client only.
const (
	VerdictFault Verdict = "client fault"
	VerdictNote  Verdict = "note"
)

// Severities of findings.
const (
	SeverityMust   = "MUST"
	SeverityShould = "SHOULD"
	SeverityNote   = "NOTE"
)

// Finding is one thing the client did wrong (or, as a note, could do
// better) in a round of a scene.
type Finding struct {
	// ID names the kind of finding: a client rule's id ("client.…") or
	// one of the exam's own ("exam.…").
	ID      string
	Title   string
	Family  string
	Scene   string
	Round   int
	Verdict Verdict
	// Severity is MUST, SHOULD or NOTE.
	Severity string
	// Spec is the sentence the finding rests on.
	Spec     SpecRef
	Message  string
	Expected string
	// Exchange shows it, when an exchange can: the request and the answer.
	Exchange *Exchange
	Related  []*Exchange
	// Cause names the scene's behaviour when the client has no finding of
	// this kind in plain: the behaviour it does not cope with.
	Cause string
}

// Kind is a kind of finding the exam makes itself, from the mock's
// knowledge rather than from the traffic alone.
type Kind struct {
	ID       string
	Title    string
	Family   string
	Severity string
	Verdict  Verdict
	Spec     SpecRef

	// standard is the severity under --profile ss12000, standardSpec its
	// sentence when it differs (client rules).
	standard     rules.Severity
	standardSpec *SpecRef
}

// Family of the exam's own findings.
const (
	familyCompleteness = "completeness"
	familyClient       = "client"
	familyEfficiency   = "efficiency"
)

// The exam's own kinds of finding.
var (
	KindMissing = Kind{ID: "exam.completeness.missing", Title: "every record of a list the client reads is delivered by the end of the round",
		Family: familyCompleteness, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "service spec, interface A lists and interface B placement list; SS 12000 2.1.0: Placements.pageToken",
			Quote: "`total` is the number of items that exist. … When the response `pageToken` is null, nothing more can be fetched. … Om värdet är null finns inget mer att hämta på det token som skickades in som query parameter."}}
	KindStale = Kind{ID: "exam.completeness.stale", Title: "every record is held at its latest version",
		Family: familyCompleteness, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "service spec, Common fields (meta)",
			Quote: "`modified` is the last time an attribute directly belonging to the entity changed."}}
	KindChangeMissed = Kind{ID: "exam.incremental.change-missed", Title: "an incremental round delivers every record created or changed since the previous round",
		Family: familyCompleteness, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "SS 12000 2.1.0: parameter meta.modified.after; vendor facts, Search filters",
			Quote: "Endast poster modifierade efter detta timestamp (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). Exkluderande. … The usual sync query is `{\"filter\": {\"greaterThan\": {\"meta\": {\"updatedAt\": \"2024-01-15T10:30:00Z\"}}, \"orCondition\": false}}`."}}
	KindDeletionMissed = Kind{ID: "exam.incremental.deletion-missed", Title: "an incremental round learns of every record deleted since the previous round",
		Family: familyCompleteness, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "SS 12000 2.1.0: GET /deletedEntities, parameter after; vendor facts, /audit-event",
			Quote: "Hämta borttag som inträffat efter specificerad tidpunkt (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). … one event is recorded when a record of those kinds is deleted."}}
	KindExitStatus = Kind{ID: "exam.client.exit-status", Title: "the client finishes its round with exit status 0",
		Family: familyClient, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "skolkit exam: the task",
			Quote: "The client runs once per round and reports success with exit status 0; a crash or a failure it reports is a failed round."}}
	KindTimeout = Kind{ID: "exam.client.timeout", Title: "the client finishes its round within the round timeout",
		Family: familyClient, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "skolkit exam: the task",
			Quote: "A round ends when the client exits (or, with --serve, says so); one that has not ended at --round-timeout is stopped."}}
	KindNoRequests = Kind{ID: "exam.client.no-requests", Title: "the client makes authenticated requests in its round",
		Family: familyClient, Severity: SeverityMust, Verdict: VerdictFault,
		Spec: SpecRef{Section: "service spec, Authentication, item 3",
			Quote: "Every API request carries `Authorization: Bearer <ACCESS_TOKEN>`."}}
	KindRereads = Kind{ID: "exam.efficiency.rereads", Title: "an incremental round reads what changed, not everything again",
		Family: familyEfficiency, Severity: SeverityNote, Verdict: VerdictNote,
		Spec: SpecRef{Section: "SS 12000 2.1.0: parameter meta.modified.after; vendor facts, Search filters",
			Quote: "Endast poster modifierade efter detta timestamp (RFC 3339 format, tex \"2015-12-12T10:30:00+01:00\"). Exkluderande."}}
)

// Kinds lists the exam's own kinds of finding.
func Kinds() []Kind {
	return []Kind{KindMissing, KindStale, KindChangeMissed, KindDeletionMissed, KindExitStatus, KindTimeout, KindNoRequests, KindRereads}
}

func (k Kind) finding(scene string, round int, msg, expected string, ex *Exchange) Finding {
	return Finding{ID: k.ID, Title: k.Title, Family: k.Family, Scene: scene, Round: round, Verdict: k.Verdict,
		Severity: k.Severity, Spec: k.Spec, Message: msg, Expected: expected, Exchange: ex}
}

// examples lists up to five ids of a set, sorted, with how many more.
func examples(ids []string, describe func(string) string) string {
	slices.Sort(ids)
	var parts []string
	for i, id := range ids {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ids)-5))
			break
		}
		parts = append(parts, describe(id))
	}
	return strings.Join(parts, ", ")
}
