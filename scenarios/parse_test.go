package scenarios_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/scenarios"
)

// problems parses src as "s.yaml" and returns its problems as strings.
func problems(t *testing.T, src string) []string {
	t.Helper()
	sc, err := scenarios.Parse("s.yaml", []byte(src))
	require.Error(t, err, "the scenario parsed")
	assert.Nil(t, sc, "a scenario with problems must not be returned")
	var le *scenarios.LoadError
	require.True(t, errors.As(err, &le), "want a *LoadError, got %T: %v", err, err)
	var out []string
	for _, p := range le.Problems {
		assert.Equal(t, "s.yaml", p.File)
		out = append(out, p.String())
	}
	return out
}

// records wraps record lists in a valid scenario: the lists start on line 4.
func records(lists string) string {
	return "name: t\ngenerate: {profile: none}\nrecords:\n" + lists
}

const twoPersons = `  persons:
    - {alias: alva, givenName: Alva, familyName: Öberg}
    - {alias: mamma, givenName: Eva, familyName: Öberg}
`

func TestParseReportsEachProblemWithItsPosition(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown top-level key, with a suggestion",
			src:  "name: t\ncolck: real\n",
			want: []string{`s.yaml:2:1: colck: unknown key "colck"; did you mean "clock"?`},
		},
		{
			name: "unknown key in a record, listing the known ones",
			src:  records("  schools:\n    - alias: a\n      displayName: A\n      zzzzzzzz: 1\n"),
			want: []string{`s.yaml:7:7: records.schools[0].zzzzzzzz: unknown key "zzzzzzzz"; known keys: alias, id, displayName, ` +
				`schoolUnitCode, organisationCode, schoolTypes, organiser, municipalityCode, address, url, email, phoneNumber, startDate, endDate, unit`},
		},
		{
			name: "SS 12000 records: references to the wrong kind, missing fields, bad values",
			src: records("  schools:\n    - {alias: s, displayName: S}\n  rooms:\n    - {alias: r, displayName: R, owner: nowhere}\n" +
				"  activities:\n    - {alias: a, displayName: A, organisation: s, groups: [r], activityType: Lek, startDate: 2026-01-01}\n" +
				"  grades:\n    - {student: r, organisation: s, registeredBy: r, syllabus: r, gradeValue: A, registeredDate: 2026-01-01, semester: HT1}\n"),
			want: []string{
				`s.yaml:7:41: records.rooms[0].owner: no school has the alias "nowhere"`,
				`s.yaml:9:60: records.activities[0].groups[0]: "r" is a room, not a group`,
				`s.yaml:9:78: records.activities[0].activityType: "Lek" is not an activity type; one of Undervisning, Elevaktivitet, Provaktivitet, Läraraktivitet, Övrigt`,
				`s.yaml:11:17: records.grades[0].student: "r" is a room, not a person`,
				`s.yaml:11:51: records.grades[0].registeredBy: "r" is a room, not a person`,
				`s.yaml:11:64: records.grades[0].syllabus: "r" is a room, not a syllabus`,
				`s.yaml:11:120: records.grades[0].semester: "HT1" is not a semester; one of HT, VT`,
			},
		},
		{
			name: "a lesson held at another school, for another group and teacher than its activity's",
			src: records("  schools:\n    - {alias: s, displayName: S}\n    - {alias: s2, displayName: S2}\n" +
				"  persons:\n    - {alias: t, givenName: T, familyName: T}\n    - {alias: t2, givenName: U, familyName: U}\n" +
				"  groups:\n    - {alias: g, displayName: G, groupType: Undervisning, organisation: s, startDate: 2026-01-01}\n    - {alias: g2, displayName: G2, groupType: Undervisning, organisation: s2, startDate: 2026-01-01}\n" +
				"  syllabuses:\n    - {alias: ma, schoolType: GR, subjectCode: MA, subjectName: Matematik}\n" +
				"  activities:\n    - {alias: a, displayName: A, organisation: s, groups: [g], teachers: [t], startDate: 2026-01-01}\n" +
				"  calendarEvents:\n    - {title: L, startTime: 2026-01-05T08:00:00Z, endTime: 2026-01-05T09:00:00Z, organisation: s2, group: g2, syllabus: ma, teacher: t2, activity: a}\n" +
				"    - {title: L, startTime: 2026-01-05T08:00:00Z, endTime: 2026-01-05T09:00:00Z, organisation: s, group: g, syllabus: ma, teacher: t, activity: a}\n"),
			want: []string{
				`s.yaml:18:96: records.calendarEvents[0].organisation: "s2" is not the organisation of activity "a" ("s"): a lesson is held where its activity is`,
				`s.yaml:18:107: records.calendarEvents[0].group: "g2" is not one of the groups of activity "a" [g]`,
				`s.yaml:18:134: records.calendarEvents[0].teacher: "t2" is not one of the teachers of activity "a" [t]`,
			},
		},
		{
			name: "wrong type: a string where an integer belongs",
			src:  "name: t\nseed: many\n",
			want: []string{`s.yaml:2:7: seed: expected an integer, got the string "many"`},
		},
		{
			name: "wrong type: a list where a mapping belongs",
			src:  "name: t\ngenerate: [1, 2]\n",
			want: []string{`s.yaml:2:11: generate: expected a mapping, got a list`},
		},
		{
			name: "wrong type: a mapping where a string belongs",
			src:  "name: {first: t}\n",
			want: []string{`s.yaml:1:7: name: expected a string, got a mapping`},
		},
		{
			name: "wrong type: a string where a list belongs",
			src:  "name: t\nclients:\n  - id: a\n    secret: b\n    scopes: all\n",
			want: []string{`s.yaml:5:13: clients[0].scopes: expected a list, got the string "all"`},
		},
		{
			name: "wrong type: a number where a boolean belongs",
			src:  records("  syllabuses:\n    - {schoolType: GR, subjectName: Matematik, official: 1}\n"),
			want: []string{`s.yaml:5:58: records.syllabuses[0].official: expected true or false, got the number 1`},
		},
		{
			name: "a key given twice",
			src:  "name: t\nseed: 1\nseed: 2\n",
			want: []string{`s.yaml:3:1: seed: duplicate key "seed" (first at line 2)`},
		},
		{
			name: "a missing required value, reported at its mapping",
			src:  "seed: 1\nclients:\n  - id: a\n",
			want: []string{
				`s.yaml:1:1: name: required`,
				`s.yaml:3:5: clients[0].secret: required`,
			},
		},
		{
			name: "dangling alias",
			src: records(twoPersons + `  schools: [{alias: ekskolan, displayName: Ekskolan}]
  placements:
    - {child: alva, placedAt: nowhere, schoolType: FS, startDate: 2026-01-01}
`),
			want: []string{`s.yaml:9:31: records.placements[0].placedAt: no school has the alias "nowhere"`},
		},
		{
			name: "duplicate alias, across kinds",
			src: records(twoPersons + `  schools:
    - {alias: alva, displayName: Alvaskolan}
`),
			want: []string{`s.yaml:8:15: records.schools[0].alias: duplicate alias "alva" (first used by the person at line 5:15)`},
		},
		{
			name: "alias of the wrong kind",
			src: records(twoPersons + `  schools: [{alias: ekskolan, displayName: Ekskolan}]
  groups:
    - {alias: g, displayName: G, groupType: Klass, organisation: ekskolan, startDate: 2026-01-01, members: [alva, ekskolan]}
`),
			want: []string{`s.yaml:9:115: records.groups[0].members[1].person: "ekskolan" is a school, not a person`},
		},
		{
			name: "placement ending before it starts",
			src: records(twoPersons + `  schools: [{alias: ekskolan, displayName: Ekskolan}]
  placements:
    - child: alva
      placedAt: ekskolan
      schoolType: FS
      startDate: 2026-03-01
      endDate: 2026-01-01
`),
			want: []string{`s.yaml:13:16: records.placements[0].endDate: 2026-01-01 is before startDate 2026-03-01`},
		},
		{
			name: "school type outside its enumeration",
			src:  records("  schools: [{alias: s, displayName: S, schoolTypes: [FS, XX]}]\n"),
			want: []string{`s.yaml:4:58: records.schools[0].schoolTypes[1]: "XX" is not a school type; one of ` +
				`FS, FKLASS, FTH, OPPFTH, GR, GRS, TR, SP, SAM, GY, GYS, VUX, VUXSFI, VUXGR, VUXGY, VUXSARGR, VUXSARTR, ` +
				`VUXSARGY, SFI, SARVUX, SARVUXGR, SARVUXGY, KU, YH, FHS, STF, KKU, HS, ABU, AU`},
		},
		{
			name: "placement school type outside FS, FTH, OPPFTH",
			src: records(twoPersons + `  schools: [{alias: ekskolan, displayName: Ekskolan}]
  placements:
    - {child: alva, placedAt: ekskolan, schoolType: GR, startDate: 2026-01-01}
`),
			want: []string{`s.yaml:9:53: records.placements[0].schoolType: "GR" is not a school type of placements; one of FS, FTH, OPPFTH`},
		},
		{
			name: "malformed date",
			src:  records("  schools: [{alias: s, displayName: S, startDate: 2026-02-30}]\n"),
			want: []string{`s.yaml:4:51: records.schools[0].startDate: "2026-02-30" is not a date (YYYY-MM-DD)`},
		},
		{
			name: "malformed date-time, and an end before its start",
			src: records(twoPersons + `  schools: [{alias: ekskolan, displayName: Ekskolan}]
  absences:
    - student: alva
      organisation: ekskolan
      registrationDate: 2026-03-02
      startTime: 2026-03-02T08:00:00+01:00
      endTime: 2026-03-02T07:00:00+01:00
      type: Giltig
    - student: alva
      organisation: ekskolan
      registrationDate: 2026-03-02
      startTime: 2026-03-02 08:00
      endTime: 2026-03-02T07:00:00+01:00
      type: Giltig
`),
			want: []string{
				`s.yaml:13:16: records.absences[0].endTime: 2026-03-02T07:00:00+01:00 is before startTime 2026-03-02T08:00:00+01:00`,
				`s.yaml:18:18: records.absences[1].startTime: "2026-03-02 08:00" is not an RFC 3339 date-time (like 2026-03-14T08:15:00+01:00)`,
			},
		},
		{
			name: "malformed civic number",
			src:  records("  persons:\n    - {alias: a, givenName: A, familyName: B, civicNo: \"201301011234\"}\n"),
			want: []string{`s.yaml:5:56: records.persons[0].civicNo.value: "201301011234" is not a civic number: 12 characters ` +
				`YYYYMMDDNNNC without separators, a valid date (day + 60 for a coordination number) and a correct check digit, ` +
				`or a temporary number with letters in positions 9 and 10`},
		},
		{
			name: "explicit ids: not a UUID, and given twice",
			src: records(`  schools:
    - {alias: a, id: not-a-uuid, displayName: A}
    - {alias: b, id: 0b6f3c9e-5d1a-4c43-8e1f-3a2b1c0d9e8f, displayName: B}
    - {alias: c, id: 0b6f3c9e-5d1a-4c43-8e1f-3a2b1c0d9e8f, displayName: C}
`),
			want: []string{
				`s.yaml:5:22: records.schools[0].id: "not-a-uuid" is not a UUID in lower-case hex with hyphens (like 5f0c7c1e-4a43-4f45-9e0a-1c2b3d4e5f60)`,
				`s.yaml:7:22: records.schools[2].id: id 0b6f3c9e-5d1a-4c43-8e1f-3a2b1c0d9e8f is also the id of records.schools[1]`,
			},
		},
		{
			name: "a person responsible for themselves",
			src:  records("  persons:\n    - {alias: a, givenName: A, familyName: B, responsibles: [{person: a}]}\n"),
			want: []string{`s.yaml:5:71: records.persons[0].responsibles[0].person: "a" cannot be responsible for themselves`},
		},
		{
			name: "negative count",
			src:  "name: t\ngenerate:\n  children: -1\n",
			want: []string{`s.yaml:3:13: generate.children: -1 is negative`},
		},
		{
			name: "counts that do not fit together, at the generate key",
			src:  "name: t\ngenerate:\n  profile: none\n  placements: 5\n",
			want: []string{`s.yaml:3:3: generate: Placements > 0 needs Children > 0`},
		},
		{
			name: "unknown profile",
			src:  "name: t\ngenerate: {profile: huge}\n",
			want: []string{`s.yaml:2:21: generate.profile: "huge" is not a profile; one of default, large, none`},
		},
		{
			name: "probability outside [0, 1]",
			src:  "name: t\nbehaviours:\n  faults:\n    - {route: GET /x, status: 500, probability: 1.5}\n",
			want: []string{`s.yaml:4:49: behaviours.faults[0].probability: 1.5 is not a probability from 0 to 1`},
		},
		{
			name: "two firing modes",
			src:  "name: t\nbehaviours:\n  faults:\n    - {route: GET /x, status: 500, firstN: 2, everyNth: 3}\n",
			want: []string{`s.yaml:4:44: behaviours.faults[0].firstN: give at most one of everyNth, firstN and probability (also has everyNth)`},
		},
		{
			name: "status outside 200 to 599, missing route",
			src:  "name: t\nbehaviours:\n  faults:\n    - {status: 99}\n",
			want: []string{
				`s.yaml:4:7: behaviours.faults[0].route: required`,
				`s.yaml:4:16: behaviours.faults[0].status: 99 is not an HTTP status from 200 to 599`,
			},
		},
		{
			name: "latency range whose minimum exceeds its maximum",
			src:  "name: t\nbehaviours:\n  latency:\n    - route: GET /api/v1/placements*\n      delay: 300ms-50ms\n",
			want: []string{`s.yaml:5:14: behaviours.latency[0].delay: the range "300ms-50ms" runs backwards: 300ms is more than 50ms`},
		},
		{
			name: "malformed delay",
			src:  "name: t\nbehaviours:\n  latency:\n    - {route: /x, delay: soon}\n",
			want: []string{`s.yaml:4:26: behaviours.latency[0].delay: "soon" is not a delay like 200ms or a range like 50ms-300ms`},
		},
		{
			name: "unknown route method",
			src:  "name: t\nbehaviours:\n  latency:\n    - {route: FETCH /x, delay: 1ms}\n",
			want: []string{`s.yaml:4:15: behaviours.latency[0].route: unknown route method "FETCH" in "FETCH /x"; one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or *`},
		},
		{
			name: "route path without a leading slash",
			src:  "name: t\nbehaviours:\n  latency:\n    - {route: GET api/v1, delay: 1ms}\n",
			want: []string{`s.yaml:4:15: behaviours.latency[0].route: the path of route "GET api/v1" must start with /`},
		},
		{
			name: "unknown deviation",
			src:  "name: t\nbehaviours:\n  deviations: [pagination-total-wong]\n",
			want: []string{`s.yaml:3:16: behaviours.deviations[0]: unknown deviation "pagination-total-wong"; known: ` + strings.Join(deviation.Names(), ", ")},
		},
		{
			name: "unknown and repeated variants",
			src:  "name: t\nbehaviours:\n  variants: [empty-404, empty-404, pagetoken-wobble]\n",
			want: []string{
				`s.yaml:3:25: behaviours.variants[1]: variant "empty-404" is listed twice`,
				`s.yaml:3:36: behaviours.variants[2]: unknown variant "pagetoken-wobble"; known: absent-optional-members, clamped-limit, empty-404, extra-properties, extra-token-fields, local-time-offset, long-fractional-seconds, pagetoken-encoding, references-without-security-marking, reordered-members, short-pages, small-default-page, token-type-lowercase, whole-seconds`,
			},
		},
		{
			name: "clock neither real nor a date-time",
			src:  "name: t\nclock: {now: yesterday}\n",
			want: []string{`s.yaml:2:14: clock.now: "yesterday" is not an RFC 3339 date-time (like 2026-03-14T10:30:00Z) or real`},
		},
		{
			name: "non-positive token lifetime and rate limit",
			src:  "name: t\ntokenLifetime: 0\nclients:\n  - {id: a, secret: b, rateLimit: -1}\n",
			want: []string{
				`s.yaml:2:16: tokenLifetime: 0 is not a positive number of seconds`,
				`s.yaml:4:35: clients[0].rateLimit: -1 is not a positive number of requests per hour`,
			},
		},
		{
			name: "duplicate client id",
			src:  "name: t\nclients:\n  - {id: a, secret: b}\n  - {id: a, secret: c}\n",
			want: []string{`s.yaml:4:10: clients[1].id: duplicate client id "a" (first at line 3:10)`},
		},
		{
			name: "list shape outside its enumeration",
			src:  "name: t\nlistShape: data.items\n",
			want: []string{`s.yaml:2:12: listShape: "data.items" is not a list shape; one of data, data.resultArray`},
		},
		{
			name: "school unit code not 8 digits",
			src:  records("  schools: [{alias: s, displayName: S, schoolUnitCode: 1234}]\n"),
			want: []string{`s.yaml:4:56: records.schools[0].schoolUnitCode: "1234" is not a school unit code of 8 digits`},
		},
		{
			name: "YAML syntax error, with its line",
			src:  "name: t\nclients: [\n",
			want: []string{`s.yaml:2: YAML syntax: did not find expected node content`},
		},
		{
			name: "empty file",
			src:  "",
			want: []string{`s.yaml: the file is empty`},
		},
		{
			name: "a second document",
			src:  "name: t\n---\nname: u\n",
			want: []string{`s.yaml:2:1: a scenario file holds one YAML document; this is a second one`},
		},
		{
			name: "not a mapping",
			src:  "- name: t\n",
			want: []string{`s.yaml:1:1: expected a mapping, got a list`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, problems(t, tt.src))
		})
	}
}

func TestParseReportsAllProblemsAtOnceInFileOrder(t *testing.T) {
	src := `name: t
seed: x
clients:
  - {id: a, secret: s, rateLimit: 0}
generate:
  children: -1
records:
  persons:
    - {alias: alva, givenName: Alva, familyName: Öberg}
  placements:
    - {child: alva, placedAt: nowhere, schoolType: GR, startDate: 2026-03-01, endDate: 2026-01-01}
behaviours:
  latency: [{route: GET /x, delay: 3s-1s}]
  faults: [{route: GET /x, status: 500, probability: -0.5}]
  deviations: [nope]
colour: blue
`
	got := problems(t, src)
	want := []string{
		`s.yaml:2:7: seed: expected an integer, got the string "x"`,
		`s.yaml:4:35: clients[0].rateLimit: 0 is not a positive number of requests per hour`,
		`s.yaml:6:13: generate.children: -1 is negative`,
		`s.yaml:11:31: records.placements[0].placedAt: no school has the alias "nowhere"`,
		`s.yaml:11:52: records.placements[0].schoolType: "GR" is not a school type of placements; one of FS, FTH, OPPFTH`,
		`s.yaml:11:88: records.placements[0].endDate: 2026-01-01 is before startDate 2026-03-01`,
		`s.yaml:13:36: behaviours.latency[0].delay: the range "3s-1s" runs backwards: 3s is more than 1s`,
		`s.yaml:14:54: behaviours.faults[0].probability: -0.5 is not a probability from 0 to 1`,
		`s.yaml:15:16: behaviours.deviations[0]: unknown deviation "nope"; known: ` + strings.Join(deviation.Names(), ", "),
		`s.yaml:16:1: colour: unknown key "colour"; known keys: name, description, seed, clock, tokenLifetime, clients, generate, records, behaviours, listShape, webhooks, profile`,
	}
	assert.Equal(t, want, got)
}

func TestLoadErrorCarriesEveryField(t *testing.T) {
	_, err := scenarios.Parse("dir/my.yaml", []byte("name: t\nseed: x\n"))
	var le *scenarios.LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "dir/my.yaml", le.File)
	require.Len(t, le.Problems, 1)
	assert.Equal(t, scenarios.Problem{
		File: "dir/my.yaml", Line: 2, Column: 7, Path: "seed",
		Message: `expected an integer, got the string "x"`,
	}, le.Problems[0])
	assert.Equal(t, `dir/my.yaml:2:7: seed: expected an integer, got the string "x"`, err.Error())
}

func TestParseAcceptsBothShapesOfTheFlexibleKeys(t *testing.T) {
	src := records(twoPersons+`  schools: [{alias: s, displayName: S}]
  groups:
    - alias: g
      displayName: G
      groupType: Klass
      organisation: s
      startDate: 2026-01-01
      members: [alva, {person: mamma, startDate: 2026-02-01, endDate: 2026-02-28}]
`) + `clock:
  now: real
behaviours:
  faults:
    - {route: /x, status: 500, body: plain text}
    - {route: /y, status: 503, body: {code: Unavailable, n: 1}}
`
	sc, err := scenarios.Parse("s.yaml", []byte(src))
	require.NoError(t, err)
	assert.False(t, sc.Clock.Fixed())
	g := sc.Records.Groups[0]
	assert.Equal(t, []scenarios.Member{{Person: "alva"}, {Person: "mamma", StartDate: "2026-02-01", EndDate: "2026-02-28"}}, g.Members)
	assert.Equal(t, scenarios.FaultBody("plain text"), sc.Behaviours.Faults[0].Body)
	assert.Equal(t, "text/plain; charset=utf-8", sc.Behaviours.Faults[0].ContentType())
	assert.JSONEq(t, `{"code":"Unavailable","n":1}`, string(sc.Behaviours.Faults[1].Body))
	assert.Equal(t, "application/json", sc.Behaviours.Faults[1].ContentType())
}

func TestParseGuardsAgainstAliasBombs(t *testing.T) {
	// Each anchor doubles the values of the one before: a39 stands for 2^40.
	var b strings.Builder
	b.WriteString("name: t\nanchors:\n  - &a0 [1, 2]\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, "  - &a%d [*a%d, *a%d]\n", i, i-1, i-1)
	}
	b.WriteString("behaviours:\n  faults:\n    - {route: /x, status: 500, body: *a39}\n")
	got := problems(t, b.String())
	require.Len(t, got, 2)
	assert.Equal(t, `s.yaml:2:1: anchors: unknown key "anchors"; known keys: name, description, seed, clock, tokenLifetime, clients, generate, records, behaviours, listShape, webhooks, profile`, got[0])
	assert.Contains(t, got[1], "s.yaml:45:38: behaviours.faults[0].body: cannot read the body: ")
}
