package register

// The SS 12000 writes of interface B: POST /attendances,
// DELETE /attendances/{id}, POST /absences. The contract has validated the
// body; the server assigns id and meta, ignores the read-only properties a
// body carries (displayName, securityMarking), and checks every reference
// in the same transaction that stores the record, so a record never
// dangles. Records are visible at once to every read of both interfaces and
// the data export.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// refOf is the stored form of a reference: its id alone, in lower case.
func refOf(r model.ObjectReference) model.ObjectReference {
	return model.ObjectReference{ID: strings.ToLower(r.ID)}
}

func personRefOf(r model.PersonReference) model.PersonReference {
	return model.PersonReference{ID: strings.ToLower(r.ID)}
}

// writeFailed answers a write the store refused: a dangling reference or a
// conflict is the client's mistake (400), anything else the server's.
func (s *API) writeFailed(w http.ResponseWriter, err error) {
	var re *store.RefError
	var ce *store.ConflictError
	switch {
	case errors.As(err, &re):
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("%s: no record with id %s", re.Field, re.ID))
	case errors.As(err, &ce):
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, ce.Message)
	default:
		s.log.Error("interface B write", "err", err)
		surface.WriteRegisterError(w, http.StatusInternalServerError, surface.CodeInternal, "unexpected server error")
	}
}

func (s *API) createAttendance(w http.ResponseWriter, r *http.Request) {
	var a model.Attendance
	if err := surface.DecodeWhole(r.Body, &a); err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not an Attendance: "+err.Error())
		return
	}
	a.ID, a.Meta = uuid.NewString(), model.Meta{}
	a.CalendarEvent = refOf(a.CalendarEvent)
	a.Student = personRefOf(a.Student)
	if a.Reporter != nil {
		rep := personRefOf(*a.Reporter)
		a.Reporter = &rep
	}
	var stored model.Attendance
	err := s.store.Write(func(wr *store.Writer) error {
		var err error
		stored, _, err = wr.PutAttendance(a)
		return err
	})
	if err != nil {
		s.writeFailed(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, s.renderer(s.store.Read(), false).attendance(&stored))
}

func (s *API) deleteAttendance(w http.ResponseWriter, r *http.Request) {
	id := surface.PathID(r)
	err := s.store.Delete(store.TableAttendances, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.notFoundRecord(w, "attendance record", id)
	case err != nil:
		s.writeFailed(w, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *API) createAbsence(w http.ResponseWriter, r *http.Request) {
	var a model.Absence
	if err := surface.DecodeWhole(r.Body, &a); err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not an Absence: "+err.Error())
		return
	}
	if a.EndTime.Before(a.StartTime) {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("endTime %s is before startTime %s", a.EndTime.Format(timeLayout), a.StartTime.Format(timeLayout)))
		return
	}
	a.ID, a.Meta = uuid.NewString(), model.Meta{}
	a.Student = personRefOf(a.Student)
	a.Organisation = refOf(a.Organisation)
	// SS 12000 requires neither member (the ss12000 profile's contract lets
	// them out): the day is the one the absence starts on, the school unit
	// the pupil's on that day.
	if a.RegistrationDate == "" {
		a.RegistrationDate = model.DateOf(a.StartTime.In(surface.Stockholm))
	}
	if a.Organisation.ID == "" {
		unit, ok := schoolUnitOf(s.store.Read(), a.Student.ID, model.DateOf(a.StartTime.In(surface.Stockholm)))
		if !ok {
			surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf(
				"organisation: person %s has no enrolment or placement at a school unit on %s; name the school unit the absence concerns",
				a.Student.ID, model.DateOf(a.StartTime.In(surface.Stockholm))))
			return
		}
		a.Organisation = model.ObjectReference{ID: unit}
	}
	if a.RegisteredBy != nil {
		rb := personRefOf(*a.RegisteredBy)
		a.RegisteredBy = &rb
	}
	var stored model.Absence
	err := s.store.Write(func(wr *store.Writer) error {
		if o, ok := wr.Read().Organisation(a.Organisation.ID); ok && o.OrganisationType != model.OrganisationTypeSchoolUnit {
			return &store.ConflictError{Message: fmt.Sprintf("organisation.id: %s is a %s, not a school unit (Skolenhet)", o.ID, o.OrganisationType)}
		}
		var err error
		stored, _, err = wr.PutAbsence(a)
		return err
	})
	if err != nil {
		s.writeFailed(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, s.renderer(s.store.Read(), false).absence(&stored))
}

const timeLayout = "2006-01-02T15:04:05Z07:00"

// schoolUnitOf returns the school unit a pupil is at on a day: of an
// enrolment that covers the day, else of a placement that does.
func schoolUnitOf(sn *store.Snapshot, person string, day model.Date) (string, bool) {
	covers := func(start, end model.Date) bool { return start <= day && (end == "" || day <= end) }
	if p, ok := sn.Person(person); ok {
		for _, e := range p.Enrolments {
			if covers(e.StartDate, e.EndDate) && e.EnroledAt.ID != "" {
				return e.EnroledAt.ID, true
			}
		}
	}
	unit := ""
	_ = sn.Scan(store.TablePlacements, store.IndexChild, person, func(obj any) bool {
		if pl := obj.(*model.Placement); covers(pl.StartDate, pl.EndDate) {
			unit = pl.PlacedAt.ID
		}
		return unit == ""
	})
	return unit, unit != ""
}
