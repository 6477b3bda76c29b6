package directory

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/model"
)

// Students, employees and guardians of interface A are the persons of the
// store, told apart by the roles in Person.Directory. One person may have
// several roles and then appears in each role's list. The fields map onto the
// SS 12000 person of interface B like this:
//
//	interface A                      SS 12000 person (interface B)
//	identityNumber YYYYMMDD-NNNN     civicNo.value YYYYMMDDNNNN (the hyphen dropped; else 422)
//	identityTemporary                Directory.IdentityTemporary
//	external                         Directory.External
//	firstName, lastName              givenName, familyName
//	gender Female/Male/Other/null    sex Kvinna/Man/Okänt/absent (Student, Employee)
//	dateOfBirth                      birthDate (Student, Employee)
//	address.postalAddress            addresses[0].streetAddress
//	address.postalCode               addresses[0].postalCode
//	address.postalCity               addresses[0].locality
//	address.countryCode              addresses[0].country ("SWE" ↔ "Sverige", "NOR" ↔ "Norge", ...: countries.go;
//	                                 another code as it is; another name is null in A)
//	address.municipalityCode "0180"  addresses[0].municipalityCode 180 (four digits; else 422)
//	emailAddress1, emailAddress2     emails[0], emails[1] (new entries of type Privat)
//	phoneNumber1, phoneNumber2       phoneNumbers[0], phoneNumbers[1] (new entries of type Hem)
//	eduPersonPrincipalName           eduPersonPrincipalNames[0] (Student, Employee)
//	studentIDs                       the students whose responsibles name the guardian
//	                                 (written as relationType Vårdnadshavare)
//
// A present member replaces its SS 12000 value and keeps what interface A
// does not show (an entry's type, the address's type and county). null
// removes the entry; "" on a nullable string is null. A person written
// through interface A gets securityMarking Ingen and personStatus Aktiv.

// DirectoryAddress is the address of an interface-A person: the A-facing
// part of the person's first SS 12000 address.
type DirectoryAddress struct {
	PostalAddress    *string `json:"postalAddress"`
	PostalCode       *string `json:"postalCode"`
	PostalCity       *string `json:"postalCity"`
	CountryCode      *string `json:"countryCode"`
	MunicipalityCode *string `json:"municipalityCode"`
}

// DirectoryPerson is a Student or an Employee of interface A (the two have
// the same fields).
type DirectoryPerson struct {
	ID                     string           `json:"id"`
	Meta                   DirectoryMeta    `json:"meta"`
	External               *model.External  `json:"external"`
	Gender                 *string          `json:"gender"`
	IdentityNumber         string           `json:"identityNumber"`
	IdentityTemporary      bool             `json:"identityTemporary"`
	FirstName              string           `json:"firstName"`
	LastName               string           `json:"lastName"`
	DateOfBirth            *model.Date      `json:"dateOfBirth"`
	Address                DirectoryAddress `json:"address"`
	EmailAddress1          *string          `json:"emailAddress1"`
	EmailAddress2          *string          `json:"emailAddress2"`
	PhoneNumber1           *string          `json:"phoneNumber1"`
	PhoneNumber2           *string          `json:"phoneNumber2"`
	EduPersonPrincipalName *string          `json:"eduPersonPrincipalName"`
}

// DirectoryGuardian is a Guardian of interface A. StudentIDs are the students
// whose responsibles name the guardian.
type DirectoryGuardian struct {
	ID                string           `json:"id"`
	Meta              DirectoryMeta    `json:"meta"`
	External          *model.External  `json:"external"`
	IdentityNumber    string           `json:"identityNumber"`
	IdentityTemporary bool             `json:"identityTemporary"`
	FirstName         string           `json:"firstName"`
	LastName          string           `json:"lastName"`
	Address           DirectoryAddress `json:"address"`
	EmailAddress1     *string          `json:"emailAddress1"`
	EmailAddress2     *string          `json:"emailAddress2"`
	PhoneNumber1      *string          `json:"phoneNumber1"`
	PhoneNumber2      *string          `json:"phoneNumber2"`
	StudentIDs        []string         `json:"studentIDs"`
}

// Values a person written through interface A gets where interface A has no
// field for them.
const (
	emailTypeA   model.EmailType    = "Privat"
	phoneTypeA   model.PhoneType    = "Hem"
	personActive model.PersonStatus = "Aktiv"
)

// civicNoRE is the form of an SS 12000 civic number (interface B's contract):
// 12 characters without separators, letters allowed in positions 9 and 10.
var civicNoRE = regexp.MustCompile(`^[0-9]{8}[0-9A-Za-z]{2}[0-9]{2}$`)

// genders maps interface A's gender to the SS 12000 sex, and back.
var genders = map[string]model.Sex{"Female": "Kvinna", "Male": "Man", "Other": "Okänt"}

func genderOf(sex model.Sex) *string {
	for g, s := range genders {
		if s == sex {
			return &g
		}
	}
	return nil
}

func hasRole(p *model.Person, role model.PersonRole) bool {
	return p.Directory != nil && slices.Contains(p.Directory.Roles, role)
}

func renderAddress(p *model.Person) DirectoryAddress {
	if len(p.Addresses) == 0 {
		return DirectoryAddress{}
	}
	a := p.Addresses[0]
	out := DirectoryAddress{PostalAddress: strPtr(a.StreetAddress), PostalCode: strPtr(a.PostalCode), PostalCity: strPtr(a.Locality), CountryCode: countryCodeOf(a.Country)}
	if a.MunicipalityCode != nil {
		out.MunicipalityCode = strPtr(fmt.Sprintf("%04d", *a.MunicipalityCode))
	}
	return out
}

func civicNoOf(p *model.Person) string {
	if p.CivicNo == nil {
		return ""
	}
	return p.CivicNo.Value
}

// identityNumberOf is a person's identityNumber as interface A shows it: the
// vendor's form YYYYMMDD-NNNN, made from SS 12000's 12 characters without
// separators (a civic number of another length is shown as stored).
func identityNumberOf(p *model.Person) string { return identityNumber(civicNoOf(p)) }

// identityNumberOf under the deviation identity-number-without-hyphen: SS
// 12000's 12 characters.
func (s *API) identityNumberShown(p *model.Person) string {
	if s.deviates(deviation.IdentityNumberNoHyphen) {
		return civicNoOf(p)
	}
	return identityNumberOf(p)
}

func identityNumber(civicNo string) string {
	if len(civicNo) != 12 {
		return civicNo
	}
	return civicNo[:8] + "-" + civicNo[8:]
}

// civicNoFromIdentity is the SS 12000 civic number of an interface-A
// identityNumber: the hyphen dropped. ok is false when the value is not of
// the form YYYYMMDD-NNNN (the letters of a temporary number allowed in the
// first two places after the hyphen).
func civicNoFromIdentity(v string) (string, bool) {
	if len(v) != 13 || v[8] != '-' {
		return "", false
	}
	no := v[:8] + v[9:]
	return no, civicNoRE.MatchString(no)
}

func emailAt(p *model.Person, i int) *string {
	if i < len(p.Emails) {
		return strPtr(p.Emails[i].Value)
	}
	return nil
}

func phoneAt(p *model.Person, i int) *string {
	if i < len(p.PhoneNumbers) {
		return strPtr(p.PhoneNumbers[i].Value)
	}
	return nil
}

func renderPerson(p *model.Person) DirectoryPerson {
	out := DirectoryPerson{
		ID: p.ID, Meta: dirMeta(p.Meta), Gender: genderOf(p.Sex), IdentityNumber: identityNumberOf(p),
		FirstName: p.GivenName, LastName: p.FamilyName, Address: renderAddress(p),
		EmailAddress1: emailAt(p, 0), EmailAddress2: emailAt(p, 1), PhoneNumber1: phoneAt(p, 0), PhoneNumber2: phoneAt(p, 1),
	}
	if !p.BirthDate.IsZero() {
		d := p.BirthDate
		out.DateOfBirth = &d
	}
	if len(p.EduPersonPrincipalNames) > 0 {
		out.EduPersonPrincipalName = strPtr(p.EduPersonPrincipalNames[0])
	}
	if x := p.Directory; x != nil {
		out.External, out.IdentityTemporary = x.External, x.IdentityTemporary
	}
	return out
}

// sexGender is genders inverted: the interface-A gender of an SS 12000 sex.
var sexGender = func() map[model.Sex]string {
	m := map[model.Sex]string{}
	for g, s := range genders {
		m[s] = g
	}
	return m
}()

// personGetters read the searchable fields of a Student, Employee or
// Guardian as renderPerson (and renderGuardian) show them. Keep them in step
// with renderPerson: TestSearchGettersMatchRender compares the two.
var personGetters = fieldGetters[model.Person]{
	"id": func(_ *store.Snapshot, p *model.Person) (any, bool) { return textField(p.ID) },
	"gender": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		if g, ok := sexGender[p.Sex]; ok {
			return g, true
		}
		return nil, false
	},
	"identityNumber": func(_ *store.Snapshot, p *model.Person) (any, bool) { return textField(identityNumberOf(p)) },
	"identityTemporary": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		return p.Directory != nil && p.Directory.IdentityTemporary, true
	},
	"firstName":   func(_ *store.Snapshot, p *model.Person) (any, bool) { return textField(p.GivenName) },
	"lastName":    func(_ *store.Snapshot, p *model.Person) (any, bool) { return textField(p.FamilyName) },
	"dateOfBirth": func(_ *store.Snapshot, p *model.Person) (any, bool) { return optText(string(p.BirthDate)) },
	"emailAddress1": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		if len(p.Emails) > 0 {
			return optText(p.Emails[0].Value)
		}
		return nil, false
	},
	"emailAddress2": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		if len(p.Emails) > 1 {
			return optText(p.Emails[1].Value)
		}
		return nil, false
	},
	"phoneNumber1": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		if len(p.PhoneNumbers) > 0 {
			return optText(p.PhoneNumbers[0].Value)
		}
		return nil, false
	},
	"phoneNumber2": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		if len(p.PhoneNumbers) > 1 {
			return optText(p.PhoneNumbers[1].Value)
		}
		return nil, false
	},
	"eduPersonPrincipalName": func(_ *store.Snapshot, p *model.Person) (any, bool) {
		if len(p.EduPersonPrincipalNames) > 0 {
			return optText(p.EduPersonPrincipalNames[0])
		}
		return nil, false
	},
	"address.postalAddress":    addressGetter(func(a DirectoryAddress) *string { return a.PostalAddress }),
	"address.postalCode":       addressGetter(func(a DirectoryAddress) *string { return a.PostalCode }),
	"address.postalCity":       addressGetter(func(a DirectoryAddress) *string { return a.PostalCity }),
	"address.countryCode":      addressGetter(func(a DirectoryAddress) *string { return a.CountryCode }),
	"address.municipalityCode": addressGetter(func(a DirectoryAddress) *string { return a.MunicipalityCode }),
}

func personMeta(p *model.Person) *model.Meta { return &p.Meta }

func personExternal(p *model.Person) *model.External {
	if p.Directory == nil {
		return nil
	}
	return p.Directory.External
}

// addressGetter reads one member of the person's interface-A address.
func addressGetter(member func(a DirectoryAddress) *string) getter[model.Person] {
	return func(_ *store.Snapshot, p *model.Person) (any, bool) { return ptrText(member(renderAddress(p))) }
}

// guardianGetters read the searchable fields of a Guardian as renderGuardian
// shows them: the person's, less those a Guardian does not have, and its
// students.
var guardianGetters = func() fieldGetters[model.Person] {
	g := fieldGetters[model.Person]{
		"studentIDs": func(sn *store.Snapshot, p *model.Person) (any, bool) { return list(guardianStudents(sn, p.ID)) },
	}
	for name, get := range personGetters {
		switch name {
		case "gender", "dateOfBirth", "eduPersonPrincipalName":
		default:
			g[name] = get
		}
	}
	return g
}()

func renderGuardian(sn *store.Snapshot, p *model.Person) DirectoryGuardian {
	v := renderPerson(p)
	return DirectoryGuardian{
		ID: v.ID, Meta: v.Meta, External: v.External, IdentityNumber: v.IdentityNumber, IdentityTemporary: v.IdentityTemporary,
		FirstName: v.FirstName, LastName: v.LastName, Address: v.Address,
		EmailAddress1: v.EmailAddress1, EmailAddress2: v.EmailAddress2, PhoneNumber1: v.PhoneNumber1, PhoneNumber2: v.PhoneNumber2,
		StudentIDs: guardianStudents(sn, p.ID),
	}
}

// guardianStudents returns the students whose responsibles name the person,
// in id order.
func guardianStudents(sn *store.Snapshot, id string) []string {
	out := []string{}
	for _, p := range namingResponsible(sn, id) {
		if hasRole(p, model.RoleStudent) {
			out = append(out, p.ID)
		}
	}
	return out
}

// namingResponsible returns every person whose responsibles name the person.
func namingResponsible(sn *store.Snapshot, id string) []*model.Person {
	var out []*model.Person
	_ = sn.Scan(store.TablePersons, store.IndexResponsible, id, func(obj any) bool {
		out = append(out, obj.(*model.Person))
		return true
	})
	return out
}

// personResource is the interface-A resource of the persons with one role.
func (s *API) personResource(role model.PersonRole, schema string) *dirResource {
	name := string(role)
	res := &dirResource{
		name: name, path: "/" + name, scope: name, schema: schema, canSearch: true, canDelete: true,
		table: store.TablePersons, member: func(p any) bool { return hasRole(p.(*model.Person), role) },
		logged: true, audited: true,
		scan: func(sn *store.Snapshot, fn func(any) bool) {
			_ = sn.Scan(store.TablePersons, store.IndexPersonsByRole, name, fn)
		},
		get: func(sn *store.Snapshot, id string) (any, bool) {
			p, ok := sn.Person(id)
			return p, ok && hasRole(p, role)
		},
		render: func(_ *store.Snapshot, rec any) any {
			v := renderPerson(rec.(*model.Person))
			v.IdentityNumber = s.identityNumberShown(rec.(*model.Person))
			return v
		},
		getters: withRecordGetters(personGetters, personMeta, personExternal),
		since: &sinceLookup{table: store.TablePersons, member: func(obj any) bool { return hasRole(obj.(*model.Person), role) },
			listOrder: func(obj any) (time.Time, string) { p := obj.(*model.Person); return p.Meta.Created, p.ID }},
		lookups: []equalityLookup{{
			field: "identityNumber", table: store.TablePersons, index: store.IndexCivicNo,
			key:       func(v string) string { no, _ := civicNoFromIdentity(v); return no },
			member:    func(obj any) bool { return hasRole(obj.(*model.Person), role) },
			listOrder: func(obj any) (time.Time, string) { p := obj.(*model.Person); return p.Meta.Created, p.ID },
		}},
		create: func(s *API, by string, body map[string]json.RawMessage) (string, error) {
			p := model.Person{
				ID: uuid.NewString(), SecurityMarking: model.SecurityMarkingNone, PersonStatus: personActive,
				Directory: &model.PersonExtra{Roles: []model.PersonRole{role}},
			}
			dupOK := s.deviates(deviation.IdentityConflictAccepted)
			return p.ID, s.store.WriteBy(by, func(w *store.Writer) error { return writePerson(w, role, p, body, dupOK) })
		},
		patch: func(s *API, by, id string, body map[string]json.RawMessage) error {
			return s.store.WriteBy(by, func(w *store.Writer) error {
				cur, ok := w.Read().Person(id)
				if !ok || !hasRole(cur, role) {
					return store.ErrNotFound
				}
				p := *cur
				x := *cur.Directory
				p.Directory = &x
				return writePerson(w, role, p, body, false)
			})
		},
		remove: func(s *API, by, id string) error {
			return s.store.WriteBy(by, func(w *store.Writer) error { return removeRole(w, role, schema, id) })
		},
	}
	if role == model.RoleGuardian {
		res.render = func(sn *store.Snapshot, rec any) any {
			v := renderGuardian(sn, rec.(*model.Person))
			v.IdentityNumber = s.identityNumberShown(rec.(*model.Person))
			return v
		}
		res.getters = withRecordGetters(guardianGetters, personMeta, personExternal)
	}
	return res
}

// writePerson applies a validated body to p (a new person or a copy of the
// stored one), checks it and stores it, with a guardian's links to students,
// in the writer's transaction. Problems with the body are a 422; an
// identityNumber that another person has is a 409 (unless dupOK: the
// deviation deviation.IdentityConflictAccepted).
func writePerson(w *store.Writer, role model.PersonRole, p model.Person, body map[string]json.RawMessage, dupOK bool) error {
	sn := w.Read()
	problems := applyPerson(&p, body)
	var studentIDs []string
	links := role == model.RoleGuardian && member(body, "studentIDs", &studentIDs)
	if links {
		for i, id := range studentIDs {
			if st, ok := sn.Person(id); !ok || !hasRole(st, model.RoleStudent) || id == p.ID {
				problems = append(problems, surface.FieldProblem{Field: fmt.Sprintf("/studentIDs/%d", i), Message: fmt.Sprintf("no student with id %s", id)})
			}
		}
	}
	if len(problems) > 0 {
		return unprocessable(problems...)
	}
	if err := identityUnique(sn, &p); err != nil && !dupOK {
		return err
	}
	if _, _, err := w.PutPerson(p); err != nil {
		return err
	}
	if links {
		return linkStudents(w, p.ID, studentIDs)
	}
	return nil
}

// identityUnique answers 409 when another person has the person's civic number.
func identityUnique(sn *store.Snapshot, p *model.Person) error {
	no := civicNoOf(p)
	if no == "" {
		return nil
	}
	var conflict error
	_ = sn.Scan(store.TablePersons, store.IndexCivicNo, no, func(obj any) bool {
		other := obj.(*model.Person)
		if other.ID == p.ID {
			return true
		}
		var roles []string
		if other.Directory != nil {
			for _, r := range other.Directory.Roles {
				roles = append(roles, string(r))
			}
		}
		conflict = &store.ConflictError{Message: fmt.Sprintf("identityNumber %s already belongs to person %s (roles: %s)", identityNumber(no), other.ID, strings.Join(roles, ", "))}
		return false
	})
	return conflict
}

// linkStudents makes the students the guardian's: each named student gets
// the guardian as a responsible (relation Vårdnadshavare) unless it already
// names them, and each other student that names the guardian stops doing so.
func linkStudents(w *store.Writer, guardian string, studentIDs []string) error {
	sn := w.Read()
	var changed []model.Person
	for _, st := range namingResponsible(sn, guardian) {
		if hasRole(st, model.RoleStudent) && !slices.Contains(studentIDs, st.ID) {
			changed = append(changed, withoutResponsible(st, guardian))
		}
	}
	for _, id := range studentIDs {
		st, _ := sn.Person(id) // checked by the caller
		if slices.ContainsFunc(st.Responsibles, func(r model.Responsible) bool { return r.Person.ID == guardian }) {
			continue
		}
		cp := *st
		cp.Responsibles = append(slices.Clone(st.Responsibles), model.Responsible{Person: model.PersonReference{ID: guardian}, RelationType: model.RelationGuardian})
		changed = append(changed, cp)
	}
	for _, p := range changed {
		if _, _, err := w.PutPerson(p); err != nil {
			return err
		}
	}
	return nil
}

// withoutResponsible returns a copy of p whose responsibles do not name id.
func withoutResponsible(p *model.Person, id string) model.Person {
	cp := *p
	cp.Responsibles = slices.DeleteFunc(slices.Clone(p.Responsibles), func(r model.Responsible) bool { return r.Person.ID == id })
	if len(cp.Responsibles) == 0 {
		cp.Responsibles = nil
	}
	return cp
}

// removeRole is DELETE through one role. A guardian's links to persons that
// name them as responsible go first. A person who has other roles keeps
// them and loses only this one, unless records still refer to them in this
// role (409); a person with no other role is deleted, unless anything still
// refers to them (409 with the store's message).
func removeRole(w *store.Writer, role model.PersonRole, kind, id string) error {
	sn := w.Read()
	p, ok := sn.Person(id)
	if !ok || !hasRole(p, role) {
		return store.ErrNotFound
	}
	if role == model.RoleGuardian {
		for _, st := range namingResponsible(sn, id) {
			if _, _, err := w.PutPerson(withoutResponsible(st, id)); err != nil {
				return err
			}
		}
	}
	others := slices.DeleteFunc(slices.Clone(p.Directory.Roles), func(r model.PersonRole) bool { return r == role })
	if len(others) == 0 {
		return w.Delete(store.TablePersons, id)
	}
	if refs := roleReferrers(w.Read(), role, id); len(refs) > 0 {
		return &store.ConflictError{Message: fmt.Sprintf("%s %s is still referred to by %s", role, id, strings.Join(refs, ", "))}
	}
	p, _ = w.Read().Person(id)
	cp := *p
	x := *p.Directory
	x.Roles = others
	cp.Directory = &x
	if _, _, err := w.PutPerson(cp); err != nil {
		return err
	}
	// The person stays, but the Student (Employee, Guardian) is deleted:
	// the deletion log says so.
	return w.Tombstone(store.TablePersons, id, kind)
}

// roleReferrers names the records that refer to a person in one role.
func roleReferrers(sn *store.Snapshot, role model.PersonRole, id string) []string {
	var out []string
	count := func(table, index, label string) {
		n := 0
		_ = sn.Scan(table, index, id, func(any) bool { n++; return true })
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, label))
		}
	}
	switch role {
	case model.RoleStudent:
		count(store.TablePlacements, store.IndexChild, "placement(s) as child")
		n := 0 // grades interface A shows: a client can delete them first
		_ = sn.Scan(store.TableGrades, store.IndexStudent, id, func(obj any) bool {
			if obj.(*model.Grade).Directory != nil {
				n++
			}
			return true
		})
		if n > 0 {
			out = append(out, fmt.Sprintf("%d grade(s) as student", n))
		}
		count(store.TableAttendances, store.IndexStudent, "attendance record(s)")
		count(store.TableAbsences, store.IndexStudent, "absence record(s)")
	case model.RoleEmployee:
		count(store.TableEmployeePlacements, store.IndexEmployee, "employee placement(s)")
		count(store.TableGrades, store.IndexTeacher, "grade(s) as teacher or registrar")
		if n := sn.EventsTaughtBy(id); n > 0 {
			out = append(out, fmt.Sprintf("%d calendar event(s) as teacher", n))
		}
	}
	return out
}

// applyPerson copies the members present in a validated Student, Employee or
// Guardian body onto the SS 12000 person and returns what is wrong with them.
func applyPerson(p *model.Person, body map[string]json.RawMessage) []surface.FieldProblem {
	var problems []surface.FieldProblem
	x := p.Directory
	var ext *model.External
	if member(body, "external", &ext) {
		x.External = ext
	}
	member(body, "identityTemporary", &x.IdentityTemporary)
	var str *string
	if member(body, "identityNumber", &str) {
		no, ok := civicNoFromIdentity(deref(str))
		if !ok {
			problems = append(problems, surface.FieldProblem{Field: "/identityNumber", Message: "must be of the form YYYYMMDD-NNNN, with the hyphen (a temporary number may have letters in the two places after it)"})
		}
		if p.CivicNo == nil || p.CivicNo.Value != no {
			p.CivicNo = &model.CivicNo{Value: no}
		}
	}
	var name string
	if member(body, "firstName", &name) {
		p.GivenName = name
	}
	if member(body, "lastName", &name) {
		p.FamilyName = name
	}
	str = nil
	if member(body, "gender", &str) {
		p.Sex = genders[deref(str)]
	}
	var date *model.Date
	if member(body, "dateOfBirth", &date) {
		p.BirthDate = ""
		if date != nil {
			p.BirthDate = *date
		}
	}
	var addr DirectoryAddress
	if member(body, "address", &addr) {
		problems = append(problems, applyAddress(p, addr)...)
	}
	p.Emails = applySlots(p.Emails, body, "emailAddress",
		func(e *model.Email, v string) { e.Value = v },
		func(v string) model.Email { return model.Email{Value: v, Type: emailTypeA} })
	p.PhoneNumbers = applySlots(p.PhoneNumbers, body, "phoneNumber",
		func(e *model.PhoneNumber, v string) { e.Value = v },
		func(v string) model.PhoneNumber { return model.PhoneNumber{Value: v, Type: phoneTypeA} })
	str = nil
	if member(body, "eduPersonPrincipalName", &str) {
		names := slices.Clone(p.EduPersonPrincipalNames)
		switch v := optString(str); {
		case v == nil && len(names) > 0:
			names = names[1:]
		case v == nil:
		case len(names) > 0:
			names[0] = *v
			// The list is a set: a later copy of the new first name goes.
			names = append(names[:1], slices.DeleteFunc(names[1:], func(n string) bool { return n == *v })...)
		default:
			names = []string{*v}
		}
		if len(names) == 0 {
			names = nil
		}
		p.EduPersonPrincipalNames = names
	}
	return problems
}

// applyAddress writes interface A's address onto the person's first address
// (a new one when the person has none). An address whose members are all
// null removes the first address.
func applyAddress(p *model.Person, a DirectoryAddress) []surface.FieldProblem {
	var muni *int
	if v := optString(a.MunicipalityCode); v != nil {
		n, err := strconv.Atoi(*v)
		if err != nil || n < 0 || len(*v) != 4 {
			return []surface.FieldProblem{{Field: "/address/municipalityCode", Message: "must be a municipality code of four digits"}}
		}
		muni = &n
	}
	addrs := slices.Clone(p.Addresses)
	if optString(a.PostalAddress) == nil && optString(a.PostalCode) == nil && optString(a.PostalCity) == nil && optString(a.CountryCode) == nil && muni == nil {
		if len(addrs) > 0 {
			addrs = addrs[1:]
		}
	} else {
		if len(addrs) == 0 {
			addrs = []model.PersonAddress{{}}
		}
		first := &addrs[0]
		first.StreetAddress, first.PostalCode, first.Locality = deref(a.PostalAddress), deref(a.PostalCode), deref(a.PostalCity)
		first.Country = countryOf(deref(a.CountryCode))
		first.MunicipalityCode = muni
	}
	if len(addrs) == 0 {
		addrs = nil
	}
	p.Addresses = addrs
	return nil
}

// applySlots maps interface A's two members <prefix>1 and <prefix>2 onto the
// first two entries of an SS 12000 list: a present member replaces its
// entry's value (keeping the entry's type), creates the entry, or with null
// removes it; entries after the second are kept. Removing the first entry
// moves the second into its place.
func applySlots[T any](cur []T, body map[string]json.RawMessage, prefix string, set func(*T, string), mk func(string) T) []T {
	var slots [2]*T
	for i := 0; i < 2 && i < len(cur); i++ {
		e := cur[i]
		slots[i] = &e
	}
	changed := false
	for i := range slots {
		var v *string
		if !member(body, prefix+strconv.Itoa(i+1), &v) {
			continue
		}
		changed = true
		switch v = optString(v); {
		case v == nil:
			slots[i] = nil
		case slots[i] != nil:
			set(slots[i], *v)
		default:
			e := mk(*v)
			slots[i] = &e
		}
	}
	if !changed {
		return cur
	}
	var out []T
	for _, e := range slots {
		if e != nil {
			out = append(out, *e)
		}
	}
	if len(cur) > 2 {
		out = append(out, cur[2:]...)
	}
	return out
}
