package openapi

// StandardResource is one resource of the SS 12000 2.1.0 standard with a
// list operation (GET /{resource}), as far as the conformance runner's
// generic interface B checks need it: which operations the standard gives
// it and which of their parameters. The table is our own digest of the
// standard (a test compares it with the official document); the runner
// derives its list-walk, by-id, lookup, filter, sort and reference-name
// checks from it, so every resource gets them without hand-written copies.
type StandardResource struct {
	// Path of the list, e.g. "/groups".
	Path string
	// ByID: GET {Path}/{id} exists.
	ByID bool
	// Lookup: POST {Path}/lookup exists and takes {"ids": [...]}.
	Lookup bool
	// ListNames: the list takes expandReferenceNames.
	ListNames bool
	// ModifiedDesc: the list's sortkey takes ModifiedDesc.
	ModifiedDesc bool
	// Required are the list's required query parameters (date-time bounds
	// such as startTime.onOrAfter), which every first request must carry.
	Required []string
}

// StandardResources lists the standard's resources with a list operation,
// in path order. Left out: /aggregatedAttendance, /deletedEntities and
// /subscriptions, whose lists are not lists of records with ids and meta.
var StandardResources = []StandardResource{
	{Path: "/absences", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/activities", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/attendanceEvents", ByID: true, Lookup: true, ListNames: true},
	{Path: "/attendanceSchedule", ByID: true, Lookup: true, ListNames: true},
	{Path: "/attendances", ByID: true, Lookup: true, ListNames: true},
	{Path: "/calendarEvents", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true, Required: []string{"startTime.onOrAfter", "startTime.onOrBefore"}},
	{Path: "/duties", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/grades", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/groups", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/organisations", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/persons", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/placements", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/programmes", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/resources", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/rooms", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/schoolUnitOfferings", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
	{Path: "/studyplans", ByID: true, ListNames: true, ModifiedDesc: true},
	{Path: "/syllabuses", ByID: true, Lookup: true, ListNames: true, ModifiedDesc: true},
}
