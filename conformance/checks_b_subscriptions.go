package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skolkit/skolkit/openapi"
)

// The subscription checks create a subscription whose target is a receiver
// the runner starts (on a free loopback port, or where --callback-listen
// says), change a record the runner made, and expect the server's
// subscriptionEvent callback. They remove the subscription and the record
// when they end.

var (
	specSubscriptions   = SpecRef{Section: "SS 12000 2.1.0, /subscriptions", Quote: "Vid ändringar i informationsmängden hos informationsägaren ska det konsumerande systemet notifieras via den URL som anges i `target`."}
	specSubNotify       = SpecRef{Section: "SS 12000 2.1.0, CreateSubscription", Quote: "Informationsägaren ska skicka en notis för varje registrerad prenumeration så fort en förändring identifieras."}
	specSubRenew        = SpecRef{Section: "SS 12000 2.1.0, PATCH /subscriptions/{id}", Quote: "Uppdatera expire time på prenumerationen baserat på ID"}
	specDeletedEntities = SpecRef{Section: "SS 12000 2.1.0, GET /deletedEntities", Quote: "Hämta borttag som inträffat efter specificerad tidpunkt"}
	specSubNotFound     = SpecRef{Section: "SS 12000 2.1.0, GET /subscriptions/{id}", Quote: "404: Posten hittades inte."}
	specSubDelete       = SpecRef{Section: "SS 12000 2.1.0, DELETE /subscriptions/{id}", Quote: "Prenumeration borttagen."}
)

// DefaultCallbackWait bounds the wait for a callback after a change, unless
// Config.CallbackWait says otherwise.
const DefaultCallbackWait = 10 * time.Second

func (t *T) callbackWait() time.Duration {
	if d := t.env.cfg.CallbackWait; d > 0 {
		return d
	}
	return DefaultCallbackWait
}

func bSubscriptionChecks() []*Check {
	b := []Surface{SurfaceB}
	area := "B.subscriptions"
	return []*Check{
		{ID: "B.subscriptions.list", Title: "GET /subscriptions answers 200 with a page of subscriptions", Area: area, Severity: MUST, Needs: b, Spec: specSubscriptions, Run: checkSubscriptionList},
		{ID: "B.subscriptions.unknown-id", Title: "GET /subscriptions/{id} with an unknown id is 404 (after a listed subscription answered 2xx)", Area: area, Severity: MUST, Needs: b, Spec: specSubNotFound, Run: checkSubscriptionUnknownID},
		{ID: "B.subscriptions.lifecycle", Title: "a subscription is created (201), read, listed, renewed (PATCH moves expires on) and removed (204, then 404)", Area: area, Level: LevelWrite, Severity: MUST, Needs: b, Spec: specSubRenew, Run: checkSubscriptionLifecycle},
		{ID: "B.subscriptions.callback", Title: "a change of a subscribed type is called back to target with modifiedEntites, a deletion with deletedEntities", Area: area, Level: LevelWrite, Severity: MUST, Needs: b, Spec: specSubNotify, Run: checkSubscriptionCallback},
		{ID: "B.deletedEntities.list", Title: "GET /deletedEntities answers 200 with ids by resource type", Area: area, Severity: MUST, Needs: b, Spec: specDeletedEntities, Run: checkDeletedEntitiesList},
		{ID: "B.deletedEntities.after-delete", Title: "a deleted attendance record is listed by GET /deletedEntities?after=<before it was made>", Area: area, Level: LevelWrite, Severity: MUST, Needs: b, Spec: specDeletedEntities, Run: checkDeletedEntitiesAfterDelete},
		{ID: "B.subscriptions.no-callback-after-delete", Title: "after DELETE /subscriptions/{id} no callback is sent to its target", Area: area, Level: LevelWrite, Severity: SHOULD, Needs: b, Spec: specSubDelete, Run: checkNoCallbackAfterDelete},
	}
}

// checkSubscriptionUnknownID proves the route with a listed subscription
// first, as every unknown-id check does (EvidenceRule): a server need not
// offer GET /subscriptions/{id}, and a 404 or 405 for an unknown id proves
// nothing when no id was ever found there. A read run cannot create a
// subscription; B.subscriptions.lifecycle (--level write) checks the 404
// after its own DELETE.
func checkSubscriptionUnknownID(t *T) {
	t.requireAuth(SurfaceB)
	resp := t.Get(SurfaceB, "/subscriptions", nil)
	if resp.Status/100 != 2 {
		t.Skipf("GET /subscriptions answered %d, so there is no subscription to prove GET /subscriptions/{id} with (see B.subscriptions.list)", resp.Status)
	}
	body, err := resp.Object()
	var known string
	if err == nil {
		for _, s := range objects(arr(body, "data")) {
			if id := str(s, "id"); id != "" {
				known = id
				break
			}
		}
	}
	if known == "" {
		t.Skipf("GET /subscriptions lists no subscription to prove GET /subscriptions/{id} with (B.subscriptions.lifecycle, --level write, checks the 404 after a DELETE)")
	}
	if resp := t.Get(SurfaceB, "/subscriptions/"+url.PathEscape(known), nil); resp.Status/100 != 2 {
		t.Skipf("GET /subscriptions/%s, a listed id, answered %d, so the route's answer to other ids proves nothing", known, resp.Status)
	}
	t.ExpectStatus(t.Get(SurfaceB, "/subscriptions/"+unknownID, nil), http.StatusNotFound)
}

func checkSubscriptionList(t *T) {
	t.requireAuth(SurfaceB)
	resp := t.Get(SurfaceB, "/subscriptions", nil)
	t.RequireStatus(resp, http.StatusOK)
	body := t.RequireObject(resp)
	if _, ok := body["data"].([]any); !ok {
		t.Failf(resp, `{"data": [...]}`, "the body has no data array")
	}
}

// subscribe creates a subscription and removes it when the check ends.
func (t *T) subscribe(target string, types ...string) map[string]any {
	var rts []any
	for _, rt := range types {
		rts = append(rts, map[string]any{"resource": rt})
	}
	body := map[string]any{"name": conformanceName(), "target": target, "resourceTypes": rts}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodPost, Path: "/subscriptions", JSON: body})
	if resp.Status >= 200 && resp.Status < 300 {
		if sub, err := resp.Object(); err == nil && isUUID(str(sub, "id")) {
			id := str(sub, "id")
			t.Cleanup(func(ctx context.Context) {
				resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: "/subscriptions/" + id})
				if resp.Status != http.StatusNoContent && resp.Status != http.StatusNotFound {
					t.Failf(resp, "204", "cleanup: DELETE /subscriptions/%s answered %d; the subscription is left behind", id, resp.Status)
				}
			})
		}
	}
	if resp.Status == http.StatusBadRequest && strings.Contains(strings.ToLower(string(resp.Body)), "target") {
		t.Skipf("the server refused the callback target %s (%s); if it restricts targets, allow this host (skolkit serve --webhook-allow-host) or give --callback-url", target, excerpt(string(resp.Body), 200))
	}
	t.RequireStatus(resp, http.StatusCreated)
	sub := t.RequireObject(resp)
	if len(types) == 1 && types[0] == "Person" {
		t.sweepEnums("/subscriptions", body, "/subscriptions/")
	}
	if !isUUID(str(sub, "id")) {
		t.Fatalf(resp, "a Subscription with a uuid id", "the 201 body has no uuid id")
	}
	return sub
}

func checkSubscriptionLifecycle(t *T) {
	t.requireAuth(SurfaceB)
	// The target need not answer: nothing is changed while it exists.
	sub := t.subscribe("http://127.0.0.1:9/skolkit-conformance", "Person")
	id := str(sub, "id")
	expires, err := time.Parse(time.RFC3339Nano, str(sub, "expires"))
	if err != nil {
		t.Failf(t.last, "expires, an RFC 3339 date-time", "expires is %q", str(sub, "expires"))
	}
	resp := t.Get(SurfaceB, "/subscriptions/"+id, nil)
	t.RequireStatus(resp, http.StatusOK)
	t.RequireObject(resp)
	if !t.listedSubscription(id) {
		t.Failf(t.last, "the subscription in GET /subscriptions", "a walk of GET /subscriptions does not list %s", id)
	}
	resp = t.Do(Request{Surface: SurfaceB, Method: http.MethodPatch, Path: "/subscriptions/" + id})
	t.RequireStatus(resp, http.StatusOK)
	renewed := t.RequireObject(resp)
	if e2, err := time.Parse(time.RFC3339Nano, str(renewed, "expires")); err != nil || e2.Before(expires) {
		t.Failf(resp, "expires at or after "+expires.Format(time.RFC3339Nano), "PATCH answered expires %q", str(renewed, "expires"))
	}
	resp = t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: "/subscriptions/" + id})
	t.ExpectStatus(resp, http.StatusNoContent)
	t.ExpectStatus(t.Get(SurfaceB, "/subscriptions/"+id, nil), http.StatusNotFound)
}

// listedSubscription walks GET /subscriptions for the id.
func (t *T) listedSubscription(id string) bool {
	q := url.Values{}
	for range t.env.cfg.MaxPages {
		resp := t.Get(SurfaceB, "/subscriptions", q)
		if !t.ExpectStatus(resp, http.StatusOK) {
			return false
		}
		page := t.RequireObject(resp)
		for _, s := range objects(arr(page, "data")) {
			if strings.EqualFold(str(s, "id"), id) {
				return true
			}
		}
		tok := str(page, "pageToken")
		if tok == "" {
			return false
		}
		q = url.Values{"pageToken": {tok}}
	}
	return false
}

// changer makes and removes a record of one resource type, to cause
// callbacks.
type changer struct {
	resource string
	create   func() (remove func())
}

// aChanger picks a record kind the runner can create and delete: an
// attendance (interface B, with the calendar event and student of an
// attendance given with --id attendance=) or a group (interface A).
func (t *T) aChanger() changer {
	if ids := t.env.cfg.IDs["attendance"]; len(ids) > 0 {
		resp := t.Get(SurfaceB, "/attendances/"+ids[0], nil)
		if resp.Status == http.StatusOK {
			a := t.RequireObject(resp)
			body := map[string]any{"calendarEvent": map[string]any{"id": refID(a, "calendarEvent")}, "student": map[string]any{"id": refID(a, "student")}, "isReported": false}
			return changer{resource: "Attendance", create: func() func() {
				rec := t.createAttendance(body)
				return func() {
					resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: "/attendances/" + str(rec, "id")})
					t.ExpectStatus(resp, http.StatusNoContent)
				}
			}}
		}
	}
	if t.env.has(SurfaceA) {
		return changer{resource: "Group", create: func() func() {
			rec, _ := t.create("/group", func() map[string]any { return groupKind.body(t) })
			return func() {
				resp := t.Do(Request{Surface: SurfaceA, Method: http.MethodDelete, Path: "/group/" + str(rec, "id")})
				if t.ExpectStatus(resp, http.StatusNoContent) {
					t.env.untrack("/group/" + str(rec, "id"))
				}
			}
		}}
	}
	t.Skipf("no record the runner can create and delete to cause a callback: pass --id attendance=<uuid> (its calendar event and student are used) or --base-url (a group is created through interface A)")
	return changer{}
}

func checkSubscriptionCallback(t *T) {
	t.requireAuth(SurfaceB)
	rcv := t.callbackReceiver()
	ch := t.aChanger()
	target, calls := rcv.endpoint()
	t.subscribe(target, ch.resource)
	remove := ch.create()
	got := t.waitCallback(calls, target, func(n subscriptionEvent) bool { return slices.Contains(n.ModifiedEntites, ch.resource) },
		fmt.Sprintf("modifiedEntites containing %s", ch.resource))
	t.Notef("callback after the create: %s", compact(got))
	remove()
	got = t.waitCallback(calls, target, func(n subscriptionEvent) bool { return n.DeletedEntities }, "deletedEntities true")
	t.Notef("callback after the delete: %s", compact(got))
}

func checkNoCallbackAfterDelete(t *T) {
	t.requireAuth(SurfaceB)
	rcv := t.callbackReceiver()
	ch := t.aChanger()
	target, calls := rcv.endpoint()
	sub := t.subscribe(target, ch.resource)
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: "/subscriptions/" + str(sub, "id")})
	t.RequireStatus(resp, http.StatusNoContent)
	// A callback the server sent before the DELETE was answered (for a change
	// another check made meanwhile) may still be on its way: it is not one
	// sent after the removal. Only once the target has been quiet for a
	// while does a callback count.
	if drained := t.drainCallbacks(calls, time.Second); drained > 0 {
		t.Notef("%d callback(s) for earlier changes, already on their way when the subscription was removed, arrived after the removal and are not counted", drained)
	}
	remove := ch.create()
	remove()
	// A callback sent anyway would normally come within a second or two.
	select {
	case c := <-calls:
		t.Failf(nil, "no callback to a removed subscription's target", "%s was called back after its subscription was removed: %s", target, excerpt(string(c), 200))
	case <-time.After(2 * time.Second):
	case <-t.ctx.Done():
	}
}

// drainCallbacks takes the callbacks that arrive until none has come for
// quiet, or --callback-wait has passed, and returns how many it took.
func (t *T) drainCallbacks(calls <-chan []byte, quiet time.Duration) int {
	n := 0
	deadline := time.NewTimer(t.callbackWait())
	defer deadline.Stop()
	for {
		idle := time.NewTimer(quiet)
		select {
		case <-calls:
			idle.Stop()
			n++
		case <-idle.C:
			return n
		case <-deadline.C:
			idle.Stop()
			return n
		case <-t.ctx.Done():
			idle.Stop()
			return n
		}
	}
}

// subscriptionEvent is the callback body (SS 12000's spelling).
type subscriptionEvent struct {
	ModifiedEntites []string `json:"modifiedEntites"`
	DeletedEntities bool     `json:"deletedEntities"`
}

// waitCallback waits for a call whose body matches, failing on bodies that
// do not meet the contract's SubscriptionEvent, and ends the check when none
// comes within callbackWait.
func (t *T) waitCallback(calls <-chan []byte, target string, match func(subscriptionEvent) bool, want string) map[string]any {
	wait := t.callbackWait()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		select {
		case body := <-calls:
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				t.Failf(nil, "a JSON callback body", "the callback body is not JSON: %s", excerpt(string(body), 200))
				continue
			}
			if err := subscriptionEventSchema().VisitJSON(v); err != nil {
				t.Failf(nil, "a callback body that is a SubscriptionEvent", "the callback body %s: %s", excerpt(string(body), 200), excerpt(err.Error(), 300))
				continue
			}
			var n subscriptionEvent
			_ = json.Unmarshal(body, &n)
			if match(n) {
				m, _ := v.(map[string]any)
				return m
			}
		case <-deadline.C:
			t.Fatalf(nil, "a callback to "+target+" with "+want+" within "+wait.String(), "no such callback arrived within %s (--callback-wait)", wait)
		case <-t.ctx.Done():
			t.Skipf("the run was cancelled")
		}
	}
}

var subscriptionEventSchema = sync.OnceValue(func() *openapi3.Schema {
	c, err := openapi.Shared()
	if err != nil {
		panic(err)
	}
	return c.Doc(openapi.NameRegister).Components.Schemas["SubscriptionEvent"].Value
})

// callbackState is the run's receiver, started by the first check that
// needs it.
type callbackState struct {
	once sync.Once
	rcv  *callbackReceiver
	err  error
}

func (c *callbackState) close() {
	if c.rcv != nil {
		_ = c.rcv.srv.Close()
	}
}

// callbackReceiver records the callbacks posted to it, by path: every check
// gets a path of its own.
type callbackReceiver struct {
	base string
	srv  *http.Server
	mu   sync.Mutex
	byID map[string]chan []byte
}

const callbackPrefix = "/skolkit-conformance/"

// callbackReceiver returns the run's receiver, or skips the check with the
// reason no callback address is usable.
func (t *T) callbackReceiver() *callbackReceiver {
	cfg := &t.env.cfg
	if cfg.CallbackURL == "" {
		if u := t.env.urls[SurfaceB]; u != nil && !isLoopbackName(u.Hostname()) {
			t.Skipf("the server at %s cannot call back a receiver on this host's loopback address: give --callback-url with a URL it can reach (and --callback-listen for where the runner listens)", u.Host)
		}
	}
	cs := &t.env.callbacks
	cs.once.Do(func() { cs.rcv, cs.err = startReceiver(cfg.CallbackListen, cfg.CallbackURL) })
	if cs.err != nil {
		t.Skipf("no callback receiver: %v", cs.err)
	}
	return cs.rcv
}

func isLoopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func startReceiver(listen, public string) (*callbackReceiver, error) {
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("--callback-listen %s: %w", listen, err)
	}
	base := "http://" + ln.Addr().String()
	if public != "" {
		u, err := url.Parse(public)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			ln.Close()
			return nil, fmt.Errorf("--callback-url %q: want an absolute http or https URL", public)
		}
		base = strings.TrimSuffix(public, "/")
	}
	r := &callbackReceiver{base: base, byID: map[string]chan []byte{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the checks that wait for callbacks report it as no callback
		}
	}()
	return r, nil
}

// endpoint returns a fresh target URL and the channel its calls arrive on.
func (r *callbackReceiver) endpoint() (string, <-chan []byte) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	ch := make(chan []byte, 64)
	r.mu.Lock()
	r.byID[id] = ch
	r.mu.Unlock()
	return r.base + callbackPrefix + id, ch
}

func (r *callbackReceiver) serve(w http.ResponseWriter, req *http.Request) {
	id := strings.TrimPrefix(req.URL.Path, callbackPrefix)
	r.mu.Lock()
	ch, ok := r.byID[id]
	r.mu.Unlock()
	if !ok || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	select {
	case ch <- body:
	default: // the check stopped listening
	}
	w.WriteHeader(http.StatusOK)
}

func checkDeletedEntitiesList(t *T) {
	t.requireAuth(SurfaceB)
	resp := t.Get(SurfaceB, "/deletedEntities", url.Values{"limit": {"50"}})
	t.RequireStatus(resp, http.StatusOK)
	body := t.RequireObject(resp)
	if _, ok := body["data"].(map[string]any); !ok {
		t.Failf(resp, `{"data": {...}}`, "the body has no data object")
	}
}

func checkDeletedEntitiesAfterDelete(t *T) {
	rec := t.createAttendance(t.attendanceBody())
	id := str(rec, "id")
	created, err := time.Parse(time.RFC3339Nano, str(obj(rec, "meta"), "created"))
	if err != nil {
		t.Fatalf(t.last, "meta.created, an RFC 3339 date-time", "meta.created is %q", str(obj(rec, "meta"), "created"))
	}
	resp := t.Do(Request{Surface: SurfaceB, Method: http.MethodDelete, Path: "/attendances/" + id})
	t.RequireStatus(resp, http.StatusNoContent)
	q := url.Values{"after": {created.Add(-time.Second).Format(time.RFC3339Nano)}, "entities": {"Attendance"}}
	for range t.env.cfg.MaxPages {
		resp = t.Get(SurfaceB, "/deletedEntities", q)
		t.RequireStatus(resp, http.StatusOK)
		page := t.RequireObject(resp)
		for _, v := range arr(obj(page, "data"), "attendances") {
			if s, _ := v.(string); strings.EqualFold(s, id) {
				return
			}
		}
		tok := str(page, "pageToken")
		if tok == "" {
			break
		}
		q = url.Values{"pageToken": {tok}}
	}
	t.Failf(resp, "attendances containing "+id, "GET /deletedEntities does not list the attendance record deleted after %s", created.Add(-time.Second).Format(time.RFC3339Nano))
}
