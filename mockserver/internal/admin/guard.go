package admin

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/skolkit/skolkit/mockserver/internal/route"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
)

// PrefixAdmin is the path prefix of the control plane (openapi/admin.yaml).
const PrefixAdmin = "/__admin"

// MaxAdminBodyBytes is the largest scenario or rule set the control plane
// accepts (a state document may be up to MaxStateBytes).
const MaxAdminBodyBytes = 8 << 20

// IsPath reports whether a path belongs to the control plane.
func IsPath(p string) bool {
	return p == PrefixAdmin || strings.HasPrefix(p, PrefixAdmin+"/")
}

// ServeHTTP serves a control-plane request: not journalled, no faults.
func (s *Plane) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving admin request", "method", r.Method, "path", r.URL.Path, "panic", v)
			surface.WriteAdminError(w, http.StatusInternalServerError, surface.AdminInternal, "unexpected server error")
		}
	}()
	s.router.ServeHTTP(w, r)
}

// route builds the control plane's router: one route per path, so
// that a wrong method is answered 405 with Allow, and every route behind the
// access check.
func (s *Plane) route(ops []surface.AdminEndpoint) error {
	r := route.New(s.guard(false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		surface.WriteAdminError(w, http.StatusNotFound, surface.AdminNotFound, fmt.Sprintf("no control-plane operation at %s; see %s/openapi.json", r.URL.Path, PrefixAdmin))
	})))
	byPath := map[string][]surface.AdminEndpoint{}
	var order []string
	for _, e := range ops {
		if _, ok := byPath[e.Path]; !ok {
			order = append(order, e.Path)
		}
		byPath[e.Path] = append(byPath[e.Path], e)
	}
	for _, path := range order {
		eps := byPath[path]
		handlers := map[string]http.Handler{}
		var allow []string
		for _, e := range eps {
			handlers[e.Method] = s.guard(e.Open, checkQuery(e.Query, e.Handle))
			allow = append(allow, e.Method)
		}
		allowHeader := strings.Join(allow, ", ")
		notAllowed := s.guard(false, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set(surface.HeaderAllow, allowHeader)
			surface.WriteAdminError(w, http.StatusMethodNotAllowed, surface.AdminMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s%s; allowed: %s", req.Method, PrefixAdmin, path, allowHeader))
		}))
		err := r.Handle(PrefixAdmin+path, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if h, ok := handlers[req.Method]; ok {
				h.ServeHTTP(w, req)
				return
			}
			notAllowed.ServeHTTP(w, req)
		}))
		if err != nil {
			return err
		}
	}
	s.router = r
	return nil
}

// checkQuery answers 400 to a request with a query parameter the operation
// does not take, or takes once and gets more often.
func checkQuery(known []string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range r.URL.Query() {
			if !slices.Contains(known, k) {
				takes := "none"
				if len(known) > 0 {
					takes = strings.Join(known, ", ")
				}
				surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("unknown query parameter %q; this operation takes %s", k, takes))
				return
			}
			if len(v) > 1 {
				surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, fmt.Sprintf("query parameter %q may be given once only", k))
				return
			}
		}
		next(w, r)
	}
}

// guard lets a request through to the control plane or answers it:
//
//   - with an admin token configured, every operation but the open ones
//     needs "Authorization: Bearer <token>" (401 otherwise);
//   - without one, only requests that arrive on a loopback address, name a
//     loopback host (no DNS rebinding) and do not come from a web page of
//     another origin (no cross-site request forgery) get through (403).
func (s *Plane) guard(open bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.token != "" {
			if !open && !s.tokenOK(r) {
				w.Header().Set(surface.HeaderWWWAuth, `Bearer realm="skolkit-admin"`)
				surface.WriteAdminError(w, http.StatusUnauthorized, surface.AdminUnauthorized, "the control plane needs the admin token: send Authorization: Bearer <admin token> (the one given to --admin-token)")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if msg := localOnly(r); msg != "" {
			surface.WriteAdminError(w, http.StatusForbidden, surface.AdminForbidden, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Plane) tokenOK(r *http.Request) bool {
	scheme, tok, found := strings.Cut(r.Header.Get("Authorization"), " ")
	return found && strings.EqualFold(scheme, "Bearer") && surface.SecretsEqual(strings.TrimSpace(tok), s.token)
}

// localOnly returns why a request may not use a control plane that has no
// admin token, or "".
func localOnly(r *http.Request) string {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !isLoopbackAddr(addr) {
		return "the control plane has no admin token, so it answers only requests to a loopback address; start the server with --admin-token to use it from elsewhere"
	}
	if host := requestHost(r.Host); host != "" && !isLoopbackHost(host) {
		return fmt.Sprintf("the control plane has no admin token, so it answers only requests that name a loopback host (localhost, 127.0.0.1, [::1]), not %q", host)
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return "the control plane does not answer requests from web pages of other sites"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return fmt.Sprintf("the control plane does not answer requests from web pages of other origins (Origin %s)", origin)
		}
	}
	return ""
}

// isLoopbackAddr reports whether a listener's address is a loopback
// address (or a Unix socket, which is local by nature).
func isLoopbackAddr(a net.Addr) bool {
	if a == nil {
		return false
	}
	if a.Network() == "unix" || a.Network() == "unixpacket" {
		return true
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		host = a.String()
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// IsLoopbackListenAddr reports whether a listener bound to addr (as
// net.Listener.Addr().String() gives it) is reachable only from this
// machine. An unspecified address (0.0.0.0, [::]) is not.
func IsLoopbackListenAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func requestHost(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopbackHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Unmap().IsLoopback()
}

// YAMLOrJSON are the media types a scenario or rule set may be sent as.
var YAMLOrJSON = []string{surface.ContentTypeJSON, "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}

// ReadBody reads a body of one of the media types, at most limit bytes.
// It answers the request itself and returns false when it cannot.
func ReadBody(w http.ResponseWriter, r *http.Request, types []string, limit int64) ([]byte, string, bool) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(types, mt) {
		surface.WriteAdminError(w, http.StatusUnsupportedMediaType, surface.AdminUnsupportedMediaType, fmt.Sprintf("send the body as %s", strings.Join(types, " or ")))
		return nil, "", false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if surface.IsTooLarge(err) {
			surface.WriteAdminError(w, http.StatusRequestEntityTooLarge, surface.AdminPayloadTooLarge, fmt.Sprintf("the body is larger than %d bytes", limit))
			return nil, "", false
		}
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, "the request body could not be read")
		return nil, "", false
	}
	return body, mt, true
}

// DecodeJSON decodes a small JSON body strictly into v.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, _, ok := ReadBody(w, r, []string{surface.ContentTypeJSON}, MaxAdminBodyBytes)
	if !ok {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, "the body is not the JSON object this operation takes: "+strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	if dec.More() {
		surface.WriteAdminError(w, http.StatusBadRequest, surface.AdminBadRequest, "unexpected data after the JSON object")
		return false
	}
	return true
}
