// Package route is the mock's one router: a tree of path segments. A
// template's {name} segment matches one segment of one or more characters
// of the escaped path, and sets the path value name (Request.PathValue,
// escaped as the client sent it); a literal segment is preferred to a
// variable at the same place. Paths are neither cleaned nor redirected: "//"
// or "/../" is routed as it is and found nowhere, so that a client that
// would follow a redirect never turns a POST into a GET.
//
// A route costs a map lookup per segment, whatever the number of routes; a
// router that tries its routes one after another, as gorilla/mux does,
// pays for every route ahead of the one taken, and mux escapes the path for
// each (docs/decisions.md#interface-b-response-cache). The mock's routes
// test holds the router to what mux's templates would choose.
package route

import (
	"fmt"
	"net/http"
	"strings"
)

// Router routes requests by path. Build it with New, add its routes with
// Handle, then serve.
type Router struct {
	root     node
	notFound http.Handler
}

// node is a segment of the routes' templates.
type node struct {
	literal  map[string]*node
	variable *node  // the {name} child, if any
	name     string // the variable's name (on the variable child)
	template string // the route's template, on the node where one ends
	handler  http.Handler
}

// New returns a router that answers the paths it has no route for with
// notFound.
func New(notFound http.Handler) *Router { return &Router{notFound: notFound} }

// Handle routes the requests whose escaped path fits the template to h.
// It refuses a template added twice, a variable that is not a whole
// segment, and two variables of different names at one place.
func (r *Router) Handle(template string, h http.Handler) error {
	if !strings.HasPrefix(template, "/") {
		return fmt.Errorf("route: template %q does not start with /", template)
	}
	n := &r.root
	for _, part := range strings.Split(template[1:], "/") {
		name, isVar := strings.CutPrefix(part, "{")
		if isVar {
			name, isVar = strings.CutSuffix(name, "}")
		}
		switch {
		case isVar && name != "" && !strings.ContainsAny(name, "{}:/"):
			if n.variable == nil {
				n.variable = &node{name: name}
			} else if n.variable.name != name {
				return fmt.Errorf("route: template %q: {%s} where another route has {%s}", template, name, n.variable.name)
			}
			n = n.variable
		case strings.ContainsAny(part, "{}"):
			return fmt.Errorf("route: template %q: a variable is a whole segment, {name}", template)
		default:
			if n.literal == nil {
				n.literal = map[string]*node{}
			}
			next, ok := n.literal[part]
			if !ok {
				next = &node{}
				n.literal[part] = next
			}
			n = next
		}
	}
	if n.handler != nil {
		return fmt.Errorf("route: template %q is added twice", template)
	}
	n.template, n.handler = template, h
	return nil
}

// ServeHTTP routes the request: to its route, with the path values set, or
// to notFound.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	n, vars := r.match(req.URL.EscapedPath())
	if n == nil {
		r.notFound.ServeHTTP(w, req)
		return
	}
	for i := 0; i+1 < len(vars); i += 2 {
		req.SetPathValue(vars[i], vars[i+1])
	}
	n.handler.ServeHTTP(w, req)
}

// Match returns the template of the route a request takes and its path
// values; ok is false when no route takes it.
func (r *Router) Match(req *http.Request) (template string, vars map[string]string, ok bool) {
	n, pairs := r.match(req.URL.EscapedPath())
	if n == nil {
		return "", nil, false
	}
	if len(pairs) > 0 {
		vars = map[string]string{}
		for i := 0; i+1 < len(pairs); i += 2 {
			vars[pairs[i]] = pairs[i+1]
		}
	}
	return n.template, vars, true
}

// match finds the route of an escaped path, and its variables as name,
// value pairs.
func (r *Router) match(path string) (*node, []string) {
	if !strings.HasPrefix(path, "/") {
		return nil, nil
	}
	return r.root.match(path[1:], nil)
}

// match matches the rest of a path below n: the literal child of its first
// segment if that leads to a route, else the variable child.
func (n *node) match(rest string, vars []string) (*node, []string) {
	seg, after, more := strings.Cut(rest, "/")
	if next := n.literal[seg]; next != nil {
		if found, v := next.matchNext(after, more, vars); found != nil {
			return found, v
		}
	}
	if n.variable != nil && seg != "" {
		return n.variable.matchNext(after, more, append(vars, n.variable.name, seg))
	}
	return nil, nil
}

// matchNext matches what follows a segment that ended at n.
func (n *node) matchNext(after string, more bool, vars []string) (*node, []string) {
	if !more {
		if n.handler == nil {
			return nil, nil
		}
		return n, vars
	}
	return n.match(after, vars)
}
