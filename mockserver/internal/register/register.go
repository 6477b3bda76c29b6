package register

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// Query parameter names of interface B.
const (
	ParamPageToken    = "pageToken"
	ParamLimit        = "limit"
	ParamExpand       = "expand"
	ParamRefNames     = "expandReferenceNames"
	ParamSortKey      = "sortkey"
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
var presentationParams = []string{ParamPageToken, ParamLimit, ParamExpand, ParamRefNames}

func refNames(q url.Values) bool {
	b, _ := strconv.ParseBool(q.Get(ParamRefNames)) // the contract has checked it is a boolean
	return b
}

func (s *API) notFoundRecord(w http.ResponseWriter, kind, id string) {
	msg := fmt.Sprintf("no %s with id %s", kind, id)
	switch {
	case s.deviates(deviation.UnknownIDNot404):
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, msg)
	case s.deviates(deviation.ErrorBodyWrongShape):
		surface.WriteJSON(w, http.StatusNotFound, map[string]string{"error": msg})
	default:
		surface.WriteRegisterError(w, http.StatusNotFound, surface.CodeNotFound, msg)
	}
}

// deviateQuery applies the deviations that change what a placement query
// means.
func (s *API) deviateQuery(q *store.PlacementQuery) {
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
