package directory

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// Fill gives the interface-A view of every record of ds (after
// PrepareGenerated) each optional member that interface A holds and the
// record lacks, as fixtures.Fill does for the SS 12000 members: the
// source system's identifiers (external), schools' CSN codes, groups'
// moderators, employee placements' signature, title, employment rate and
// end, grades' second teacher, comments, extent and course dates, and a
// preschool placement's mother tongue. Values derive from the records'
// ids, so the same data set always gets the same ones. It leaves out what
// would contradict another member: archiving (archiveYear, archivedAt) of
// current records, school years and modern-language choices of preschool
// placements. end is the end date given to records without one.
func Fill(ds *store.Dataset, end model.Date) {
	teachers := map[string][]string{} // school unit → employees, in order
	for _, ep := range ds.EmployeePlacements {
		teachers[ep.SchoolID] = append(teachers[ep.SchoolID], ep.EmployeeID)
	}
	persons := make(map[string]*model.Person, len(ds.Persons))
	for i := range ds.Persons {
		persons[ds.Persons[i].ID] = &ds.Persons[i]
	}
	holder := map[string]string{} // employee placement → employee
	for i := range ds.EmployeePlacements {
		ep := &ds.EmployeePlacements[i]
		holder[ep.ID] = ep.EmployeeID
		fillExternal(&ep.External, ep.ID)
		if ep.Signature == nil {
			ep.Signature = ptr(signature(persons[ep.EmployeeID]))
		}
		if ep.Title == nil {
			t := "Lärare"
			if len(ep.Roles) > 0 && ep.Roles[0] != "Teacher" {
				t = "Skolpersonal"
			}
			ep.Title = &t
		}
		if ep.EmploymentPercent == nil {
			ep.EmploymentPercent = ptr(50 + 10*int(hash(ep.ID)%6))
		}
		if ep.EndDate == "" {
			ep.EndDate = max(end, ep.StartDate)
		}
	}
	for i := range ds.Organisations {
		o := &ds.Organisations[i]
		if x := o.Directory; x != nil {
			fillExternal(&x.External, o.ID)
			if x.CSNSchoolCode == nil {
				x.CSNSchoolCode = ptr(strconv.Itoa(10000 + int(hash(o.ID)%90000)))
			}
		}
		if x := o.Unit; x != nil {
			fillExternal(&x.External, o.ID)
			if x.Description == nil {
				x.Description = ptr(o.DisplayName)
			}
		}
	}
	for i := range ds.Persons {
		p := &ds.Persons[i]
		if p.Directory != nil {
			fillExternal(&p.Directory.External, p.ID)
		}
	}
	for i := range ds.Groups {
		g := &ds.Groups[i]
		if g.Directory == nil {
			category, types := directoryGroupView(g.GroupType)
			g.Directory = &model.GroupExtra{Category: category, Types: types}
		}
		x := g.Directory
		fillExternal(&x.External, g.ID)
		if len(x.ModeratorIDs) == 0 {
			for _, r := range g.AssignmentRoles {
				if id, ok := holder[r.Duty.ID]; ok && !slices.Contains(x.ModeratorIDs, id) {
					x.ModeratorIDs = append(x.ModeratorIDs, id)
				}
			}
		}
		if len(x.ModeratorIDs) == 0 && len(teachers[g.Organisation.ID]) > 0 {
			x.ModeratorIDs = []string{teachers[g.Organisation.ID][0]}
		}
	}
	for i := range ds.Placements {
		p := &ds.Placements[i]
		if x := p.Directory; x != nil {
			fillExternal(&x.External, p.ID)
			if x.MotherTongue == nil {
				x.MotherTongue = ptr("Svenska")
			}
		}
	}
	for i := range ds.Grades {
		g := &ds.Grades[i]
		x := g.Directory
		if x == nil {
			continue
		}
		fillExternal(&x.External, g.ID)
		if x.Teacher2EmployeeID == nil && x.Teacher1EmployeeID != nil {
			for _, t := range teachers[g.Organisation.OptionalID()] {
				if t != *x.Teacher1EmployeeID {
					x.Teacher2EmployeeID = ptr(t)
					break
				}
			}
		}
		switch x.Kind {
		case model.GradeKindElementary:
			if x.SchoolComment == nil {
				x.SchoolComment = ptr("Betyget är satt efter samråd mellan lärarna")
			}
		case model.GradeKindUpperSecondary:
			fillUpperSecondary(x, ds.Programmes)
		}
	}
}

// fillUpperSecondary fills an upper-secondary grade's course members.
func fillUpperSecondary(x *model.GradeExtra, programmes []model.Programme) {
	if x.GradeComment == nil {
		x.GradeComment = ptr("Kursen är avslutad")
	}
	if x.TeacherComment == nil {
		x.TeacherComment = ptr("Godkänd examination")
	}
	if x.Extent == nil {
		x.Extent = ptr("Normal")
	}
	if x.Section == nil {
		x.Section = ptr("Program")
	}
	if x.ProgramTitle == nil && len(programmes) > 0 {
		x.ProgramTitle = ptr(programmes[0].Name)
	}
	if !x.GradeDate.IsZero() {
		t := x.GradeDate.Time()
		if x.StartDate == "" {
			x.StartDate = model.DateOf(t.AddDate(0, -5, 0))
		}
		if x.EndDate == "" {
			x.EndDate = x.GradeDate
		}
	}
}

// fillExternal gives a record without one its identifiers in the source
// system the data came from: the school administration system.
func fillExternal(x **model.External, id string) {
	if *x == nil {
		*x = &model.External{}
	}
	if (*x).Source == nil {
		(*x).Source = ptr("Elevregistret")
	}
	if (*x).SourceID == nil {
		(*x).SourceID = ptr(strings.ToUpper(strings.ReplaceAll(id, "-", "")[:12]))
	}
}

// signature is a member of staff's signature: the first two letters of the
// given and the family name, upper-case.
func signature(p *model.Person) string {
	if p == nil {
		return "PERS"
	}
	return strings.ToUpper(firstRunes(p.GivenName, 2) + firstRunes(p.FamilyName, 2))
}

func firstRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func ptr[T any](v T) *T { return &v }

// FillEnd is the end date Fill gives records without one, as of now: the
// end of the school year after next.
func FillEnd(now time.Time) model.Date {
	return model.Date(strconv.Itoa(now.Year()+2) + "-06-30")
}
