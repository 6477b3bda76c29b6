package exam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ControlPrefix is where the exam's control plane is served, beside the
// mock's own (/__admin), with --serve.
const ControlPrefix = "/__admin/exam"

// Controlled is the client of `skolkit exam --serve`: a client started by
// hand (or by another test framework) that runs against the URLs the exam
// prints and says through the control plane when it has finished a round:
//
//	GET  /__admin/exam            the exam's state: the scene and round running, the client's environment
//	POST /__admin/exam/round-end  ends the round; body (optional): {"exitCode": 0, "output": "..."}
//
// The next round starts once the exam has judged the one that ended; GET
// /__admin/exam says when (state "running" with the next scene and round).
type Controlled struct {
	mu       sync.Mutex
	round    *Round
	state    string
	ended    chan Outcome
	started  time.Time
	finished []roundEnd
}

type roundEnd struct {
	Scene    string `json:"scene"`
	Round    int    `json:"round"`
	ExitCode int    `json:"exitCode"`
}

// States of the exam that GET /__admin/exam shows.
const (
	StateRunning  = "running"  // a round runs: the client may work
	StateJudging  = "judging"  // between rounds
	StateFinished = "finished" // every scene has run
)

// NewControlled returns the client of --serve.
func NewControlled() *Controlled { return &Controlled{state: StateJudging} }

// RunRound opens the round and waits until the client ends it through the
// control plane, or until the round timeout.
func (c *Controlled) RunRound(ctx context.Context, r Round) Outcome {
	c.mu.Lock()
	c.round, c.state, c.started = &r, StateRunning, time.Now()
	c.ended = make(chan Outcome, 1)
	ended := c.ended
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.state, c.ended = StateJudging, nil
		c.mu.Unlock()
	}()
	select {
	case out := <-ended:
		return out
	case <-ctx.Done():
		out := Outcome{Duration: time.Since(c.started), ExitCode: -1}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.TimedOut = true
		}
		return out
	}
}

// Finish marks the exam finished.
func (c *Controlled) Finish() {
	c.mu.Lock()
	c.state, c.round = StateFinished, nil
	c.mu.Unlock()
}

// controlState is the answer of GET /__admin/exam.
type controlState struct {
	State string `json:"state"`
	Scene string `json:"scene,omitempty"`
	Round int    `json:"round,omitempty"`
	// Rounds is how many rounds the scene has.
	Rounds int               `json:"rounds,omitempty"`
	Task   Task              `json:"task,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
	Ended  []roundEnd        `json:"ended"`
}

// ServeHTTP serves the control plane.
func (c *Controlled) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == ControlPrefix && r.Method == http.MethodGet:
		c.mu.Lock()
		st := controlState{State: c.state, Ended: append([]roundEnd{}, c.finished...)}
		if c.round != nil {
			st.Scene, st.Round, st.Rounds, st.Task = c.round.Scene, c.round.Number, c.round.Rounds, c.round.Task
			st.Env = map[string]string{}
			for _, kv := range c.round.Vars() {
				k, v, _ := strings.Cut(kv, "=")
				st.Env[k] = v
			}
		}
		c.mu.Unlock()
		writeJSON(w, http.StatusOK, st)
	case r.URL.Path == ControlPrefix+"/round-end" && r.Method == http.MethodPost:
		var body struct {
			ExitCode int    `json:"exitCode"`
			Output   string `json:"output"`
		}
		data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err == nil && len(data) > 0 {
			err = json.Unmarshal(data, &body)
		}
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"code": "BadRequest", "message": "the body must be {\"exitCode\": N, \"output\": \"...\"} or empty: " + err.Error()})
			return
		}
		c.mu.Lock()
		if c.state != StateRunning || c.ended == nil {
			state := c.state
			c.mu.Unlock()
			writeJSON(w, http.StatusConflict, map[string]string{"code": "Conflict", "message": fmt.Sprintf("no round is running (the exam is %s); GET %s says when the next starts", state, ControlPrefix)})
			return
		}
		end := roundEnd{Scene: c.round.Scene, Round: c.round.Number, ExitCode: body.ExitCode}
		c.finished = append(c.finished, end)
		c.ended <- Outcome{ExitCode: body.ExitCode, Output: body.Output, Duration: time.Since(c.started)}
		c.ended, c.state = nil, StateJudging
		c.mu.Unlock()
		writeJSON(w, http.StatusAccepted, end)
	case r.URL.Path == ControlPrefix || r.URL.Path == ControlPrefix+"/round-end":
		w.Header().Set("Allow", map[bool]string{true: "GET", false: "POST"}[r.URL.Path == ControlPrefix])
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"code": "MethodNotAllowed", "message": "method " + r.Method + " is not allowed on " + r.URL.Path})
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"code": "NotFound", "message": "the exam's control plane has GET " + ControlPrefix + " and POST " + ControlPrefix + "/round-end"})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
