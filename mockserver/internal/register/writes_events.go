package register

// POST and DELETE of attendance events and attendance schedules, as
// writes.go does for attendances.

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
)

// Scopes of the writes of attendance events and schedules.
const (
	ScopeAttendanceEventsWrite   = "attendanceEvents:write"
	ScopeAttendanceScheduleWrite = "attendanceSchedule:write"
)

// eventWriteEndpoints are the writes of attendance events and schedules.
func (s *API) eventWriteEndpoints() []surface.Endpoint {
	b := func(method, path, scope string, h http.HandlerFunc) surface.Endpoint {
		return surface.Endpoint{Method: method, Path: PrefixB + path, Kind: surface.Register, Scope: scope, Doc: openapi.NameRegister, Handle: h}
	}
	return []surface.Endpoint{
		b(http.MethodPost, "/attendanceEvents", ScopeAttendanceEventsWrite, s.createAttendanceEvent),
		b(http.MethodDelete, "/attendanceEvents/{id}", ScopeAttendanceEventsWrite, s.deleteRecord(store.TableAttendanceEvents, "attendance event")),
		b(http.MethodPost, "/attendanceSchedule", ScopeAttendanceScheduleWrite, s.createAttendanceSchedule),
		b(http.MethodDelete, "/attendanceSchedule/{id}", ScopeAttendanceScheduleWrite, s.deleteRecord(store.TableAttendanceSchedules, "attendance schedule")),
	}
}

// rendered is the stored record as GET /<name>/{id} shows it (without
// expand or reference names).
func (s *API) rendered(name, table, id string) any {
	sn := s.store.Read()
	obj, _ := sn.Get(table, id)
	if res := s.kinds.byName(name); res != nil {
		return res.render(s, s.renderer(sn, false), obj, nil)
	}
	return obj
}

// deleteRecord serves DELETE /<name>/{id}: 204, or 404.
func (s *API) deleteRecord(table, noun string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := surface.PathID(r)
		err := s.store.Delete(table, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			s.notFoundRecord(w, noun, id)
		case err != nil:
			s.writeFailed(w, err)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}
}

func (s *API) createAttendanceEvent(w http.ResponseWriter, r *http.Request) {
	var e model.AttendanceEvent
	if err := surface.DecodeWhole(r.Body, &e); err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not an AttendanceEvent: "+err.Error())
		return
	}
	e.ID, e.Meta = uuid.NewString(), model.Meta{}
	e.Person = personRefOf(e.Person)
	e.Group = refOf(e.Group)
	if e.RegisteredBy != nil {
		rb := personRefOf(*e.RegisteredBy)
		e.RegisteredBy = &rb
	}
	err := s.store.Write(func(wr *store.Writer) error {
		_, _, err := wr.PutAttendanceEvent(e)
		return err
	})
	if err != nil {
		s.writeFailed(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, s.rendered("attendanceEvents", store.TableAttendanceEvents, e.ID))
}

func (s *API) createAttendanceSchedule(w http.ResponseWriter, r *http.Request) {
	var a model.AttendanceSchedule
	if err := surface.DecodeWhole(r.Body, &a); err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not an AttendanceSchedule: "+err.Error())
		return
	}
	if a.EndDate != "" && a.EndDate < a.StartDate {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, fmt.Sprintf("endDate %s is before startDate %s", a.EndDate, a.StartDate))
		return
	}
	a.ID, a.Meta = uuid.NewString(), model.Meta{}
	a.Placement = refOf(a.Placement)
	// scheduleDays repeats scheduleEntries (docs/decisions.md#ss12000-defects):
	// a client may send either.
	if len(a.ScheduleEntries) == 0 {
		a.ScheduleEntries = a.ScheduleDays
	}
	a.ScheduleDays = nil
	for i := range a.State {
		if rb := a.State[i].RegisteredBy; rb != nil {
			ref := personRefOf(*rb)
			a.State[i].RegisteredBy = &ref
		}
	}
	err := s.store.Write(func(wr *store.Writer) error {
		sn := wr.Read()
		if p, ok := sn.Placement(a.Placement.ID); ok && !model.IsRegisterPlacement(p) {
			return &store.ConflictError{Message: fmt.Sprintf("placement.id: placement %s is of school form %s; interface B has placements of FS, FTH and OPPFTH only", p.ID, p.SchoolType)}
		}
		for i, st := range a.State {
			if st.RegisteredBy != nil {
				if _, ok := sn.Person(st.RegisteredBy.ID); !ok {
					return &store.RefError{Field: fmt.Sprintf("state[%d].registeredBy.id", i), ID: st.RegisteredBy.ID}
				}
			}
		}
		_, _, err := wr.PutAttendanceSchedule(a)
		return err
	})
	if err != nil {
		s.writeFailed(w, err)
		return
	}
	surface.WriteJSON(w, http.StatusOK, s.rendered("attendanceSchedule", store.TableAttendanceSchedules, a.ID))
}
