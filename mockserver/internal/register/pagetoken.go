package register

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// PageState is what a pageToken carries: the list (resource) and query of
// the walk, the cursor after the last record served, the walk's snapshot id
// and the presentation options of the first request.
type PageState struct {
	Version int      `json:"v"`
	R       string   `json:"res"`
	P       params   `json:"p,omitempty"`
	Cursor  []byte   `json:"c"`
	Walk    string   `json:"w"`
	Limit   int      `json:"l,omitempty"`
	Expand  []string `json:"e,omitempty"`
	Names   bool     `json:"n,omitempty"`
	// Repeat is the placement the next page repeats (deviation
	// pagetoken-repeats-last).
	Repeat string `json:"r,omitempty"`
	// Gen is the generation of a lazy walk (Walk empty): the walk reads the
	// state of that generation (views.go).
	Gen uint64 `json:"g,omitempty"`
}

const pageStateVersion = 2

var errBadPageToken = errors.New("pageToken is not valid: it was altered, forged, truncated or issued by another server instance")

// encodePageToken signs the state with the server's key: payload "." mac, both
// base64url. The token is opaque to clients and any change to it is detected.
func (s *API) encodePageToken(st PageState) string {
	st.Version = pageStateVersion
	payload, _ := json.Marshal(st)
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.pageMAC(p))
}

// DecodePageToken checks a pageToken's signature and returns its state.
func (s *API) DecodePageToken(tok string) (PageState, error) {
	var st PageState
	p, m, ok := strings.Cut(tok, ".")
	if !ok {
		return st, errBadPageToken
	}
	mac, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil || !hmac.Equal(mac, s.pageMAC(p)) {
		return st, errBadPageToken
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil || json.Unmarshal(payload, &st) != nil || st.Version != pageStateVersion || len(st.Cursor) == 0 {
		return st, errBadPageToken
	}
	return st, nil
}

func (s *API) pageMAC(payload string) []byte {
	h := hmac.New(sha256.New, s.pageKey)
	h.Write([]byte(payload))
	return h.Sum(nil)[:16]
}
