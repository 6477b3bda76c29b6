package admin

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/scenarios"
)

// Where a rule came from.
const (
	RuleFromScenario = "scenario"
	RuleFromAdmin    = "admin"
)

// FaultState is a fault rule in force, as GET /__admin/faults shows it.
type FaultState struct {
	// ID names the rule for DELETE /__admin/faults/{id}: f1, f2, ...
	ID string `json:"id"`
	// Source is RuleFromScenario or RuleFromAdmin.
	Source string `json:"source"`
	// Matched counts the requests the rule matched when it was tried; it is
	// the n of FaultRule.Fires.
	Matched int `json:"matched"`
	// Fired counts the requests it answered.
	Fired int `json:"fired"`
	scenarios.FaultRule
}

// LatencyState is a latency rule in force.
type LatencyState struct {
	// ID names the rule: l1, l2, ...
	ID     string `json:"id"`
	Source string `json:"source"`
	// Matched counts the requests it delayed.
	Matched int `json:"matched"`
	scenarios.LatencyRule
}

// Rules lists fault and latency rules in the order they are tried.
type Rules struct {
	Faults  []FaultState   `json:"faults"`
	Latency []LatencyState `json:"latency"`
}

// Rules returns the fault and latency rules in force, in the order they
// are tried: what GET /__admin/faults answers, for Go tests.
func (s *Plane) Rules() Rules { return s.rules.list() }

// AddRules puts fault and latency rules before those in force and returns
// them with their ids: POST /__admin/faults for Go tests. The rules are
// taken as they are; scenarios.Parse checks rules read from a file.
func (s *Plane) AddRules(b scenarios.Behaviours) Rules { return s.rules.add(b) }

// RemoveRule removes the fault or latency rule with the id and reports
// whether there was one.
func (s *Plane) RemoveRule(id string) bool {
	_, ok := s.rules.remove(id)
	return ok
}

// ruleSet holds the fault and latency rules of a server and their counters.
// Its draws come from the scenario's seed, so a run repeats: latency ranges
// from the stream "latency", probability faults from the stream "faults",
// each behind the mutex.
type ruleSet struct {
	mu        sync.Mutex
	faults    []*FaultState
	latency   []*LatencyState
	faultRand *rand.Rand
	delayRand *rand.Rand
	nextFault int
	nextDelay int
}

// load replaces every rule with the scenario's, with fresh counters and
// random streams.
func (rs *ruleSet) load(sc *scenarios.Scenario) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.faults, rs.latency = nil, nil
	rs.nextFault, rs.nextDelay = 0, 0
	rs.faultRand, rs.delayRand = sc.Rand("faults"), sc.Rand("latency")
	rs.addLocked(sc.Behaviours, RuleFromScenario, false)
}

// add puts rules before the ones in force (newest first) and returns them.
func (rs *ruleSet) add(b scenarios.Behaviours) Rules {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.addLocked(b, RuleFromAdmin, true)
}

func (rs *ruleSet) addLocked(b scenarios.Behaviours, source string, front bool) Rules {
	var fs []*FaultState
	for _, f := range b.Faults {
		rs.nextFault++
		fs = append(fs, &FaultState{ID: fmt.Sprintf("f%d", rs.nextFault), Source: source, FaultRule: f})
	}
	var ls []*LatencyState
	for _, l := range b.Latency {
		rs.nextDelay++
		ls = append(ls, &LatencyState{ID: fmt.Sprintf("l%d", rs.nextDelay), Source: source, LatencyRule: l})
	}
	if front {
		rs.faults = append(fs, rs.faults...)
		rs.latency = append(ls, rs.latency...)
	} else {
		rs.faults = append(rs.faults, fs...)
		rs.latency = append(rs.latency, ls...)
	}
	return snapshotRules(fs, ls)
}

// remove deletes the rule with the id and returns it.
func (rs *ruleSet) remove(id string) (Rules, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, f := range rs.faults {
		if f.ID == id {
			rs.faults = append(rs.faults[:i:i], rs.faults[i+1:]...)
			return snapshotRules([]*FaultState{f}, nil), true
		}
	}
	for i, l := range rs.latency {
		if l.ID == id {
			rs.latency = append(rs.latency[:i:i], rs.latency[i+1:]...)
			return snapshotRules(nil, []*LatencyState{l}), true
		}
	}
	return Rules{}, false
}

// list returns copies of the rules in force.
func (rs *ruleSet) list() Rules {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return snapshotRules(rs.faults, rs.latency)
}

func (rs *ruleSet) counts() (faults, latency int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.faults), len(rs.latency)
}

func snapshotRules(fs []*FaultState, ls []*LatencyState) Rules {
	out := Rules{Faults: make([]FaultState, len(fs)), Latency: make([]LatencyState, len(ls))}
	for i, f := range fs {
		out.Faults[i] = *f
	}
	for i, l := range ls {
		out.Latency[i] = *l
	}
	return out
}

// delay returns how long to hold a request: the first matching latency
// rule's delay, or 0.
func (rs *ruleSet) delay(method, path string) time.Duration {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, l := range rs.latency {
		if l.Match(method, path) {
			l.Matched++
			return l.Delay.Pick(rs.delayRand)
		}
	}
	return 0
}

// fault returns the rule that answers a request instead of the server, or
// nil. Rules are tried in order; each counts the requests it matched when
// tried, and the first that fires answers (the rules after it are not tried
// and do not count the request).
func (rs *ruleSet) fault(method, path string) *scenarios.FaultRule {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, f := range rs.faults {
		if !f.Match(method, path) {
			continue
		}
		f.Matched++
		if f.Fires(f.Matched, rs.faultRand) {
			f.Fired++
			rule := f.FaultRule
			return &rule
		}
	}
	return nil
}

// Behave applies the latency and fault rules to a request before it is
// served. It reports false when the request is answered (a fault fired) or
// abandoned (the client went away during the delay).
func (s *Plane) Behave(w http.ResponseWriter, r *http.Request) bool {
	rs := &s.rules
	if d := rs.delay(r.Method, r.URL.Path); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false
		}
	}
	f := rs.fault(r.Method, r.URL.Path)
	if f == nil {
		return true
	}
	h := w.Header()
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Type", f.ContentType())
	w.WriteHeader(f.Status)
	if f.Body != "" {
		_, _ = w.Write([]byte(f.Body))
	}
	return false
}

// ruleDocHeader wraps a rules body into a scenario document, so that the
// scenario loader checks it as strictly as a scenario's behaviours: the body
// goes under "behaviours:", indented by two spaces, and problems are moved
// back to the body's lines and columns.
const ruleDocHeader = "name: admin-rules\ngenerate: {profile: none}\nbehaviours:\n"

// parseRules reads the body of POST /__admin/faults: {faults: [...],
// latency: [...]} as JSON or YAML.
func parseRules(body []byte) (scenarios.Behaviours, *scenarios.LoadError) {
	const file = "request body"
	fail := func(msg string) *scenarios.LoadError {
		return &scenarios.LoadError{File: file, Problems: []scenarios.Problem{{File: file, Message: msg}}}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return scenarios.Behaviours{}, fail("the body is empty; send {\"faults\": [...], \"latency\": [...]}")
	}
	var doc bytes.Buffer
	doc.WriteString(ruleDocHeader)
	headerLines := strings.Count(ruleDocHeader, "\n")
	for line := range bytes.Lines(body) {
		doc.WriteString("  ")
		doc.Write(line)
	}
	doc.WriteString("\n")
	sc, err := scenarios.Parse(file, doc.Bytes())
	if err != nil {
		le, ok := err.(*scenarios.LoadError)
		if !ok {
			return scenarios.Behaviours{}, fail(err.Error())
		}
		for i := range le.Problems {
			p := &le.Problems[i]
			p.File = file
			if p.Line > headerLines {
				p.Line -= headerLines
				if p.Column > 2 {
					p.Column -= 2
				}
			} else {
				p.Line, p.Column = 0, 0
			}
			p.Path = strings.TrimPrefix(strings.TrimPrefix(p.Path, "behaviours"), ".")
		}
		return scenarios.Behaviours{}, le
	}
	b := sc.Behaviours
	switch {
	case len(b.Deviations) > 0:
		return b, fail("deviations cannot be switched at run time; load a scenario that names them with PUT /__admin/scenario")
	case len(b.Variants) > 0:
		return b, fail("variants cannot be switched at run time; load a scenario that names them with PUT /__admin/scenario")
	case len(b.Faults) == 0 && len(b.Latency) == 0:
		return b, fail("no rules: send {\"faults\": [...]} or {\"latency\": [...]}")
	}
	return b, nil
}

func (s *Plane) adminRules(w http.ResponseWriter, r *http.Request) {
	surface.WriteJSON(w, http.StatusOK, s.rules.list())
}

func (s *Plane) adminAddRules(w http.ResponseWriter, r *http.Request) {
	body, _, ok := ReadBody(w, r, YAMLOrJSON, MaxAdminBodyBytes)
	if !ok {
		return
	}
	b, le := parseRules(body)
	if le != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("the rules do not load: %d problem(s)", len(le.Problems)), le.Problems...)
		return
	}
	surface.WriteJSON(w, http.StatusCreated, s.rules.add(b))
}

func (s *Plane) adminRemoveRule(w http.ResponseWriter, r *http.Request) {
	id := surface.PathID(r)
	removed, ok := s.rules.remove(id)
	if !ok {
		surface.WriteAdminError(w, http.StatusNotFound, surface.AdminNotFound, fmt.Sprintf("no fault or latency rule with id %q; GET %s/faults lists them", id, PrefixAdmin))
		return
	}
	surface.WriteJSON(w, http.StatusOK, removed)
}
