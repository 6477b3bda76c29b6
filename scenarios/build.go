package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/fixtures"
	"github.com/skolkit/skolkit/model"
)

// idNamespace is the UUID (version 5) namespace of the ids derived for
// explicit records: NewSHA1(NameSpaceURL, "https://github.com/skolkit/skolkit/scenarios").
var idNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/skolkit/skolkit/scenarios"))

// DeriveID returns the id of an explicit record without an explicit id: a
// version 5 UUID of the seed and key, where key is the record's alias, or
// for a record without alias its list and position ("placements[3]").
func DeriveID(seed int64, key string) string {
	return uuid.NewSHA1(idNamespace, []byte(strconv.FormatInt(seed, 10)+"/"+key)).String()
}

// Build returns the scenario's data: the generated records (fixtures with
// the scenario's seed and counts) followed by the explicit records, with
// every alias resolved to an id. now is the "as of" instant of the generated
// data when the scenario's clock is real; a fixed clock's instant takes its
// place. Meta timestamps of explicit records are left zero for the store to
// set. The same scenario, seed and instant always give the same data.
//
// Build fails, with a *LoadError, when the counts do not fit together (more
// attendance records than lessons can hold, say) or an explicit id is also
// the id of a generated record.
func (sc *Scenario) Build(now time.Time) (*fixtures.Dataset, error) {
	now = sc.Clock.At(now)
	ds, err := fixtures.Generate(sc.Generate.Config(sc.Seed, now))
	if err != nil {
		return nil, sc.buildError("generate", "%v", err)
	}
	b := &builder{sc: sc, ds: ds, ids: map[string]string{}}
	if len(ds.Organisations) > 0 && ds.Organisations[0].OrganisationType == model.OrganisationTypeOrganiser {
		b.organiser = ds.Organisations[0].ID
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	// The SS 12000 records derived from the others, for generated and
	// explicit records alike (activities of calendar events, rooms, ...).
	fixtures.Complete(ds, now)
	if sc.Generate.Complete {
		fixtures.Fill(ds, sc.Seed, now)
	}
	normalise(ds)
	return ds, nil
}

func (sc *Scenario) buildError(path, format string, args ...any) error {
	p := Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	if sc.src != nil {
		p.File = sc.src.file
		if n := sc.src.at(path); n != nil {
			p.Line, p.Column = n.Line, n.Column
		}
	} else {
		p.File = sc.Name
	}
	return &LoadError{File: p.File, Problems: []Problem{p}}
}

type builder struct {
	sc        *Scenario
	ds        *fixtures.Dataset
	ids       map[string]string // alias -> id
	organiser string            // the generated organiser's id, if any
	// parent is the organiser of a school or unit that names none: the
	// first explicit organiser, else the generated one ("": none).
	parent string
	// explicit maps each explicit record's id to its path, for the check
	// against generated ids.
	explicit map[string]string
}

// id returns the id of the record at list[i], registering its alias.
func (b *builder) id(list string, i int, alias, id string) string {
	if id == "" {
		key := alias
		if key == "" {
			key = fmt.Sprintf("%s[%d]", list, i)
		}
		id = DeriveID(b.sc.Seed, key)
	} else {
		b.explicit[id] = fmt.Sprintf("records.%s[%d].id", list, i)
	}
	if alias != "" {
		b.ids[alias] = id
	}
	return id
}

func (b *builder) obj(alias string) model.ObjectReference {
	return model.ObjectReference{ID: b.ids[alias]}
}

// objs are references to the records with the aliases (nil for none).
func (b *builder) objs(aliases []string) []model.ObjectReference {
	if len(aliases) == 0 {
		return nil
	}
	out := make([]model.ObjectReference, len(aliases))
	for i, a := range aliases {
		out[i] = b.obj(a)
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (b *builder) person(alias string) model.PersonReference {
	return model.PersonReference{ID: b.ids[alias]}
}

func (b *builder) optPerson(alias string) *model.PersonReference {
	if alias == "" {
		return nil
	}
	r := b.person(alias)
	return &r
}

// parentOf is the parent of a school or unit that names the organiser
// alias ("": the default, b.parent), nil when there is none.
func (b *builder) parentOf(organiser string) *model.ObjectReference {
	switch {
	case organiser != "":
		return &model.ObjectReference{ID: b.ids[organiser]}
	case b.parent != "":
		return &model.ObjectReference{ID: b.parent}
	}
	return nil
}

// build adds the explicit records to the generated ones, list by list
// (recordLists): every id first, so that references may point forwards,
// then the records.
func (b *builder) build() error {
	r := &b.sc.Records
	b.explicit = map[string]string{}
	lists := recordLists()
	ids := make([][]string, len(lists))
	for i, l := range lists {
		for j, ident := range l.idents(r) {
			ids[i] = append(ids[i], b.id(l.listKey(), j, ident.alias, ident.id))
		}
	}
	if err := b.checkExplicitIDs(lists); err != nil {
		return err
	}
	b.parent = b.organiser
	for i, l := range lists {
		if l == anyList(organisersList) && len(ids[i]) > 0 {
			b.parent = ids[i][0]
		}
	}
	for i, l := range lists {
		l.buildAll(b, r, ids[i])
	}
	return nil
}

func (b *builder) buildPerson(id string, r *PersonRecord) model.Person {
	p := model.Person{
		ID:                      id,
		GivenName:               r.GivenName,
		MiddleName:              r.MiddleName,
		FamilyName:              r.FamilyName,
		EduPersonPrincipalNames: r.EduPersonPrincipalNames,
		ExternalIdentifiers:     r.ExternalIdentifiers,
		BirthDate:               r.BirthDate,
		Sex:                     r.Sex,
		SecurityMarking:         r.SecurityMarking,
		PersonStatus:            r.PersonStatus,
		Emails:                  r.Emails,
		PhoneNumbers:            r.PhoneNumbers,
		Addresses:               r.Addresses,
	}
	if p.SecurityMarking == "" {
		p.SecurityMarking = model.SecurityMarkingNone
	}
	if p.PersonStatus == "" {
		p.PersonStatus = "Aktiv"
	}
	if r.CivicNo != nil {
		c := model.CivicNo{Value: r.CivicNo.Value, Nationality: r.CivicNo.Nationality}
		if c.Nationality == "" {
			c.Nationality = "SE"
		}
		p.CivicNo = &c
		if p.BirthDate == "" {
			p.BirthDate = birthDateOf(c.Value)
		}
	}
	for _, e := range r.Enrolments {
		p.Enrolments = append(p.Enrolments, model.Enrolment{
			EnroledAt:     b.obj(e.School),
			SchoolYear:    e.SchoolYear,
			SchoolType:    e.SchoolType,
			StartDate:     e.StartDate,
			EndDate:       e.EndDate,
			Cancelled:     e.Cancelled,
			EducationCode: e.EducationCode,
			Specification: e.Specification,
		})
	}
	for _, resp := range r.Responsibles {
		rel := resp.RelationType
		if rel == "" {
			rel = model.RelationGuardian
		}
		p.Responsibles = append(p.Responsibles, model.Responsible{Person: b.person(resp.Person), RelationType: rel})
	}
	return p
}

// birthDateOf returns the date of birth in a valid civic number (day - 60
// for a coordination number).
func birthDateOf(civic string) model.Date {
	day := civic[6:8]
	if !fixtures.IsTemporaryNumber(civic) && day[0] >= '6' {
		day = strconv.Itoa(int(day[0]-'6')) + day[1:]
	}
	return model.Date(civic[0:4] + "-" + civic[4:6] + "-" + day)
}

// checkExplicitIDs fails when an explicit id is also a generated record's
// (in a table the lists build into).
func (b *builder) checkExplicitIDs(lists []anyList) error {
	if len(b.explicit) == 0 {
		return nil
	}
	var seen []any // the tables checked already: several lists build one
	for _, l := range lists {
		table, ids := l.generated(b.ds)
		if slices.Contains(seen, table) {
			continue
		}
		seen = append(seen, table)
		for _, id := range ids {
			if path, ok := b.explicit[id]; ok {
				return b.sc.buildError(path, "id %s is also the id of a generated record; choose another or leave id out", id)
			}
		}
	}
	return nil
}

// normalise replaces nil slices by empty ones, so that every table is a
// JSON array.
func normalise(ds *fixtures.Dataset) {
	v := reflect.ValueOf(ds).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice && f.IsNil() {
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
	}
}
