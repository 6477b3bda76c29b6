package store

import (
	"bytes"
	"iter"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/model"
)

// An attendance record is kept with the UTC date of its calendar event's
// start (model.Attendance.EventDay), which the store sets whenever the record
// is stored or loaded, and moves when the event moves to another day. The
// eventDay index orders the records by that date, then pupil, so that the
// records of a period are found without reading those of other periods
// (docs/decisions.md#attendance-event-day).

// EventDayKey is an attendance record's value under IndexEventDay: the date
// of its event, then its pupil.
func EventDayKey(day model.Date, student string) string {
	return string(day) + keySep + student
}

// deriveEventDay sets the event day of an attendance record from its event
// in the transaction's state (the reference is checked before).
func deriveEventDay(sn *Snapshot, a *model.Attendance) {
	day := model.Date("")
	if ev, ok := sn.CalendarEvent(a.CalendarEvent.ID); ok {
		day = model.DateOf(ev.StartTime.UTC())
	}
	a.SetEventDay(day)
}

// moveEventDays re-stores the attendance records of an event that was
// replaced by one starting on another day, with the new day (their
// attributes, and so their meta, stay as they are).
func moveEventDays(w *Writer, old, stored *model.CalendarEvent) error {
	if old == nil {
		return nil
	}
	day := model.DateOf(stored.StartTime.UTC())
	if model.DateOf(old.StartTime.UTC()) == day {
		return nil
	}
	t := w.t
	td := t.schema.table(TableAttendances)
	var moved []model.Attendance
	_ = t.scan(td, IndexCalendarEvent, stored.ID, func(o any) bool {
		a := *o.(*model.Attendance)
		a.SetEventDay(day)
		moved = append(moved, a)
		return true
	})
	for i := range moved {
		if err := t.insert(td, &moved[i]); err != nil {
			return err
		}
	}
	return nil
}

// deriveEventDays sets the event day of every attendance record of a load
// from the load's calendar events (the references are checked separately: a
// record whose event is missing gets no day).
func deriveEventDays(attendances, events *tableLoad) {
	evs := events.sorted
	// A large table's ids are kept sorted (idSet): a probe then reads an id,
	// not an event.
	find := func(id string) (int, bool) {
		return slices.BinarySearchFunc(evs, id, func(e any, id string) int { return strings.Compare(e.(*model.CalendarEvent).ID, id) })
	}
	if ids := events.ids; ids != nil && ids.sorted != nil {
		find = func(id string) (int, bool) { return slices.BinarySearch(ids.sorted, id) }
	}
	// In the dataset's order: a generator writes an event's records one
	// after another, so most records find their event in the one before.
	n := len(attendances.sorted)
	parallel(2, func(half int) {
		lo, hi := 0, n/2
		if half == 1 {
			lo, hi = hi, n
		}
		var prevID string
		var prevDay model.Date
		for i := lo; i < hi; i++ {
			a := attendances.at(i).(*model.Attendance)
			id := a.CalendarEvent.ID
			if id != prevID || prevDay == "" {
				prevID, prevDay = id, ""
				if at, ok := find(id); ok {
					prevDay = model.DateOf(evs[at].(*model.CalendarEvent).StartTime.UTC())
				}
			}
			a.SetEventDay(prevDay)
		}
	})
}

// AttendancesOfPeriod returns the attendance records whose event starts on a
// UTC date from `from` to `to` (inclusive) and whose pupil is fromStudent or
// after, in pupil order (a pupil's records in no particular order), when at
// most maxDays dates of the period have records; ok is false, and the
// sequence nil, when more do. It reads, per date with records, the records
// from fromStudent on as they are consumed, so a caller that stops early
// pays for the records it took and a seek per date, not for the period.
func (sn *Snapshot) AttendancesOfPeriod(from, to model.Date, fromStudent string, maxDays int) (seq iter.Seq[*model.Attendance], ok bool) {
	td := sn.t.schema.table(TableAttendances)
	var days []string
	lo := []byte(string(from) + keySep)
	hi := []byte(string(to) + "\x01")
	for {
		var day string
		_ = sn.t.walk(td, IndexEventDay, lo, false, func(key []byte, _ any) bool {
			if bytes.Compare(key, hi) < 0 {
				day = string(key[:bytes.IndexByte(key, 0)])
			}
			return false
		})
		if day == "" {
			break
		}
		if len(days) == maxDays {
			return nil, false
		}
		days = append(days, day)
		lo = []byte(day + "\x01")
	}
	return func(yield func(*model.Attendance) bool) {
		runs := make([]*dayRun, len(days))
		for i, d := range days {
			span := Span{lo: []byte(EventDayKey(model.Date(d), fromStudent) + keySep), hi: []byte(d + "\x01")}
			runs[i] = &dayRun{sn: sn, table: TableAttendances, index: IndexEventDay, span: span}
		}
		for {
			// The least pupil at the head of a run, then that pupil's
			// records of every run.
			var least string
			found := false
			for _, r := range runs {
				if a := r.head(); a != nil && (!found || a.Student.ID < least) {
					least, found = a.Student.ID, true
				}
			}
			if !found {
				return
			}
			for _, r := range runs {
				for a := r.head(); a != nil && a.Student.ID == least; a = r.head() {
					if !yield(a) {
						return
					}
					r.pop()
				}
			}
		}
	}, true
}

// dayRun is one date's records of the eventDay index, in pupil order.
type dayRun recordCursor

// head is the run's next record, nil when it has none left.
func (r *dayRun) head() *model.Attendance {
	if rec := (*recordCursor)(r).head(); rec != nil {
		return rec.(*model.Attendance)
	}
	return nil
}

// pop moves past the head.
func (r *dayRun) pop() { (*recordCursor)(r).pop() }
