package scenarios

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/skolkit/skolkit/model"
)

// Webhooks are a scenario's SS 12000 subscriptions and the faults of their
// callbacks. In YAML:
//
//	webhooks:
//	  allowHosts: [hooks.example.test]
//	  subscriptions:
//	    - name: my receiver
//	      target: http://127.0.0.1:9000/hook
//	      resourceTypes: [Person, Attendance]
//	  faults:
//	    - fault: duplicate
//	      target: "http://127.0.0.1:9000/*"
//	      firstN: 1
type Webhooks struct {
	// AllowHosts are host names callbacks may go to besides loopback
	// addresses and localhost (the hosts of Subscriptions are allowed too).
	AllowHosts []string `yaml:"allowHosts,omitempty" json:"allowHosts,omitempty"`
	// Subscriptions exist from the start, and again after every reset.
	Subscriptions []SubscriptionRecord `yaml:"subscriptions,omitempty" json:"subscriptions,omitempty"`
	// Faults make callbacks misbehave; the first matching fault applies.
	Faults []DeliveryFault `yaml:"faults,omitempty" json:"faults,omitempty"`
}

// SubscriptionRecord is a subscription declared by a scenario.
type SubscriptionRecord struct {
	// ID is the subscription's id (a UUID); without one it is derived from
	// the seed and the name.
	ID     string `yaml:"id,omitempty" json:"id,omitempty"`
	Name   string `yaml:"name" json:"name"`
	Target string `yaml:"target" json:"target"`
	// ResourceTypes are SS 12000 resource types (EndPointsEnum): Person,
	// Attendance, ...
	ResourceTypes []string `yaml:"resourceTypes" json:"resourceTypes"`
}

// Delivery fault kinds.
const (
	// DeliveryDrop swallows the notification: nothing is sent, nothing is
	// retried.
	DeliveryDrop = "drop"
	// DeliveryDelay sends the notification after Delay.
	DeliveryDelay = "delay"
	// DeliveryDuplicate sends a delivered notification a second time.
	DeliveryDuplicate = "duplicate"
)

// DeliveryFaults lists the delivery fault kinds.
var DeliveryFaults = []string{DeliveryDrop, DeliveryDelay, DeliveryDuplicate}

// DeliveryFault makes the callbacks to matching targets misbehave.
type DeliveryFault struct {
	// Fault is drop, delay or duplicate.
	Fault string `yaml:"fault" json:"fault"`
	// Target, when set, is a glob ("*" matches any run of characters) the
	// subscription's target must match.
	Target string `yaml:"target,omitempty" json:"target,omitempty"`
	// Delay is the wait of a delay fault ("2s" or a range "1s-3s").
	Delay *Delay `yaml:"delay,omitempty" json:"delay,omitempty"`
	// FirstN, when set, applies the fault to the first N notifications it
	// matches only; otherwise to every one.
	FirstN int `yaml:"firstN,omitempty" json:"firstN,omitempty"`
}

// SubscriptionID returns the id of the scenario's subscription: its own, or
// one derived from the seed and the name.
func (sc *Scenario) SubscriptionID(s SubscriptionRecord) string {
	if s.ID != "" {
		return strings.ToLower(s.ID)
	}
	return DeriveID(sc.Seed, "subscription/"+s.Name)
}

func (sc *Scenario) checkWebhooks(d *decoder) {
	w := &sc.Webhooks
	for i, h := range w.AllowHosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/:@ ") {
			d.problem(fmt.Sprintf("webhooks.allowHosts[%d]", i), "%q is not a host name", h)
		}
	}
	names, ids := map[string]bool{}, map[string]bool{}
	for i, s := range w.Subscriptions {
		p := fmt.Sprintf("webhooks.subscriptions[%d]", i)
		switch {
		case s.Name == "":
			d.problem(p+".name", "required")
		case names[s.Name]:
			d.problem(p+".name", "duplicate subscription name %q", s.Name)
		}
		names[s.Name] = true
		if s.ID != "" {
			if _, err := uuid.Parse(s.ID); err != nil || len(s.ID) != 36 {
				d.problem(p+".id", "%q is not a UUID", s.ID)
			} else if ids[strings.ToLower(s.ID)] {
				d.problem(p+".id", "duplicate subscription id %q", s.ID)
			}
			ids[strings.ToLower(s.ID)] = true
		}
		if u, err := url.Parse(s.Target); s.Target == "" {
			d.problem(p+".target", "required")
		} else if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			d.problem(p+".target", "%q is not an absolute http or https URL", s.Target)
		}
		if len(s.ResourceTypes) == 0 {
			d.problem(p+".resourceTypes", "name at least one resource type: %s", resourceTypeNames())
		}
		for j, rt := range s.ResourceTypes {
			if !slices.Contains(model.ResourceTypes, model.ResourceType(rt)) {
				d.problem(fmt.Sprintf("%s.resourceTypes[%d]", p, j), "%q is not a resource type; one of %s", rt, resourceTypeNames())
			}
		}
	}
	for i, f := range w.Faults {
		p := fmt.Sprintf("webhooks.faults[%d]", i)
		switch {
		case f.Fault == "":
			d.problem(p+".fault", "required: one of %s", strings.Join(DeliveryFaults, ", "))
		case !slices.Contains(DeliveryFaults, f.Fault):
			d.problem(p+".fault", "%q is not a delivery fault; one of %s", f.Fault, strings.Join(DeliveryFaults, ", "))
		}
		if f.Fault == DeliveryDelay && !d.present(p+".delay") {
			d.problem(p+".delay", "required for a delay fault")
		}
		if f.Fault != DeliveryDelay && d.present(p+".delay") {
			d.problem(p+".delay", "only a delay fault has a delay")
		}
		if d.present(p+".firstN") && f.FirstN < 1 {
			d.problem(p+".firstN", "%d is less than 1", f.FirstN)
		}
	}
}

func resourceTypeNames() string {
	names := make([]string, len(model.ResourceTypes))
	for i, rt := range model.ResourceTypes {
		names[i] = string(rt)
	}
	return strings.Join(names, ", ")
}
