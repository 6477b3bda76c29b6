package store

// Names of the built-in tables (tables.go).
const (
	TableOrganisations  = "organisations"
	TablePersons        = "persons"
	TableGroups         = "groups"
	TablePlacements     = "placements"
	TableSyllabuses     = "syllabuses"
	TableCalendarEvents = "calendarEvents"
	TableAttendances    = "attendances"
	TableAbsences       = "absences"
	// TableEmployeePlacements is interface A's; interface B shows its
	// records as duties.
	TableEmployeePlacements  = "employeePlacements"
	TableProgrammes          = "programmes"
	TableStudyPlans          = "studyPlans"
	TableSchoolUnitOfferings = "schoolUnitOfferings"
	TableActivities          = "activities"
	TableAttendanceEvents    = "attendanceEvents"
	TableAttendanceSchedules = "attendanceSchedules"
	// TableGrades holds interface B's grades and interface A's two kinds of
	// grade alike.
	TableGrades    = "grades"
	TableResources = "resources"
	TableRooms     = "rooms"
	// TableTombstones is the deletion log: one model.Tombstone per deleted
	// record (tombstones.go).
	TableTombstones = "tombstones"
)

// Index names, each named after the question it answers.
const (
	IndexID = "id"

	// placements
	IndexPlacedAt  = "placedAt"
	IndexGroup     = "group"
	IndexChild     = "child"
	IndexOwner     = "owner"
	IndexStartDate = "startDate"
	IndexEndDate   = "endDate"
	IndexCreated   = "created"
	IndexModified  = "modified"

	// organisations
	IndexOrganisationType = "organisationType"
	IndexSchoolUnitCode   = "schoolUnitCode"
	IndexParent           = "parent" // parentOrganisation
	IndexOrganisationCode = "organisationCode"

	// groups, activities, absences, ...
	IndexOrganisation = "organisation"
	IndexMember       = "member"

	// attendances, absences, grades, study plans
	IndexStudent       = "student"
	IndexCalendarEvent = "calendarEvent"
	// IndexEventDay orders attendance records by the UTC date of their
	// event's start, then pupil: its value is EventDayKey(day, student).
	IndexEventDay = "eventDay"

	// interface A: each view's records in list order (meta.created, then id)
	IndexSchoolsByCreated = "schoolsByCreated"
	IndexUnitsByCreated   = "unitsByCreated"
	IndexGroupsByCreated  = "groupsByCreated"
	IndexPersonsByRole    = "personsByRole" // role, then meta.created
	// groups: a school's group titles, folded to lower case
	IndexSchoolTitle = "schoolTitle"
	// groups: the duties of their assignment roles
	IndexDuty = "duty"
	// persons: the guardians a person names as responsibles
	IndexResponsible = "responsible"
	// persons: civic number (interface A's identityNumber)
	IndexCivicNo = "civicNo"
	// employee placements: the employee
	IndexEmployee = "employee"
	// activities: the duties of their teachers; grades: interface A's
	// teachers, the registrar and the grading teacher
	IndexTeacher = "teacher"
	// grades: interface A's two views, each in list order (meta.created)
	IndexGradesElementaryByCreated     = "gradesElementaryByCreated"
	IndexGradesUpperSecondaryByCreated = "gradesUpperSecondaryByCreated"
	// syllabuses: school type and code (the course code, else the subject code)
	IndexSyllabusCode = "syllabusCode"
	// calendar events
	IndexActivity  = "activity"
	IndexStartTime = "startTime"
	// attendance events
	IndexPerson = "person"
	// attendance schedules
	IndexPlacement = "placement"
	// programmes
	IndexCode = "code"

	// IndexDeletedAt orders tombstones by deletion time, then id;
	// IndexKindDeletedAt by kind, then deletion time.
	IndexDeletedAt     = "deletedAt"
	IndexKindDeletedAt = "kindDeletedAt"
)

// The order indexes: one per sortkey of interface B
// (docs/decisions.md#interface-b-indexes), so that a sorted list walks an index that has the order and stops
// after a page instead of sorting every match. An ascending and a
// descending sortkey of the same field share one index, walked both ways.
// Unlike the equality indexes of the filters, an order index holds every
// record, "" included (a syllabus without a course code sorts first).
// IndexModified, IndexStartDate, IndexEndDate and IndexStartTime serve as
// order indexes too.
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
