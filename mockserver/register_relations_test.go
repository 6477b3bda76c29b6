package mockserver

// The persons list's relationship.* filters (SS 12000: relationship.entity.type,
// relationship.organisation, relationship.startDate.*, relationship.endDate.*)
// against a brute-force reading of the records, page by page, with writes
// between pages and writes through interface A that change who relates to an
// organisation (docs/decisions.md#relation-lists).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// relationKinds are SS 12000's relationship.entity.type values.
var relationKinds = []string{
	"enrolment", "duty", "placement.child", "placement.owner",
	"responsibleFor.enrolment", "responsibleFor.placement", "groupMembership",
}

// definedRelation is one relationship of a person as SS 12000's parameter
// descriptions define it: its kind, organisation and dates. byRole marks a
// groupMembership through an assignment role of one of the person's duties,
// which the date bounds count and the organisation filter and the entity type
// alone do not (docs/decisions.md#assignment-role-relationship).
type definedRelation struct {
	kind, org  string
	start, end model.Date
	byRole     bool
}

// relationsByDefinition lists every person's relationships, read from the
// records: enrolments (enroledAt), duties (dutyAt), placements of interface
// B as child and as owner (placedAt), the enrolments and placements of the
// children a person is responsible for, group memberships (the group's
// organisation; a membership without dates has the group's) and the groups'
// assignment roles of the person's duties (the same).
func relationsByDefinition(ds *store.Dataset) map[string][]definedRelation {
	out := map[string][]definedRelation{}
	add := func(person string, r definedRelation) { out[person] = append(out[person], r) }
	responsibles := map[string][]string{}
	for _, p := range ds.Persons {
		for _, r := range p.Responsibles {
			responsibles[p.ID] = append(responsibles[p.ID], r.Person.ID)
		}
	}
	for _, p := range ds.Persons {
		for _, e := range p.Enrolments {
			r := definedRelation{"enrolment", e.EnroledAt.ID, e.StartDate, e.EndDate, false}
			add(p.ID, r)
			r.kind = "responsibleFor.enrolment"
			for _, adult := range uniq(slices.Clone(responsibles[p.ID])) {
				add(adult, r)
			}
		}
	}
	for _, d := range ds.EmployeePlacements {
		add(d.EmployeeID, definedRelation{"duty", d.SchoolID, d.StartDate, d.EndDate, false})
	}
	for _, pl := range ds.Placements {
		if !model.IsRegisterPlacement(&pl) {
			continue
		}
		r := definedRelation{"placement.child", pl.PlacedAt.ID, pl.StartDate, pl.EndDate, false}
		add(pl.Child.ID, r)
		r.kind = "placement.owner"
		for _, o := range pl.Owners {
			add(o.ID, r)
		}
		r.kind = "responsibleFor.placement"
		for _, adult := range uniq(slices.Clone(responsibles[pl.Child.ID])) {
			add(adult, r)
		}
	}
	dutyPerson := map[string]string{}
	for _, d := range ds.EmployeePlacements {
		dutyPerson[d.ID] = d.EmployeeID
	}
	for _, g := range ds.Groups {
		withGroupDates := func(r definedRelation) definedRelation {
			if r.start == "" {
				r.start = g.StartDate
			}
			if r.end == "" {
				r.end = g.EndDate
			}
			return r
		}
		for _, m := range g.GroupMemberships {
			add(m.Person.ID, withGroupDates(definedRelation{"groupMembership", g.Organisation.ID, m.StartDate, m.EndDate, false}))
		}
		for _, ar := range g.AssignmentRoles {
			if person, ok := dutyPerson[ar.Duty.ID]; ok {
				add(person, withGroupDates(definedRelation{"groupMembership", g.Organisation.ID, ar.StartDate, ar.EndDate, true}))
			}
		}
	}
	return out
}

// relationQuery holds relationship.* parameters ("" = absent).
type relationQuery struct {
	kind, org                                    string
	startBefore, startAfter, endBefore, endAfter model.Date
}

func (q relationQuery) values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("relationship.entity.type", q.kind)
	set("relationship.organisation", q.org)
	set("relationship.startDate.onOrBefore", string(q.startBefore))
	set("relationship.startDate.onOrAfter", string(q.startAfter))
	set("relationship.endDate.onOrBefore", string(q.endBefore))
	set("relationship.endDate.onOrAfter", string(q.endAfter))
	return v
}

// passes: one relationship passes every parameter given; a relationship
// without an endDate passes both endDate bounds; an assignment role passes
// only date bounds, without an organisation.
func (q relationQuery) passes(r definedRelation) bool {
	dated := q.startBefore != "" || q.startAfter != "" || q.endBefore != "" || q.endAfter != ""
	return (!r.byRole || (dated && q.org == "")) &&
		(q.kind == "" || r.kind == q.kind) && (q.org == "" || r.org == q.org) &&
		(q.startBefore == "" || r.start <= q.startBefore) && (q.startAfter == "" || r.start >= q.startAfter) &&
		(q.endBefore == "" || r.end == "" || r.end <= q.endBefore) && (q.endAfter == "" || r.end == "" || r.end >= q.endAfter)
}

// wantRelated lists, in id order, the persons with a relationship that
// passes q.
func wantRelated(rels map[string][]definedRelation, q relationQuery) []string {
	var out []string
	for person, rs := range rels {
		if slices.ContainsFunc(rs, q.passes) {
			out = append(out, person)
		}
	}
	slices.Sort(out)
	return out
}

// unlimited serves a built-in scenario with a seed and no rate limit: the
// tests below send a few hundred requests.
func unlimited(t testing.TB, name string, seed int64) func(*Options) {
	sc, err := scenarios.Builtin(name)
	require.NoError(t, err)
	sc.Clients = slices.Clone(sc.Clients)
	for i := range sc.Clients {
		sc.Clients[i].RateLimit = 1 << 30
	}
	return func(o *Options) { o.Scenario, o.Seed = sc, &seed }
}

// busiestOrganisations are the organisations with the most relationships of
// each kind (the ones a brute-force comparison learns most from).
func busiestOrganisations(rels map[string][]definedRelation) []string {
	count := map[string]map[string]int{} // kind → organisation → relationships
	for _, rs := range rels {
		for _, r := range rs {
			if count[r.kind] == nil {
				count[r.kind] = map[string]int{}
			}
			count[r.kind][r.org]++
		}
	}
	var orgs []string
	for _, k := range relationKinds {
		best, n := "", 0
		for org, c := range count[k] {
			if c > n || (c == n && org < best) {
				best, n = org, c
			}
		}
		if best != "" && !slices.Contains(orgs, best) {
			orgs = append(orgs, best)
		}
	}
	return orgs
}

func TestRelationshipFiltersAgreeWithTheDefinition(t *testing.T) {
	for _, c := range []struct {
		scenario string
		seed     int64
	}{{"default", 12000}, {"default", 3}, {"edge-cases", 4711}, {"edge-cases", 8}} {
		t.Run(fmt.Sprintf("%s seed %d", c.scenario, c.seed), func(t *testing.T) {
			h := newHarness(t, unlimited(t, c.scenario, c.seed))
			ds := h.srv.store.Export()
			rels := relationsByDefinition(ds)
			orgs := busiestOrganisations(rels)
			require.NotEmpty(t, orgs)
			// Every kind is present somewhere in the default scenario.
			if c.scenario == "default" {
				for _, k := range relationKinds {
					assert.NotEmpty(t, wantRelated(rels, relationQuery{kind: k}), "the scenario has %s relationships", k)
				}
			}
			// Dates from the records: a placement's start and end.
			var start, end model.Date
			for _, pl := range ds.Placements {
				if pl.EndDate != "" {
					start, end = pl.StartDate, pl.EndDate
					break
				}
			}
			require.NotEmpty(t, end)
			dated := []relationQuery{
				{},
				{startBefore: start},
				{startAfter: start},
				{endAfter: end},
				{endBefore: start}, // open-ended relationships, and those that ended early
				{endBefore: end, startAfter: start},
				{startBefore: end, endAfter: start}, // active between the two dates
			}
			cases, found, persons := 0, 0, 0
			for _, org := range append(orgs, unknownOrganisation) {
				for _, kind := range append([]string{""}, relationKinds...) {
					for _, d := range dated {
						q := d
						q.org, q.kind = org, kind
						want := wantRelated(rels, q)
						got := walkPages(t, h, "/persons", q.values().Encode(), "", 25, nil)
						assert.Equal(t, want, got, "%s", q.values().Encode())
						cases++
						if len(want) > 0 {
							found++
							persons += len(want)
						}
					}
				}
			}
			t.Logf("%d queries, %d of them select persons (%d in all)", cases, found, persons)
			assert.Greater(t, found, cases/3, "most queries select someone: the comparison is not vacuous")
			// Without an organisation the filters read every person (not
			// index-driven): a few of them, for the definition's sake.
			for _, q := range []relationQuery{{kind: "placement.owner"}, {kind: "duty", endAfter: end}, {startAfter: start},
				{kind: "groupMembership"}, {kind: "groupMembership", startBefore: end}, {kind: "groupMembership", endAfter: start}} {
				assert.Equal(t, wantRelated(rels, q), walkPages(t, h, "/persons", q.values().Encode(), "", 100, nil), "%s", q.values().Encode())
			}
		})
	}
}

// unknownOrganisation is an organisation id that no record names.
const unknownOrganisation = "00000000-0000-4000-8000-0000000000ff"

func TestRelationshipWalkWithWritesBetweenPages(t *testing.T) {
	h := newHarness(t, unlimited(t, "default", 12000))
	ds := h.srv.store.Export()
	rels := relationsByDefinition(ds)
	orgs := busiestOrganisations(rels)
	for _, kind := range append([]string{""}, relationKinds...) {
		t.Run("kind "+kind, func(t *testing.T) {
			q := relationQuery{org: orgs[0], kind: kind}
			if kind != "" {
				q.org = busiestOrganisations(filterKind(rels, kind))[0]
			}
			want := wantRelated(relationsByDefinition(h.srv.store.Export()), q)
			require.NotEmpty(t, want)
			// Between pages: a new student enrolled at the organisation
			// (after the walk began: not in it), and a person related at the
			// start loses every relationship to it (still in it: the walk
			// reads the data as at its first page).
			pages := 0
			between := func() {
				st := h.newStudent(t)
				require.NoError(t, h.srv.store.Write(func(w *store.Writer) error {
					p, _ := w.Read().Person(st)
					c := *p
					c.Enrolments = []model.Enrolment{{EnroledAt: model.ObjectReference{ID: q.org}, SchoolType: model.SchoolTypeGR, StartDate: "2025-08-01"}}
					_, _, err := w.PutPerson(c)
					return err
				}))
				// A related person further on loses its guardians and
				// enrolments: its own relationships through them go, and
				// its guardians' (still in the walk, which reads its
				// first page's data).
				pages++
				if i := len(want) - pages; i >= 0 {
					require.NoError(t, h.srv.store.Write(func(w *store.Writer) error {
						p, _ := w.Read().Person(want[i])
						c := *p
						c.Responsibles, c.Enrolments = nil, nil
						_, _, err := w.PutPerson(c)
						return err
					}))
				}
			}
			got := walkPages(t, h, "/persons", q.values().Encode(), "", 5, between)
			assert.Equal(t, want, got, "each person related at the first page, exactly once")
			if kind == "" || kind == "enrolment" {
				now := walkPages(t, h, "/persons", q.values().Encode(), "", 50, nil)
				assert.NotEqual(t, want, now, "the writes changed the answer: the walk read its first page's data")
			}
		})
	}
}

// filterKind keeps the relationships of one kind.
func filterKind(rels map[string][]definedRelation, kind string) map[string][]definedRelation {
	out := map[string][]definedRelation{}
	for p, rs := range rels {
		for _, r := range rs {
			if r.kind == kind {
				out[p] = append(out[p], r)
			}
		}
	}
	return out
}

// TestGuardiansChangedThroughInterfaceAMoveInRelationships: a guardian
// linked to a child placed at a preschool through interface A is at once
// responsible for a placement there (and for the child's enrolments), and
// unlinked is no longer; the store's relation lists follow the child's
// record.
func TestGuardiansChangedThroughInterfaceAMoveInRelationships(t *testing.T) {
	h := newHarness(t, unlimited(t, "default", 12000))
	ds := h.srv.store.Export()
	var pl model.Placement
	for _, p := range ds.Placements {
		child := h.storedPerson(t, p.Child.ID)
		if model.IsRegisterPlacement(&p) && child.Directory != nil && slices.Contains(child.Directory.Roles, model.RoleStudent) {
			pl = p
			break
		}
	}
	require.NotEmpty(t, pl.ID, "the scenario places a student at a preschool")
	list := func(kind string) []string {
		return walkPages(t, h, "/persons", relationQuery{kind: kind, org: pl.PlacedAt.ID}.values().Encode(), "", 50, nil)
	}
	before := list("responsibleFor.placement")

	g := h.mustCreate(t, "/guardian", fmt.Sprintf(`{"identityNumber":%q,"firstName":"Ny","lastName":"Vårdnadshavare","studentIDs":[%q]}`, newIdentity(), pl.Child.ID))
	assert.Contains(t, list("responsibleFor.placement"), g, "a new guardian of the child")
	assert.Contains(t, list(""), g, "any kind")
	assert.Equal(t, uniq(append(slices.Clone(before), g)), list("responsibleFor.placement"), "the others stay")

	res := h.send(http.MethodPatch, PrefixA+"/guardian/"+g, `{"studentIDs":[]}`)
	require.Equal(t, http.StatusOK, res.status, res)
	assert.NotContains(t, list("responsibleFor.placement"), g, "the guardian let go of the child")
	assert.Equal(t, before, list("responsibleFor.placement"))

	// The child's guardians replaced at once through the child's record (a
	// write through the store, as interface B's and the admin's writes go).
	child := *h.storedPerson(t, pl.Child.ID)
	child.Responsibles = []model.Responsible{{Person: model.PersonReference{ID: g}, RelationType: model.RelationGuardian}}
	_, _, err := h.srv.store.PutPerson(child)
	require.NoError(t, err)
	got := list("responsibleFor.placement")
	assert.Contains(t, got, g)
	assert.Equal(t, wantRelated(relationsByDefinition(h.srv.store.Export()), relationQuery{kind: "responsibleFor.placement", org: pl.PlacedAt.ID}), got)
}

// TestRelationshipsFollowAStateImport: a state document put through the
// control plane rebuilds the relation lists, guardians included.
func TestRelationshipsFollowAStateImport(t *testing.T) {
	h := newHarness(t, unlimited(t, "default", 12000))
	ds := h.srv.store.Export()
	var pl model.Placement
	for _, p := range ds.Placements {
		if model.IsRegisterPlacement(&p) {
			pl = p
			break
		}
	}
	require.NotEmpty(t, pl.ID)
	q := relationQuery{kind: "responsibleFor.placement", org: pl.PlacedAt.ID}
	adult := ""
	for _, p := range ds.Persons {
		if len(p.Enrolments) == 0 && p.ID != pl.Child.ID && !slices.Contains(wantRelated(relationsByDefinition(ds), q), p.ID) {
			adult = p.ID
			break
		}
	}
	require.NotEmpty(t, adult)
	state := h.admin(http.MethodGet, "/state", "")
	require.Equal(t, http.StatusOK, state.status, state)
	// Name the adult as the child's only responsible in the document.
	res := h.admin(http.MethodPut, "/state", replaceResponsibles(t, state.body, pl.Child.ID, adult))
	require.Equal(t, http.StatusOK, res.status, res)
	got := walkPages(t, h, "/persons", q.values().Encode(), "", 50, nil)
	assert.Contains(t, got, adult)
	assert.Equal(t, wantRelated(relationsByDefinition(h.srv.store.Export()), q), got)
}

// replaceResponsibles returns the state document with the person's
// responsibles replaced by one guardian.
func replaceResponsibles(t *testing.T, state []byte, person, guardian string) string {
	t.Helper()
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(state, &doc))
	var persons []map[string]any
	require.NoError(t, json.Unmarshal(doc["persons"], &persons), "the state document lists persons")
	found := false
	for _, p := range persons {
		if p["id"] == person {
			p["responsibles"] = []any{map[string]any{"person": map[string]any{"id": guardian}, "relationType": string(model.RelationGuardian)}}
			found = true
		}
	}
	require.True(t, found, "the state document has person %s", person)
	raw, err := json.Marshal(persons)
	require.NoError(t, err)
	doc["persons"] = raw
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(body)
}
