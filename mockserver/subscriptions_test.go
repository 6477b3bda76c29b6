package mockserver

import (
	"encoding/json"
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/scenarios"
)

// fastWebhooks retries at once and does not wait to coalesce, so that tests
// of failing receivers run fast.
// subscriptionsPage is the body of GET /subscriptions.
type subscriptionsPage struct {
	Data      []webhook.Subscription `json:"data"`
	PageToken *string                `json:"pageToken"`
}

func fastWebhooks(o *Options) {
	o.Webhooks = WebhookOptions{Retry: []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond}, Coalesce: -1}
}

// hookHarness is a harness whose callbacks stop when the test ends.
func hookHarness(t *testing.T, opts ...func(*Options)) *harness {
	t.Helper()
	h := newHarness(t, opts...)
	t.Cleanup(h.srv.Close)
	return h
}

// subscribe creates a subscription through POST /subscriptions.
func (h *harness) subscribe(t testing.TB, target string, types ...model.ResourceType) webhook.Subscription {
	t.Helper()
	var rts []string
	for _, rt := range types {
		rts = append(rts, fmt.Sprintf(`{"resource":%q}`, rt))
	}
	res := h.postJSON(PrefixB+"/subscriptions", fmt.Sprintf(`{"name":"test","target":%q,"resourceTypes":[%s]}`, target, strings.Join(rts, ",")))
	require.Equal(t, http.StatusCreated, res.status, res)
	var sub webhook.Subscription
	res.decode(&sub)
	require.Equal(t, PrefixB+"/subscriptions/"+sub.ID, res.header.Get("Location"))
	return sub
}

// attendanceBody is a valid POST /attendances body for stored records.
func attendanceBody(t testing.TB, ds *store.Dataset) string {
	t.Helper()
	require.NotEmpty(t, ds.CalendarEvents)
	require.NotEmpty(t, ds.Attendances)
	a := ds.Attendances[0]
	return fmt.Sprintf(`{"calendarEvent":{"id":%q},"student":{"id":%q},"isReported":true,"attendanceMinutes":40,"absenceReason":"test"}`, a.CalendarEvent.ID, a.Student.ID)
}

func TestSubscriptionLifecycle(t *testing.T) {
	h := hookHarness(t)
	rcv := webhooktest.NewReceiver(t)
	sub := h.subscribe(t, rcv.URL, model.ResourcePerson, model.ResourceAttendance)
	assert.Equal(t, testNow.Add(webhook.DefaultLifetime), sub.Expires, "a subscription lives 30 days")
	assert.Equal(t, "test", sub.Name)
	assert.Equal(t, rcv.URL, sub.Target)

	res := h.get(PrefixB + "/subscriptions/" + strings.ToUpper(sub.ID))
	require.Equal(t, http.StatusOK, res.status, res)
	var got webhook.Subscription
	res.decode(&got)
	assert.Equal(t, sub, got)

	second := h.subscribe(t, rcv.URL, model.ResourceGroup)
	res = h.get(PrefixB + "/subscriptions")
	require.Equal(t, http.StatusOK, res.status, res)
	var page subscriptionsPage
	res.decode(&page)
	assert.Equal(t, []webhook.Subscription{sub, second}, page.Data)
	assert.Nil(t, page.PageToken)

	res = h.get(PrefixB + "/subscriptions?limit=1")
	res.decode(&page)
	require.Len(t, page.Data, 1)
	require.NotNil(t, page.PageToken)
	assert.Equal(t, sub.ID, page.Data[0].ID)
	res = h.get(PrefixB + "/subscriptions?limit=1&pageToken=" + *page.PageToken)
	res.decode(&page)
	require.Len(t, page.Data, 1)
	assert.Equal(t, second.ID, page.Data[0].ID)
	assert.Nil(t, page.PageToken)
	res = h.get(PrefixB + "/subscriptions?pageToken=bogus")
	assert.Equal(t, http.StatusBadRequest, res.status, res)

	// PATCH renews: 30 days from now.
	h.clock.Advance(24 * time.Hour)
	h.token = h.fetchToken(h.srv.Credentials())
	res = h.call(http.MethodPatch, PrefixB+"/subscriptions/"+sub.ID, "", nil)
	require.Equal(t, http.StatusOK, res.status, res)
	res.decode(&got)
	assert.Equal(t, testNow.Add(24*time.Hour+webhook.DefaultLifetime), got.Expires)

	// The second expires (it was not renewed): gone everywhere.
	h.clock.Advance(webhook.DefaultLifetime - time.Hour)
	h.token = h.fetchToken(h.srv.Credentials())
	res = h.get(PrefixB + "/subscriptions/" + second.ID)
	assert.Equal(t, http.StatusNotFound, res.status, res)
	assert.Equal(t, surface.CodeNotFound, res.errorBody(t).Code)
	res = h.call(http.MethodPatch, PrefixB+"/subscriptions/"+second.ID, "", nil)
	assert.Equal(t, http.StatusNotFound, res.status, res)
	res = h.get(PrefixB + "/subscriptions")
	res.decode(&page)
	require.Len(t, page.Data, 1)
	assert.Equal(t, sub.ID, page.Data[0].ID)

	res = h.call(http.MethodDelete, PrefixB+"/subscriptions/"+sub.ID, "", nil)
	assert.Equal(t, http.StatusNoContent, res.status, res)
	assert.Empty(t, res.body)
	res = h.call(http.MethodDelete, PrefixB+"/subscriptions/"+sub.ID, "", nil)
	assert.Equal(t, http.StatusNotFound, res.status, res)
	res = h.get(PrefixB + "/subscriptions/not-a-uuid")
	assert.Equal(t, http.StatusBadRequest, res.status, res)
}

func TestSubscriptionTargets(t *testing.T) {
	sc, err := scenarios.Parse("hosts.yaml", []byte("name: hosts\ngenerate: {profile: none}\nclients: [{id: c, secret: s, scopes: [all]}]\nwebhooks:\n  allowHosts: [hooks.scenario.test]\n"))
	require.NoError(t, err)
	h := hookHarness(t, func(o *Options) {
		o.Scenario = sc
		o.Webhooks.AllowHosts = []string{"hooks.flag.test"}
	})
	for _, tc := range []struct {
		name, target string
		ok           bool
		message      string
	}{
		{"loopback IPv4", "http://127.0.0.1:9/hook", true, ""},
		{"loopback IPv6", "http://[::1]:9/hook", true, ""},
		{"localhost", "https://localhost/hook", true, ""},
		{"a host the scenario names", "https://hooks.scenario.test/x", true, ""},
		{"a host the flag names", "https://HOOKS.flag.test/x", true, ""},
		{"any other host", "https://example.com/hook", false, "calls back only loopback addresses"},
		{"a private address", "http://10.0.0.1/hook", false, "calls back only loopback addresses"},
		{"not http", "ftp://127.0.0.1/hook", false, "not an absolute http or https URL"},
		{"relative", "/hook", false, "not an absolute http or https URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+"/subscriptions", fmt.Sprintf(`{"name":"n","target":%q,"resourceTypes":[{"resource":"Person"}]}`, tc.target))
			if tc.ok {
				assert.Equal(t, http.StatusCreated, res.status, res)
				return
			}
			require.Equal(t, http.StatusBadRequest, res.status, res)
			e := res.errorBody(t)
			assert.Equal(t, surface.CodeBadRequest, e.Code)
			assert.Contains(t, e.Message, tc.message)
		})
	}
	for _, body := range []string{
		`{"name":"n","target":"http://127.0.0.1/","resourceTypes":[{"resource":"Nope"}]}`,
		`{"name":"n","target":"http://127.0.0.1/"}`,
		`{"name":"n","target":"http://127.0.0.1/","resourceTypes":[]}`,
		`{"name":"","target":"http://127.0.0.1/","resourceTypes":[{"resource":"Person"}]}`,
	} {
		res := h.postJSON(PrefixB+"/subscriptions", body)
		assert.Equal(t, http.StatusBadRequest, res.status, res)
		res.errorBody(t)
	}
}

// TestCallbacksFromEverySurface changes data through interface A, interface
// B and the control plane, and expects the callback body SS 12000 defines.
func TestCallbacksFromEverySurface(t *testing.T) {
	h := hookHarness(t)
	rcv := webhooktest.NewReceiver(t)
	ds := h.srv.store.Export()
	sub := h.subscribe(t, rcv.URL, model.ResourcePerson, model.ResourceAttendance)
	other := webhooktest.NewReceiver(t)
	h.subscribe(t, other.URL, model.ResourceSyllabus)

	// interface A: a new student is a Person
	h.newStudent(t)
	calls := rcv.Wait(t, 1, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourcePerson}}, calls[0].Body)
	assert.JSONEq(t, `{"modifiedEntites":["Person"],"deletedEntities":false}`, string(calls[0].Raw))
	assert.Equal(t, "application/json", calls[0].Header.Get("Content-Type"))
	assert.Equal(t, 1, calls[0].Attempt)
	assert.NotEmpty(t, calls[0].Delivery)

	// interface B: a new attendance record, then its deletion
	res := h.postJSON(PrefixB+"/attendances", attendanceBody(t, ds))
	require.Equal(t, http.StatusOK, res.status, res)
	var a model.Attendance
	res.decode(&a)
	calls = rcv.Wait(t, 2, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourceAttendance}}, calls[1].Body)
	res = h.call(http.MethodDelete, PrefixB+"/attendances/"+a.ID, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	calls = rcv.Wait(t, 3, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{}, DeletedEntities: true}, calls[2].Body)

	// the control plane: an imported state replaces everything
	state := h.admin(http.MethodGet, "/state", "")
	require.Equal(t, http.StatusOK, state.status)
	res = h.admin(http.MethodPut, "/state", string(state.body))
	require.Equal(t, http.StatusOK, res.status, res)
	calls = rcv.Wait(t, 4, 10*time.Second)
	assert.Equal(t, webhook.Notification{ModifiedEntites: []model.ResourceType{model.ResourceAttendance, model.ResourcePerson}, DeletedEntities: true}, calls[3].Body)

	// every attempt is in the control plane's records
	waitIdle(t, h.srv)
	d := h.admin(http.MethodGet, "/deliveries?subscriptionID="+sub.ID, "")
	require.Equal(t, http.StatusOK, d.status, d)
	var page register.DeliveryPage
	d.decode(&page)
	require.Len(t, page.Deliveries, 4)
	for i, att := range page.Deliveries {
		assert.Equal(t, webhook.OutcomeDelivered, att.Outcome)
		assert.Equal(t, http.StatusOK, att.Status)
		assert.Equal(t, rcv.URL, att.Target)
		assert.Equal(t, 1, att.Attempt)
		assert.Equal(t, calls[i].Delivery, att.DeliveryID)
		assert.JSONEq(t, string(calls[i].Raw), string(att.Body))
	}
	// the Syllabus subscriber heard only of the import
	otherCalls := other.Wait(t, 1, 10*time.Second)
	assert.Len(t, otherCalls, 1)
}

func TestCallbacksCoalesceBursts(t *testing.T) {
	h := hookHarness(t, func(o *Options) { o.Webhooks.Coalesce = 200 * time.Millisecond })
	rcv := webhooktest.NewReceiver(t)
	h.subscribe(t, rcv.URL, model.ResourcePerson)
	for range 5 {
		h.newStudent(t)
	}
	rcv.Wait(t, 1, 10*time.Second)
	waitIdle(t, h.srv)
	calls := rcv.Calls()
	total := 0
	for _, a := range mustAttempts(h.srv, webhook.Filter{}) {
		total += a.Changes
	}
	assert.Equal(t, 5, total, "every change is reported")
	assert.Less(t, len(calls), 5, "a burst is reported in fewer notifications than changes")
}

func mustAttempts(s *Server, f webhook.Filter) []webhook.Attempt {
	list, _ := s.Webhooks().Attempts(f)
	return list
}

func waitIdle(t testing.TB, s *Server) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !s.Webhooks().Idle() {
		require.False(t, time.Now().After(deadline), "callbacks still under way")
		time.Sleep(2 * time.Millisecond)
	}
}

// TestNoLostNotifications makes 1,000 changes while the receiver answers
// 500 to every third call: bounded retries deliver every change.
func TestNoLostNotifications(t *testing.T) {
	h := hookHarness(t, fastWebhooks)
	rcv := webhooktest.NewReceiver(t)
	rcv.Respond = func(n int) int {
		if n%3 == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	sub := h.subscribe(t, rcv.URL, model.ResourceAttendance)
	body := attendanceBody(t, h.srv.store.Export())
	const changes = 1000
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range changes / 4 {
				res := h.postJSON(PrefixB+"/attendances", body)
				if !assert.Equal(t, http.StatusOK, res.status, "worker %d: %s", w, res) {
					return
				}
			}
		})
	}
	wg.Wait()
	waitIdle(t, h.srv)

	attempts := mustAttempts(h.srv, webhook.Filter{SubscriptionID: sub.ID})
	reported, retried := 0, 0
	deliveredIDs := map[string]bool{}
	for _, a := range attempts {
		assert.NotEqual(t, webhook.OutcomeFailed, a.Outcome, "no notification gives up: %+v", a)
		switch a.Outcome {
		case webhook.OutcomeDelivered:
			reported += a.Changes
			deliveredIDs[a.DeliveryID] = true
		case webhook.OutcomeRetrying:
			retried++
			assert.Equal(t, http.StatusInternalServerError, a.Status)
		}
	}
	assert.Equal(t, changes, reported, "every change is in a delivered notification")
	assert.Positive(t, retried, "the receiver failed some calls")
	var got []string
	for _, c := range rcv.Delivered() {
		got = append(got, c.Delivery)
	}
	assert.Len(t, got, len(deliveredIDs), "the receiver accepted each delivered notification once")
	for _, id := range got {
		assert.True(t, deliveredIDs[id], id)
	}
	t.Logf("%d changes, %d notifications, %d calls, %d retries", changes, len(deliveredIDs), len(rcv.Calls()), retried)
}

func TestCallbackRetriesThenGivesUp(t *testing.T) {
	h := hookHarness(t, fastWebhooks)
	rcv := webhooktest.NewReceiver(t)
	rcv.Respond = func(int) int { return http.StatusServiceUnavailable }
	sub := h.subscribe(t, rcv.URL, model.ResourcePerson)
	h.newStudent(t)
	waitIdle(t, h.srv)
	attempts := mustAttempts(h.srv, webhook.Filter{SubscriptionID: sub.ID})
	require.Len(t, attempts, 4, "one attempt and three retries")
	for i, a := range attempts {
		assert.Equal(t, i+1, a.Attempt)
		assert.Equal(t, attempts[0].DeliveryID, a.DeliveryID)
		assert.Equal(t, http.StatusServiceUnavailable, a.Status)
		want := webhook.OutcomeRetrying
		if i == 3 {
			want = webhook.OutcomeFailed
		}
		assert.Equal(t, want, a.Outcome)
	}
	for i, c := range rcv.Calls() {
		assert.Equal(t, i+1, c.Attempt, "Skolkit-Attempt counts the attempts")
	}

	// A target that does not answer at all: an error instead of a status.
	rcv.Close()
	h.newStudent(t)
	waitIdle(t, h.srv)
	attempts = mustAttempts(h.srv, webhook.Filter{SubscriptionID: sub.ID, Outcome: webhook.OutcomeFailed})
	require.Len(t, attempts, 2)
	assert.Zero(t, attempts[1].Status)
	assert.NotEmpty(t, attempts[1].Error)

	res := h.admin(http.MethodGet, "/deliveries?outcome=nope", "")
	assert.Equal(t, http.StatusBadRequest, res.status, res)
	res = h.admin(http.MethodDelete, "/deliveries", "")
	require.Equal(t, http.StatusOK, res.status, res)
	assert.JSONEq(t, `{"cleared":8}`, string(res.body))
}

func TestScenarioSubscriptionsAndDeliveryFaults(t *testing.T) {
	rcv := webhooktest.NewReceiver(t)
	yaml := fmt.Sprintf(`name: faults
generate: {profile: none}
clients: [{id: c, secret: s, scopes: [all]}]
webhooks:
  subscriptions:
    - name: receiver
      target: %s
      resourceTypes: [Person]
  faults:
    - fault: drop
      firstN: 1
    - fault: duplicate
      firstN: 1
    - fault: delay
      delay: 10ms
`, rcv.URL)
	sc, err := scenarios.Parse("faults.yaml", []byte(yaml))
	require.NoError(t, err)
	h := hookHarness(t, func(o *Options) { o.Scenario = sc })
	subs := h.srv.Webhooks().List()
	require.Len(t, subs, 1)
	assert.Equal(t, scenarios.DeriveID(sc.Seed, "subscription/receiver"), subs[0].ID)

	for range 3 {
		h.newStudent(t)
		waitIdle(t, h.srv)
	}
	attempts := mustAttempts(h.srv, webhook.Filter{})
	require.Len(t, attempts, 4, "dropped, delivered + duplicate, delayed")
	assert.Equal(t, webhook.OutcomeDropped, attempts[0].Outcome)
	assert.Equal(t, webhook.FaultDrop, attempts[0].Fault)
	assert.Equal(t, webhook.FaultDuplicate, attempts[1].Fault)
	assert.True(t, attempts[2].Duplicate)
	assert.Equal(t, attempts[1].DeliveryID, attempts[2].DeliveryID)
	assert.Equal(t, webhook.FaultDelay, attempts[3].Fault)
	assert.Equal(t, webhook.OutcomeDelivered, attempts[3].Outcome)
	calls := rcv.Calls()
	require.Len(t, calls, 3, "the dropped notification never arrives; the duplicate arrives twice")
	assert.Equal(t, calls[0].Delivery, calls[1].Delivery)

	// Reset brings back the scenario's subscriptions, not the run-time ones,
	// and clears the records.
	h.subscribe(t, rcv.URL, model.ResourceGroup)
	require.Len(t, h.srv.Webhooks().List(), 2)
	res := h.admin(http.MethodPost, "/reset", "")
	require.Equal(t, http.StatusOK, res.status, res)
	assert.Equal(t, subs, h.srv.Webhooks().List())
	assert.Empty(t, mustAttempts(h.srv, webhook.Filter{}))
}

func TestLogAndStatistics(t *testing.T) {
	h := hookHarness(t)
	for _, tc := range []struct {
		name, path, body string
		status           int
	}{
		{"log with slash", "/log/", `{"message":"courseCode MAT101 cannot be mapped","messageType":"ValueMapping","resourceType":"Syllabus","resourceId":"5e10f18c-6d0d-450b-a4b8-fa99e1053f78","resourceUrl":"https://service.example.se/ss12000/activities","severityLevel":"Warning"}`, http.StatusCreated},
		{"log without slash", "/log", `{"message":"m","severityLevel":"Info","timeOfOccurance":"2020-04-08T12:51:31.322Z"}`, http.StatusCreated},
		{"log without message", "/log/", `{"severityLevel":"Info"}`, http.StatusBadRequest},
		{"log with an unknown severity", "/log/", `{"message":"m","severityLevel":"Fatal"}`, http.StatusBadRequest},
		{"log with an unknown resource type", "/log/", `{"message":"m","severityLevel":"Info","resourceType":"Nope"}`, http.StatusBadRequest},
		{"log not JSON", "/log/", `{"message":`, http.StatusBadRequest},
		{"statistics with slash", "/statistics/", `{"resourceType":"Activity","newCount":2,"updatedCount":234,"deletedCount":0,"timeOfOccurance":"2020-04-08T12:51:31.322Z"}`, http.StatusCreated},
		{"statistics without slash", "/statistics", `{"resourceType":"Person","newCount":0,"updatedCount":0,"deletedCount":1}`, http.StatusCreated},
		{"statistics without counts", "/statistics/", `{"resourceType":"Person"}`, http.StatusBadRequest},
		{"statistics with a fractional count", "/statistics/", `{"resourceType":"Person","newCount":1.5,"updatedCount":0,"deletedCount":0}`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.postJSON(PrefixB+tc.path, tc.body)
			require.Equal(t, tc.status, res.status, res)
			if tc.status == http.StatusCreated {
				assert.Empty(t, res.body)
			} else {
				assert.Equal(t, surface.CodeBadRequest, res.errorBody(t).Code)
			}
		})
	}
	id, _ := h.srv.Credentials()
	for _, kind := range []struct {
		path  string
		paths []string
	}{{"/logs", []string{"/api/v1/log/", "/api/v1/log"}}, {"/statistics", []string{"/api/v1/statistics/", "/api/v1/statistics"}}} {
		res := h.admin(http.MethodGet, kind.path, "")
		require.Equal(t, http.StatusOK, res.status, res)
		var page register.ReportPage
		res.decode(&page)
		require.Len(t, page.Entries, 2, kind.path)
		for i, e := range page.Entries {
			assert.Equal(t, uint64(i+1), e.Seq)
			assert.Equal(t, kind.paths[i], e.Path)
			assert.Equal(t, id, e.ClientID)
			assert.Equal(t, testNow, e.Time)
			assert.True(t, json.Valid(e.Entry))
		}
		assert.Equal(t, register.MaxReports, page.Capacity)
		res = h.admin(http.MethodDelete, kind.path, "")
		assert.JSONEq(t, `{"cleared":2}`, string(res.body))
	}
	assert.Empty(t, h.srv.Logs())
}
