package surface

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"time"
)

// What the root's authentication learns about a request, for the surfaces.

// Grant is what an access token (or interface A's client headers) stands
// for: the client and its scopes.
type Grant struct {
	ClientID string
	Scopes   []string
	Expires  time.Time
}

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxGrant
)

// WithRequestID returns ctx carrying interface A's request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxRequestID, id)
}

// RequestIDOf is the request id interface A's gate gave the request ("" when
// none).
func RequestIDOf(r *http.Request) string {
	id, _ := r.Context().Value(ctxRequestID).(string)
	return id
}

// WithGrant returns ctx carrying the request's grant.
func WithGrant(ctx context.Context, g Grant) context.Context {
	return context.WithValue(ctx, ctxGrant, g)
}

// GrantOf is the grant interface A's gate found for the request.
func GrantOf(r *http.Request) (Grant, bool) {
	g, ok := r.Context().Value(ctxGrant).(Grant)
	return g, ok
}

// SecretsEqual compares in constant time, whatever the lengths.
func SecretsEqual(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}
