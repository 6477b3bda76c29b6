package conformance

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatchID(t *testing.T) {
	for _, tc := range []struct {
		pattern, id string
		want        bool
	}{
		{"B.placements.*", "B.placements.filter.group", true},
		{"B.placements.*", "B.placementsX", false},
		{"B.placements", "B.placements.walk", true},
		{"B.placements", "B.placements", true},
		{"B.place", "B.placements.walk", false},
		{"contract.*", "contract.A.response", true},
		{"A.*.search.total", "A.group.search.total", true},
		{"auth.?.no-token", "auth.B.no-token", true},
	} {
		assert.Equal(t, tc.want, matchID(tc.pattern, tc.id), "%s ~ %s", tc.pattern, tc.id)
	}
	assert.Error(t, ValidatePattern("B.[x"))
	assert.Error(t, ValidatePattern(""))
}

func TestCatalogueIsComplete(t *testing.T) {
	for _, c := range Catalogue() {
		assert.Regexp(t, `^(auth|A|B|export|all)\.[A-Za-z0-9.-]+$`, c.ID)
		assert.NotEmpty(t, c.Spec.Quote, c.ID)
		if c.OptIn != "" {
			assert.NotEqual(t, phaseLedger, c.phaseOf(), c.ID)
		}
	}
	assert.Greater(t, len(Catalogue()), 150)
}

func TestGateExplainsEverySkip(t *testing.T) {
	e := &env{cfg: Config{Level: LevelRead}, urls: map[Surface]*url.URL{SurfaceB: {}}}
	write := &Check{ID: "A.group.create", Level: LevelWrite, Needs: []Surface{SurfaceA}}
	assert.Contains(t, e.gate(write), "--level write")
	optIn := &Check{ID: "A.ratelimit.exhaust-429", OptIn: "spends the quota", Needs: []Surface{SurfaceB}}
	assert.Contains(t, e.gate(optIn), "--include A.ratelimit.exhaust-429")
	e.cfg.Include = []string{"A.*"}
	assert.NotEmpty(t, e.gate(optIn), "a glob does not name an opt-in check")
	e.cfg.Include = []string{"A.ratelimit.exhaust-429"}
	assert.Empty(t, e.gate(optIn))
	needsA := &Check{ID: "A.school.list.total", Needs: []Surface{SurfaceA}}
	assert.Contains(t, e.gate(needsA), "--base-url")
}

func TestGuardRefusesToLeakTheSecret(t *testing.T) {
	e := &env{cfg: Config{ClientSecret: "top-secret"}}
	req := &Request{Surface: SurfaceB}
	assert.Error(t, e.guardSecret(req, "http://b/api/v1/placements?x=top-secret", nil, nil))
	assert.Error(t, e.guardSecret(req, "http://b/api/v1/placements", http.Header{"X": {"top-secret"}}, nil))
	assert.Error(t, e.guardSecret(&Request{Surface: SurfaceA}, "http://a/", http.Header{headerClientSecret: {"top-secret"}}, nil), "legacy headers need --legacy-auth")
	e.cfg.LegacyAuth = true
	assert.NoError(t, e.guardSecret(&Request{Surface: SurfaceA}, "http://a/", http.Header{headerClientSecret: {"top-secret"}}, nil))
	assert.NoError(t, e.guardSecret(&Request{Surface: SurfaceAuth}, "http://auth/oauth/token", nil, []byte("client_secret=top-secret")))
}

func TestIdentityNumbersHaveAValidCheckDigit(t *testing.T) {
	for i := 0; i < 50; i++ {
		n := identityNumber()
		require.Regexp(t, identityForm, n, "the vendor's form YYYYMMDD-NNNN")
		n = strings.ReplaceAll(n, "-", "")
		sum := 0
		for j, c := range n[2:] {
			d := int(c-'0') * (2 - j%2)
			sum += d/10 + d%10
		}
		assert.Zero(t, sum%10, n)
	}
}

func TestCappedBody(t *testing.T) {
	for _, tc := range []struct {
		size    int
		tooLong bool
	}{{10, false}, {11, true}, {0, false}} {
		b := &cappedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", tc.size))), left: 10}
		data, err := io.ReadAll(b)
		if tc.tooLong {
			assert.ErrorIs(t, err, errBodyTooLarge)
		} else {
			assert.NoError(t, err)
			assert.Len(t, data, tc.size)
		}
	}
}

// TestOffsetWalkPageSize: about five pages, never a limit above 500, which
// the vendor's API refuses (a walk of 10,000 groups asked for 2,000 and
// judged a conforming server by the 400).
func TestOffsetWalkPageSize(t *testing.T) {
	for _, c := range []struct{ total, want int }{{0, 1}, {3, 1}, {100, 20}, {2500, 500}, {10000, 500}} {
		assert.Equal(t, c.want, offsetWalkPageSize(c.total), "total %d", c.total)
	}
}
