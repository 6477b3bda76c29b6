package conformance

// Uncovered lists the spec's testable statements that no check covers yet,
// and why. docs/conformance.md ends with this list; keep it next to the
// catalogue and shorten it as checks are added.
var Uncovered = []struct {
	Section, Quote, Why string
}{
	{"Authentication", "Scopes and per-operation permissions: not shown. An insufficient permission yields 403.",
		"checked for a client that may only read (auth.insufficient-permission-403, with --limited-client-id and --limited-client-secret: every write operation answers it 403); permissions finer than read and write are not shown, so the runner cannot name a read a client may not make"},
	{"Errors", "500: unexpected server error", "cannot be provoked from outside; a 500 seen anywhere is checked by the contract checks"},
	{"Endpoints (interface A)", "The change history states that GradeElementary and GradeUpperSecondary each support get, list, create (POST), update (PATCH) and delete.",
		"only the list is read (A.grade-*.values); creating a grade needs a student, a school and a subject code the server accepts"},
	{"Resources: Person (interface B)", "A coordination number is written with 12 digits, and 60 is added to the day of birth. A temporary number may have letters in the two positions after the date part.",
		"checked only through the contract pattern of civicNo when persons are embedded (expand=child, owners); the day-plus-60 rule is not evaluated"},
	{"Resources: Group (interface B)", "`Klass`: organisational group of pupils placed at a school of a school form; each pupil is in at most one class.",
		"the standard's list of groups is walked, filtered and sorted by the rules' traffic, but the memberships of every class are not compared pupil by pupil"},
	{"Resources: Group (interface B)", "A group may be empty and filled later.", "interface B is read-only"},
	{"Resources: Conventions", "`modified` is the last time an attribute directly belonging to the entity changed.",
		"checked on interface A updates (A.*.update) and for expand on interface B; a change through A is not followed into B"},
	{"States and transitions", "The person status values `Aktiv`, `Utvandrad`, `Avliden` are states of a person. Transitions between them: not shown.",
		"transitions not shown"},
	{"Versioning", "The version is in the path: interface A uses /directory/v1, interface B uses /api/v1, and the data export interface uses /data-export/v1.",
		"the URLs are the user's to give; the runner does not second-guess them"},
	{"Versioning", "Client libraries for two programming languages exist. Older library versions that predate the MealPlanner role lost support on a stated date.",
		"not a property of the server"},
	{"Resources: Placement (interface B)", "owners | array of person references | persons who own the placement; used mainly to control who may see and create schedules",
		"schedules are not part of either interface"},
}
