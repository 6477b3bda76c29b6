package exam_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
)

// state is GET /__admin/exam.
type state struct {
	State string            `json:"state"`
	Scene string            `json:"scene"`
	Round int               `json:"round"`
	Env   map[string]string `json:"env"`
}

// A client started by hand runs each round when the control plane says one
// runs, and ends it there.
func TestServeModeRunsAHandStartedClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	controlled := exam.NewControlled()
	done := make(chan *exam.Result, 1)
	go func() {
		res, err := exam.Run(context.Background(), exam.Config{Listener: ln, Task: exam.TaskIncrementalSync, Rounds: 2,
			Scenes: scenes(t, exam.ScenePlain, exam.SceneSparse)}, controlled)
		assert.NoError(t, err)
		controlled.Finish()
		done <- res
	}()
	get := func() state {
		resp, err := http.Get(base + exam.ControlPrefix)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var s state
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
		return s
	}
	endRound := func(body string) int {
		resp, err := http.Post(base+exam.ControlPrefix+"/round-end", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	dirs := map[string]string{}
	ran := 0
	for ran < 4 {
		s := get()
		if s.State != exam.StateRunning {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if dirs[s.Scene] == "" {
			dirs[s.Scene] = t.TempDir()
		}
		err := refclient.SyncB(context.Background(), refclient.Config{TokenURL: s.Env["SKOLKIT_TOKEN_URL"], RegisterURL: s.Env["SKOLKIT_REGISTER_URL"],
			ClientID: s.Env["SKOLKIT_CLIENT_ID"], ClientSecret: s.Env["SKOLKIT_CLIENT_SECRET"], Dir: dirs[s.Scene]})
		require.NoError(t, err)
		require.Equal(t, http.StatusAccepted, endRound(`{"exitCode": 0}`))
		ran++
	}
	res := <-done
	assert.Equal(t, 0, res.ExitCode(), describe(res.Findings()))
	require.Len(t, res.Scenes, 2)
	for _, s := range res.Scenes {
		assert.Len(t, s.Rounds, 2)
	}
}

func TestServeModeTakesTheClientsWord(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	controlled := exam.NewControlled()
	ready := make(chan exam.Round, 1)
	done := make(chan *exam.Result, 1)
	go func() {
		res, _ := exam.Run(context.Background(), exam.Config{Listener: ln, Scenes: scenes(t, exam.ScenePlain), Ready: func(r exam.Round) { ready <- r }}, controlled)
		done <- res
	}()
	r := <-ready
	require.NoError(t, refclient.SyncB(context.Background(), refclient.Config{TokenURL: r.Env.TokenURL, RegisterURL: r.Env.RegisterURL,
		ClientID: r.Env.ClientID, ClientSecret: r.Env.ClientSecret, Dir: t.TempDir()}))
	resp, err := http.Post(base+exam.ControlPrefix+"/round-end", "application/json", strings.NewReader(`{"exitCode": 3, "output": "my own check failed"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	res := <-done
	require.Len(t, res.Findings(), 1, describe(res.Findings()))
	assert.Equal(t, "exam.client.exit-status", res.Findings()[0].ID)
	assert.Contains(t, res.Findings()[0].Message, "my own check failed")

	t.Run("no round to end is 409", func(t *testing.T) {
		rec := httptest.NewRecorder()
		exam.NewControlled().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, exam.ControlPrefix+"/round-end", nil))
		assert.Equal(t, http.StatusConflict, rec.Code)
		assert.Contains(t, rec.Body.String(), "no round is running")
	})
	t.Run("a bad body is 400", func(t *testing.T) {
		c := exam.NewControlled()
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, exam.ControlPrefix+"/round-end", strings.NewReader(`{"exitCode": "zero"}`)))
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Contains(t, rec.Body.String(), "exitCode")
	})
}
