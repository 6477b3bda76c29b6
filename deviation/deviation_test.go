package deviation

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryDeviationHasAUniqueNameAndADescription(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range All() {
		assert.Regexp(t, regexp.MustCompile(`^[a-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*$`), d.Name)
		assert.False(t, seen[d.Name], "%s is listed twice", d.Name)
		seen[d.Name] = true
		assert.NotEmpty(t, d.Description, d.Name)
		desc, ok := Describe(d.Name)
		assert.True(t, ok)
		assert.Equal(t, d.Description, desc)
	}
	assert.Len(t, Names(), len(seen))
	_, ok := Describe("no-such-deviation")
	assert.False(t, ok)
}
