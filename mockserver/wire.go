package mockserver

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/register"
)

// The deviations that change a request or an answer around the handlers
// (the "on the wire" group of deviations.go), kept here so that the
// handlers stay free of them.

// deviateRequest applies the request-side wire deviations. It reports false
// when it has answered the request itself.
func (s *Server) deviateRequest(w http.ResponseWriter, r *http.Request, devs map[string]bool) bool {
	if len(devs) == 0 {
		return true
	}
	deviates := func(name string) bool { return devs[name] }
	b := strings.HasPrefix(r.URL.Path, PrefixB+"/")
	switch {
	case strings.HasPrefix(r.URL.Path, PrefixA+"/") && deviates(deviation.LegacyAuthRefused):
		r.Header.Del(surface.HeaderClientID)
		r.Header.Del(surface.HeaderClientSecret)
	case r.URL.Path == PathToken && r.Method == http.MethodGet && deviates(deviation.TokenGetAccepted):
		// Serve the GET as the POST of the spec, with the query as the form.
		form := r.URL.Query()
		r.Method = http.MethodPost
		r.Header.Set("Content-Type", surface.ContentTypeForm)
		r.Body = readCloser{strings.NewReader(form.Encode())}
		r.ContentLength = int64(len(form.Encode()))
		r.URL.RawQuery = ""
	case r.URL.Path == PathToken && r.Method == http.MethodPost && deviates(deviation.FormCharsetRefused):
		if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && len(params) > 0 {
			surface.WriteOAuthError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be exactly application/x-www-form-urlencoded")
			return false
		}
	case b && r.Method == http.MethodPost && deviates(deviation.JSONCharsetRefused):
		if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && len(params) > 0 {
			surface.WriteRegisterError(w, http.StatusUnsupportedMediaType, CodeBadRequest, "Content-Type must be exactly application/json")
			return false
		}
	case b && deviates(deviation.AcceptParamsRefused) && strings.ContainsAny(r.Header.Get("Accept"), ";,"):
		surface.WriteRegisterError(w, http.StatusNotAcceptable, CodeBadRequest, "Accept must be exactly application/json")
		return false
	case b && r.Method == http.MethodGet && deviates(deviation.MultiValueFirstOnly) && strings.Contains(r.URL.RawQuery, "&"):
		q := r.URL.Query()
		for k, vs := range q {
			q[k] = vs[:1]
		}
		r.URL.RawQuery = q.Encode()
	case isPersonPath(r.URL.Path) && r.Method == http.MethodPatch && deviates(deviation.PatchDropsOmitted):
		// Clear the contact members the PATCH does not send.
		var body map[string]json.RawMessage
		if raw, err := io.ReadAll(r.Body); err == nil && json.Unmarshal(raw, &body) == nil && body != nil {
			for _, k := range []string{"emailAddress1", "phoneNumber1"} {
				if _, ok := body[k]; !ok {
					body[k] = json.RawMessage("null")
				}
			}
			raw, _ = json.Marshal(body)
			r.Body = readCloser{strings.NewReader(string(raw))}
			r.ContentLength = int64(len(raw))
		}
	case strings.HasPrefix(r.URL.Path, PrefixA+"/") && (r.Method == http.MethodPost || r.Method == http.MethodPatch) && deviates(deviation.RareEnumRefused):
		// Refuse the value "Other" (Gender, GroupCategory) and the role
		// CareTeam; pass the rest on unchanged.
		raw, err := io.ReadAll(r.Body)
		if err == nil && (strings.Contains(string(raw), `"Other"`) || strings.Contains(string(raw), `"CareTeam"`)) {
			surface.WriteDirectoryError(w, r, http.StatusUnprocessableEntity, CodeUnprocessable, "unknown enum value")
			return false
		}
		r.Body = readCloser{strings.NewReader(string(raw))}
	case b && r.Method == http.MethodGet && r.URL.Path == PrefixB+"/placements":
		q := r.URL.Query()
		changed := false
		if deviates(deviation.LimitAboveMaxRefused) {
			if n, err := strconv.Atoi(q.Get(register.ParamLimit)); err == nil && n > MaxPageSize {
				surface.WriteRegisterError(w, http.StatusBadRequest, CodeBadRequest, "limit: at most 1000")
				return false
			}
		}
		if deviates(deviation.CombinedFiltersDropDate) && (q.Has("organisation") || q.Has("group") || q.Has("child") || q.Has("owner")) {
			for _, k := range []string{"startDate.onOrBefore", "startDate.onOrAfter", "endDate.onOrBefore", "endDate.onOrAfter"} {
				changed = changed || q.Has(k)
				q.Del(k)
			}
		}
		if deviates(deviation.LaterPageDropsExpand) && q.Has(register.ParamPageToken) {
			changed = changed || q.Has(register.ParamExpand) || q.Has(register.ParamRefNames)
			q.Del(register.ParamExpand)
			q.Del(register.ParamRefNames)
		}
		if changed {
			r.URL.RawQuery = q.Encode()
		}
	}
	return true
}

// isPersonPath reports whether path is a Student, Employee or Guardian of
// interface A by id.
func isPersonPath(path string) bool {
	for _, kind := range []string{"/student/", "/employee/", "/guardian/"} {
		if rest, ok := strings.CutPrefix(path, PrefixA+kind); ok && rest != "" && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// flipMarking is deviation.ReferenceMarkingDiffers: another allowed value than the
// person's own.
func flipMarking(v any) any {
	if v == "Ingen" {
		return "Sekretessmarkering"
	}
	return "Ingen"
}
