package mockserver

import (
	"fmt"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTextThatWouldBeAlteredIsRefused: invalid UTF-8 and control
// characters in a JSON body (of either interface) or a query parameter are
// a 400 in the surface's error body, naming the member or the parameter;
// nothing is stored.
func TestTextThatWouldBeAlteredIsRefused(t *testing.T) {
	h := newHarness(t)
	ds := h.srv.store.Export()
	pupil := enrolledPupil(t, ds)
	absence := func(reason string) string {
		return fmt.Sprintf(`{"student":{"id":%q},"organisation":{"id":%q},"registrationDate":"2026-11-03","startTime":"2026-11-03T08:00:00Z","endTime":"2026-11-03T09:00:00Z","type":"Giltig","absenceReason":"%s"}`,
			pupil.ID, pupil.Enrolments[0].EnroledAt.ID, reason)
	}
	student := func(first string) string {
		return `{"identityNumber":"20150317-2388","firstName":"` + first + `","lastName":"Lindqvist"}`
	}
	before := len(ds.Absences)

	for _, tc := range []struct {
		name, method, path, body string
		field, says              string
	}{
		{"B: invalid UTF-8 in a body", http.MethodPost, PrefixB + "/absences", absence("sjuk\xff"), "/absenceReason", "not valid UTF-8"},
		{"B: a NUL in a body", http.MethodPost, PrefixB + "/absences", absence(`sjuk\u0000`), "/absenceReason", "U+0000"},
		{"B: an unpaired surrogate in a lookup", http.MethodPost, PrefixB + "/groups/lookup", `{"ids":["\ud800"]}`, "/ids/0", "surrogate"},
		{"B: a NUL in a query", http.MethodGet, PrefixB + "/persons?nameContains=a%00b", "", `query parameter "nameContains"`, "U+0000"},
		{"B: invalid UTF-8 in a query", http.MethodGet, PrefixB + "/persons?nameContains=%FF", "", `query parameter "nameContains"`, "not valid UTF-8"},
		{"A: invalid UTF-8 in a body", http.MethodPost, PrefixA + "/student", student("Al\xffva"), "/firstName", "not valid UTF-8"},
		{"A: an escape character in a body", http.MethodPost, PrefixA + "/student", student(`\u001b[31mAlva`), "/firstName", "U+001B"},
		{"A: a NUL in a search", http.MethodPost, PrefixA + "/student/_search", `{"filter":{"equals":{"firstName":"a\u0000"},"orCondition":false}}`, "/filter/equals/firstName", "U+0000"},
		{"A: a NUL in a query", http.MethodGet, PrefixA + "/student?limit=1%00", "", `query parameter "limit"`, "U+0000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.sendRaw(tc.method, tc.path, tc.body)
			require.Equal(t, http.StatusBadRequest, res.status, res)
			if tc.path[:len(PrefixA)] == PrefixA {
				e := res.dirError(t)
				assert.Equal(t, surface.CodeBadRequest, e.Code)
				assert.Contains(t, e.Message, tc.field)
				assert.Contains(t, e.Message, tc.says)
				if tc.body != "" {
					require.Len(t, e.Details, 1, res)
					assert.Equal(t, tc.field, e.Details[0].Field)
				}
				return
			}
			e := res.errorBody(t)
			assert.Equal(t, surface.CodeBadRequest, e.Code)
			assert.Contains(t, e.Message, tc.field)
			assert.Contains(t, e.Message, tc.says)
		})
	}
	assert.Len(t, h.srv.store.Export().Absences, before, "nothing was stored")

	t.Run("text a client may send is kept as sent", func(t *testing.T) {
		res := h.postJSON(PrefixB+"/absences", absence(`Tandläkare\tkl. 9\n\ufffd Åsa`))
		require.Equal(t, http.StatusOK, res.status, res)
		var a struct{ AbsenceReason string }
		res.decode(&a)
		assert.Equal(t, "Tandläkare\tkl. 9\n\uFFFD Åsa", a.AbsenceReason)
	})
}
