package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/scenarios"
)

func TestWebhooksParse(t *testing.T) {
	sc, err := scenarios.Parse("w.yaml", []byte(`name: w
seed: 7
webhooks:
  allowHosts: [hooks.example.test]
  subscriptions:
    - {name: a, target: "http://127.0.0.1:9000/hook", resourceTypes: [Person, Attendance]}
    - {id: 6F1C3A2B-0000-4000-8000-000000000001, name: b, target: "https://hooks.example.test/x", resourceTypes: [Group]}
  faults:
    - {fault: delay, delay: 1s-2s, target: "http://127.0.0.1:9000/*"}
    - {fault: duplicate, firstN: 2}
`))
	require.NoError(t, err)
	w := sc.Webhooks
	assert.Equal(t, []string{"hooks.example.test"}, w.AllowHosts)
	require.Len(t, w.Subscriptions, 2)
	assert.Equal(t, scenarios.DeriveID(7, "subscription/a"), sc.SubscriptionID(w.Subscriptions[0]))
	assert.Equal(t, "6f1c3a2b-0000-4000-8000-000000000001", sc.SubscriptionID(w.Subscriptions[1]))
	require.Len(t, w.Faults, 2)
	require.NotNil(t, w.Faults[0].Delay)
	assert.Equal(t, scenarios.Delay{Min: time.Second, Max: 2 * time.Second}, *w.Faults[0].Delay)
	assert.Nil(t, w.Faults[1].Delay)
	assert.Equal(t, 2, w.Faults[1].FirstN)
}

func TestWebhooksProblems(t *testing.T) {
	_, err := scenarios.Parse("w.yaml", []byte(`name: w
webhooks:
  allowHosts: ["http://x"]
  subscriptions:
    - {name: a, target: "ftp://127.0.0.1/", resourceTypes: [Persons]}
    - {name: a, id: nope, resourceTypes: []}
  faults:
    - {fault: explode}
    - {fault: delay}
    - {fault: drop, delay: 1s, firstN: 0}
`))
	var le *scenarios.LoadError
	require.ErrorAs(t, err, &le)
	var got []string
	for _, p := range le.Problems {
		got = append(got, p.Path+": "+p.Message)
	}
	assert.Equal(t, []string{
		`webhooks.allowHosts[0]: "http://x" is not a host name`,
		`webhooks.subscriptions[0].target: "ftp://127.0.0.1/" is not an absolute http or https URL`,
		`webhooks.subscriptions[0].resourceTypes[0]: "Persons" is not a resource type; one of Absence, AttendanceEvent, Attendance, Grade, CalendarEvent, AttendanceSchedule, Resource, Room, Activity, Duty, Placement, StudyPlan, Programme, Syllabus, SchoolUnitOffering, Group, Person, Organisation`,
		`webhooks.subscriptions[1].target: required`, // at the subscription's mapping
		`webhooks.subscriptions[1].name: duplicate subscription name "a"`,
		`webhooks.subscriptions[1].id: "nope" is not a UUID`,
		`webhooks.subscriptions[1].resourceTypes: name at least one resource type: Absence, AttendanceEvent, Attendance, Grade, CalendarEvent, AttendanceSchedule, Resource, Room, Activity, Duty, Placement, StudyPlan, Programme, Syllabus, SchoolUnitOffering, Group, Person, Organisation`,
		`webhooks.faults[0].fault: "explode" is not a delivery fault; one of drop, delay, duplicate`,
		`webhooks.faults[1].delay: required for a delay fault`,
		`webhooks.faults[2].delay: only a delay fault has a delay`,
		`webhooks.faults[2].firstN: 0 is less than 1`,
	}, got)
	for _, p := range le.Problems {
		assert.Positive(t, p.Line, p.Path)
	}
}
