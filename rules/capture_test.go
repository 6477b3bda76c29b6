package rules

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sink collects what Capture hands over.
type sink struct {
	mu  sync.Mutex
	got []*Exchange
}

func (s *sink) add(ex *Exchange) { s.mu.Lock(); s.got = append(s.got, ex); s.mu.Unlock() }
func (s *sink) all() []*Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Exchange(nil), s.got...)
}

func TestCaptureDoesNotReadAhead(t *testing.T) {
	// The handler answers after reading only the first bytes of the body:
	// the exchange keeps what was read and says it is short.
	s := &sink{}
	h := Capture(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 5)
		_, _ = io.ReadFull(r.Body, buf)
		w.WriteHeader(http.StatusUnauthorized)
	}), CaptureOptions{Sink: s.add})
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/api/v1/groups/lookup", "application/json", strings.NewReader(`{"ids":["a","b"]}`))
	require.NoError(t, err)
	resp.Body.Close()
	got := s.all()
	require.Len(t, got, 1)
	assert.Equal(t, `{"ids`, string(got[0].RequestBody))
	assert.True(t, got[0].RequestTruncated, "the body was not read to its end")
	assert.Equal(t, http.StatusUnauthorized, got[0].Status)
}

func TestCaptureRecordsNoAnswerAndAbandonedAnswers(t *testing.T) {
	s := &sink{}
	h := Capture(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/down":
			NoAnswer(w, errors.New("dial tcp: connection refused"))
			http.Error(w, "bad gateway", http.StatusBadGateway)
		case "/api/v1/gone":
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, "partial")
			panic(http.ErrAbortHandler)
		}
	}), CaptureOptions{Sink: s.add})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, p := range []string{"/api/v1/down", "/api/v1/gone"} {
		if resp, err := http.Get(srv.URL + p); err == nil {
			resp.Body.Close()
		}
	}
	got := s.all()
	require.Len(t, got, 2)
	byPath := map[string]*Exchange{got[0].Path: got[0], got[1].Path: got[1]}
	down := byPath["/down"]
	assert.Equal(t, 0, down.Status, "the proxy's own 502 is no answer of the server's")
	assert.Equal(t, "dial tcp: connection refused", down.Err)
	assert.Nil(t, down.ResponseBody)
	gone := byPath["/gone"]
	assert.Equal(t, http.StatusOK, gone.Status)
	assert.Equal(t, "partial", string(gone.ResponseBody))
	assert.True(t, gone.ResponseTruncated)
	assert.NotEmpty(t, gone.Err)
}

func TestAJudgeCountsWithinBounds(t *testing.T) {
	j, err := NewJudge(Config{})
	require.NoError(t, err)
	for i := range maxOperationNames + 100 {
		j.Observe(&Exchange{Surface: SurfaceB, Method: http.MethodGet, Path: "/no-such-resource/" + strconv.Itoa(i), Status: http.StatusNotFound})
	}
	cov := j.Coverage()
	assert.Equal(t, maxOperationNames+100, cov.Exchanges)
	assert.LessOrEqual(t, len(cov.Unjudged), maxOperationNames+1)
	for _, rc := range cov.Rules {
		assert.LessOrEqual(t, len(rc.Operations), maxOperationNames+1, rc.Rule.ID)
		assert.LessOrEqual(t, len(rc.Undecided), maxUndecidedReasons+1, rc.Rule.ID)
	}
}
