package register

// SS 12000 subscriptions with real callbacks. The webhook
// package owns the subscriptions and their delivery; this file connects it
// to the server: every committed write of the store (store.OnCommit, the
// one place every surface writes through) is turned into the SS 12000
// resource types it changed, the subscription operations of interface B
// are served from the hub, and the control plane shows every delivery
// attempt.

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/model"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// Scopes of the SS 12000 writes, subscriptions and reports.
const (
	ScopeAttendancesWrite   = "attendances:write"
	ScopeAbsencesWrite      = "absences:write"
	ScopeSubscriptionsRead  = "subscriptions:read"
	ScopeSubscriptionsWrite = "subscriptions:write"
	ScopeLogWrite           = "log:write"
	ScopeStatisticsWrite    = "statistics:write"
)

// WebhookOptions configure the callbacks of subscriptions (Options.Webhooks).
// The zero value uses the webhook package's defaults: a 50 ms coalescing
// window, retries after 1 s, 5 s and 30 s, 5 s per attempt, subscriptions
// that live 30 days.
type WebhookOptions struct {
	// AllowHosts are hosts callbacks may go to besides loopback addresses
	// and localhost (skolkit serve --webhook-allow-host).
	AllowHosts []string
	// Retry is the back-off schedule: the waits before the second, third,
	// ... attempt. Nil means the default; an empty slice means no retries.
	Retry []time.Duration
	// Coalesce is how long a notification waits for more changes; negative
	// sends at once.
	Coalesce time.Duration
	// Timeout bounds one attempt.
	Timeout time.Duration
	// Lifetime is how long a subscription lives unless renewed.
	Lifetime time.Duration
	// Records is how many delivery attempts the control plane keeps.
	Records int
}

// hooks is the server's part of the subscriptions: the subscription hub and the
// bounded stores of log and statistics entries.
type hooks struct {
	hub   *webhook.Hub
	logs  *reportRing
	stats *reportRing
}

// initHooks creates the hub, installs the scenario's subscriptions and
// connects the store's commits to it.
func (s *API) initHooks(opts Options) {
	w := opts.Webhooks
	s.hooks = &hooks{
		hub: webhook.New(webhook.Options{
			Now: s.now, AllowHosts: w.AllowHosts, Retry: w.Retry, Coalesce: w.Coalesce,
			Timeout: w.Timeout, Lifetime: w.Lifetime, Records: w.Records, ResourceTypes: s.kinds.types(),
		}),
		logs:  newReportRing(MaxReports),
		stats: newReportRing(MaxReports),
	}
	s.ResetHooks(opts.Scenario)
	s.store.OnCommit(s.committed)
}

// ResetHooks puts the subscriptions, delivery faults, records and reports
// back to what the scenario declares (reset and loading a scenario).
func (s *API) ResetHooks(sc *scenarios.Scenario) {
	var subs []webhook.Subscription
	for _, r := range sc.Webhooks.Subscriptions {
		sub := webhook.Subscription{ID: sc.SubscriptionID(r), Name: r.Name, Target: r.Target}
		for _, rt := range r.ResourceTypes {
			sub.ResourceTypes = append(sub.ResourceTypes, webhook.ResourceTypeRef{Resource: model.ResourceType(rt)})
		}
		subs = append(subs, sub)
	}
	var faults []webhook.Fault
	for _, f := range sc.Webhooks.Faults {
		wf := webhook.Fault{Kind: f.Fault, Target: f.Target, FirstN: f.FirstN}
		if f.Delay != nil {
			wf.Delay, wf.DelayMax = f.Delay.Min, f.Delay.Max
		}
		faults = append(faults, wf)
	}
	s.hooks.hub.Reset(subs, faults, sc.Webhooks.AllowHosts)
	s.hooks.logs.clear()
	s.hooks.stats.clear()
}

// Close stops the deliveries of callbacks under way and waits for them.
// The server still serves requests, but sends no more callbacks.
func (s *API) Close() { s.hooks.hub.Close() }

// Webhooks returns the subscription hub: subscriptions, delivery records
// (Attempts) and whether deliveries are under way (Idle).
func (s *API) Webhooks() *webhook.Hub { return s.hooks.hub }

// committed is the store's commit hook: it tells the hub which resource
// types a committed write changed, leaving out the changes of records B
// never shows (a grade without a value or teacher, a compulsory-school
// placement: docs/decisions.md#b-hidden-records). A replaced content (an imported state) changes every
// type.
func (s *API) committed(c store.Change) {
	notify := func(modified, deleted []model.ResourceType) {
		if !s.deviates(deviation.CallbacksNotSent) {
			s.hooks.hub.Changed(modified, deleted)
		}
	}
	if c.All {
		notify(s.kinds.types(), s.kinds.types())
		return
	}
	var modified, deleted []model.ResourceType
	add := func(list *[]model.ResourceType, table string) {
		if rt, ok := s.kinds.typeOf(table); ok && !slices.Contains(*list, rt) {
			*list = append(*list, rt)
		}
	}
	for table, ids := range c.Put {
		if c.RegisterSees(table, ids) {
			add(&modified, table)
		}
	}
	for table, ids := range c.Deleted {
		if c.RegisterSees(table, ids) {
			add(&deleted, table)
		}
	}
	if len(modified) > 0 || len(deleted) > 0 {
		notify(modified, deleted)
	}
}

// hookEndpoints are interface B's operations of subscriptions, deleted
// entities, log and statistics.
func (s *API) hookEndpoints() []surface.Endpoint {
	b := func(method, path, scope string, h http.HandlerFunc) surface.Endpoint {
		return surface.Endpoint{Method: method, Path: PrefixB + path, Kind: surface.Register, Scope: scope, Doc: openapi.NameRegister, Handle: h}
	}
	eps := []surface.Endpoint{
		b(http.MethodPost, "/attendances", ScopeAttendancesWrite, s.createAttendance),
		b(http.MethodDelete, "/attendances/{id}", ScopeAttendancesWrite, s.deleteAttendance),
		b(http.MethodPost, "/absences", ScopeAbsencesWrite, s.createAbsence),
		b(http.MethodGet, "/subscriptions", ScopeSubscriptionsRead, s.listSubscriptions),
		b(http.MethodPost, "/subscriptions", ScopeSubscriptionsWrite, s.createSubscription),
		b(http.MethodGet, "/subscriptions/{id}", ScopeSubscriptionsRead, s.getSubscription),
		b(http.MethodPatch, "/subscriptions/{id}", ScopeSubscriptionsWrite, s.renewSubscription),
		b(http.MethodDelete, "/subscriptions/{id}", ScopeSubscriptionsWrite, s.deleteSubscription),
		b(http.MethodPost, "/log/", ScopeLogWrite, s.postLog),
		b(http.MethodPost, "/log", ScopeLogWrite, s.postLog),
		b(http.MethodPost, "/statistics/", ScopeStatisticsWrite, s.postStatistics),
		b(http.MethodPost, "/statistics", ScopeStatisticsWrite, s.postStatistics),
		b(http.MethodGet, "/deletedEntities", ScopeDeletedEntitiesRead, s.listDeletedEntities),
	}
	eps = append(eps, s.eventWriteEndpoints()...)
	return eps
}

// subscriptionsPage is the body of GET /subscriptions.
type subscriptionsPage struct {
	Data      []webhook.Subscription `json:"data"`
	PageToken *string                `json:"pageToken"`
}

const subscriptionTokenPrefix = "subscriptions:"

func (s *API) listSubscriptions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	all := s.hooks.hub.List()
	from := 0
	if tok := q.Get(ParamPageToken); q.Has(ParamPageToken) {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(raw), subscriptionTokenPrefix))
		if err != nil || err2 != nil || !strings.HasPrefix(string(raw), subscriptionTokenPrefix) || n < 0 {
			surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "pageToken: not a token this server issued for GET /subscriptions")
			return
		}
		from = min(n, len(all))
	}
	to := len(all)
	if v := q.Get(ParamLimit); v != "" {
		limit, _ := strconv.Atoi(v) // the contract has checked it is an integer ≥ 1
		to = min(from+limit, len(all))
	}
	page := subscriptionsPage{Data: all[from:to]}
	if to < len(all) {
		t := base64.RawURLEncoding.EncodeToString([]byte(subscriptionTokenPrefix + strconv.Itoa(to)))
		page.PageToken = &t
	}
	surface.WriteJSON(w, http.StatusOK, page)
}

func (s *API) createSubscription(w http.ResponseWriter, r *http.Request) {
	var req webhook.CreateSubscription
	if err := surface.DecodeWhole(r.Body, &req); err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, "the request body is not a CreateSubscription: "+err.Error())
		return
	}
	sub, err := s.hooks.hub.Create(req)
	if err != nil {
		surface.WriteRegisterError(w, http.StatusBadRequest, surface.CodeBadRequest, err.Error())
		return
	}
	w.Header().Set("Location", PrefixB+"/subscriptions/"+sub.ID)
	surface.WriteJSON(w, http.StatusCreated, sub)
}

func (s *API) getSubscription(w http.ResponseWriter, r *http.Request) {
	s.answerSubscription(w, r, s.hooks.hub.Get)
}

func (s *API) renewSubscription(w http.ResponseWriter, r *http.Request) {
	s.answerSubscription(w, r, s.hooks.hub.Renew)
}

// answerSubscription answers the subscription of the path's id as op (a
// read or a renewal) gives it, or 404 when there is none.
func (s *API) answerSubscription(w http.ResponseWriter, r *http.Request, op func(string) (webhook.Subscription, error)) {
	id := surface.PathID(r)
	sub, err := op(id)
	if err != nil {
		s.notFoundRecord(w, "subscription", id)
		return
	}
	surface.WriteJSON(w, http.StatusOK, sub)
}

func (s *API) deleteSubscription(w http.ResponseWriter, r *http.Request) {
	id := surface.PathID(r)
	if err := s.hooks.hub.Delete(id); err != nil {
		s.notFoundRecord(w, "subscription", id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// DeliveryPage is the answer of GET /__admin/deliveries: every recorded
// attempt to deliver a callback, oldest first.
type DeliveryPage struct {
	Deliveries []webhook.Attempt `json:"deliveries"`
	Capacity   int               `json:"capacity"`
	Dropped    uint64            `json:"dropped"`
	// Idle is true when no notification is pending or being delivered.
	Idle bool `json:"idle"`
}

// AdminEndpoints are the control-plane operations of the deliveries, logs
// and statistics.
func (s *API) AdminEndpoints() []surface.AdminEndpoint {
	return []surface.AdminEndpoint{
		{Method: http.MethodGet, Path: "/deliveries", Query: []string{"subscriptionID", "target", "outcome"}, Handle: s.adminDeliveries},
		{Method: http.MethodDelete, Path: "/deliveries", Handle: s.adminClearDeliveries},
		{Method: http.MethodGet, Path: "/logs", Handle: s.adminReports(func() *reportRing { return s.hooks.logs })},
		{Method: http.MethodDelete, Path: "/logs", Handle: s.adminClearReports(func() *reportRing { return s.hooks.logs })},
		{Method: http.MethodGet, Path: "/statistics", Handle: s.adminReports(func() *reportRing { return s.hooks.stats })},
		{Method: http.MethodDelete, Path: "/statistics", Handle: s.adminClearReports(func() *reportRing { return s.hooks.stats })},
	}
}

var outcomes = []string{webhook.OutcomeDelivered, webhook.OutcomeRetrying, webhook.OutcomeFailed, webhook.OutcomeDropped}

func (s *API) adminDeliveries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := webhook.Filter{SubscriptionID: strings.ToLower(q.Get("subscriptionID")), Target: q.Get("target"), Outcome: q.Get("outcome")}
	if f.Outcome != "" && !slices.Contains(outcomes, f.Outcome) {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("outcome: %q is not one of %s", f.Outcome, strings.Join(outcomes, ", ")))
		return
	}
	hub := s.hooks.hub
	idle := hub.Idle()
	list, dropped := hub.Attempts(f)
	surface.WriteJSON(w, http.StatusOK, DeliveryPage{Deliveries: list, Capacity: hub.Capacity(), Dropped: dropped, Idle: idle})
}

func (s *API) adminClearDeliveries(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, surface.Cleared{Cleared: s.hooks.hub.ClearAttempts()})
}
