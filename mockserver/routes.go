package mockserver

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// pathRoutes routes interface B's requests without mux's regular
// expressions, which cost a busy read more than the rest of its routing: a
// path is looked up among B's literal paths, then among its templates of the
// form "<prefix>/{name}" by the part before its last "/". It chooses the
// route and the path variables that mux chooses (TestPathRoutesChooseWhat
// MuxChooses): mux matches the escaped path (UseEncodedPath), tries literal
// paths first (routes sorts them first), and a "{name}" matches one or more
// characters other than "/". When B has a template of another form, the
// table turns itself off and mux routes everything.
type pathRoutes struct {
	literal   map[string]http.Handler
	templates map[string]pathTemplate // by the prefix up to and including the last "/"
	off       bool
}

type pathTemplate struct {
	name     string
	template string
	h        http.Handler
}

// add notes the handler of a path of the router; paths outside interface B
// are left to mux.
func (t *pathRoutes) add(path string, h http.Handler) {
	if !strings.HasPrefix(path, PrefixB+"/") {
		return
	}
	i := strings.LastIndexByte(path, '/')
	prefix, last := path[:i+1], path[i+1:]
	switch {
	case !strings.Contains(path, "{"):
		if t.literal == nil {
			t.literal = map[string]http.Handler{}
		}
		t.literal[path] = h
	case strings.Count(path, "{") == 1 && strings.HasPrefix(last, "{") && strings.HasSuffix(last, "}") && !strings.ContainsAny(last, ":/") && len(last) > 2:
		if t.templates == nil {
			t.templates = map[string]pathTemplate{}
		}
		t.templates[prefix] = pathTemplate{name: last[1 : len(last)-1], template: path, h: h}
	default:
		t.off = true
	}
}

// match returns the route of a request, if the table has it.
func (t *pathRoutes) match(r *http.Request) (h http.Handler, template string, vars map[string]string, ok bool) {
	if t.off || !strings.HasPrefix(r.URL.Path, PrefixB+"/") {
		return nil, "", nil, false
	}
	p := r.URL.EscapedPath()
	if h, ok := t.literal[p]; ok {
		return h, p, nil, true
	}
	i := strings.LastIndexByte(p, '/')
	if i < 0 || i == len(p)-1 {
		return nil, "", nil, false
	}
	pt, ok := t.templates[p[:i+1]]
	if !ok {
		return nil, "", nil, false
	}
	return pt.h, pt.template, map[string]string{pt.name: p[i+1:]}, true
}

// serve serves a request the table routes, as mux would, and reports whether
// it did.
func (t *pathRoutes) serve(w http.ResponseWriter, r *http.Request) bool {
	h, _, vars, ok := t.match(r)
	if !ok {
		return false
	}
	if vars == nil {
		vars = map[string]string{}
	}
	h.ServeHTTP(w, mux.SetURLVars(r, vars))
	return true
}
