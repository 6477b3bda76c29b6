package mockserver

import (
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/internal/wire"
)

// The deviations that live on the wire: each a change of the request on its
// way in or of the answer on its way out (package internal/wire), so that
// the handlers and the engine carry none of them. Among them are those that
// break a rule family on operations other than the ones its first check
// looked at (docs/decisions.md#deviations-per-family).

// wireDeviation is one deviation that lives on the wire.
type wireDeviation struct {
	name string
	// request, when set, changes a request before the handlers see it; it
	// reports false when it answered the request itself.
	request func(s *Server, w http.ResponseWriter, r *http.Request) bool
	// answer, when set, returns the rewrite of the answer to r, or nil when
	// the deviation leaves that answer alone. It is called before request.
	answer func(s *Server, r *http.Request) wire.Rewrite
}

var wireDeviations = []wireDeviation{
	{name: deviation.LegacyAuthRefused, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) == "A" {
			r.Header.Del(surface.HeaderClientID)
			r.Header.Del(surface.HeaderClientSecret)
		}
		return true
	}},
	{name: deviation.TokenGetAccepted, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == PathToken && r.Method == http.MethodGet {
			// Serve the GET as the POST of the spec, with the query as the form.
			form := r.URL.Query().Encode()
			r.Method = http.MethodPost
			r.Header.Set("Content-Type", surface.ContentTypeForm)
			r.Body = readCloser{strings.NewReader(form)}
			r.ContentLength = int64(len(form))
			r.URL.RawQuery = ""
		}
		return true
	}},
	{name: deviation.FormCharsetRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == PathToken && r.Method == http.MethodPost && hasMediaParams(r) {
			surface.WriteOAuthError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be exactly application/x-www-form-urlencoded")
			return false
		}
		return true
	}},
	{name: deviation.JSONCharsetRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) == "B" && r.Method == http.MethodPost && hasMediaParams(r) {
			surface.WriteRegisterError(w, http.StatusUnsupportedMediaType, surface.CodeBadRequest, "Content-Type must be exactly application/json")
			return false
		}
		return true
	}},
	{name: deviation.AcceptParamsRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) == "B" && strings.ContainsAny(r.Header.Get("Accept"), ";,") {
			surface.WriteRegisterError(w, http.StatusNotAcceptable, surface.CodeBadRequest, "Accept must be exactly application/json")
			return false
		}
		return true
	}},
	{name: deviation.MultiValueFirstOnly, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) == "B" && r.Method == http.MethodGet && strings.Contains(r.URL.RawQuery, "&") {
			q := r.URL.Query()
			for k, vs := range q {
				q[k] = vs[:1]
			}
			r.URL.RawQuery = q.Encode()
		}
		return true
	}},
	{name: deviation.PatchDropsOmitted, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if isPersonPath(r.URL.Path) && r.Method == http.MethodPatch {
			// Clear the contact members the PATCH does not send.
			rewriteBody(r, func(v any) {
				if o, ok := v.(*wire.Object); ok {
					for _, k := range []string{"emailAddress1", "phoneNumber1"} {
						if !o.Has(k) {
							o.Set(k, nil)
						}
					}
				}
			})
		}
		return true
	}},
	{name: deviation.RareEnumRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) != "A" || (r.Method != http.MethodPost && r.Method != http.MethodPatch) {
			return true
		}
		// Refuse the value "Other" (Gender, GroupCategory) and the role
		// CareTeam; pass the rest on unchanged.
		refused := false
		rewriteBody(r, func(v any) {
			wire.Map(v, func(_ string, v any) any {
				refused = refused || v == "Other" || v == "CareTeam"
				return v
			})
		})
		if refused {
			surface.WriteDirectoryError(w, r, http.StatusUnprocessableEntity, surface.CodeUnprocessable, "unknown enum value")
			return false
		}
		return true
	}},
	{name: deviation.LimitAboveMaxRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res == "placements" {
			if n, err := strconv.Atoi(r.URL.Query().Get(register.ParamLimit)); err == nil && n > maxPageSize {
				surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "limit: at most 1000")
				return false
			}
		}
		return true
	}},
	{name: deviation.CombinedFiltersDropDate, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res == "placements" {
			q := r.URL.Query()
			if q.Has("organisation") || q.Has("group") || q.Has("child") || q.Has("owner") {
				dropParams(r, "startDate.onOrBefore", "startDate.onOrAfter", "endDate.onOrBefore", "endDate.onOrAfter")
			}
		}
		return true
	}},
	{name: deviation.LaterPageDropsExpand, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res == "placements" && r.URL.Query().Has(register.ParamPageToken) {
			dropParams(r, register.ParamExpand, register.ParamRefNames)
		}
		return true
	}},
	{name: deviation.ReferenceMarkingDiffers, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if surfaceOf(r.URL.Path) != "B" {
			return nil
		}
		return onJSON(func(v any) {
			wire.Map(v, func(_ string, v any) any {
				if o, ok := v.(*wire.Object); ok && isPersonReference(o) {
					flipMarkingOf(o)
				}
				return v
			})
		})
	}},
	{name: deviation.LaterPageLimitIgnored, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res != "placements" && r.URL.Query().Has(register.ParamPageToken) {
			dropParams(r, register.ParamLimit)
		}
		return true
	}},
	{name: deviation.NameSortReversed, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && (res == "persons" || res == "syllabuses") {
			q := r.URL.Query()
			key := q.Get(register.ParamSortKey)
			if !slices.ContainsFunc(nameSortPrefixes, func(p string) bool { return strings.HasPrefix(key, p) }) {
				return true
			}
			if base, ok := strings.CutSuffix(key, "Asc"); ok {
				q.Set(register.ParamSortKey, base+"Desc")
			} else if base, ok := strings.CutSuffix(key, "Desc"); ok {
				q.Set(register.ParamSortKey, base+"Asc")
			}
			r.URL.RawQuery = q.Encode()
		}
		return true
	}},
	{name: deviation.PersonFiltersLoose, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res == "persons" {
			q := r.URL.Query()
			if parts := q["nameContains"]; len(parts) > 1 {
				q["nameContains"] = parts[:1]
			}
			q.Del("eduPersonPrincipalName")
			q.Del("identifier.context")
			r.URL.RawQuery = q.Encode()
		}
		return true
	}},
	{name: deviation.RelatedFiltersIgnored, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok {
			dropParams(r, relatedFilters[res]...)
		}
		return true
	}},
	{name: deviation.LaterPagesSkipFirst, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if res, ok := bListOf(r); !ok || res == "placements" || !r.URL.Query().Has(register.ParamPageToken) {
			return nil
		}
		return onObject(func(o *wire.Object) {
			if data, ok := o.Get("data"); ok {
				if items, ok := data.([]any); ok && len(items) > 0 {
					o.Set("data", items[1:])
				}
			}
		})
	}},
	{name: deviation.TotalOneShort, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if r.Method != http.MethodGet || !slices.Contains(personAndPlacementLists, strings.TrimPrefix(r.URL.Path, PrefixA)) {
			return nil
		}
		return onObject(func(o *wire.Object) {
			if p, ok := o.Get("pagination"); ok {
				if po, ok := p.(*wire.Object); ok {
					if n, ok := numberOf(po, "total"); ok && n > 0 {
						po.Set("total", n-1)
					}
				}
			}
		})
	}},
	{name: deviation.SearchContainsFirstOnly, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if isPersonOrPlacementSearch(r) {
			rewriteBody(r, func(v any) {
				eachFilter(v, func(f *wire.Object) {
					for _, op := range []string{"contains", "notContains"} {
						if m, ok := f.Get(op); ok {
							wire.Map(m, func(_ string, v any) any {
								if items, ok := v.([]any); ok && len(items) > 1 {
									return items[:1]
								}
								return v
							})
						}
					}
				})
			})
		}
		return true
	}},
	{name: deviation.SearchDropsLastCondition, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if isPersonOrPlacementSearch(r) {
			rewriteBody(r, func(v any) {
				if root, ok := v.(*wire.Object); ok {
					if f, ok := root.Get("filter"); ok {
						if fo, ok := f.(*wire.Object); ok {
							dropLastCondition(fo)
						}
					}
				}
			})
		}
		return true
	}},
	{name: deviation.TimeBoundsExclusive, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res != "placements" {
			moveBounds(r, func(name string, t time.Time) (time.Time, bool) {
				switch c, ok := boundComparison(name); {
				case !ok:
					return t, false
				case c == wire.OnOrBefore:
					return t.Add(-time.Nanosecond), true
				case c == wire.OnOrAfter:
					return t.Add(time.Nanosecond), true
				}
				return t, false
			})
		}
		return true
	}},
	{name: deviation.DateTimeBoundsComparedAsText, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if res, ok := bListOf(r); ok && res != "placements" {
			moveBounds(r, func(name string, t time.Time) (time.Time, bool) {
				if _, ok := boundComparison(name); !ok {
					return t, false
				}
				_, offset := t.Zone()
				return t.Add(time.Duration(offset) * time.Second), offset != 0
			})
		}
		return true
	}},
	{name: deviation.ListDropsContactDetails, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if res, ok := bListOf(r); !ok || (res != "persons" && res != "organisations") {
			return nil
		}
		return onObject(func(o *wire.Object) {
			data, _ := o.Get("data")
			items, _ := data.([]any)
			for _, item := range items {
				if rec, ok := item.(*wire.Object); ok {
					for _, k := range []string{"emails", "phoneNumbers", "addresses", "email", "phoneNumber", "address"} {
						rec.Delete(k)
					}
				}
			}
		})
	}},
	{name: deviation.LookupIgnoresExpand, request: func(_ *Server, _ http.ResponseWriter, r *http.Request) bool {
		if isBLookup(r) {
			dropParams(r, register.ParamExpand, register.ParamRefNames)
		}
		return true
	}},
	{name: deviation.MembershipMarkingDiffers, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if surfaceOf(r.URL.Path) != "B" {
			return nil
		}
		return onJSON(func(v any) {
			wire.Map(v, func(key string, v any) any {
				if items, ok := v.([]any); ok && (key == "groupMemberships" || key == "responsibles") {
					for _, item := range items {
						if m, ok := item.(*wire.Object); ok {
							if p, ok := m.Get("person"); ok {
								if po, ok := p.(*wire.Object); ok && isPersonReference(po) {
									flipMarkingOf(po)
								}
							}
						}
					}
				}
				return v
			})
		})
	}},
	{name: deviation.ReferenceNameDiffers, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if surfaceOf(r.URL.Path) != "B" || strings.HasPrefix(r.URL.Path, PrefixB+"/placements") {
			return nil
		}
		return onJSON(func(v any) {
			wire.Map(v, func(key string, v any) any {
				if o, ok := v.(*wire.Object); ok && slices.Contains(organisationReferences, key) && len(o.Members) == 2 {
					if name, ok := o.String("displayName"); ok && o.Has("id") {
						o.Set("displayName", name+" (tidigare namn)")
					}
				}
				return v
			})
		})
	}},
	{name: deviation.BRareEnumRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) != "B" || (r.Method != http.MethodPost && r.Method != http.MethodPatch) || isBLookup(r) {
			return true
		}
		refused := ""
		rewriteBody(r, func(v any) {
			wire.Map(v, func(key string, v any) any {
				if s, ok := v.(string); ok && refusedEnums[key] == s {
					refused = key + " " + s
				}
				return v
			})
		})
		if refused != "" {
			surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "unknown value: "+refused)
			return false
		}
		return true
	}},
	{name: deviation.AJSONCharsetRefused, request: func(_ *Server, w http.ResponseWriter, r *http.Request) bool {
		if surfaceOf(r.URL.Path) != "A" || (r.Method != http.MethodPost && r.Method != http.MethodPatch) {
			return true
		}
		if hasMediaParams(r) {
			surface.WriteDirectoryError(w, r, http.StatusUnsupportedMediaType, surface.CodeBadRequest, "Content-Type must be exactly application/json")
			return false
		}
		return true
	}},
	{name: deviation.RateLimitRemainingGrows, answer: func(s *Server, r *http.Request) wire.Rewrite {
		if !personsPlacementsOrExport(r.URL.Path) {
			return nil
		}
		return func(a *wire.Answer) {
			if n, err := strconv.Atoi(a.Header.Get(surface.HeaderRateRemaining)); err == nil && s.wireCount.Add(1)%3 == 0 {
				a.Header.Set(surface.HeaderRateRemaining, strconv.Itoa(n+2))
			}
		}
	}},
	{name: deviation.RateLimitResetInPast, answer: func(s *Server, r *http.Request) wire.Rewrite {
		if !personsPlacementsOrExport(r.URL.Path) {
			return nil
		}
		return func(a *wire.Answer) {
			if a.Header.Get(surface.HeaderRateReset) != "" {
				a.Header.Set(surface.HeaderRateReset, strconv.FormatInt(s.now().Add(-time.Minute).UnixMilli(), 10))
			}
		}
	}},
	{name: deviation.ContentTypeLatin1, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if surfaceOf(r.URL.Path) != "export" && !isBLookup(r) {
			return nil
		}
		return func(a *wire.Answer) {
			if mt, _, err := mime.ParseMediaType(a.Header.Get("Content-Type")); err == nil && mt == surface.ContentTypeJSON {
				a.Header.Set("Content-Type", surface.ContentTypeJSON+"; charset=iso-8859-1")
			}
		}
	}},
	{name: deviation.DateTimeWithoutOffset, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		rest := strings.TrimPrefix(r.URL.Path, PrefixB)
		if surfaceOf(r.URL.Path) != "B" || !(strings.HasPrefix(rest, "/calendarEvents") || strings.HasPrefix(rest, "/absences")) {
			return nil
		}
		return onJSON(func(v any) {
			wire.Map(v, func(key string, v any) any {
				if s, ok := v.(string); ok && (key == "startTime" || key == "endTime") {
					if t, ok := wire.ParseDateTime(s); ok {
						return t.In(wire.Stockholm).Format("2006-01-02T15:04:05")
					}
				}
				return v
			})
		})
	}},
	{name: deviation.DateTimeWithoutSeconds, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		rest := strings.TrimPrefix(r.URL.Path, PrefixA)
		if surfaceOf(r.URL.Path) != "A" || !(strings.HasPrefix(rest, "/school") || strings.HasPrefix(rest, "/group")) {
			return nil
		}
		return onJSON(func(v any) {
			wire.Map(v, func(key string, v any) any {
				if s, ok := v.(string); ok && (key == "createdAt" || key == "updatedAt") {
					if t, ok := wire.ParseDateTime(s); ok {
						return t.UTC().Format("2006-01-02T15:04Z07:00")
					}
				}
				return v
			})
		})
	}},
	{name: deviation.DateInvalidDay, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if !strings.HasPrefix(r.URL.Path, PrefixB+"/organisations") {
			return nil
		}
		return onJSON(func(v any) {
			wire.Map(v, func(key string, v any) any {
				if s, ok := v.(string); ok && (key == "startDate" || key == "endDate") && len(s) == len("2006-01-02") {
					return s[:len("2006-01-")] + "00"
				}
				return v
			})
		})
	}},
	{name: deviation.AErrorBodyWrongShape, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if surfaceOf(r.URL.Path) != "A" {
			return nil
		}
		return func(a *wire.Answer) {
			if o, ok := a.Object(); ok && a.Status == http.StatusNotFound {
				if e, ok := o.Get("error"); ok {
					if eo, ok := e.(*wire.Object); ok {
						msg, _ := eo.String("message")
						o.Delete("error")
						o.Set("message", msg)
					}
				}
			}
		}
	}},
	{name: deviation.ErrorBodyWithoutMessage, answer: func(_ *Server, r *http.Request) wire.Rewrite {
		if surfaceOf(r.URL.Path) != "B" {
			return nil
		}
		return func(a *wire.Answer) {
			if o, ok := a.Object(); ok && a.Status == http.StatusBadRequest {
				o.Delete("message")
			}
		}
	}},
}

// deviationRewrites returns the rewrites of the answer to r that the wire
// deviations switched on make.
func (s *Server) deviationRewrites(r *http.Request, devs map[string]bool) []wire.Rewrite {
	var out []wire.Rewrite
	for _, d := range wireDeviations {
		if d.answer != nil && devs[d.name] {
			if rw := d.answer(s, r); rw != nil {
				out = append(out, rw)
			}
		}
	}
	return out
}

// deviateOnTheWire applies the request side of the wire deviations
// switched on; it reports false when one of them answered the request.
func (s *Server) deviateOnTheWire(w http.ResponseWriter, r *http.Request, devs map[string]bool) bool {
	for _, d := range wireDeviations {
		if d.request != nil && devs[d.name] && !d.request(s, w, r) {
			return false
		}
	}
	return true
}

// personAndPlacementLists are interface A's lists of persons and
// placements, relative to its prefix.
var personAndPlacementLists = []string{"/student", "/employee", "/guardian", "/student-placement", "/employee-placement"}

// personsPlacementsOrExport reports whether a path is one of interface A's
// persons or placements (their lists, searches and records) or the export.
func personsPlacementsOrExport(path string) bool {
	if surfaceOf(path) == "export" {
		return true
	}
	rest, ok := strings.CutPrefix(path, PrefixA)
	return ok && slices.ContainsFunc(append(personAndPlacementLists, "/student-placements"), func(p string) bool {
		return rest == p || strings.HasPrefix(rest, p+"/")
	})
}

// relatedFilters are the filters of interface B's lists that select
// through related records, by list.
var relatedFilters = map[string][]string{
	"calendarEvents":     {"student", "teacher", "group"},
	"activities":         {"member", "teacher"},
	"attendanceSchedule": {"group"},
}

// nameSortPrefixes are the sortkeys by a name or code that persons and
// syllabuses have in both directions.
var nameSortPrefixes = []string{"GivenName", "FamilyName", "CivicNo", "Subject", "Course"}

// organisationReferences are the members of interface B's records that
// reference an organisation.
var organisationReferences = []string{"organisation", "placedAt", "enroledAt", "dutyAt", "parentOrganisation", "offeredAt", "owner", "schoolUnit"}

// refusedEnums are the values BRareEnumRefused refuses, by member: the last
// value of each enum of interface B's writes.
var refusedEnums = map[string]string{"eventType": "Ut", "type": "Ogiltig", "state": "Nekat", "severityLevel": "Error", "resource": "Organisation"}

// bListOf returns the resource of a request for a list of interface B.
func bListOf(r *http.Request) (string, bool) {
	if !isBList(r) {
		return "", false
	}
	return strings.TrimPrefix(r.URL.Path, PrefixB+"/"), true
}

// isBLookup reports whether a request is a lookup of interface B.
func isBLookup(r *http.Request) bool {
	return r.Method == http.MethodPost && surfaceOf(r.URL.Path) == "B" && strings.HasSuffix(r.URL.Path, "/lookup")
}

// isPersonOrPlacementSearch reports whether a request is a _search of
// interface A's persons or placements (not of its schools, groups and units,
// whose searches the per-resource search checks look at).
func isPersonOrPlacementSearch(r *http.Request) bool {
	list, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, PrefixA), "/_search")
	return ok && r.Method == http.MethodPost && surfaceOf(r.URL.Path) == "A" && slices.Contains(personAndPlacementLists, list)
}

// rewriteBody decodes a JSON request body, lets change change it and puts
// it back; a body that is not JSON is put back as it was.
func rewriteBody(r *http.Request, change func(v any)) {
	if r.Body == nil {
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	r.Body.Close()
	body := raw
	if err == nil {
		if v, err := wire.Decode(raw); err == nil {
			change(v)
			body = wire.Encode(v)
		}
	}
	r.Body = readCloser{strings.NewReader(string(body))}
	r.ContentLength = int64(len(body))
}

// eachFilter calls fn with the filter of an interface-A search body and each
// of its nested filters.
func eachFilter(v any, fn func(*wire.Object)) {
	root, ok := v.(*wire.Object)
	if !ok {
		return
	}
	var walk func(any)
	walk = func(f any) {
		fo, ok := f.(*wire.Object)
		if !ok {
			return
		}
		fn(fo)
		if nested, ok := fo.Get("nestedFilters"); ok {
			if items, ok := nested.([]any); ok {
				for _, n := range items {
					walk(n)
				}
			}
		}
	}
	f, _ := root.Get("filter")
	walk(f)
}

// dropLastCondition removes the last condition of a filter that has more
// than one: a nested filter counts as one condition, and so does each field
// under an operator.
func dropLastCondition(f *wire.Object) {
	type cond struct {
		op    *wire.Object // the operator's map, or nil for a nested filter
		key   string
		index int // in nestedFilters
	}
	var conds []cond
	for _, m := range f.Members {
		switch x := m.Value.(type) {
		case *wire.Object:
			for _, c := range x.Members {
				conds = append(conds, cond{op: x, key: c.Key})
			}
		case []any:
			if m.Key == "nestedFilters" {
				for i := range x {
					conds = append(conds, cond{index: i})
				}
			}
		}
	}
	if len(conds) < 2 {
		return
	}
	last := conds[len(conds)-1]
	if last.op != nil {
		last.op.Delete(last.key)
		return
	}
	nested, _ := f.Get("nestedFilters")
	items := nested.([]any)
	f.Set("nestedFilters", slices.Delete(items, last.index, last.index+1))
}

// hasMediaParams reports whether the request's Content-Type has
// parameters (charset=utf-8).
func hasMediaParams(r *http.Request) bool {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && len(params) > 0
}

// dropParams removes query parameters from r.
func dropParams(r *http.Request, names ...string) {
	q := r.URL.Query()
	if !slices.ContainsFunc(names, q.Has) {
		return
	}
	for _, n := range names {
		q.Del(n)
	}
	r.URL.RawQuery = q.Encode()
}

// isPersonPath reports whether path is a Student, Employee or Guardian of
// interface A by id.
func isPersonPath(path string) bool {
	for _, kind := range []string{"/student/", "/employee/", "/guardian/"} {
		if rest, ok := strings.CutPrefix(path, PrefixA+kind); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// flipMarking is another allowed securityMarking than v.
func flipMarking(v any) any {
	if v == "Ingen" {
		return "Sekretessmarkering"
	}
	return "Ingen"
}

// moveBounds replaces each date-time query parameter of r by what move
// returns for it, when it says so.
func moveBounds(r *http.Request, move func(name string, t time.Time) (time.Time, bool)) {
	q := r.URL.Query()
	changed := false
	for name, vs := range q {
		if len(vs) != 1 {
			continue
		}
		if t, ok := wire.ParseDateTime(vs[0]); ok {
			if moved, ok := move(name, t); ok {
				q.Set(name, moved.UTC().Format(time.RFC3339Nano))
				changed = true
			}
		}
	}
	if changed {
		r.URL.RawQuery = q.Encode()
	}
}

// onJSON is a rewrite of a JSON answer's tree.
func onJSON(change func(v any)) wire.Rewrite {
	return func(a *wire.Answer) {
		if v, ok := a.JSON(); ok {
			change(v)
		}
	}
}

// onObject is a rewrite of a successful answer that is a JSON object.
func onObject(change func(o *wire.Object)) wire.Rewrite {
	return func(a *wire.Answer) {
		if o, ok := a.Object(); ok && a.OK() {
			change(o)
		}
	}
}

// numberOf returns a member that is a whole number.
func numberOf(o *wire.Object, key string) (int64, bool) {
	v, _ := o.Get(key)
	switch n := v.(type) {
	case interface{ Int64() (int64, error) }:
		i, err := n.Int64()
		return i, err == nil
	case int64:
		return n, true
	}
	return 0, false
}

// flipMarkingOf gives a person reference another allowed securityMarking
// than its own.
func flipMarkingOf(o *wire.Object) {
	m, _ := o.Get("securityMarking")
	o.Set("securityMarking", flipMarking(m))
}
