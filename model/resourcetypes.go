package model

// ResourceType is an SS 12000 resource type (the document's EndPointsEnum):
// what a subscription subscribes to and a log or statistics entry concerns.
type ResourceType string

// The SS 12000 2.1.0 resource types (EndPointsEnum).
const (
	ResourceAbsence            ResourceType = "Absence"
	ResourceAttendanceEvent    ResourceType = "AttendanceEvent"
	ResourceAttendance         ResourceType = "Attendance"
	ResourceGrade              ResourceType = "Grade"
	ResourceCalendarEvent      ResourceType = "CalendarEvent"
	ResourceAttendanceSchedule ResourceType = "AttendanceSchedule"
	ResourceResource           ResourceType = "Resource"
	ResourceRoom               ResourceType = "Room"
	ResourceActivity           ResourceType = "Activity"
	ResourceDuty               ResourceType = "Duty"
	ResourcePlacement          ResourceType = "Placement"
	ResourceStudyPlan          ResourceType = "StudyPlan"
	ResourceProgramme          ResourceType = "Programme"
	ResourceSyllabus           ResourceType = "Syllabus"
	ResourceSchoolUnitOffering ResourceType = "SchoolUnitOffering"
	ResourceGroup              ResourceType = "Group"
	ResourcePerson             ResourceType = "Person"
	ResourceOrganisation       ResourceType = "Organisation"
)

// ResourceTypes lists every resource type, in the document's order.
var ResourceTypes = []ResourceType{
	ResourceAbsence, ResourceAttendanceEvent, ResourceAttendance, ResourceGrade, ResourceCalendarEvent,
	ResourceAttendanceSchedule, ResourceResource, ResourceRoom, ResourceActivity, ResourceDuty, ResourcePlacement,
	ResourceStudyPlan, ResourceProgramme, ResourceSyllabus, ResourceSchoolUnitOffering, ResourceGroup,
	ResourcePerson, ResourceOrganisation,
}
