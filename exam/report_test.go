package exam_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/exam"
	"github.com/skolkit/skolkit/exam/refclient"
	"github.com/skolkit/skolkit/report"
)

func TestTheReportHasAResultPerSceneAndKind(t *testing.T) {
	var secret string
	client := exam.Func(func(ctx context.Context, r exam.Round) error {
		secret = r.Env.ClientSecret
		return syncClient("B", refclient.FirstPageOnly)(ctx, r)
	})
	res, err := exam.Run(context.Background(), exam.Config{Scenes: scenes(t, exam.ScenePlain, exam.SceneSparse)}, client)
	require.NoError(t, err)
	rep := res.Report()
	assert.Equal(t, exam.ToolName, rep.ToolName())
	assert.Equal(t, 1, rep.ExitCode())
	kinds := len(exam.FindingKinds())
	require.Len(t, rep.Results, 2*kinds, "one result per scene and kind of finding")
	assert.Equal(t, report.StatusFail, rep.Results[0].Status, "failures first")
	byID := map[string]report.Result{}
	for _, r := range rep.Results {
		byID[r.ID] = r
	}
	walk := byID["sparse/client.walk-abandoned"]
	require.Equal(t, report.StatusFail, walk.Status)
	require.NotEmpty(t, walk.Failures)
	assert.NotEmpty(t, walk.Spec.Quote)
	require.NotNil(t, walk.Failures[0].Exchange)
	assert.Contains(t, walk.Failures[0].Exchange.Curl, "$TOKEN", "the curl line names the token, never shows it")
	assert.Equal(t, report.StatusSkip, byID["plain/client.ratelimit-before-reset"].Status, "no 429 in plain: nothing to look at")
	assert.Contains(t, byID["plain/client.ratelimit-before-reset"].Reason, "nothing to look at")
	assert.Equal(t, report.StatusSkip, byID["plain/exam.incremental.change-missed"].Status)
	assert.Equal(t, report.StatusPass, byID["plain/exam.client.exit-status"].Status)

	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, rep))
	assert.NotContains(t, buf.String(), secret, "the client secret is hidden")
	var decoded map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &decoded))
	buf.Reset()
	require.NoError(t, report.WriteJUnit(&buf, rep))
	assert.Equal(t, 2*kinds, strings.Count(buf.String(), "<testcase "))
	assert.Contains(t, buf.String(), `name="plain/exam.completeness.missing"`)
	buf.Reset()
	require.NoError(t, report.WriteHTML(&buf, rep))
	assert.Contains(t, buf.String(), "skolkit exam report")
}
