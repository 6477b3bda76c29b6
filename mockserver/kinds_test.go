package mockserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/mockserver/webhooktest"
	"github.com/skolkit/skolkit/model"
)

// widget is a kind of record that exists only in this test: its table,
// its interface-B resource and its contract are declared below and nowhere
// else, and the server serves it from those declarations alone.
type widget struct {
	ID     string                `json:"id"`
	Meta   model.Meta            `json:"meta"`
	Name   string                `json:"name"`
	Colour string                `json:"colour"`
	Owner  model.ObjectReference `json:"owner" ref:"organisations"`
}

const widgetNameOrder = "nameOrder"

// widgetKinds declares the widget kind: the store's table and interface B's
// resource.
func widgetKinds(t *testing.T) kinds {
	t.Helper()
	table := &store.Table[widget]{
		Name:      "widgets",
		ID:        func(w *widget) string { return w.ID },
		Meta:      func(w *widget) *model.Meta { return &w.Meta },
		Deletable: true,
		Indexes: []store.Index[widget]{
			store.By(store.IndexOrganisation, func(w *widget) string { return w.Owner.ID }),
			store.ModifiedOrder(func(w *widget) *model.Meta { return &w.Meta }),
			store.Ordered(widgetNameOrder, func(w *widget) string { return store.FoldKey(w.Name) }),
		},
		Refs: []store.Ref[widget]{{Field: "owner.id", To: store.TableOrganisations, Label: "widget(s)", Index: store.IndexOrganisation,
			IDs: store.One(func(w *widget) string { return w.Owner.ID })}},
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(widgetContract))
	require.NoError(t, err)
	res := register.Plain[widget]{
		Name: "widgets", Noun: "widget", Scope: "widgets:read", Table: "widgets",
		Type: "Widget", DeletedKey: "widgets",
		Meta: func(w *widget) *model.Meta { return &w.Meta },
		Filters: []register.Filter{
			register.IDFilter("owner", store.IndexOrganisation, func(o any) []string { return []string{o.(*widget).Owner.ID} }),
			register.EvalFilter("colour", func(o any, v string) bool { return o.(*widget).Colour == v }),
		},
		Sorts:       map[string]register.Sorting{"NameAsc": register.Order(widgetNameOrder, false)},
		Lookups:     map[string]register.LookupKey{"owners": register.ByIndex("widgets", store.IndexOrganisation, true)},
		DisplayName: func(w *widget) string { return w.Name },
		Contract:    doc,
	}.Resource()
	return kinds{tables: []store.TableDecl{table}, resources: []*register.Resource{res}}
}

// widgetContract is the OpenAPI document of the widgets' operations.
const widgetContract = `
openapi: 3.0.3
info: {title: widgets, version: "1"}
servers: [{url: /api/v1}]
paths:
  /widgets:
    get:
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1}}
        - {name: pageToken, in: query, schema: {type: string}}
        - {name: expand, in: query, schema: {type: array, items: {type: string}}}
        - {name: expandReferenceNames, in: query, schema: {type: boolean}}
        - {name: sortkey, in: query, schema: {type: string, enum: [NameAsc, ModifiedDesc]}}
        - {name: owner, in: query, schema: {type: string, format: uuid}}
        - {name: colour, in: query, schema: {type: string}}
      responses: {"200": {description: a page of widgets}}
  /widgets/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
        - {name: expandReferenceNames, in: query, schema: {type: boolean}}
      responses: {"200": {description: a widget}}
  /widgets/lookup:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              additionalProperties: false
              properties:
                ids: {type: array, items: {type: string}}
                owners: {type: array, items: {type: string}}
      responses: {"200": {description: the widgets}}
`

// widgetServer is a server with the widget kind beside the built-in ones,
// over HTTP, with a token of the default client and a client that checks
// nothing (the contract knows no widgets).
type widgetServer struct {
	t     *testing.T
	srv   *Server
	ts    *httptest.Server
	token string
}

func newWidgetServer(t *testing.T) *widgetServer {
	t.Helper()
	srv, err := newWithKinds(Options{Now: func() time.Time { return testNow }, SelfCheck: true,
		Webhooks: WebhookOptions{Coalesce: -1, Retry: []time.Duration{}}}, widgetKinds(t))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	ws := &widgetServer{t: t, srv: srv, ts: httptest.NewServer(srv)}
	t.Cleanup(ws.ts.Close)
	id, secret := srv.Credentials()
	res := ws.send(http.MethodPost, PathToken, "application/x-www-form-urlencoded",
		url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}.Encode())
	require.Equal(t, http.StatusOK, res.status, res)
	var tr tokenResponse
	res.decode(&tr)
	ws.token = tr.AccessToken
	return ws
}

func (ws *widgetServer) send(method, path, contentType, body string) *result {
	ws.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, ws.ts.URL+path, rd)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if ws.token != "" {
		req.Header.Set("Authorization", "Bearer "+ws.token)
	}
	resp, err := ws.ts.Client().Do(req)
	require.NoError(ws.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &result{req: req, status: resp.StatusCode, header: resp.Header, body: b}
}

func (ws *widgetServer) get(path string) *result {
	ws.t.Helper()
	return ws.send(http.MethodGet, path, "", "")
}

// listIDs walks a widget list to its end and returns the ids in order.
func (ws *widgetServer) listIDs(query string) []string {
	ws.t.Helper()
	var ids []string
	path := PrefixB + "/widgets?" + query
	for {
		res := ws.get(path)
		require.Equal(ws.t, http.StatusOK, res.status, res)
		var page struct {
			Data      []widget `json:"data"`
			PageToken *string  `json:"pageToken"`
		}
		res.decode(&page)
		for _, w := range page.Data {
			ids = append(ids, w.ID)
		}
		if page.PageToken == nil {
			return ids
		}
		path = PrefixB + "/widgets?limit=2&pageToken=" + url.QueryEscape(*page.PageToken)
	}
}

// TestAKindDeclaredOnlyInATestIsServedEndToEnd: a record kind declared in
// this file alone — a table of the store, a resource of interface B and its
// contract — is loaded and exported with the state, listed (walks, filters,
// sortkeys), read by id, looked up, named in references, guarded by the
// references into it, logged when deleted (deletedEntities) and announced
// to subscriptions, with no change anywhere else.
func TestAKindDeclaredOnlyInATestIsServedEndToEnd(t *testing.T) {
	ws := newWidgetServer(t)
	sn := ws.srv.store.Read()
	var schools []string
	_ = sn.Scan(store.TableOrganisations, store.IndexOrganisationType, string(model.OrganisationTypeSchoolUnit), func(o any) bool {
		schools = append(schools, o.(*model.Organisation).ID)
		return len(schools) < 2
	})
	require.Len(t, schools, 2)
	colours := []string{"red", "blue", "red", "green", "red"}
	var want []widget
	for i, c := range colours {
		want = append(want, widget{ID: fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", i), Name: fmt.Sprintf("Widget %c", 'E'-i),
			Colour: c, Owner: model.ObjectReference{ID: schools[i%2]}})
	}

	t.Run("state round trip", func(t *testing.T) {
		res := ws.get(PrefixAdmin + "/state")
		require.Equal(t, http.StatusOK, res.status, res)
		var doc map[string]json.RawMessage
		res.decode(&doc)
		require.JSONEq(t, `[]`, string(doc["widgets"]), "the state has a member for the kind")
		doc["widgets"], _ = json.Marshal(want)
		body, _ := json.Marshal(doc)
		put := ws.send(http.MethodPut, PrefixAdmin+"/state", "application/json", string(body))
		require.Equal(t, http.StatusOK, put.status, put)
		var sum Summary
		put.decode(&sum)
		assert.Equal(t, len(want), sum.Records["widgets"])

		res = ws.get(PrefixAdmin + "/state")
		require.Equal(t, http.StatusOK, res.status, res)
		res.decode(&doc)
		var back []widget
		require.NoError(t, json.Unmarshal(doc["widgets"], &back))
		require.Len(t, back, len(want))
		for i, w := range back {
			assert.Equal(t, want[i].Name, w.Name)
			assert.False(t, w.Meta.Created.IsZero(), "the store stamps meta")
		}

		dangling, _ := json.Marshal([]widget{{ID: "00000000-0000-4000-8000-000000000009", Owner: model.ObjectReference{ID: "nowhere"}}})
		doc["widgets"] = dangling
		body, _ = json.Marshal(doc)
		put = ws.send(http.MethodPut, PrefixAdmin+"/state", "application/json", string(body))
		assert.Equal(t, http.StatusBadRequest, put.status, "a widget's references are checked: %s", put)
		assert.Contains(t, string(put.body), "owner.id")
	})

	t.Run("list, walk, filters and sortkeys", func(t *testing.T) {
		all := ws.listIDs("limit=2")
		assert.Equal(t, []string{want[0].ID, want[1].ID, want[2].ID, want[3].ID, want[4].ID}, all, "a walk returns each widget once, in id order")
		assert.Equal(t, []string{want[0].ID, want[2].ID, want[4].ID}, ws.listIDs("limit=2&colour=red"))
		assert.Equal(t, []string{want[0].ID, want[2].ID, want[4].ID}, ws.listIDs("limit=2&owner="+strings.ToUpper(schools[0])), "an id filter compares in lower case")
		byName := ws.listIDs("limit=2&sortkey=NameAsc")
		assert.Equal(t, []string{want[4].ID, want[3].ID, want[2].ID, want[1].ID, want[0].ID}, byName, "NameAsc walks the name order index")
		assert.Len(t, ws.listIDs("limit=2&sortkey=ModifiedDesc&owner="+schools[1]), 2)
		bad := ws.get(PrefixB + "/widgets?sortkey=Nope")
		assert.Equal(t, http.StatusBadRequest, bad.status, "the kind's contract validates the request: %s", bad)
		noScope := ws.srv.expandScopes([]string{"all"})
		assert.Contains(t, noScope, "widgets:read", "a client's \"all\" takes the kind's scope")
	})

	t.Run("by id, with reference names", func(t *testing.T) {
		res := ws.get(PrefixB + "/widgets/" + want[1].ID + "?expandReferenceNames=true")
		require.Equal(t, http.StatusOK, res.status, res)
		var w widget
		res.decode(&w)
		assert.Equal(t, want[1].Name, w.Name)
		school, _ := ws.srv.store.Read().Organisation(schools[1])
		assert.Equal(t, school.DisplayName, w.Owner.DisplayName, "the owner reference is rendered")
		assert.Equal(t, http.StatusNotFound, ws.get(PrefixB+"/widgets/00000000-0000-4000-8000-0000000000ff").status)
	})

	t.Run("lookup", func(t *testing.T) {
		res := ws.send(http.MethodPost, PrefixB+"/widgets/lookup", "application/json",
			fmt.Sprintf(`{"ids":[%q],"owners":[%q]}`, want[3].ID, schools[0]))
		require.Equal(t, http.StatusOK, res.status, res)
		var got []widget
		res.decode(&got)
		var ids []string
		for _, w := range got {
			ids = append(ids, w.ID)
		}
		assert.Equal(t, []string{want[3].ID, want[0].ID, want[2].ID, want[4].ID}, ids, "ids first, then the owners' widgets, each once")
	})

	t.Run("references into other kinds, and deletion", func(t *testing.T) {
		refs := ws.srv.store.Read().Referrers(store.TableOrganisations, schools[0])
		assert.Contains(t, refs, "3 widget(s)", "a deletion of the owner is refused while widgets name it")

		rcv := webhooktest.NewReceiver(t)
		_, err := ws.srv.Webhooks().Create(webhook.CreateSubscription{Name: "widgets", Target: rcv.URL,
			ResourceTypes: []webhook.ResourceTypeRef{{Resource: "Widget"}}})
		require.NoError(t, err)

		since := testNow.Add(-time.Second).UTC().Format(time.RFC3339)
		del := ws.send(http.MethodDelete, PrefixAdmin+"/records/widgets/"+want[0].ID, "", "")
		require.Equal(t, http.StatusNoContent, del.status, del)
		calls := rcv.Wait(t, 1, 5*time.Second)
		assert.True(t, calls[0].Body.DeletedEntities, "the subscription to widgets hears of the deletion")

		changed := want[1]
		changed.Colour = "purple"
		require.NoError(t, ws.srv.store.Write(func(w *store.Writer) error {
			_, _, err := store.Put(w, changed)
			return err
		}))
		calls = rcv.Wait(t, 2, 5*time.Second)
		assert.Equal(t, []model.ResourceType{"Widget"}, calls[1].Body.ModifiedEntites, "and of the change")
		assert.Equal(t, []string{want[1].ID}, ws.listIDs("colour=purple"), "the change is served at once")

		res := ws.get(PrefixB + "/deletedEntities?after=" + url.QueryEscape(since))
		require.Equal(t, http.StatusOK, res.status, res)
		var page struct {
			Data map[string][]string `json:"data"`
		}
		res.decode(&page)
		assert.Equal(t, []string{want[0].ID}, page.Data["widgets"], "deletedEntities lists it under the kind's key")
		assert.False(t, slices.Contains(ws.listIDs(""), want[0].ID))
	})
}
