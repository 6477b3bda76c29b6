package mockserver

import "github.com/skolkit/skolkit/scenarios"

// Bytes of memory that building and loading one generated record touches,
// calibrated on the large scenario (the heap mockserver.New retains,
// TestBuildFootprintOfLarge; docs/decisions.md#prefault): a calendar event, and any
// other counted record (a person, placement, attendance, absence or group)
// together with the records derived from it (interface A's view, attendance
// schedules, relation lists, index pages).
const (
	footprintPerEvent  = 300
	footprintPerRecord = 1900
)

// BuildFootprint estimates the bytes of memory New touches to build the data
// of sc's generated world and load it into a store: within about a quarter
// of the process's resident memory when New returns for a scenario the size
// of the built-in large one, and a few megabytes for the small ones. The
// records a scenario file declares itself are not counted (they are few).
// `skolkit serve` uses it to fault that memory in with one system call
// before New runs (docs/decisions.md#prefault).
func BuildFootprint(sc *scenarios.Scenario) int64 {
	g := sc.Generate
	young := int64(g.Children + g.Pupils)
	persons := young + int64(g.Staff) + int64(g.GuardiansPerChild)*young
	others := persons + int64(g.Placements) + int64(g.Attendances) + int64(g.Absences) + int64(g.Groups)
	return footprintPerEvent*int64(g.CalendarEvents) + footprintPerRecord*others
}
