package mockserver

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// Content types and header names used on the wire.
const (
	contentTypeJSON = "application/json"
	contentTypeForm = "application/x-www-form-urlencoded"
	headerAllow     = "Allow"
	headerWWWAuth   = "WWW-Authenticate"
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
	oauthInvalidRequest       = "invalid_request"
	oauthInvalidClient        = "invalid_client"
	oauthUnsupportedGrantType = "unsupported_grant_type"
	oauthInvalidScope         = "invalid_scope"
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

// decodeWhole decodes one JSON value from r into v and fails when anything
// but white space follows it.
func decodeWhole(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// writeJSON writes v as the JSON body with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// registerError writes the interface-B error body.
func registerError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, RegisterError{Code: code, Message: message})
}

// oauthError writes the token endpoint's error body. A 401 carries the
// WWW-Authenticate challenge of HTTP Basic client authentication.
func oauthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if status == http.StatusUnauthorized {
		w.Header().Set(headerWWWAuth, `Basic realm="skolkit", charset="UTF-8"`)
	}
	writeJSON(w, status, OAuthError{Error: code, ErrorDescription: description})
}
