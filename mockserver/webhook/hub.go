package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/model"

	"github.com/google/uuid"
)

// Defaults of Options, documented in docs/decisions.md.
const (
	// DefaultLifetime is how long a subscription lives after it is created
	// or renewed (PATCH /subscriptions/{id}).
	DefaultLifetime = 30 * 24 * time.Hour
	// DefaultTimeout bounds one delivery attempt.
	DefaultTimeout = 5 * time.Second
	// DefaultCoalesce is how long a notification waits for more changes
	// before it is sent: changes within it make one notification.
	DefaultCoalesce = 50 * time.Millisecond
	// DefaultRecords is how many attempt records are kept.
	DefaultRecords = 1000
)

// DefaultRetry is the fixed back-off schedule: the waits before the second,
// third and fourth attempt. A notification is tried at most
// len(Retry)+1 times.
var DefaultRetry = []time.Duration{1 * time.Second, 5 * time.Second, 30 * time.Second}

// Header names of the callback request.
const (
	HeaderDelivery = "Skolkit-Delivery"
	HeaderAttempt  = "Skolkit-Attempt"
	userAgent      = "skolkit-mock-webhook/1"
)

// Options configure a Hub. The zero value uses the defaults above and the
// real clock.
type Options struct {
	// Now is the mock's clock: expiry and the times of the records.
	Now func() time.Time
	// Lifetime of a subscription; 0 means DefaultLifetime.
	Lifetime time.Duration
	// Retry is the back-off schedule (see DefaultRetry); nil means
	// DefaultRetry, an empty non-nil slice means no retries.
	Retry []time.Duration
	// Timeout bounds one attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// Coalesce is the wait for more changes; 0 means DefaultCoalesce, a
	// negative value sends at once.
	Coalesce time.Duration
	// AllowHosts are the host names (or IP addresses) callbacks may go to
	// besides loopback addresses and "localhost".
	AllowHosts []string
	// Records is how many attempt records are kept; 0 means DefaultRecords.
	Records int
	// Transport sends the callbacks; nil means a transport of its own.
	Transport http.RoundTripper
	// ResourceTypes are the resource types a subscription may name, in the
	// order a notification lists them; nil means SS 12000's
	// (model.ResourceTypes).
	ResourceTypes []ResourceType
}

// Errors of the subscription operations.
var (
	// ErrNotFound: no live subscription has the id.
	ErrNotFound = errors.New("no such subscription")
	// ErrTargetNotAllowed: the target's host is not on the allow-list.
	ErrTargetNotAllowed = errors.New("target not allowed")
	// ErrInvalid: the subscription is not valid (empty name, bad URL,
	// unknown resource type).
	ErrInvalid = errors.New("invalid subscription")
)

// Hub holds the subscriptions of one server and delivers their callbacks.
// It is safe for concurrent use.
type Hub struct {
	opts    Options
	client  *http.Client
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	allow   []string // lower-case host names
	subs    map[string]*sub
	order   []string // ids in creation order
	faults  []*faultState
	records []Attempt
	seq     uint64
	dropped uint64
	changes uint64 // changes reported to Changed, for Stats
}

type faultState struct {
	Fault
	n int // notifications it matched
}

// sub is a live subscription and its pending notification.
type sub struct {
	Subscription
	types   map[ResourceType]bool
	ctx     context.Context
	cancel  context.CancelFunc
	running bool
	// pending notification
	modified map[ResourceType]bool
	deleted  bool
	changes  int
}

// New returns a Hub with no subscriptions.
func New(opts Options) *Hub {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Lifetime <= 0 {
		opts.Lifetime = DefaultLifetime
	}
	if opts.Retry == nil {
		opts.Retry = DefaultRetry
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Coalesce == 0 {
		opts.Coalesce = DefaultCoalesce
	}
	if opts.Records <= 0 {
		opts.Records = DefaultRecords
	}
	if opts.ResourceTypes == nil {
		opts.ResourceTypes = model.ResourceTypes
	}
	tr := opts.Transport
	if tr == nil {
		tr = &http.Transport{
			Proxy:               nil, // never through a proxy: the allow-list names the hosts called
			DialContext:         (&net.Dialer{Timeout: opts.Timeout}).DialContext,
			MaxIdleConnsPerHost: 16,
			IdleConnTimeout:     30 * time.Second,
		}
	}
	h := &Hub{
		opts: opts,
		client: &http.Client{
			Transport: tr,
			Timeout:   opts.Timeout,
			// A redirect could lead off the allow-list: it is the answer.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		subs: map[string]*sub{},
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.allow = lowerAll(opts.AllowHosts)
	return h
}

func lowerAll(hosts []string) []string {
	out := make([]string, 0, len(hosts))
	for _, host := range hosts {
		out = append(out, strings.ToLower(strings.TrimSpace(host)))
	}
	return out
}

// Close cancels every delivery under way and waits for them to end. The
// Hub accepts no work afterwards.
func (h *Hub) Close() {
	h.cancel()
	h.wg.Wait()
}

// Reset removes every subscription, fault and record, cancelling the
// deliveries under way, and installs the given subscriptions (with their
// ids; their targets are allowed whatever the allow-list says, the scenario
// names them), faults and extra allowed hosts.
func (h *Hub) Reset(subs []Subscription, faults []Fault, allowHosts []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.subs {
		s.cancel()
	}
	h.subs = map[string]*sub{}
	h.order = nil
	h.records = nil
	h.dropped = 0
	h.allow = lowerAll(append(slices.Clone(h.opts.AllowHosts), allowHosts...))
	h.faults = nil
	for _, f := range faults {
		h.faults = append(h.faults, &faultState{Fault: f})
	}
	now := h.opts.Now()
	for _, s := range subs {
		if u, err := url.Parse(s.Target); err == nil && u.Hostname() != "" {
			h.allow = append(h.allow, strings.ToLower(u.Hostname()))
		}
		if s.Expires.IsZero() {
			s.Expires = now.UTC().Add(h.opts.Lifetime).Truncate(time.Millisecond)
		}
		h.addLocked(s)
	}
}

func (h *Hub) addLocked(s Subscription) *sub {
	st := &sub{Subscription: s, types: map[ResourceType]bool{}}
	for _, rt := range s.ResourceTypes {
		st.types[rt.Resource] = true
	}
	st.ctx, st.cancel = context.WithCancel(h.ctx)
	h.subs[s.ID] = st
	h.order = append(h.order, s.ID)
	return st
}

// CheckTarget returns nil when callbacks may be sent to the target: an
// absolute http or https URL whose host is a loopback address, "localhost",
// or one of the allowed hosts. Otherwise the error wraps ErrInvalid or
// ErrTargetNotAllowed and says why.
func (h *Hub) CheckTarget(target string) error {
	h.mu.Lock()
	allow := h.allow
	h.mu.Unlock()
	return checkTarget(target, allow)
}

func checkTarget(target string, allow []string) error {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "" {
		return fmt.Errorf("%w: target %q is not an absolute http or https URL", ErrInvalid, target)
	}
	host := strings.ToLower(u.Hostname())
	if IsLoopbackHost(host) || slices.Contains(allow, host) {
		return nil
	}
	named := "none"
	if len(allow) > 0 {
		named = strings.Join(allow, ", ")
	}
	return fmt.Errorf("%w: the mock calls back only loopback addresses, localhost and the hosts named in its scenario (webhooks.allowHosts) or by --webhook-allow-host; %q is none of them (allowed hosts: %s)", ErrTargetNotAllowed, host, named)
}

// IsLoopbackHost reports whether a host name is "localhost" or a loopback
// IP address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Create validates and adds a subscription; it lives for the Hub's
// lifetime unless renewed.
func (h *Hub) Create(c CreateSubscription) (Subscription, error) {
	if strings.TrimSpace(c.Name) == "" {
		return Subscription{}, fmt.Errorf("%w: name must not be empty", ErrInvalid)
	}
	if len(c.ResourceTypes) == 0 {
		return Subscription{}, fmt.Errorf("%w: resourceTypes must name at least one resource type", ErrInvalid)
	}
	for i, rt := range c.ResourceTypes {
		if !slices.Contains(h.opts.ResourceTypes, rt.Resource) {
			return Subscription{}, fmt.Errorf("%w: resourceTypes[%d].resource: %q is not a resource type", ErrInvalid, i, rt.Resource)
		}
	}
	if err := h.CheckTarget(c.Target); err != nil {
		return Subscription{}, err
	}
	s := Subscription{
		ID:            uuid.NewString(),
		Expires:       h.opts.Now().UTC().Add(h.opts.Lifetime).Truncate(time.Millisecond),
		Name:          c.Name,
		Target:        c.Target,
		ResourceTypes: slices.Clone(c.ResourceTypes),
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.addLocked(s)
	return s, nil
}

// live returns the subscription with the id unless it has expired (an
// expired one is removed). The caller holds mu.
func (h *Hub) liveLocked(id string, now time.Time) (*sub, bool) {
	s, ok := h.subs[id]
	if !ok {
		return nil, false
	}
	if !now.Before(s.Expires) {
		h.removeLocked(id)
		return nil, false
	}
	return s, true
}

func (h *Hub) removeLocked(id string) {
	if s, ok := h.subs[id]; ok {
		s.cancel()
		delete(h.subs, id)
		h.order = slices.DeleteFunc(h.order, func(o string) bool { return o == id })
	}
}

// Get returns the live subscription with the id (ids are compared without
// regard to case).
func (h *Hub) Get(id string) (Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.liveLocked(strings.ToLower(id), h.opts.Now())
	if !ok {
		return Subscription{}, ErrNotFound
	}
	return s.Subscription, nil
}

// List returns the live subscriptions in creation order.
func (h *Hub) List() []Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.opts.Now()
	out := []Subscription{}
	for _, id := range slices.Clone(h.order) {
		if s, ok := h.liveLocked(id, now); ok {
			out = append(out, s.Subscription)
		}
	}
	return out
}

// Renew moves the subscription's expiry to now plus the lifetime (SS 12000
// PATCH /subscriptions/{id}: "Uppdatera expire time").
func (h *Hub) Renew(id string) (Subscription, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.opts.Now()
	s, ok := h.liveLocked(strings.ToLower(id), now)
	if !ok {
		return Subscription{}, ErrNotFound
	}
	s.Expires = now.UTC().Add(h.opts.Lifetime).Truncate(time.Millisecond)
	return s.Subscription, nil
}

// Delete removes the subscription; a delivery under way is cancelled.
func (h *Hub) Delete(id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	id = strings.ToLower(id)
	if _, ok := h.liveLocked(id, h.opts.Now()); !ok {
		return ErrNotFound
	}
	h.removeLocked(id)
	return nil
}

// Changed tells the Hub that records of the modified types were created or
// changed and records of the deleted types were deleted, in one committed
// change. Every live subscription to one of the types gets a notification:
// at once when none is under way, else after the one under way (changes
// that arrive meanwhile are coalesced into one notification). It never
// blocks on delivery.
func (h *Hub) Changed(modified, deleted []ResourceType) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil {
		return
	}
	h.changes++
	now := h.opts.Now()
	for _, id := range slices.Clone(h.order) {
		s, ok := h.liveLocked(id, now)
		if !ok {
			continue
		}
		hit := false
		for _, rt := range modified {
			if s.types[rt] {
				if s.modified == nil {
					s.modified = map[ResourceType]bool{}
				}
				s.modified[rt] = true
				hit = true
			}
		}
		for _, rt := range deleted {
			if s.types[rt] {
				s.deleted = true
				hit = true
			}
		}
		if !hit {
			continue
		}
		s.changes++
		if !s.running {
			s.running = true
			h.wg.Add(1)
			go h.run(s)
		}
	}
}

// run delivers a subscription's notifications until none is pending. Each
// notification waits the coalescing window first, so that the changes of a
// burst (and those that arrive while one is delivered) go out together.
func (h *Hub) run(s *sub) {
	defer h.wg.Done()
	for {
		if !sleep(s.ctx, h.opts.Coalesce) {
			return
		}
		h.mu.Lock()
		if s.ctx.Err() != nil {
			h.mu.Unlock()
			return
		}
		n := Notification{ModifiedEntites: []ResourceType{}, DeletedEntities: s.deleted}
		for _, rt := range h.opts.ResourceTypes {
			if s.modified[rt] {
				n.ModifiedEntites = append(n.ModifiedEntites, rt)
			}
		}
		changes, target, id := s.changes, s.Target, s.ID
		s.modified, s.deleted, s.changes = nil, false, 0
		fault := h.pickFaultLocked(target)
		h.mu.Unlock()
		h.deliver(s.ctx, id, target, n, changes, fault)
		h.mu.Lock()
		if s.changes == 0 {
			s.running = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
	}
}

func (h *Hub) pickFaultLocked(target string) *Fault {
	for _, f := range h.faults {
		if f.Target != "" && !glob(f.Target, target) {
			continue
		}
		f.n++
		if f.FirstN > 0 && f.n > f.FirstN {
			continue
		}
		fault := f.Fault
		return &fault
	}
	return nil
}

// deliver sends one notification with the retries of the schedule.
func (h *Hub) deliver(ctx context.Context, subID, target string, n Notification, changes int, fault *Fault) {
	body, _ := json.Marshal(n)
	rec := Attempt{DeliveryID: uuid.NewString(), SubscriptionID: subID, Target: target, Body: body, Changes: changes}
	if fault != nil {
		rec.Fault = fault.Kind
		switch fault.Kind {
		case FaultDrop:
			rec.Attempt, rec.Time, rec.Outcome = 1, h.opts.Now(), OutcomeDropped
			h.record(ctx, rec)
			return
		case FaultDelay:
			d := fault.Delay
			if fault.DelayMax > d {
				d += time.Duration(rand.Int64N(int64(fault.DelayMax-d) + 1))
			}
			if !sleep(ctx, d) {
				return
			}
		}
	}
	for attempt := 1; ; attempt++ {
		rec.Attempt = attempt
		ok := h.attempt(ctx, &rec)
		if ctx.Err() != nil {
			return
		}
		last := attempt > len(h.opts.Retry)
		switch {
		case ok:
			rec.Outcome = OutcomeDelivered
		case last:
			rec.Outcome = OutcomeFailed
		default:
			rec.Outcome = OutcomeRetrying
		}
		h.record(ctx, rec)
		if ok && fault != nil && fault.Kind == FaultDuplicate {
			dup := rec
			dup.Duplicate = true
			if h.attempt(ctx, &dup) {
				dup.Outcome = OutcomeDelivered
			} else {
				dup.Outcome = OutcomeFailed
			}
			h.record(ctx, dup)
		}
		if ok || last {
			return
		}
		if !sleep(ctx, h.opts.Retry[attempt-1]) {
			return
		}
	}
}

// attempt sends the request once and fills in the record; it reports
// whether the target answered 2xx.
func (h *Hub) attempt(ctx context.Context, rec *Attempt) bool {
	rec.Time, rec.Status, rec.Error = h.opts.Now(), 0, ""
	start := time.Now()
	defer func() { rec.DurationMs = float64(time.Since(start).Microseconds()) / 1000 }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.Target, bytes.NewReader(rec.Body))
	if err != nil {
		rec.Error = err.Error()
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(HeaderDelivery, rec.DeliveryID)
	req.Header.Set(HeaderAttempt, strconv.Itoa(rec.Attempt))
	resp, err := h.client.Do(req)
	if err != nil {
		rec.Error = err.Error()
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	rec.Status = resp.StatusCode
	return resp.StatusCode >= 200 && resp.StatusCode < 300
}

// record keeps an attempt record, unless the subscription's context is
// done: the subscription was removed, or the hub reset or closed, and the
// record belongs to a past state.
func (h *Hub) record(ctx context.Context, a Attempt) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	h.seq++
	a.Seq = h.seq
	if len(h.records) == h.opts.Records {
		copy(h.records, h.records[1:])
		h.records = h.records[:len(h.records)-1]
		h.dropped++
	}
	h.records = append(h.records, a)
}

// Attempts returns the attempt records the filter selects, oldest first,
// and how many records were dropped to keep the bound.
func (h *Hub) Attempts(f Filter) ([]Attempt, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []Attempt{}
	for i := range h.records {
		if f.match(&h.records[i]) {
			out = append(out, h.records[i])
		}
	}
	return out, h.dropped
}

// ClearAttempts removes every attempt record and returns how many there
// were.
func (h *Hub) ClearAttempts() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.records)
	h.records = nil
	return n
}

// Capacity is how many attempt records are kept.
func (h *Hub) Capacity() int { return h.opts.Records }

// Idle reports whether no notification is pending or under way.
func (h *Hub) Idle() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.subs {
		if s.running || s.changes > 0 {
			return false
		}
	}
	return true
}

// sleep waits d or until ctx is done, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// glob matches s against a pattern where "*" matches any run of characters.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
