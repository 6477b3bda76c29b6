package model

// The enumerated wire strings of interface B. Each type has a list of all its
// values (used by validation, fixtures and tests) so that no other package
// spells them again.

// SchoolType is a school form (skolform).
type SchoolType string

// SchoolTypes lists every school form of the spec, in the spec's order.
var SchoolTypes = []SchoolType{"FS", "FKLASS", "FTH", "OPPFTH", "GR", "GRS", "TR", "SP", "SAM", "GY", "GYS", "VUX", "VUXSFI", "VUXGR", "VUXGY", "VUXSARGR", "VUXSARTR", "VUXSARGY", "SFI", "SARVUX", "SARVUXGR", "SARVUXGY", "KU", "YH", "FHS", "STF", "KKU", "HS", "ABU", "AU"}

// School forms that the code refers to by name.
const (
	SchoolTypeFS     SchoolType = "FS"
	SchoolTypeFKLASS SchoolType = "FKLASS"
	SchoolTypeFTH    SchoolType = "FTH"
	SchoolTypeOPPFTH SchoolType = "OPPFTH"
	SchoolTypeGR     SchoolType = "GR"
	SchoolTypeGY     SchoolType = "GY"
)

// PlacementSchoolTypes are the only school forms a Placement may have.
var PlacementSchoolTypes = []SchoolType{SchoolTypeFS, SchoolTypeFTH, SchoolTypeOPPFTH}

// IsRegisterPlacement reports whether interface B shows the placement: its
// school form is one of PlacementSchoolTypes. Interface A's student
// placements of other school forms share the table but not the view.
func IsRegisterPlacement(p *Placement) bool {
	return p.SchoolType == SchoolTypeFS || p.SchoolType == SchoolTypeFTH || p.SchoolType == SchoolTypeOPPFTH
}

// SecurityMarking mirrors the population register's protection of a person.
type SecurityMarking string

// Security markings.
const (
	SecurityMarkingNone         SecurityMarking = "Ingen"
	SecurityMarkingConfidential SecurityMarking = "Sekretessmarkering"
	SecurityMarkingProtected    SecurityMarking = "Skyddad folkbokföring"
)

// SecurityMarkings lists every security marking.
var SecurityMarkings = []SecurityMarking{SecurityMarkingNone, SecurityMarkingConfidential, SecurityMarkingProtected}

// Sex of a person.
type Sex string

// Sexes lists every value of Sex.
var Sexes = []Sex{"Man", "Kvinna", "Okänt"}

// PersonStatus is the population-register state of a person.
type PersonStatus string

// PersonStatuses lists every person status; Aktiv is the default.
var PersonStatuses = []PersonStatus{"Aktiv", "Utvandrad", "Avliden"}

// PersonAddressType is the kind of a person's address.
type PersonAddressType string

// PersonAddressTypes lists every person address type.
var PersonAddressTypes = []PersonAddressType{"Folkbokföring", "Särskild postadress", "Tillfällig adress", "Postadress"}

// OrganisationAddressType is the kind of an organisation's address.
type OrganisationAddressType string

// OrganisationAddressTypes lists every organisation address type.
var OrganisationAddressTypes = []OrganisationAddressType{"Besöksadress", "Leveransadress", "Postadress", "Fakturaadress"}

// EmailType is the kind of an e-mail address (SS 12000 2.1.0).
type EmailType string

// EmailTypes lists every e-mail type.
var EmailTypes = []EmailType{"Privat", "Skola elev", "Skola personal", "Arbete övrigt"}

// PhoneType is the kind of a telephone number (SS 12000 2.1.0).
type PhoneType string

// PhoneTypes lists every phone type.
var PhoneTypes = []PhoneType{"Hem", "Arbete"}

// RelationType is how a responsible adult relates to a person.
type RelationType string

// RelationTypes lists every relation type.
var RelationTypes = []RelationType{"Vårdnadshavare", "Annan ansvarig", "God man", "Utsedd behörig"}

// RelationGuardian is the relation of a legal guardian.
const RelationGuardian RelationType = "Vårdnadshavare"

// OrganisationType is the kind of an organisation element.
type OrganisationType string

// Organisation types.
const (
	OrganisationTypeOrganiser  OrganisationType = "Huvudman"
	OrganisationTypeSchoolUnit OrganisationType = "Skolenhet"
	// OrganisationTypeUnit is the type of the organisation elements that
	// interface A shows as Units (docs/decisions.md#units-are-forvaltning).
	OrganisationTypeUnit OrganisationType = "Förvaltning"
)

// OrganisationTypes lists every organisation type.
var OrganisationTypes = []OrganisationType{"Huvudman", "Verksamhetsområde", "Förvaltning", "Rektorsområde", "Skola", "Skolenhet", "Varumärke", "Bolag", "Övrigt"}

// GroupType is the kind of a group.
type GroupType string

// Group types.
const (
	GroupTypeTeaching   GroupType = "Undervisning"
	GroupTypeClass      GroupType = "Klass"
	GroupTypeMentor     GroupType = "Mentor"
	GroupTypeTest       GroupType = "Provgrupp"
	GroupTypeSchedule   GroupType = "Schema"
	GroupTypeDepartment GroupType = "Avdelning"
	GroupTypeStaff      GroupType = "Personalgrupp"
	GroupTypeOther      GroupType = "Övrigt"
)

// GroupTypes lists every group type.
var GroupTypes = []GroupType{GroupTypeTeaching, GroupTypeClass, GroupTypeMentor, GroupTypeTest, GroupTypeSchedule, GroupTypeDepartment, GroupTypeStaff, GroupTypeOther}

// AssignmentRoleType is a staff member's role towards a group.
type AssignmentRoleType string

// AssignmentRoleTypes lists every assignment role type.
var AssignmentRoleTypes = []AssignmentRoleType{"Mentor", "Förskollärare", "Barnskötare", "Fritidspedagog", "Specialpedagog", "Elevhälsopersonal", "Pedagogisk ledare", "Schemaläggare", "Lärarassistent", "Administrativ personal"}

// PlacementReason is why a child has a placement.
type PlacementReason string

// PlacementReasons lists every placement reason.
var PlacementReasons = []PlacementReason{"Omsorgsbehov", "Erbjuden tid", "Eget behov"}

// Curriculum is a Swedish curriculum (läroplan).
type Curriculum string

// Curricula lists every curriculum.
var Curricula = []Curriculum{"Lgy70", "Lgr80", "Lpo94", "Lpf94", "Lpfö98", "GR2000", "GY2000", "GYSÄR2000", "GYVUX2000", "GYVUX2001", "GYVUX2002", "GR2011", "GRSÄR2011", "SPEC2011", "SAM2011", "Lvux12", "GY2011", "GYSÄR2013", "VU2013"}

// AbsenceType says whether an absence is excused. The spec names Giltig and
// Ogiltig; docs/decisions.md#absence-follows-the-spec says how this differs
// from SS 12000 2.1.0.
type AbsenceType string

// Absence types.
const (
	AbsenceValid   AbsenceType = "Giltig"
	AbsenceInvalid AbsenceType = "Ogiltig"
)

// AbsenceTypes lists every absence type.
var AbsenceTypes = []AbsenceType{AbsenceValid, AbsenceInvalid}

// SortKey orders the placement list.
type SortKey string

// Placement sort keys.
const (
	SortStartDateAsc  SortKey = "StartDateAsc"
	SortStartDateDesc SortKey = "StartDateDesc"
	SortEndDateAsc    SortKey = "EndDateAsc"
	SortEndDateDesc   SortKey = "EndDateDesc"
	SortModifiedDesc  SortKey = "ModifiedDesc"
)

// SortKeys lists every placement sort key.
var SortKeys = []SortKey{SortStartDateAsc, SortStartDateDesc, SortEndDateAsc, SortEndDateDesc, SortModifiedDesc}
