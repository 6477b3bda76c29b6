package mockserver

import (
	"github.com/skolkit/skolkit/mockserver/internal/admin"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/scenarios"
)

// The public names of what the surface packages define: the error bodies
// and their codes (package internal/surface, one definition for every
// surface), interface B's (package register), interface A's and the
// export's (package directory) and the control plane's (package admin).
// Package mockserver names them too, so that its users need import no
// surface package.

// Error codes of the interface-B error body (SS 12000 Error.code). SS 12000
// leaves the code free; we use the same words as interface A.
const (
	CodeBadRequest       = surface.CodeBadRequest
	CodeUnauthorized     = surface.CodeUnauthorized
	CodeForbidden        = surface.CodeForbidden
	CodeNotFound         = surface.CodeNotFound
	CodeMethodNotAllowed = surface.CodeMethodNotAllowed
	CodePayloadTooLarge  = surface.CodePayloadTooLarge
	CodeInternal         = surface.CodeInternal
)

// Error codes of the control plane's error body.
const (
	AdminBadRequest           = surface.AdminBadRequest
	AdminUnauthorized         = surface.AdminUnauthorized
	AdminForbidden            = surface.AdminForbidden
	AdminNotFound             = surface.AdminNotFound
	AdminMethodNotAllowed     = surface.AdminMethodNotAllowed
	AdminConflict             = surface.AdminConflict
	AdminPayloadTooLarge      = surface.AdminPayloadTooLarge
	AdminUnsupportedMediaType = surface.AdminUnsupportedMediaType
	AdminInternal             = surface.AdminInternal
)

type (
	// RegisterError is the interface-B error body: SS 12000 Error.
	RegisterError = surface.RegisterError
	// OAuthError is the token endpoint's error body (RFC 6749 §5.2).
	OAuthError = surface.OAuthError
	// AdminError is the error body of the control plane:
	// {"error": {"code": "...", "message": "...", "problems": [...]}}.
	AdminError = surface.AdminError
	// AdminErrorBody is the inside of AdminError. Problems lists, with their
	// positions in the request body, every problem of a scenario or rule set
	// that does not load.
	AdminErrorBody = surface.AdminErrorBody
	// Cleared answers the operations that clear something.
	Cleared = surface.Cleared
)

// Scopes of interface B a client may hold (one per resource read, and those
// of deletedEntities, the writes, subscriptions and reports). A client's scope
// list in a scenario may say "all".
const (
	ScopePlacementsRead           = register.ScopePlacementsRead
	ScopeGroupsRead               = register.ScopeGroupsRead
	ScopeSyllabusesRead           = register.ScopeSyllabusesRead
	ScopeAttendancesRead          = register.ScopeAttendancesRead
	ScopeAbsencesRead             = register.ScopeAbsencesRead
	ScopeOrganisationsRead        = register.ScopeOrganisationsRead
	ScopePersonsRead              = register.ScopePersonsRead
	ScopeDutiesRead               = register.ScopeDutiesRead
	ScopeProgrammesRead           = register.ScopeProgrammesRead
	ScopeStudyPlansRead           = register.ScopeStudyPlansRead
	ScopeSchoolUnitOfferingsRead  = register.ScopeSchoolUnitOfferingsRead
	ScopeActivitiesRead           = register.ScopeActivitiesRead
	ScopeCalendarEventsRead       = register.ScopeCalendarEventsRead
	ScopeAttendanceEventsRead     = register.ScopeAttendanceEventsRead
	ScopeAttendanceScheduleRead   = register.ScopeAttendanceScheduleRead
	ScopeGradesRead               = register.ScopeGradesRead
	ScopeAggregatedAttendanceRead = register.ScopeAggregatedAttendanceRead
	ScopeResourcesRead            = register.ScopeResourcesRead
	ScopeRoomsRead                = register.ScopeRoomsRead
	ScopeAttendanceEventsWrite    = register.ScopeAttendanceEventsWrite
	ScopeAttendanceScheduleWrite  = register.ScopeAttendanceScheduleWrite
	ScopeAttendancesWrite         = register.ScopeAttendancesWrite
	ScopeAbsencesWrite            = register.ScopeAbsencesWrite
	ScopeSubscriptionsRead        = register.ScopeSubscriptionsRead
	ScopeSubscriptionsWrite       = register.ScopeSubscriptionsWrite
	ScopeLogWrite                 = register.ScopeLogWrite
	ScopeStatisticsWrite          = register.ScopeStatisticsWrite
	ScopeDeletedEntitiesRead      = register.ScopeDeletedEntitiesRead
)

// MaxReports is how many log entries, and how many statistics entries, the
// server keeps.
const MaxReports = register.MaxReports

type (
	// WebhookOptions configure the callbacks of subscriptions
	// (Options.Webhooks). The zero value uses the webhook package's
	// defaults: a 50 ms coalescing window, retries after 1 s, 5 s and 30 s,
	// 5 s per attempt, subscriptions that live 30 days.
	WebhookOptions = register.WebhookOptions
	// Report is one kept log or statistics entry.
	Report = register.Report
	// ReportPage is the answer of GET /__admin/logs and /__admin/statistics.
	ReportPage = register.ReportPage
	// DeliveryPage is the answer of GET /__admin/deliveries: every recorded
	// attempt to deliver a callback, oldest first.
	DeliveryPage = register.DeliveryPage
)

// Close stops the deliveries of callbacks under way and waits for them.
// The server still serves requests, but sends no more callbacks.
func (s *Server) Close() { s.reg.Close() }

// Webhooks returns the subscription hub: subscriptions, delivery records
// (Attempts) and whether deliveries are under way (Idle).
func (s *Server) Webhooks() *webhook.Hub { return s.reg.Webhooks() }

// Logs returns the log entries clients posted (POST /log/), oldest first.
func (s *Server) Logs() []Report { return s.reg.Logs() }

// Statistics returns the statistics entries clients posted (POST
// /statistics/), oldest first.
func (s *Server) Statistics() []Report { return s.reg.Statistics() }

// Interface A and the data export are package directory; these are the
// public names of what it defines.

type (
	// Pagination is the pagination object of interface-A lists.
	Pagination = directory.Pagination
	// DirectoryMeta is the meta of every interface-A record (the vendor's Meta):
	// when the record was created and last changed, and by which API client.
	DirectoryMeta = directory.DirectoryMeta
	// DirectoryGradeElementary is a GradeElementary of interface A.
	DirectoryGradeElementary = directory.DirectoryGradeElementary
	// DirectoryGradeUpperSecondary is a GradeUpperSecondary of interface A.
	DirectoryGradeUpperSecondary = directory.DirectoryGradeUpperSecondary
	// DirectoryAddress is the address of an interface-A person: the A-facing
	// part of the person's first SS 12000 address.
	DirectoryAddress = directory.DirectoryAddress
	// DirectoryPerson is a Student or an Employee of interface A (the two have
	// the same fields).
	DirectoryPerson = directory.DirectoryPerson
	// DirectoryGuardian is a Guardian of interface A. StudentIDs are the students
	// whose responsibles name the guardian.
	DirectoryGuardian = directory.DirectoryGuardian
	// DirectoryStudentPlacement is a StudentPlacement of interface A.
	DirectoryStudentPlacement = directory.DirectoryStudentPlacement
	// DirectoryEmployeePlacement is an EmployeePlacement of interface A.
	DirectoryEmployeePlacement = directory.DirectoryEmployeePlacement
	// DirectorySchool is a School of interface A: a school unit of the store.
	DirectorySchool = directory.DirectorySchool
	// DirectoryGroup is a Group of interface A: a group of the store.
	DirectoryGroup = directory.DirectoryGroup
	// DirectoryUnit is a Unit of interface A.
	DirectoryUnit = directory.DirectoryUnit
	// DirectoryAuditEvent is an AuditEvent of interface A.
	DirectoryAuditEvent = directory.DirectoryAuditEvent
	// AttendanceExport is one item of GET /data-export/v1/attendance.
	AttendanceExport = directory.AttendanceExport
	// ExportSchool is the school of the lesson.
	ExportSchool = directory.ExportSchool
	// ExportStudent is the student, with the school form and year of the
	// enrolment that the lesson falls in.
	ExportStudent = directory.ExportStudent
	// ExportSyllabus is the subject or the course of the lesson.
	ExportSyllabus = directory.ExportSyllabus
	// ExportReport is the attendance at the lesson.
	ExportReport = directory.ExportReport
)

// Path prefixes of interface A and the data export.
const (
	PrefixA      = directory.PrefixA
	PrefixExport = directory.PrefixExport
)

// Error codes of interface A that interface B does not use.
const (
	CodeConflict      = surface.CodeConflict
	CodeUnprocessable = surface.CodeUnprocessable
	CodeRateLimited   = surface.CodeRateLimited
)

// List limits of interface A.
const (
	DirectoryDefaultLimit = directory.DirectoryDefaultLimit
	DirectoryMaxLimit     = directory.DirectoryMaxLimit
)

// List shapes of interface A.
const (
	ListShapeData        = directory.ListShapeData
	ListShapeResultArray = directory.ListShapeResultArray
)

// ScopeExportRead lets a client read the data export.
const ScopeExportRead = directory.ScopeExportRead

type (
	// DirectoryError is the interface-A error body.
	DirectoryError = surface.DirectoryError
	// DirectoryErrorBody is the inside of DirectoryError. Details lists every
	// violation of a request body that failed validation.
	DirectoryErrorBody = surface.DirectoryErrorBody
)

// ClientUUID is the stable id interface A shows for an API client in
// meta.createdBy and meta.updatedBy: a name-based (SHA-1) uuid of the
// client's id, the same for every server and every run.
func ClientUUID(clientID string) string { return directory.ClientUUID(clientID) }

// The control plane's machinery is package admin; these are the public
// names of what it defines.

// PrefixAdmin is the path prefix of the control plane (openapi/admin.yaml).
const PrefixAdmin = admin.PrefixAdmin

// MaxAdminBodyBytes is the largest scenario or rule set the control plane
// accepts (a state document may be up to MaxStateBytes).
const MaxAdminBodyBytes = admin.MaxAdminBodyBytes

// Where a rule came from.
const (
	RuleFromScenario = admin.RuleFromScenario
	RuleFromAdmin    = admin.RuleFromAdmin
)

// DefaultJournalSize is how many requests the journal keeps when
// Options.JournalSize is 0.
const DefaultJournalSize = admin.DefaultJournalSize

type (
	// JournalEntry is one request in the journal.
	JournalEntry = admin.JournalEntry
	// RequestFilter selects journal entries; empty fields select every entry.
	RequestFilter = admin.RequestFilter
	// JournalPage is the answer of GET /__admin/requests.
	JournalPage = admin.JournalPage
	// FaultState is a fault rule in force, as GET /__admin/faults shows it.
	FaultState = admin.FaultState
	// LatencyState is a latency rule in force.
	LatencyState = admin.LatencyState
	// Rules lists fault and latency rules in the order they are tried.
	Rules = admin.Rules
)

// IsLoopbackListenAddr reports whether a listener bound to addr (as
// net.Listener.Addr().String() gives it) is reachable only from this
// machine. An unspecified address (0.0.0.0, [::]) is not.
func IsLoopbackListenAddr(addr string) bool { return admin.IsLoopbackListenAddr(addr) }

// Requests returns the journal entries that match the filter, oldest first:
// what GET /__admin/requests answers, for Go tests.
func (s *Server) Requests(f RequestFilter) []JournalEntry { return s.plane.Requests(f) }

// Rules returns the fault and latency rules in force, in the order they
// are tried: what GET /__admin/faults answers, for Go tests.
func (s *Server) Rules() Rules { return s.plane.Rules() }

// AddRules puts fault and latency rules before those in force and returns
// them with their ids: POST /__admin/faults for Go tests. The rules are
// taken as they are; scenarios.Parse checks rules read from a file.
func (s *Server) AddRules(b scenarios.Behaviours) Rules { return s.plane.AddRules(b) }

// RemoveRule removes the fault or latency rule with the id and reports
// whether there was one.
func (s *Server) RemoveRule(id string) bool { return s.plane.RemoveRule(id) }
