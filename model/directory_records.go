package model

import "time"

// Records that only interface A (the directory API) has. Unlike the
// extensions in directory.go they are not views of shared records: each is a
// table of its own. (Interface B shows an employee placement as a Duty.) Their JSON is the form
// of the state file (GET/PUT /__admin/state); the wire form of interface A is
// rendered by the mock server.

// EmployeePlacement is an employee's placement at a school, with the roles
// the employee has there (interface A's EmployeePlacement).
type EmployeePlacement struct {
	ID         string    `json:"id"`
	Meta       Meta      `json:"meta"`
	External   *External `json:"external,omitempty"`
	EmployeeID string    `json:"employeeID"`
	SchoolID   string    `json:"schoolID"`
	Signature  *string   `json:"signature,omitempty"`
	Title      *string   `json:"title,omitempty"`
	// Roles are interface A's EmployeePlacementRole values (Teacher, MealPlanner, ...).
	Roles       []string `json:"roles"`
	StartDate   Date     `json:"startDate"`
	EndDate     Date     `json:"endDate,omitempty"`
	ArchiveYear *string  `json:"archiveYear,omitempty"`
	// ArchivedAt is set by the archiving rules of interface A.
	ArchivedAt        *time.Time `json:"archivedAt,omitempty"`
	EmploymentPercent *int       `json:"employmentPercent,omitempty"`
}

func teacherIDs(ids ...*string) []string {
	var out []string
	for _, id := range ids {
		if id != nil && *id != "" && (len(out) == 0 || out[0] != *id) {
			out = append(out, *id)
		}
	}
	return out
}
