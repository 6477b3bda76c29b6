package exam_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
)

func TestMain(m *testing.M) {
	if os.Getenv(refclient.EnvInterface) != "" {
		os.Exit(refclient.Main(os.Stderr))
	}
	os.Exit(m.Run())
}

// syncClient is a reference client as a Go function.
func syncClient(iface string, d refclient.Defect) exam.Func {
	return func(ctx context.Context, r exam.Round) error {
		cfg := refclient.Config{TokenURL: r.Env.TokenURL, RegisterURL: r.Env.RegisterURL, BaseURL: r.Env.BaseURL,
			ClientID: r.Env.ClientID, ClientSecret: r.Env.ClientSecret, Dir: r.Dir, Defect: d}
		if iface == "A" {
			return refclient.SyncA(ctx, cfg)
		}
		return refclient.SyncB(ctx, cfg)
	}
}

func TestScratch(t *testing.T) {
	for _, task := range []exam.Task{exam.TaskFullSync, exam.TaskIncrementalSync} {
		for _, iface := range []string{"B", "A"} {
			start := time.Now()
			res, err := exam.Run(context.Background(), exam.Config{Task: task, Progress: func(r exam.RoundResult) {
				fmt.Printf("  %s round %d: exit %d, %d requests (%d authenticated), %d findings, %s\n", r.Scene, r.Number, r.Outcome.ExitCode, r.Requests, r.Authenticated, r.Findings, r.Outcome.Duration)
			}}, syncClient(iface, ""))
			require.NoError(t, err)
			fmt.Println(task, iface, time.Since(start), "exam time", res.ExamTime, "incomplete", res.Incomplete)
			for _, f := range res.Findings() {
				fmt.Printf("%s %s r%d: %s\n", f.Scene, f.ID, f.Round, f.Message)
			}
		}
	}
}

func TestScratchVariants(t *testing.T) {
	scenes, _ := exam.SelectScenes([]string{os.Getenv("SCENES_A"), os.Getenv("SCENES_B")})
	res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes}, exam.Func(func(ctx context.Context, r exam.Round) error {
		err := syncClient("B", "")(ctx, r)
		return err
	}))
	require.NoError(t, err)
	for _, f := range res.Findings() {
		fmt.Printf("%s %s r%d: %s\n", f.Scene, f.ID, f.Round, f.Message)
		if f.Exchange != nil {
			fmt.Println(f.Exchange.URL, f.Exchange.Status, string(f.Exchange.ResponseBody[:200]))
		}
	}
}

func TestScratchDefects(t *testing.T) {
	for _, d := range refclient.Defects {
		for _, iface := range []string{"B", "A"} {
			task := exam.Task(os.Getenv("TASK"))
			res, err := exam.Run(context.Background(), exam.Config{Task: task}, syncClient(iface, d))
			require.NoError(t, err)
			got := map[string][]string{}
			for _, f := range res.Findings() {
				got[f.ID] = append(got[f.ID], fmt.Sprintf("%s/r%d", f.Scene, f.Round))
			}
			fmt.Println(d, iface, "exit", res.ExitCode(), res.Incomplete)
			for id, where := range got {
				fmt.Println("   ", id, where)
			}
		}
	}
}
