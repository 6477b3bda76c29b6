package store

import "github.com/skolkit/skolkit/model"

// The SS 12000 writes of interface B that need issue 11's tables (issue 12).

// PutAttendanceEvent creates or replaces an attendance event; see putIn.
func (w *Writer) PutAttendanceEvent(r model.AttendanceEvent) (model.AttendanceEvent, bool, error) {
	return putIn(w, attendanceEvents, r)
}

// PutAttendanceSchedule creates or replaces an attendance schedule; see putIn.
func (w *Writer) PutAttendanceSchedule(r model.AttendanceSchedule) (model.AttendanceSchedule, bool, error) {
	return putIn(w, attendanceSchedules, r)
}
