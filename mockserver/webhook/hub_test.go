package webhook

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/model"
)

func TestCheckTarget(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   error
	}{
		{"http://127.0.0.1:8080/hook", nil},
		{"http://127.1.2.3/hook", nil},
		{"https://[::1]/hook", nil},
		{"http://LOCALHOST/hook", nil},
		{"https://hooks.example.test/x", nil},
		{"https://evil.example/x", ErrTargetNotAllowed},
		{"http://localhost.evil.example/x", ErrTargetNotAllowed},
		{"http://169.254.169.254/latest", ErrTargetNotAllowed},
		{"file:///etc/passwd", ErrInvalid},
		{"http:///nohost", ErrInvalid},
		{"mailto:x@y", ErrInvalid},
		{"", ErrInvalid},
	} {
		err := checkTarget(tc.target, []string{"hooks.example.test"})
		if tc.want == nil {
			assert.NoError(t, err, tc.target)
		} else {
			assert.ErrorIs(t, err, tc.want, tc.target)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"http://a/*", "http://a/x/y", true},
		{"http://a/*", "http://b/x", false},
		{"*hook", "http://a/hook", true},
		{"http://*/hook", "http://a/b/hook", true},
		{"exact", "exact", true},
		{"exact", "exactly", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxcyyb", false},
	} {
		assert.Equal(t, tc.want, glob(tc.pattern, tc.s), "%s ~ %s", tc.pattern, tc.s)
	}
}

func TestCreateValidates(t *testing.T) {
	h := New(Options{})
	defer h.Close()
	for _, c := range []CreateSubscription{
		{Name: "", Target: "http://127.0.0.1/", ResourceTypes: []ResourceTypeRef{{Resource: "Person"}}},
		{Name: "n", Target: "http://127.0.0.1/"},
		{Name: "n", Target: "http://127.0.0.1/", ResourceTypes: []ResourceTypeRef{{Resource: "Persons"}}},
	} {
		_, err := h.Create(c)
		assert.ErrorIs(t, err, ErrInvalid, "%+v", c)
	}
	assert.Empty(t, h.List())
}

// TestCloseCancelsRetries: a hub closed while a delivery waits to retry
// returns at once and records nothing more.
func TestCloseCancelsRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	h := New(Options{Retry: []time.Duration{time.Hour}, Coalesce: -1})
	_, err := h.Create(CreateSubscription{Name: "n", Target: srv.URL, ResourceTypes: []ResourceTypeRef{{Resource: model.ResourcePerson}}})
	require.NoError(t, err)
	h.Changed([]ResourceType{model.ResourcePerson}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	require.EqualValues(t, 1, calls.Load())
	done := make(chan struct{})
	go func() { h.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not cancel the retry wait")
	}
	h.Changed([]ResourceType{model.ResourcePerson}, nil) // after Close: ignored
	assert.EqualValues(t, 1, calls.Load())
}

func TestUnsubscribedTypesAreNotReported(t *testing.T) {
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	defer srv.Close()
	h := New(Options{Coalesce: -1})
	defer h.Close()
	_, err := h.Create(CreateSubscription{Name: "n", Target: srv.URL, ResourceTypes: []ResourceTypeRef{{Resource: model.ResourceGroup}}})
	require.NoError(t, err)
	h.Changed([]ResourceType{model.ResourcePerson}, []ResourceType{model.ResourceAttendance})
	assert.True(t, h.Idle(), "nothing pending for a change of other types")
	assert.Zero(t, got.Load())
	assert.True(t, errors.Is(h.Delete("00000000-0000-4000-8000-000000000000"), ErrNotFound))
}
