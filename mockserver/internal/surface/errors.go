package surface

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/skolkit/skolkit/scenarios"
)

// Content types and header names used on the wire.
const (
	ContentTypeJSON = "application/json"
	ContentTypeForm = "application/x-www-form-urlencoded"
	HeaderAllow     = "Allow"
	HeaderWWWAuth   = "WWW-Authenticate"
)

// Error codes of the interface-B error body (SS 12000 Error.code). SS 12000
// leaves the code free; we use the same words as interface A.
const (
	CodeBadRequest       = "BadRequest"
	CodeUnauthorized     = "Unauthorized"
	CodeForbidden        = "Forbidden"
	CodeNotFound         = "NotFound"
	CodeMethodNotAllowed = "MethodNotAllowed"
	CodePayloadTooLarge  = "PayloadTooLarge"
	CodeInternal         = "Internal"
)

// OAuth 2.0 error codes (RFC 6749 §5.2).
const (
	OAuthInvalidRequest       = "invalid_request"
	OAuthInvalidClient        = "invalid_client"
	OAuthUnsupportedGrantType = "unsupported_grant_type"
	OAuthInvalidScope         = "invalid_scope"
)

// RegisterError is the interface-B error body: SS 12000 Error.
type RegisterError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// OAuthError is the token endpoint's error body (RFC 6749 §5.2).
type OAuthError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// DecodeWhole decodes one JSON value from r into v and fails when anything
// but white space follows it.
func DecodeWhole(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// WriteJSON writes v as the JSON body with the status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", ContentTypeJSON)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// WriteRegisterError writes the interface-B error body.
func WriteRegisterError(w http.ResponseWriter, status int, code, message string) {
	WriteJSON(w, status, RegisterError{Code: code, Message: message})
}

// WriteOAuthError writes the token endpoint's error body. A 401 carries the
// WWW-Authenticate challenge of HTTP Basic client authentication.
func WriteOAuthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if status == http.StatusUnauthorized {
		w.Header().Set(HeaderWWWAuth, `Basic realm="skolkit", charset="UTF-8"`)
	}
	WriteJSON(w, status, OAuthError{Error: code, ErrorDescription: description})
}

// Error codes of the control plane's error body.
const (
	AdminBadRequest           = "BadRequest"
	AdminUnauthorized         = "Unauthorized"
	AdminForbidden            = "Forbidden"
	AdminNotFound             = "NotFound"
	AdminMethodNotAllowed     = "MethodNotAllowed"
	AdminConflict             = "Conflict"
	AdminPayloadTooLarge      = "PayloadTooLarge"
	AdminUnsupportedMediaType = "UnsupportedMediaType"
	AdminInternal             = "Internal"
)

// AdminError is the error body of the control plane:
// {"error": {"code": "...", "message": "...", "problems": [...]}}.
type AdminError struct {
	Error AdminErrorBody `json:"error"`
}

// AdminErrorBody is the inside of AdminError. Problems lists, with their
// positions in the request body, every problem of a scenario or rule set
// that does not load.
type AdminErrorBody struct {
	Code     string              `json:"code"`
	Message  string              `json:"message"`
	Problems []scenarios.Problem `json:"problems,omitempty"`
}

// WriteAdminError writes the control plane's error body.
func WriteAdminError(w http.ResponseWriter, status int, code, message string, problems ...scenarios.Problem) {
	WriteJSON(w, status, AdminError{Error: AdminErrorBody{Code: code, Message: message, Problems: problems}})
}

// Cleared answers the operations that clear something.
type Cleared struct {
	Cleared int `json:"cleared"`
}

// Error codes of interface A that interface B does not use.
const (
	CodeConflict      = "Conflict"
	CodeUnprocessable = "UnprocessableEntity"
	CodeRateLimited   = "RateLimited"
)

// Headers of the older authentication method of interface A.
const (
	HeaderClientID     = "Client-ID"
	HeaderClientSecret = "Client-Secret"
	HeaderRequestID    = "X-Request-ID"
)

// FieldProblem is one violation inside a request body.
type FieldProblem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// DirectoryError is the interface-A error body.
type DirectoryError struct {
	Error DirectoryErrorBody `json:"error"`
}

// DirectoryErrorBody is the inside of DirectoryError. Details lists every
// violation of a request body that failed validation.
type DirectoryErrorBody struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	RequestID string         `json:"requestID"`
	Details   []FieldProblem `json:"details,omitempty"`
}

// WriteDirectoryError writes the interface-A error body.
func WriteDirectoryError(w http.ResponseWriter, r *http.Request, status int, code, message string, details ...FieldProblem) {
	WriteJSON(w, status, DirectoryError{Error: DirectoryErrorBody{Code: code, Message: message, RequestID: RequestIDOf(r), Details: details}})
}

// Rate-limit header names (interface A and the data export).
const (
	HeaderRateLimit     = "RateLimit-Limit"
	HeaderRateRemaining = "RateLimit-Remaining"
	HeaderRateReset     = "RateLimit-Reset"
	HeaderRetryAfter    = "Retry-After"
)

// IsTooLarge reports whether reading a body failed because it passed the
// http.MaxBytesReader limit.
func IsTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}
