package webhook

import (
	"encoding/json"
	"time"

	"github.com/skolkit/skolkit/model"
)

// ResourceType is an SS 12000 resource type (the document's EndPointsEnum).
type ResourceType = model.ResourceType

// ResourceTypeRef is one item of a subscription's resourceTypes:
// {"resource": "Person"}.
type ResourceTypeRef struct {
	Resource ResourceType `json:"resource"`
}

// CreateSubscription is the body of POST /subscriptions (SS 12000
// CreateSubscription).
type CreateSubscription struct {
	Name          string            `json:"name"`
	Target        string            `json:"target"`
	ResourceTypes []ResourceTypeRef `json:"resourceTypes"`
}

// Subscription is a subscription as SS 12000 shows it.
type Subscription struct {
	ID            string            `json:"id"`
	Expires       time.Time         `json:"expires"`
	Name          string            `json:"name"`
	Target        string            `json:"target"`
	ResourceTypes []ResourceTypeRef `json:"resourceTypes"`
}

// Notification is the body of the callback (SS 12000 subscriptionEvent, the
// schema _subscriptions_get_request): the resource types with new or
// changed records, and whether records were deleted. The member name
// modifiedEntites is the document's spelling.
type Notification struct {
	ModifiedEntites []ResourceType `json:"modifiedEntites"`
	DeletedEntities bool           `json:"deletedEntities"`
}

// Outcomes of a delivery attempt.
const (
	// OutcomeDelivered: the target answered 2xx.
	OutcomeDelivered = "delivered"
	// OutcomeRetrying: the attempt failed and another one is scheduled.
	OutcomeRetrying = "retrying"
	// OutcomeFailed: the attempt failed and it was the last one.
	OutcomeFailed = "failed"
	// OutcomeDropped: a drop fault swallowed the notification; nothing was
	// sent and nothing will be retried.
	OutcomeDropped = "dropped"
)

// Attempt is the record of one delivery attempt: what was sent where, and
// what came back. A notification that needs several attempts has one record
// per attempt, with the same DeliveryID.
type Attempt struct {
	// Seq numbers the records from 1, in the order they were made.
	Seq uint64 `json:"seq"`
	// DeliveryID identifies the notification; it is sent in the
	// Skolkit-Delivery header, the same on every attempt.
	DeliveryID     string `json:"deliveryID"`
	SubscriptionID string `json:"subscriptionID"`
	Target         string `json:"target"`
	// Attempt counts from 1; it is sent in the Skolkit-Attempt header.
	Attempt int `json:"attempt"`
	// Time is when the attempt was made, by the mock's clock.
	Time time.Time       `json:"time"`
	Body json.RawMessage `json:"body"`
	// Status is the target's HTTP status (0 when there was none).
	Status int `json:"status,omitempty"`
	// Error says why an attempt failed without a status (connection
	// refused, timeout, ...).
	Error string `json:"error,omitempty"`
	// DurationMs is how long the attempt took, in milliseconds of real time.
	DurationMs float64 `json:"durationMs"`
	// Changes is how many committed changes the notification reports
	// (bursts are coalesced into one notification).
	Changes int `json:"changes"`
	// Outcome is one of delivered, retrying, failed, dropped. An attempt
	// under way when its subscription is removed (or the server reset) is not
	// recorded.
	Outcome string `json:"outcome"`
	// Fault names the delivery fault applied to the attempt, if any.
	Fault string `json:"fault,omitempty"`
	// Duplicate marks the second sending of a duplicate fault.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Filter selects attempt records; empty fields match everything.
type Filter struct {
	SubscriptionID string
	Target         string // a prefix of the target
	Outcome        string
}

func (f Filter) match(a *Attempt) bool {
	return (f.SubscriptionID == "" || a.SubscriptionID == f.SubscriptionID) &&
		(f.Target == "" || len(a.Target) >= len(f.Target) && a.Target[:len(f.Target)] == f.Target) &&
		(f.Outcome == "" || a.Outcome == f.Outcome)
}

// Fault kinds.
const (
	FaultDrop      = "drop"
	FaultDelay     = "delay"
	FaultDuplicate = "duplicate"
)

// Fault makes deliveries misbehave on purpose, to test a receiver: drop
// (nothing is sent), delay (sent after Delay) or duplicate (sent twice).
type Fault struct {
	Kind string
	// Target, when set, is a glob ("*" matches any run of characters) the
	// subscription's target must match.
	Target string
	// Delay is the wait of a delay fault; with DelayMax above it, the wait
	// is drawn uniformly from [Delay, DelayMax].
	Delay, DelayMax time.Duration
	// FirstN, when positive, applies the fault to the first N notifications
	// it matches only; otherwise to every one.
	FirstN int
}
