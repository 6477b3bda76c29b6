package store

import "github.com/skolkit/skolkit/model"

// Typed reads and writes of the built-in tables: Get and Put of each
// table's record type, under the names the surfaces read best.

// Organisation returns the organisation with the id, if any.
func (sn *Snapshot) Organisation(id string) (*model.Organisation, bool) {
	return getAs[model.Organisation](sn.t, TableOrganisations, id)
}

// Person returns the person with the id, if any.
func (sn *Snapshot) Person(id string) (*model.Person, bool) {
	return getAs[model.Person](sn.t, TablePersons, id)
}

// Group returns the group with the id, if any.
func (sn *Snapshot) Group(id string) (*model.Group, bool) {
	return getAs[model.Group](sn.t, TableGroups, id)
}

// Placement returns the placement with the id, if any.
func (sn *Snapshot) Placement(id string) (*model.Placement, bool) {
	return getAs[model.Placement](sn.t, TablePlacements, id)
}

// Syllabus returns the syllabus with the id, if any.
func (sn *Snapshot) Syllabus(id string) (*model.Syllabus, bool) {
	return getAs[model.Syllabus](sn.t, TableSyllabuses, id)
}

// CalendarEvent returns the calendar event with the id, if any.
func (sn *Snapshot) CalendarEvent(id string) (*model.CalendarEvent, bool) {
	return getAs[model.CalendarEvent](sn.t, TableCalendarEvents, id)
}

// Attendance returns the attendance record with the id, if any.
func (sn *Snapshot) Attendance(id string) (*model.Attendance, bool) {
	return getAs[model.Attendance](sn.t, TableAttendances, id)
}

// Absence returns the absence record with the id, if any.
func (sn *Snapshot) Absence(id string) (*model.Absence, bool) {
	return getAs[model.Absence](sn.t, TableAbsences, id)
}

// EmployeePlacement returns the employee placement with the id, if any.
func (sn *Snapshot) EmployeePlacement(id string) (*model.EmployeePlacement, bool) {
	return getAs[model.EmployeePlacement](sn.t, TableEmployeePlacements, id)
}

// Grade returns the grade with the id, if any (interface A's two kinds and
// interface B's grades are one table).
func (sn *Snapshot) Grade(id string) (*model.Grade, bool) {
	return getAs[model.Grade](sn.t, TableGrades, id)
}

// PutOrganisation creates or replaces an organisation; see putIn.
func (s *Store) PutOrganisation(r model.Organisation) (model.Organisation, bool, error) {
	return put(s, r)
}

// PutPerson creates or replaces a person; see putIn.
func (s *Store) PutPerson(r model.Person) (model.Person, bool, error) { return put(s, r) }

// PutGroup creates or replaces a group; see putIn.
func (s *Store) PutGroup(r model.Group) (model.Group, bool, error) { return put(s, r) }

// PutPlacement creates or replaces a placement; see putIn.
func (s *Store) PutPlacement(r model.Placement) (model.Placement, bool, error) { return put(s, r) }

// PutSyllabus creates or replaces a syllabus; see putIn.
func (s *Store) PutSyllabus(r model.Syllabus) (model.Syllabus, bool, error) { return put(s, r) }

// PutCalendarEvent creates or replaces a calendar event; see putIn. The
// store keeps a copy of the event's references, not the caller's EventRefs.
func (s *Store) PutCalendarEvent(r model.CalendarEvent) (model.CalendarEvent, bool, error) {
	r.EventRefs = r.RefsCopy()
	return put(s, r)
}

// PutAttendance creates or replaces an attendance record; see putIn.
func (s *Store) PutAttendance(r model.Attendance) (model.Attendance, bool, error) {
	return put(s, r)
}

// PutAbsence creates or replaces an absence record; see putIn.
func (s *Store) PutAbsence(r model.Absence) (model.Absence, bool, error) { return put(s, r) }

// PutOrganisation creates or replaces an organisation; see putIn.
func (w *Writer) PutOrganisation(r model.Organisation) (model.Organisation, bool, error) {
	return Put(w, r)
}

// PutPerson creates or replaces a person; see putIn.
func (w *Writer) PutPerson(r model.Person) (model.Person, bool, error) { return Put(w, r) }

// PutGroup creates or replaces a group; see putIn.
func (w *Writer) PutGroup(r model.Group) (model.Group, bool, error) { return Put(w, r) }

// PutPlacement creates or replaces a placement; see putIn.
func (w *Writer) PutPlacement(r model.Placement) (model.Placement, bool, error) { return Put(w, r) }

// PutEmployeePlacement creates or replaces an employee placement; see putIn.
func (w *Writer) PutEmployeePlacement(r model.EmployeePlacement) (model.EmployeePlacement, bool, error) {
	return Put(w, r)
}

// PutGrade creates or replaces a grade; see putIn.
func (w *Writer) PutGrade(r model.Grade) (model.Grade, bool, error) { return Put(w, r) }

// PutSyllabus creates or replaces a syllabus; see putIn.
func (w *Writer) PutSyllabus(r model.Syllabus) (model.Syllabus, bool, error) { return Put(w, r) }

// PutAttendance creates or replaces an attendance record; see putIn.
func (w *Writer) PutAttendance(r model.Attendance) (model.Attendance, bool, error) {
	return Put(w, r)
}

// PutAbsence creates or replaces an absence record; see putIn.
func (w *Writer) PutAbsence(r model.Absence) (model.Absence, bool, error) { return Put(w, r) }

// PutAttendanceEvent creates or replaces an attendance event; see putIn.
func (w *Writer) PutAttendanceEvent(r model.AttendanceEvent) (model.AttendanceEvent, bool, error) {
	return Put(w, r)
}

// PutAttendanceSchedule creates or replaces an attendance schedule; see putIn.
func (w *Writer) PutAttendanceSchedule(r model.AttendanceSchedule) (model.AttendanceSchedule, bool, error) {
	return Put(w, r)
}
