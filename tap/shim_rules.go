package tap

// TEMPORARY: the shape of package rules' exchange types (RULES-API), until
// package rules lands on main; then this file goes and tap uses rules.*.

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

type Surface string

const (
	SurfaceAuth   Surface = "auth"
	SurfaceA      Surface = "A"
	SurfaceB      Surface = "B"
	SurfaceExport Surface = "export"
)

type Exchange struct {
	Seq               uint64
	Client            string
	Surface           Surface
	Method            string
	Path              string
	Query             url.Values
	RequestHeader     http.Header
	RequestBody       []byte
	RequestTruncated  bool
	Status            int
	ResponseHeader    http.Header
	ResponseBody      []byte
	ResponseTruncated bool
	Start             time.Time
	Duration          time.Duration
	Err               string
	URL               string
}

type Prefixes struct{ Token, A, B, Export string }

func DefaultPrefixes() Prefixes {
	return Prefixes{Token: "/oauth/token", A: "/directory/v1", B: "/api/v1", Export: "/data-export/v1"}
}

func (p Prefixes) Classify(urlPath string) (Surface, string, bool) {
	if urlPath == p.Token {
		return SurfaceAuth, "/oauth/token", true
	}
	for _, c := range []struct {
		s Surface
		p string
	}{{SurfaceA, p.A}, {SurfaceB, p.B}, {SurfaceExport, p.Export}} {
		if c.p != "" && strings.HasPrefix(urlPath, c.p) && (len(urlPath) == len(c.p) || urlPath[len(c.p)] == '/') {
			return c.s, urlPath[len(c.p):], true
		}
	}
	return "", urlPath, false
}
