package mockserver

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// deletedPage is the body of GET /deletedEntities.
type deletedPage struct {
	Data      map[string][]string `json:"data"`
	PageToken *string             `json:"pageToken"`
}

func TestDeletedEntities(t *testing.T) {
	h := hookHarness(t)
	ds := h.srv.store.Export()
	body := attendanceBody(t, ds)
	newAttendance := func() string {
		res := h.postJSON(PrefixB+"/attendances", body)
		require.Equal(t, http.StatusOK, res.status, res)
		var a model.Attendance
		res.decode(&a)
		return a.ID
	}
	deleteAttendance := func(id string) {
		res := h.call(http.MethodDelete, PrefixB+"/attendances/"+id, "", nil)
		require.Equal(t, http.StatusNoContent, res.status, res)
	}
	list := func(query string) deletedPage {
		t.Helper()
		res := h.get(PrefixB + "/deletedEntities" + query)
		require.Equal(t, http.StatusOK, res.status, res)
		var page deletedPage
		res.decode(&page)
		return page
	}
	assert.Equal(t, deletedPage{Data: map[string][]string{}}, list(""), "nothing deleted yet")

	a1, a2 := newAttendance(), newAttendance()
	deleteAttendance(a1)
	before := testNow
	h.clock.Advance(time.Minute)
	h.token = h.fetchToken(h.srv.Credentials())
	deleteAttendance(a2)
	// interface A: a group deleted through the directory API
	g, _ := h.createGroup("skolkit deleted")
	res := h.call(http.MethodDelete, PrefixA+"/group/"+g, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)

	assert.Equal(t, map[string][]string{"attendances": {a1, a2}, "groups": {g}}, list("").Data)
	assert.Equal(t, map[string][]string{"attendances": {a2}, "groups": {g}}, list("?after="+url.QueryEscape(before.Format(time.RFC3339Nano))).Data, "after is exclusive")
	assert.Equal(t, map[string][]string{"groups": {g}}, list("?entities=Group&entities=Person").Data)

	// paging: one id per page, the filter carried by the token
	var got []string
	page := list("?limit=1&entities=Attendance")
	for {
		for _, ids := range page.Data {
			got = append(got, ids...)
		}
		if page.PageToken == nil {
			break
		}
		page = list("?limit=1&pageToken=" + url.QueryEscape(*page.PageToken))
	}
	assert.Equal(t, []string{a1, a2}, got)

	for _, q := range []string{"?pageToken=bogus", "?entities=Nope", "?after=yesterday", "?limit=0"} {
		res := h.get(PrefixB + "/deletedEntities" + q)
		assert.Equal(t, http.StatusBadRequest, res.status, res)
	}
	page = list("?limit=1")
	require.NotNil(t, page.PageToken)
	res = h.get(PrefixB + "/deletedEntities?entities=Group&pageToken=" + url.QueryEscape(*page.PageToken))
	assert.Equal(t, http.StatusBadRequest, res.status, res)
	assert.Contains(t, res.errorBody(t).Message, "pageToken cannot be combined")

	// interface A: a student deleted through the directory API is a deleted Person
	st := h.newStudent(t)
	res = h.call(http.MethodDelete, PrefixA+"/student/"+st, "", nil)
	require.Equal(t, http.StatusNoContent, res.status, res)
	assert.Equal(t, []string{st}, list("?entities=Person").Data["persons"])

	// Go code writing to the store is seen too
	require.NoError(t, h.srv.store.Delete(store.TableAbsences, ds.Absences[0].ID))
	assert.Equal(t, []string{ds.Absences[0].ID}, list("?entities=Absence").Data["absences"])

	// a reset starts a new history
	res = h.admin(http.MethodPost, "/reset", "")
	require.Equal(t, http.StatusOK, res.status, res)
	h.token = h.fetchToken(h.srv.Credentials())
	assert.Empty(t, list("").Data)
}
