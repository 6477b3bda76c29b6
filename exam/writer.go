package exam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skolkit/skolkit/mockserver"
)

// The exam changes the mock's records the way the service's other users
// would: through interface A (persons, groups, placements, schools),
// interface B (attendance and absence records) and the control plane (the
// service's own administration deleting an absence record). It changes
// records between the rounds of an incremental sync, and between a
// client's pages in the paging scene. What a change touched is never
// assumed: the oracle's snapshots before and after say it (a placement
// deleted through interface A also deletes its attendance schedules).

// change is one write the exam made.
type change struct {
	Kind   string // person, group, placement, organisation, attendance, absence
	Action string // create, update, delete
	// Via names the operation: "interface A: PATCH /student/{id}".
	Via string
	ID  string
}

func (c change) String() string { return fmt.Sprintf("%s %s %s (%s)", c.Action, c.Kind, c.ID, c.Via) }

// writeKind is a kind of record the exam can write, and the lists that
// show it.
type writeKind struct {
	name  string
	lists []resourceKey
	// create makes a record; nil when the exam cannot.
	create func(w *writer, ctx context.Context) (change, error)
	// update changes a record that exists; nil when the exam cannot.
	update func(w *writer, ctx context.Context) (change, error)
	// remove deletes a record; nil when the exam cannot. For an
	// offset-paged list it deletes a record at or after from in the list's
	// order (the records a client has not been given yet), so that no
	// record the client is still to be given moves to a page it has read.
	remove func(w *writer, ctx context.Context, from int) (change, error)
}

// writeKinds are the kinds of record the exam writes, in the order of a
// change set.
var writeKinds = []writeKind{
	{name: "person", lists: []resourceKey{"B /persons", "A /student"}, create: createStudent, update: updateStudent, remove: removeSpare("person", mockserver.PrefixA+"/student")},
	{name: "group", lists: []resourceKey{"B /groups", "A /group"}, create: createGroup, update: updateGroup, remove: removeSpare("group", mockserver.PrefixA+"/group")},
	{name: "placement", lists: []resourceKey{"B /placements", "A /student-placement"}, create: createPlacement, update: updatePlacement, remove: removePlacement},
	{name: "organisation", lists: []resourceKey{"B /organisations", "A /school"}, update: updateSchool},
	{name: "attendance", lists: []resourceKey{"B /attendances"}, create: createAttendance, remove: removeAttendance},
	{name: "absence", lists: []resourceKey{"B /absences"}, create: createAbsence, remove: removeAbsence},
}

// writer makes the exam's changes through the oracle's client.
type writer struct {
	o   *oracle
	rnd *rand.Rand
	now func() time.Time
	// spares are records the exam made at the start of the scene, by kind,
	// to delete later: records no other record refers to.
	spares map[string][]string
	n      int // counts the records the exam made, for unique names
	log    []change
}

// spareCount is how many spare persons and groups a scene starts with: one
// to delete between rounds and two for the changes between pages, per
// round.
func spareCount(rounds int) int { return 3*rounds + 1 }

// makeSpares creates the scene's spare persons and groups.
func (w *writer) makeSpares(ctx context.Context, rounds int) error {
	w.spares = map[string][]string{}
	for range spareCount(rounds) {
		for _, k := range []string{"person", "group"} {
			create := createStudent
			if k == "group" {
				create = createGroup
			}
			c, err := create(w, ctx)
			if err != nil {
				return fmt.Errorf("the exam could not make its spare records: %w", err)
			}
			w.spares[k] = append(w.spares[k], c.ID)
		}
	}
	w.log = nil
	return nil
}

// changeSet makes the changes between two rounds: of every kind, a
// create, an update and a delete where the exam can.
func (w *writer) changeSet(ctx context.Context) ([]change, error) {
	var out []change
	for _, k := range writeKinds {
		for _, op := range []func(*writer, context.Context) (change, error){k.create, k.update} {
			if op == nil {
				continue
			}
			c, err := op(w, ctx)
			if err != nil {
				return out, err
			}
			out = append(out, c)
		}
		if k.remove != nil {
			c, err := k.remove(w, ctx, 0)
			if errors.Is(err, errNoChange) {
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// changeList creates a record shown by a list and deletes one it has not
// shown yet (from: the offset of the page asked for, 0 for pageToken
// lists, whose walks read a snapshot), where the exam can write the list's
// records.
func (w *writer) changeList(ctx context.Context, list resourceKey, from int) ([]change, error) {
	var out []change
	for _, k := range writeKinds {
		if !slices.Contains(k.lists, list) {
			continue
		}
		if k.create != nil {
			c, err := k.create(w, ctx)
			if err != nil {
				return out, err
			}
			out = append(out, c)
		}
		if k.remove != nil {
			c, err := k.remove(w, ctx, from)
			if errors.Is(err, errNoChange) {
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// send makes one write and decodes its answer; a status other than want is
// an error.
func (w *writer) send(ctx context.Context, method, path string, body any, want int) (map[string]any, error) {
	status, data, err := w.o.do(ctx, method, path, nil, body)
	if err != nil {
		return nil, err
	}
	if status != want {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, status, excerpt(data, 300))
	}
	var m map[string]any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return m, nil
}

// pick returns a random record of a list page (interface A: offset
// paging), for which keep holds.
func (w *writer) pick(ctx context.Context, path string, keep func(map[string]any) bool) (map[string]any, error) {
	status, data, err := w.o.do(ctx, http.MethodGet, path, url.Values{"limit": {"500"}}, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, status, excerpt(data, 300))
	}
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	var cands []map[string]any
	for _, r := range doc.Data {
		if keep == nil || keep(r) {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("GET %s: no record to change", path)
	}
	return cands[w.rnd.IntN(len(cands))], nil
}

// created records a create, with the id the answer gave the record.
func (w *writer) created(c change, answer map[string]any) (change, error) {
	id, _ := answer["id"].(string)
	if id == "" {
		return change{}, fmt.Errorf("%s answered no id", c.Via)
	}
	c.ID = strings.ToLower(id)
	return w.record(c), nil
}

func (w *writer) record(c change) change {
	w.log = append(w.log, c)
	return c
}

func (w *writer) next() int {
	w.n++
	return w.n
}

var (
	givenNames  = []string{"Ebba", "Nils", "Saga", "Elias", "Maja", "Liam", "Alice", "Hugo"}
	familyNames = []string{"Ek", "Lund", "Berg", "Holm", "Dahl", "Sjöberg", "Forsberg", "Nyström"}
)

func createStudent(w *writer, ctx context.Context) (change, error) {
	n := w.next()
	for attempt := 0; ; attempt++ {
		body := map[string]any{
			"identityNumber": fmt.Sprintf("2015%02d%02d-%04d", 1+w.rnd.IntN(12), 1+w.rnd.IntN(28), w.rnd.IntN(10000)),
			"firstName":      givenNames[w.rnd.IntN(len(givenNames))],
			"lastName":       familyNames[w.rnd.IntN(len(familyNames))],
			"emailAddress1":  fmt.Sprintf("exam.student%d@elev.example.se", n),
		}
		m, err := w.send(ctx, http.MethodPost, mockserver.PrefixA+"/student", body, http.StatusCreated)
		if err != nil && attempt < 5 {
			continue // an identityNumber another person has
		}
		if err != nil {
			return change{}, err
		}
		return w.created(change{Kind: "person", Action: "create", Via: "interface A: POST /student"}, m)
	}
}

func updateStudent(w *writer, ctx context.Context) (change, error) {
	s, err := w.pick(ctx, mockserver.PrefixA+"/student", nil)
	if err != nil {
		return change{}, err
	}
	id := s["id"].(string)
	body := map[string]any{"identityNumber": s["identityNumber"], "firstName": s["firstName"], "lastName": s["lastName"],
		"phoneNumber1": fmt.Sprintf("070-%03d %02d %02d", w.rnd.IntN(1000), w.rnd.IntN(100), w.rnd.IntN(100))}
	if _, err := w.send(ctx, http.MethodPatch, mockserver.PrefixA+"/student/"+id, body, http.StatusOK); err != nil {
		return change{}, err
	}
	return w.record(change{Kind: "person", Action: "update", Via: "interface A: PATCH /student/{id}", ID: id}), nil
}

// removeSpare deletes a spare record of a kind through interface A: the
// oldest, or with from > 0 the first at or after from in the collection's
// creation order (none there: no change). Spares are the newest records of
// their lists but for those the exam made later.
func removeSpare(kind, collection string) func(w *writer, ctx context.Context, from int) (change, error) {
	return func(w *writer, ctx context.Context, from int) (change, error) {
		spares := w.spares[kind]
		if len(spares) == 0 {
			return change{}, fmt.Errorf("no spare %s left to delete", kind)
		}
		id := spares[0]
		if from > 0 {
			id = ""
			status, data, err := w.o.do(ctx, http.MethodGet, collection, url.Values{"limit": {"500"}, "offset": {strconv.Itoa(from)}}, nil)
			if err != nil {
				return change{}, err
			}
			if status != http.StatusOK {
				return change{}, fmt.Errorf("GET %s: %d %s", collection, status, excerpt(data, 300))
			}
			page, _ := readListPage(data)
			for _, r := range page.Records {
				if slices.Contains(spares, r.ID) {
					id = r.ID
					break
				}
			}
			if id == "" {
				return change{}, errNoChange
			}
		}
		w.spares[kind] = slices.DeleteFunc(spares, func(s string) bool { return s == id })
		if _, err := w.send(ctx, http.MethodDelete, collection+"/"+id, nil, http.StatusNoContent); err != nil {
			return change{}, err
		}
		return w.record(change{Kind: kind, Action: "delete", Via: "interface A: DELETE " + collection[len(mockserver.PrefixA):] + "/{id}", ID: id}), nil
	}
}

// errNoChange says a write found nothing it could change without harm.
var errNoChange = errors.New("nothing to change")

func createGroup(w *writer, ctx context.Context) (change, error) {
	school, err := w.pick(ctx, mockserver.PrefixA+"/school", nil)
	if err != nil {
		return change{}, err
	}
	body := map[string]any{"schoolID": school["id"], "title": fmt.Sprintf("Examensgrupp %d", w.next())}
	m, err := w.send(ctx, http.MethodPost, mockserver.PrefixA+"/group", body, http.StatusCreated)
	if err != nil {
		return change{}, err
	}
	return w.created(change{Kind: "group", Action: "create", Via: "interface A: POST /group"}, m)
}

func updateGroup(w *writer, ctx context.Context) (change, error) {
	g, err := w.pick(ctx, mockserver.PrefixA+"/group", nil)
	if err != nil {
		return change{}, err
	}
	id := g["id"].(string)
	body := map[string]any{"title": fmt.Sprintf("%v (%d)", g["title"], w.next())}
	if _, err := w.send(ctx, http.MethodPatch, mockserver.PrefixA+"/group/"+id, body, http.StatusOK); err != nil {
		return change{}, err
	}
	return w.record(change{Kind: "group", Action: "update", Via: "interface A: PATCH /group/{id}", ID: id}), nil
}

// isPreschool keeps the placements interface B shows as well.
func isPreschool(p map[string]any) bool { return p["schoolType"] == "FS" }

func createPlacement(w *writer, ctx context.Context) (change, error) {
	t, err := w.pick(ctx, mockserver.PrefixA+"/student-placement", isPreschool)
	if err != nil {
		return change{}, err
	}
	start := w.now().AddDate(0, 1, w.next())
	body := map[string]any{"studentID": t["studentID"], "schoolID": t["schoolID"], "schoolType": "FS", "startDate": start.Format(time.DateOnly)}
	m, err := w.send(ctx, http.MethodPost, mockserver.PrefixA+"/student-placement", body, http.StatusCreated)
	if err != nil {
		return change{}, err
	}
	return w.created(change{Kind: "placement", Action: "create", Via: "interface A: POST /student-placement"}, m)
}

func updatePlacement(w *writer, ctx context.Context) (change, error) {
	p, err := w.pick(ctx, mockserver.PrefixA+"/student-placement", func(p map[string]any) bool { return isPreschool(p) && p["archivedAt"] == nil })
	if err != nil {
		return change{}, err
	}
	id := p["id"].(string)
	end := w.now().AddDate(0, 6, w.next()).Format(time.DateOnly)
	body := map[string]any{"schoolType": p["schoolType"], "startDate": p["startDate"], "endDate": end}
	if _, err := w.send(ctx, http.MethodPatch, mockserver.PrefixA+"/student-placement/"+id, body, http.StatusOK); err != nil {
		return change{}, err
	}
	return w.record(change{Kind: "placement", Action: "update", Via: "interface A: PATCH /student-placement/{id}", ID: id}), nil
}

// removePlacement deletes the newest preschool placement at or after from
// in interface A's creation order.
func removePlacement(w *writer, ctx context.Context, from int) (change, error) {
	path := mockserver.PrefixA + "/student-placement"
	status, data, err := w.o.do(ctx, http.MethodGet, path, url.Values{"limit": {"500"}, "offset": {strconv.Itoa(from)}}, nil)
	if err != nil {
		return change{}, err
	}
	if status != http.StatusOK {
		return change{}, fmt.Errorf("GET %s: %d %s", path, status, excerpt(data, 300))
	}
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return change{}, err
	}
	for i := len(doc.Data) - 1; i >= 0; i-- {
		if p := doc.Data[i]; isPreschool(p) {
			id := p["id"].(string)
			if _, err := w.send(ctx, http.MethodDelete, path+"/"+id, nil, http.StatusNoContent); err != nil {
				return change{}, err
			}
			return w.record(change{Kind: "placement", Action: "delete", Via: "interface A: DELETE /student-placement/{id}", ID: id}), nil
		}
	}
	return change{}, errNoChange
}

func updateSchool(w *writer, ctx context.Context) (change, error) {
	s, err := w.pick(ctx, mockserver.PrefixA+"/school", nil)
	if err != nil {
		return change{}, err
	}
	id := s["id"].(string)
	body := map[string]any{"title": fmt.Sprintf("%v (%d)", s["title"], w.next())}
	if _, err := w.send(ctx, http.MethodPatch, mockserver.PrefixA+"/school/"+id, body, http.StatusOK); err != nil {
		return change{}, err
	}
	return w.record(change{Kind: "organisation", Action: "update", Via: "interface A: PATCH /school/{id}", ID: id}), nil
}

// pickB returns a random record of the first page of an interface-B list.
func (w *writer) pickB(ctx context.Context, path string) (map[string]any, error) {
	status, data, err := w.o.do(ctx, http.MethodGet, path, url.Values{"limit": {"200"}}, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, status, excerpt(data, 300))
	}
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Data) == 0 {
		return nil, fmt.Errorf("GET %s: no record to change", path)
	}
	return doc.Data[w.rnd.IntN(len(doc.Data))], nil
}

func ref(v any) map[string]any {
	m, _ := v.(map[string]any)
	return map[string]any{"id": m["id"]}
}

func createAttendance(w *writer, ctx context.Context) (change, error) {
	t, err := w.pickB(ctx, mockserver.PrefixB+"/attendances")
	if err != nil {
		return change{}, err
	}
	body := map[string]any{"calendarEvent": ref(t["calendarEvent"]), "student": ref(t["student"]), "isReported": true,
		"attendanceMinutes": 5 * (1 + w.rnd.IntN(9))}
	m, err := w.send(ctx, http.MethodPost, mockserver.PrefixB+"/attendances", body, http.StatusOK)
	if err != nil {
		return change{}, err
	}
	return w.created(change{Kind: "attendance", Action: "create", Via: "interface B: POST /attendances"}, m)
}

func removeAttendance(w *writer, ctx context.Context, _ int) (change, error) {
	return w.removeB(ctx, "attendance", "/attendances", mockserver.PrefixB+"/attendances/", "interface B: DELETE /attendances/{id}")
}

// removeB deletes a random record of an interface-B list with a DELETE on
// prefix+id.
func (w *writer) removeB(ctx context.Context, kind, list, prefix, via string) (change, error) {
	t, err := w.pickB(ctx, mockserver.PrefixB+list)
	if err != nil {
		return change{}, err
	}
	id, _ := t["id"].(string)
	if _, err := w.send(ctx, http.MethodDelete, prefix+id, nil, http.StatusNoContent); err != nil {
		return change{}, err
	}
	return w.record(change{Kind: kind, Action: "delete", Via: via, ID: strings.ToLower(id)}), nil
}

func createAbsence(w *writer, ctx context.Context) (change, error) {
	t, err := w.pickB(ctx, mockserver.PrefixB+"/absences")
	if err != nil {
		return change{}, err
	}
	day := w.now().AddDate(0, 0, -1-w.rnd.IntN(20)).UTC()
	start := time.Date(day.Year(), day.Month(), day.Day(), 8, 0, 0, 0, time.UTC)
	// The type of a record the mock shows: the service's types or, under
	// the ss12000 profile, the standard's; registrationDate only where the
	// mock shows it (the ss12000 profile refuses a member it does not define).
	body := map[string]any{"student": ref(t["student"]), "organisation": ref(t["organisation"]), "type": t["type"],
		"startTime": start.Format(time.RFC3339), "endTime": start.Add(time.Hour).Format(time.RFC3339)}
	if _, ok := t["registrationDate"]; ok {
		body["registrationDate"] = day.Format(time.DateOnly)
	}
	m, err := w.send(ctx, http.MethodPost, mockserver.PrefixB+"/absences", body, http.StatusOK)
	if err != nil {
		return change{}, err
	}
	return w.created(change{Kind: "absence", Action: "create", Via: "interface B: POST /absences"}, m)
}

// removeAbsence deletes an absence record through the control plane (the
// service's own administration: interface B has no DELETE /absences).
func removeAbsence(w *writer, ctx context.Context, _ int) (change, error) {
	return w.removeB(ctx, "absence", "/absences", mockserver.PrefixAdmin+"/records/absences/", "control plane: DELETE /__admin/records/absences/{id}")
}
