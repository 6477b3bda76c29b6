package mocktest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
	"github.com/skolkit/skolkit/mockserver/mocktest"
)

// mySync stands for the client under test: here skolkit's reference SS
// 12000 sync client, given one defect or none.
func mySync(d refclient.Defect) exam.Func {
	return func(ctx context.Context, r exam.Round) error {
		return refclient.SyncB(ctx, refclient.Config{TokenURL: r.Env.TokenURL, RegisterURL: r.Env.RegisterURL,
			ClientID: r.Env.ClientID, ClientSecret: r.Env.ClientSecret, Dir: r.Dir, Defect: d})
	}
}

func TestExamPassesACorrectClient(t *testing.T) {
	scenes, err := exam.SelectScenes([]string{exam.ScenePlain, exam.ScenePaging})
	if err != nil {
		t.Fatal(err)
	}
	res := mocktest.Exam(t, exam.Config{Task: exam.TaskIncrementalSync, Rounds: 2, Scenes: scenes}, mySync(refclient.Correct))
	mocktest.RequireNoFaults(t, res)
	assert.Empty(t, res.Findings())
}

func TestExamFindsWhatABrokenClientDoes(t *testing.T) {
	scenes, err := exam.SelectScenes([]string{exam.ScenePlain, exam.SceneTokenExpiry})
	if err != nil {
		t.Fatal(err)
	}
	res := mocktest.Exam(t, exam.Config{Scenes: scenes}, mySync(refclient.NeverRenewsToken))
	var ids []string
	for _, f := range res.Findings() {
		assert.Equal(t, exam.SceneTokenExpiry, f.Scene, "plain is clean: the defect shows when tokens expire")
		ids = append(ids, f.ID)
	}
	assert.Contains(t, ids, "client.token-after-refusal")
	assert.Equal(t, 1, res.ExitCode())
}
