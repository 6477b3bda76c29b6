package exam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Task is what the client is asked to do in every round.
type Task string

// The tasks.
const (
	// TaskFullSync: one round per scene; by its end the client holds every
	// record of the resources it reads, at its latest version.
	TaskFullSync Task = "full-sync"
	// TaskIncrementalSync: several rounds per scene with creates, updates
	// and deletes between them; in each round after the first the client
	// learns every change since its previous round.
	TaskIncrementalSync Task = "incremental-sync"
)

// Tasks lists the tasks.
var Tasks = []Task{TaskFullSync, TaskIncrementalSync}

// ParseTask reads a task's name.
func ParseTask(s string) (Task, error) {
	for _, t := range Tasks {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown task %q; the tasks are %s and %s", s, TaskFullSync, TaskIncrementalSync)
}

// Env is what a client is told of the server: the URLs of its surfaces and
// the credentials to use.
type Env struct {
	// AuthURL is the server's root; the token endpoint is AuthURL/oauth/token.
	AuthURL string
	// TokenURL is the token endpoint.
	TokenURL string
	// RegisterURL is interface B (…/api/v1).
	RegisterURL string
	// BaseURL is interface A (…/directory/v1).
	BaseURL string
	// ExportURL is the data export (…/data-export/v1).
	ExportURL              string
	ClientID, ClientSecret string
}

// Round is one run of the client: which scene, which round of it, the task
// and the working directory kept between the scene's rounds.
type Round struct {
	Scene string
	// Number counts the scene's rounds from 1.
	Number int
	// Rounds is how many rounds the scene has.
	Rounds int
	Task   Task
	// Dir is the scene's working directory: new for each scene, kept
	// between its rounds, so that a client keeps its sync state there.
	Dir string
	Env Env
}

// Environment variables a client command gets.
const (
	EnvAuthURL      = "SKOLKIT_AUTH_URL"
	EnvTokenURL     = "SKOLKIT_TOKEN_URL"
	EnvRegisterURL  = "SKOLKIT_REGISTER_URL"
	EnvBaseURL      = "SKOLKIT_BASE_URL"
	EnvExportURL    = "SKOLKIT_EXPORT_URL"
	EnvClientID     = "SKOLKIT_CLIENT_ID"
	EnvClientSecret = "SKOLKIT_CLIENT_SECRET"
	EnvScene        = "SKOLKIT_SCENE"
	EnvRound        = "SKOLKIT_ROUND"
	EnvTask         = "SKOLKIT_TASK"
)

// Vars are the environment variables that tell a client command of the
// round: NAME=value pairs.
func (r Round) Vars() []string {
	return []string{
		EnvAuthURL + "=" + r.Env.AuthURL,
		EnvTokenURL + "=" + r.Env.TokenURL,
		EnvRegisterURL + "=" + r.Env.RegisterURL,
		EnvBaseURL + "=" + r.Env.BaseURL,
		EnvExportURL + "=" + r.Env.ExportURL,
		EnvClientID + "=" + r.Env.ClientID,
		EnvClientSecret + "=" + r.Env.ClientSecret,
		EnvScene + "=" + r.Scene,
		EnvRound + "=" + strconv.Itoa(r.Number),
		EnvTask + "=" + string(r.Task),
	}
}

// Expand replaces the placeholders {register_url}, {base_url},
// {export_url}, {auth_url}, {token_url}, {client_id}, {client_secret},
// {scene} and {round} in an argument by the round's values.
func (r Round) Expand(arg string) string {
	if !strings.Contains(arg, "{") {
		return arg
	}
	return strings.NewReplacer(
		"{register_url}", r.Env.RegisterURL,
		"{base_url}", r.Env.BaseURL,
		"{export_url}", r.Env.ExportURL,
		"{auth_url}", r.Env.AuthURL,
		"{token_url}", r.Env.TokenURL,
		"{client_id}", r.Env.ClientID,
		"{client_secret}", r.Env.ClientSecret,
		"{scene}", r.Scene,
		"{round}", strconv.Itoa(r.Number),
	).Replace(arg)
}

// Outcome is how a round of the client ended.
type Outcome struct {
	// ExitCode is the client's exit status: 0 for success.
	ExitCode int
	// Output is the end of what the client wrote (stdout and stderr).
	Output string
	// TimedOut reports that the round was ended after the round timeout.
	TimedOut bool
	// Err says why the client could not be run at all (a command that does
	// not exist): the exam cannot go on.
	Err error
	// Duration is the round's wall time.
	Duration time.Duration
}

// Client is the program under examination. RunRound runs one round and
// returns when the client is done with it; ctx ends at the round timeout.
type Client interface {
	RunRound(ctx context.Context, r Round) Outcome
}

// Func is a client that is a Go function: a nil error is exit status 0,
// any other error exit status 1 with the error as its output, and a panic
// exit status 2 with the panic as its output.
type Func func(ctx context.Context, r Round) error

// RunRound calls the function.
func (f Func) RunRound(ctx context.Context, r Round) (out Outcome) {
	start := time.Now()
	defer func() {
		out.Duration = time.Since(start)
		if v := recover(); v != nil {
			out.ExitCode, out.Output = 2, fmt.Sprintf("panic: %v", v)
		}
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.TimedOut = true
		}
	}()
	if err := f(ctx, r); err != nil {
		return Outcome{ExitCode: 1, Output: err.Error()}
	}
	return Outcome{}
}

// Command is a client that is a program: it runs once per round in the
// scene's working directory, with the round's environment variables
// (Round.Vars) added to the exam's own, and its arguments' placeholders
// expanded (Round.Expand).
type Command struct {
	// Path is the program, found on PATH when it has no slash.
	Path string
	Args []string
	// Env are further NAME=value pairs for the program.
	Env []string
	// Echo, when set, receives everything the program writes, as it writes
	// it (the CLI shows it with -v).
	Echo func(p []byte)
}

// outputTail is how much of a program's output an Outcome keeps.
const outputTail = 8 << 10

// RunRound runs the program and waits for it. At the round timeout the
// program and the processes it started are killed.
func (c *Command) RunRound(ctx context.Context, r Round) Outcome {
	start := time.Now()
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = r.Expand(a)
	}
	cmd := exec.CommandContext(ctx, c.Path, args...)
	cmd.Dir = r.Dir
	cmd.Env = append(append(os.Environ(), r.Vars()...), c.Env...)
	tail := &tailBuffer{max: outputTail, echo: c.Echo}
	cmd.Stdout, cmd.Stderr = tail, tail
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	out := Outcome{Output: tail.String(), Duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		out.TimedOut, out.ExitCode = true, -1
	case errors.As(err, &exitErr):
		out.ExitCode = exitErr.ExitCode()
		if out.ExitCode < 0 {
			out.Output += "\n" + exitErr.String()
		}
	default:
		out.Err = fmt.Errorf("cannot run %s: %w", c.Path, err)
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	cut  bool
	echo func([]byte)
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.echo != nil {
		t.echo(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return "…" + string(t.buf)
	}
	return string(t.buf)
}
