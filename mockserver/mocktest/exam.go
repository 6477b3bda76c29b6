package mocktest

import (
	"context"
	"strings"
	"testing"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/report"
)

// Exam runs the client exam in process: the mock plays every scene of
// cfg (all when cfg.Scenes is nil) and the client, a Go function, runs
// once per round, as `skolkit exam` runs a command. The round tells the
// client the URLs and credentials (r.Env) and its working directory
// (r.Dir, kept between a scene's rounds). Exam fails the test when the
// exam could not judge the client (it never authenticated, a scene could
// not be played) and returns the result to assert on:
//
//	res := mocktest.Exam(t, exam.Config{Task: exam.TaskIncrementalSync}, mySync)
//	mocktest.RequireNoFaults(t, res)
//	// or: assert on res.Findings(): ID, Scene, Round, Message, Exchange
func Exam(t testing.TB, cfg exam.Config, client exam.Func) *exam.Result {
	t.Helper()
	ctx := context.Background()
	if d, ok := t.(interface{ Context() context.Context }); ok {
		ctx = d.Context()
	}
	res, err := exam.Run(ctx, cfg, client)
	if err != nil {
		t.Fatalf("mocktest.Exam: %v", err)
	}
	if len(res.Incomplete) > 0 {
		t.Fatalf("mocktest.Exam: the exam could not judge the client:\n  %s", strings.Join(res.Incomplete, "\n  "))
	}
	return res
}

// RequireNoFaults fails the test unless the exam found no client fault,
// with every fault, the sentence it rests on, and the exchange (request,
// answer excerpt, curl line) that shows it. Notes do not fail it.
func RequireNoFaults(t testing.TB, res *exam.Result) {
	t.Helper()
	if res.Faults() == 0 {
		return
	}
	var b strings.Builder
	report.WriteConsole(&b, res.Report())
	t.Fatalf("the client exam found %d fault(s):\n%s", res.Faults(), b.String())
}
