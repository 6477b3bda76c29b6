package mockserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/store"
	"github.com/skolkit/skolkit/model"
)

// Query parameter names of interface B.
const (
	paramPageToken    = "pageToken"
	paramLimit        = "limit"
	paramExpand       = "expand"
	paramRefNames     = "expandReferenceNames"
	paramSortKey      = "sortkey"
	paramOrganisation = "organisation"
	paramGroup        = "group"
	paramChild        = "child"
	paramOwner        = "owner"
	paramStartBefore  = "startDate.onOrBefore"
	paramStartAfter   = "startDate.onOrAfter"
	paramEndBefore    = "endDate.onOrBefore"
	paramEndAfter     = "endDate.onOrAfter"
	paramCreatedBef   = "meta.created.before"
	paramCreatedAft   = "meta.created.after"
	paramModifiedBef  = "meta.modified.before"
	paramModifiedAft  = "meta.modified.after"

	expandChild           = "child"
	expandOwners          = "owners"
	expandAssignmentRoles = "assignmentRoles"
)

// presentationParams may accompany a pageToken: they change how records are
// shown, not which records are walked.
var presentationParams = []string{paramPageToken, paramLimit, paramExpand, paramRefNames}

// placementsPage is the body of GET /placements.
type placementsPage struct {
	Data      []model.Placement `json:"data"`
	PageToken *string           `json:"pageToken"`
}

func refNames(q url.Values) bool {
	b, _ := strconv.ParseBool(q.Get(paramRefNames)) // the contract has checked it is a boolean
	return b
}

func (s *Server) listPlacements(w http.ResponseWriter, r *http.Request) {
	key, hv := responseKeyOf(r), s.stableView(true)
	cached, hit := s.responses.get(hv, key)
	if hit && !s.selfCheck() {
		writeBody(w, http.StatusOK, cached)
		return
	}
	q := r.URL.Query()
	limit := 0
	if v := q.Get(paramLimit); v != "" {
		limit, _ = strconv.Atoi(v) // the contract has checked it is an integer ≥ 1
	}
	var st pageState
	var sn *store.Snapshot
	var v view
	if q.Has(paramPageToken) {
		var extra []string
		for k := range q {
			if !slices.Contains(presentationParams, k) {
				extra = append(extra, k)
			}
		}
		if len(extra) > 0 && !s.deviates(deviation.PageTokenWithFilterAccepted) {
			slices.Sort(extra)
			registerError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf(
				"pageToken cannot be combined with filters or sortkey (found %s); the token carries the query of its walk, and only limit, expand and expandReferenceNames may accompany it",
				strings.Join(quoteAll(extra), ", ")))
			return
		}
		var err error
		if st, err = s.decodePageToken(q.Get(paramPageToken)); err != nil {
			registerError(w, http.StatusBadRequest, CodeBadRequest, err.Error())
			return
		}
		if limit == 0 {
			limit = st.Limit
		}
		if q.Has(paramExpand) {
			st.Expand = q[paramExpand]
		}
		if q.Has(paramRefNames) {
			st.Names = refNames(q)
		}
		if st.Walk == "" && st.Gen > 0 {
			sn, v = s.lazyWalk(st.Gen)
		} else {
			sn, _ = s.store.Walk(st.Walk)
		}
	} else {
		query, err := placementQuery(q)
		if err != nil {
			registerError(w, http.StatusBadRequest, CodeBadRequest, err.Error())
			return
		}
		s.deviateQuery(&query)
		st = pageState{Query: query, Expand: q[paramExpand], Names: refNames(q), Limit: limit}
		sn, v = s.readView(true)
	}
	if limit == 0 {
		limit = DefaultPageSize
	}
	page, err := sn.Placements(st.Query, st.Cursor, min(limit, MaxPageSize))
	if err != nil {
		s.log.Error("placement query", "err", err)
		registerError(w, http.StatusInternalServerError, CodeInternal, "unexpected server error")
		return
	}
	items := page.Items
	if st.Repeat != "" {
		if p, ok := sn.Placement(st.Repeat); ok {
			items = append([]*model.Placement{p}, items...)
		}
	}
	if s.deviates(deviation.EndDateFilterDropsOpenEnded) && (st.Query.EndOnOrBefore != "" || st.Query.EndOnOrAfter != "") {
		items = slices.DeleteFunc(slices.Clone(items), func(p *model.Placement) bool { return p.EndDate == "" })
	}
	rd := s.renderer(sn, st.Names)
	ex := rd.expand(st.Expand)
	var tok *string
	if page.Next != nil {
		if st.Walk == "" && st.Gen == 0 {
			// A walk read at a stable generation needs no snapshot of its
			// own (see writeTracker).
			if v.stable {
				st.Gen = v.gen
			} else {
				st.Walk = s.store.KeepWalk(sn)
			}
		}
		st.Cursor = page.Next
		if s.deviates(deviation.PageTokenRepeatsLast) && len(page.Items) > 0 {
			st.Repeat = page.Items[len(page.Items)-1].ID
		}
		t := s.encodePageToken(st)
		tok = &t
	} else if st.Walk != "" {
		s.store.EndWalk(st.Walk)
	}
	rendered := func() placementsPage {
		body := placementsPage{Data: make([]model.Placement, len(items)), PageToken: tok}
		for i, p := range items {
			body.Data[i] = rd.placement(p, ex)
		}
		return body
	}
	if ex != (placementExpand{}) {
		writeJSON(w, http.StatusOK, rendered())
		return
	}
	// Without expand the page is written from the memoised JSON of its
	// records: the bytes encoding/json writes for placementsPage.
	buf := bodyPool.Get().(*[]byte)
	b := append((*buf)[:0], `{"data":[`...)
	for i, p := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.memo.appendPlacement(b, rd, p)
	}
	b = append(b, `],"pageToken":`...)
	if tok != nil {
		b = appendJSONString(b, *tok)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, "}\n"...)
	*buf = b
	if s.selfCheck() {
		s.checkBody(r, b, append(marshalJSON(rendered()), '\n'), cached, hit && v == hv)
	}
	s.responses.put(v, key, b)
	writeBody(w, http.StatusOK, b)
	putBuffer(buf)
}

// placementQuery reads the filters and sortkey. The contract has already
// checked every format, so parsing here does not fail on valid input.
func placementQuery(q url.Values) (store.PlacementQuery, error) {
	pq := store.PlacementQuery{
		Organisation:    strings.ToLower(q.Get(paramOrganisation)),
		Group:           strings.ToLower(q.Get(paramGroup)),
		Child:           strings.ToLower(q.Get(paramChild)),
		Owner:           strings.ToLower(q.Get(paramOwner)),
		StartOnOrBefore: model.Date(q.Get(paramStartBefore)),
		StartOnOrAfter:  model.Date(q.Get(paramStartAfter)),
		EndOnOrBefore:   model.Date(q.Get(paramEndBefore)),
		EndOnOrAfter:    model.Date(q.Get(paramEndAfter)),
		Sort:            model.SortKey(q.Get(paramSortKey)),
	}
	for _, t := range []struct {
		name string
		dst  **time.Time
	}{
		{paramCreatedBef, &pq.CreatedBefore}, {paramCreatedAft, &pq.CreatedAfter},
		{paramModifiedBef, &pq.ModifiedBefore}, {paramModifiedAft, &pq.ModifiedAfter},
	} {
		if v := q.Get(t.name); v != "" {
			ts, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return pq, fmt.Errorf("query parameter %q: %q is not an RFC 3339 date-time", t.name, v)
			}
			*t.dst = &ts
		}
	}
	return pq, nil
}

// pathID returns the {id} of the request in canonical (lower-case) form.
func pathID(r *http.Request) string {
	id, err := url.PathUnescape(mux.Vars(r)["id"])
	if err != nil {
		return ""
	}
	return strings.ToLower(id)
}

func (s *Server) notFoundRecord(w http.ResponseWriter, kind, id string) {
	msg := fmt.Sprintf("no %s with id %s", kind, id)
	switch {
	case s.deviates(deviation.UnknownIDNot404):
		registerError(w, http.StatusBadRequest, CodeBadRequest, msg)
	case s.deviates(deviation.ErrorBodyWrongShape):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": msg})
	default:
		registerError(w, http.StatusNotFound, CodeNotFound, msg)
	}
}

// deviateQuery applies the deviations that change what a placement query
// means.
func (s *Server) deviateQuery(q *store.PlacementQuery) {
	if s.deviates(deviation.OrganisationFilterIgnored) {
		q.Organisation = ""
	}
	if s.deviates(deviation.SortKeyIgnored) {
		q.Sort = ""
	}
	if s.deviates(deviation.DateBoundsExclusive) {
		shift := func(d *model.Date, days int) {
			if *d != "" {
				*d = model.DateOf(d.Time().AddDate(0, 0, days))
			}
		}
		shift(&q.StartOnOrBefore, -1)
		shift(&q.StartOnOrAfter, 1)
		shift(&q.EndOnOrBefore, -1)
		shift(&q.EndOnOrAfter, 1)
	}
	if s.deviates(deviation.MetaAfterInclusive) {
		for _, t := range []**time.Time{&q.CreatedAfter, &q.ModifiedAfter} {
			if *t != nil {
				earlier := (*t).Add(-time.Nanosecond)
				*t = &earlier
			}
		}
	}
}

func (s *Server) getPlacement(w http.ResponseWriter, r *http.Request) {
	key, hv := responseKeyOf(r), s.stableView(false)
	cached, hit := s.responses.get(hv, key)
	if hit && !s.selfCheck() {
		writeBody(w, http.StatusOK, cached)
		return
	}
	id, q := pathID(r), r.URL.Query()
	sn, v := s.readView(false)
	p, ok := sn.Placement(id)
	if !ok || !model.IsRegisterPlacement(p) {
		s.notFoundRecord(w, "placement", id)
		return
	}
	rd := s.renderer(sn, refNames(q))
	if ex := rd.expand(q[paramExpand]); ex != (placementExpand{}) {
		writeJSON(w, http.StatusOK, rd.placement(p, ex))
		return
	}
	buf := bodyPool.Get().(*[]byte)
	b := append(s.memo.appendPlacement((*buf)[:0], rd, p), '\n')
	*buf = b
	if s.selfCheck() {
		s.checkBody(r, b, append(marshalJSON(rd.placement(p, placementExpand{})), '\n'), cached, hit && v == hv)
	}
	s.responses.put(v, key, b)
	writeBody(w, http.StatusOK, b)
	putBuffer(buf)
}

func (s *Server) getSyllabus(w http.ResponseWriter, r *http.Request) {
	id := pathID(r)
	sy, ok := s.store.Read().Syllabus(id)
	if !ok {
		s.notFoundRecord(w, "syllabus", id)
		return
	}
	writeJSON(w, http.StatusOK, sy)
}

func (s *Server) getAttendance(w http.ResponseWriter, r *http.Request) {
	id := pathID(r)
	sn := s.store.Read()
	a, ok := sn.Attendance(id)
	if !ok {
		s.notFoundRecord(w, "attendance record", id)
		return
	}
	writeJSON(w, http.StatusOK, s.renderer(sn, refNames(r.URL.Query())).attendance(a))
}

func (s *Server) getAbsence(w http.ResponseWriter, r *http.Request) {
	id := pathID(r)
	sn := s.store.Read()
	a, ok := sn.Absence(id)
	if !ok {
		s.notFoundRecord(w, "absence record", id)
		return
	}
	writeJSON(w, http.StatusOK, s.renderer(sn, refNames(r.URL.Query())).absence(a))
}

func (s *Server) getGroup(w http.ResponseWriter, r *http.Request) {
	id, q := pathID(r), r.URL.Query()
	sn := s.store.Read()
	g, ok := sn.Group(id)
	if !ok {
		s.notFoundRecord(w, "group", id)
		return
	}
	writeJSON(w, http.StatusOK, s.renderer(sn, refNames(q)).group(g, slices.Contains(q[paramExpand], expandAssignmentRoles)))
}

// lookupRequest is the body of POST /groups/lookup.
type lookupRequest struct {
	IDs []string `json:"ids"`
}

func (s *Server) lookupGroups(w http.ResponseWriter, r *http.Request) {
	var req lookupRequest
	if err := decodeWhole(r.Body, &req); err != nil {
		registerError(w, http.StatusBadRequest, CodeBadRequest, "the request body is not a JSON object {\"ids\": [uuid, ...]}")
		return
	}
	if len(req.IDs) > MaxLookupIDs {
		registerError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("ids: %d ids asked for; at most %d per lookup", len(req.IDs), MaxLookupIDs))
		return
	}
	for i := range req.IDs {
		req.IDs[i] = strings.ToLower(req.IDs[i])
	}
	q := r.URL.Query()
	sn := s.store.Read()
	rd := s.renderer(sn, refNames(q))
	roles := slices.Contains(q[paramExpand], expandAssignmentRoles)
	out := []model.Group{}
	found := sn.Groups(req.IDs)
	if s.deviates(deviation.LookupDropsFirst) && len(found) > 0 {
		found = found[1:]
	}
	for _, g := range found {
		out = append(out, rd.group(g, roles))
	}
	writeJSON(w, http.StatusOK, out)
}
