package store

import (
	"fmt"
	"time"

	"github.com/skolkit/skolkit/model"
)

// The order indexes: one per sortkey of interface B (docs/decisions.md,
// BB15), so that a sorted list walks an index that has the order and stops
// after a page instead of sorting every match. An ascending and a
// descending sortkey of the same field share one index, walked both ways.
// Unlike the equality indexes of the filters, an order index holds every
// record, "" included (a syllabus without a course code sorts first).

// Index names of the order indexes (IndexModified, IndexStartDate,
// IndexEndDate and IndexStartTime are shared with the placements' and
// calendar events' indexes of the same name; organisations, persons, groups
// and employee placements have their IndexModified in schema.go).
const (
	IndexDisplayNameOrder        = "displayNameOrder"
	IndexGivenNameOrder          = "givenNameOrder"
	IndexFamilyNameOrder         = "familyNameOrder"
	IndexCivicNoOrder            = "civicNoOrder"
	IndexNameOrder               = "nameOrder"
	IndexCodeOrder               = "codeOrder"
	IndexSubjectNameOrder        = "subjectNameOrder"
	IndexSubjectCodeOrder        = "subjectCodeOrder"
	IndexCourseNameOrder         = "courseNameOrder"
	IndexCourseCodeOrder         = "courseCodeOrder"
	IndexSubjectDesignationOrder = "subjectDesignationOrder"
	IndexRegisteredDate          = "registeredDate"
)

// ordered is an order index: every record has exactly one value, "" too.
func ordered[T any](name string, fn func(*T) string) indexDef {
	return indexDef{name: name, values: func(o any, dst []string) []string { return append(dst, fn(o.(*T))) }}
}

// modifiedOrder is the order index of meta.modified (a timestamp index:
// every record has exactly one value, its instant).
func modifiedOrder[T any](meta func(*T) *model.Meta) indexDef {
	return byTime(IndexModified, func(r *T) time.Time { return meta(r).Modified })
}

func endDateOrder(d model.Date) string {
	if d == "" {
		return openEndKey
	}
	return string(d)
}

// orderIndexes are the order indexes of each table. Calendar events have
// none for ModifiedDesc: they are the largest table (a million in a
// municipality), their list requires a startTime range, and sorting the
// range's events costs less than an index of every event costs every load
// (docs/decisions.md, BB15).
var orderIndexes = map[string][]indexDef{
	TableOrganisations: {
		ordered(IndexDisplayNameOrder, func(o *model.Organisation) string { return FoldKey(o.DisplayName) }),
	},
	TablePersons: {
		ordered(IndexDisplayNameOrder, func(p *model.Person) string { return FoldKey(p.DisplayName()) }),
		ordered(IndexGivenNameOrder, func(p *model.Person) string { return FoldKey(p.GivenName) }),
		// family name, then given name
		ordered(IndexFamilyNameOrder, func(p *model.Person) string { return FoldKey(p.FamilyName + "\x01" + p.GivenName) }),
		ordered(IndexCivicNoOrder, func(p *model.Person) string {
			if p.CivicNo == nil {
				return ""
			}
			return p.CivicNo.Value
		}),
	},
	TableEmployeePlacements: {
		ordered(IndexStartDate, func(p *model.EmployeePlacement) string { return string(p.StartDate) }),
	},
	TableGroups: {
		ordered(IndexDisplayNameOrder, func(g *model.Group) string { return FoldKey(g.DisplayName) }),
		ordered(IndexStartDate, func(g *model.Group) string { return string(g.StartDate) }),
		ordered(IndexEndDate, func(g *model.Group) string { return endDateOrder(g.EndDate) }),
	},
	TableProgrammes: {
		modifiedOrder(func(p *model.Programme) *model.Meta { return &p.Meta }),
		ordered(IndexNameOrder, func(p *model.Programme) string { return FoldKey(p.Name) }),
		ordered(IndexCodeOrder, func(p *model.Programme) string { return p.Code }),
	},
	TableStudyPlans: {
		modifiedOrder(func(p *model.StudyPlan) *model.Meta { return &p.Meta }),
		ordered(IndexStartDate, func(p *model.StudyPlan) string { return string(p.StartDate) }),
		ordered(IndexEndDate, func(p *model.StudyPlan) string { return endDateOrder(p.EndDate) }),
	},
	TableSyllabuses: {
		modifiedOrder(func(s *model.Syllabus) *model.Meta { return &s.Meta }),
		ordered(IndexSubjectNameOrder, func(s *model.Syllabus) string { return FoldKey(s.SubjectName) }),
		ordered(IndexSubjectCodeOrder, func(s *model.Syllabus) string { return FoldKey(s.SubjectCode) }),
		ordered(IndexCourseNameOrder, func(s *model.Syllabus) string { return FoldKey(s.CourseName) }),
		ordered(IndexCourseCodeOrder, func(s *model.Syllabus) string { return FoldKey(s.CourseCode) }),
		ordered(IndexSubjectDesignationOrder, func(s *model.Syllabus) string { return FoldKey(s.SubjectDesignation) }),
	},
	TableSchoolUnitOfferings: {
		modifiedOrder(func(o *model.SchoolUnitOffering) *model.Meta { return &o.Meta }),
		ordered(IndexStartDate, func(o *model.SchoolUnitOffering) string { return string(o.StartDate) }),
		ordered(IndexEndDate, func(o *model.SchoolUnitOffering) string { return endDateOrder(o.EndDate) }),
	},
	TableActivities: {
		modifiedOrder(func(a *model.Activity) *model.Meta { return &a.Meta }),
		ordered(IndexDisplayNameOrder, func(a *model.Activity) string { return FoldKey(a.DisplayName) }),
	},
	TableGrades: {
		modifiedOrder(func(g *model.Grade) *model.Meta { return &g.Meta }),
		ordered(IndexRegisteredDate, func(g *model.Grade) string { return string(g.RegisteredDate) }),
	},
	TableAbsences: {
		modifiedOrder(func(a *model.Absence) *model.Meta { return &a.Meta }),
		byTime(IndexStartTime, func(a *model.Absence) time.Time { return a.StartTime }),
	},
	TableResources: {
		modifiedOrder(func(r *model.Resource) *model.Meta { return &r.Meta }),
		ordered(IndexDisplayNameOrder, func(r *model.Resource) string { return FoldKey(r.DisplayName) }),
	},
	TableRooms: {
		modifiedOrder(func(r *model.Room) *model.Meta { return &r.Meta }),
		ordered(IndexDisplayNameOrder, func(r *model.Room) string { return FoldKey(r.DisplayName) }),
	},
}

func init() {
	for table, ixs := range orderIndexes {
		td, ok := tableDefs[table]
		if !ok {
			panic(fmt.Sprintf("store: order indexes of an unknown table %q", table))
		}
		for _, ix := range ixs {
			if td.index(ix.name) != nil {
				panic(fmt.Sprintf("store: table %q has two indexes %q", table, ix.name))
			}
			td.indexes = append(td.indexes, ix)
		}
	}
}

// OrderKey returns a record's value under an index of a table: the key by
// which the index orders it (the first value of a multi-valued index). It
// panics when the table has no such index: the engine's descriptions are
// checked at construction.
func OrderKey(table, index string) func(obj any) string {
	td, ok := tableDefs[table]
	if !ok || td.index(index) == nil {
		panic(fmt.Sprintf("store: table %q has no index %q", table, index))
	}
	ix := td.index(index)
	return func(obj any) string {
		var buf [1]string
		if vals := ix.values(obj, buf[:0]); len(vals) > 0 {
			return vals[0]
		}
		return ""
	}
}

// CountSpan counts the entries of an index within a span, up to max: a
// planner's estimate of what an equality costs (it stops at max).
func (sn *Snapshot) CountSpan(table, index string, sp Span, max int) int {
	td, ok := tableDefs[table]
	if !ok {
		return 0
	}
	n := 0
	_ = sn.t.walk(td, index, sp.lo, false, func(k []byte, _ any) bool {
		if !inSpan(k, sp) || n >= max {
			return false
		}
		n++
		return true
	})
	return n
}
