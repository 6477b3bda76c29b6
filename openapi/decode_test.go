package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every embedded document decodes, however finely it is split, to the
// document kin-openapi's loader gives from the same JSON.
func TestSplitDecoderGivesTheLoadersDocument(t *testing.T) {
	for _, d := range documents {
		js, err := files.ReadFile(jsonFile(d.file))
		require.NoError(t, err)
		want, err := parse(d.name, js)
		require.NoError(t, err)
		for _, minSplit := range []int{1, 64, 512} {
			doc, err := splitDecoder{minSplit: minSplit}.document(js)
			require.NoError(t, err, "%s, minSplit %d", d.name, minSplit)
			require.NoError(t, openapi3.NewLoader().ResolveRefsIn(doc, nil), "%s, minSplit %d", d.name, minSplit)
			// assert.Equal would print the whole (cyclic) document on failure.
			assert.True(t, reflect.DeepEqual(want, doc), "%s, minSplit %d: another document", d.name, minSplit)
		}
	}
}

func TestObjectMembersAndArrayElements(t *testing.T) {
	members, err := objectMembers([]byte(` { "a" : 1 , "b\u00e9\"" :{"x":[1,"]}"]}, "c":"}",` + "\n" + `"d":null,"e":-1.5e3 } `))
	require.NoError(t, err)
	var keys, raws []string
	for _, m := range members {
		keys = append(keys, m.key)
		raws = append(raws, string(m.raw))
	}
	assert.Equal(t, []string{"a", `bé"`, "c", "d", "e"}, keys)
	assert.Equal(t, []string{"1", `{"x":[1,"]}"]}`, `"}"`, "null", "-1.5e3"}, raws)
	assert.Equal(t, `"b\u00e9\""`, string(members[1].rawKey))

	members, err = objectMembers([]byte(`{}`))
	require.NoError(t, err)
	assert.Empty(t, members)
	_, err = objectMembers([]byte(`[1]`))
	assert.Error(t, err)

	elems, err := arrayElements([]byte(`[ {"a":[]}, "x\\", true ,[[]],3]`))
	require.NoError(t, err)
	var got []string
	for _, e := range elems {
		got = append(got, string(e))
	}
	assert.Equal(t, []string{`{"a":[]}`, `"x\\"`, "true", "[[]]", "3"}, got)
	elems, err = arrayElements([]byte(` [ ] `))
	require.NoError(t, err)
	assert.Empty(t, elems)
	_, err = arrayElements([]byte(`{}`))
	assert.Error(t, err)
}

// FuzzDecodeDocument: for any JSON that json.Unmarshal decodes into an
// openapi3.T, the split decoder gives the same value, however finely it
// splits. (Objects with two member names equal but for case are left out:
// json.Unmarshal and kin-openapi's Paths and Responses, which sort their
// members, do not agree on which one wins.)
//
// The embedded documents are not seeds (TestSplitDecoderGivesTheLoadersDocument
// covers them): at 10-140 KB they would slow the fuzzer to a crawl.
func FuzzDecodeDocument(f *testing.F) {
	for _, src := range []string{
		`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`,
		`{"paths":{"x-a":1,"/a":{"x-b":[1],"parameters":[{"$ref":"#/components/parameters/P","description":"d"}]}},"components":{"schemas":{"S":{"type":"object","properties":{"a":{"$ref":"#/x"},"b":{"items":{"type":"string"},"additionalProperties":{"type":"integer"}}},"x-y":{"z":null}}}}}`,
		`{"components":{"schemas":{"S":{"allOf":[{"$REF":"#/a"},{"not":{"nullable":true}}],"oneOf":null}},"responses":{"R":{"content":{"application/json":{"schema":{"type":["string","null"]}}}}}}}`,
		`{"paths":{"/a":{"post":{"requestBody":{"content":{}},"responses":{"default":{"description":"x","headers":{"H":{"schema":{}}}},"x-e":"v"}}}}}`,
		`{"paths":null,"components":{"schemas":{"S":true}}}`,
	} {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || hasCaseDuplicates(data) {
			return
		}
		var want openapi3.T
		if err := json.Unmarshal(data, &want); err != nil {
			return
		}
		for _, minSplit := range []int{1, 16, 512} {
			got, err := splitDecoder{minSplit: minSplit}.document(data)
			if err != nil {
				t.Fatalf("minSplit %d: json.Unmarshal decodes it, the split decoder fails: %v", minSplit, err)
			}
			if !reflect.DeepEqual(&want, got) {
				t.Fatalf("minSplit %d: another value than json.Unmarshal's", minSplit)
			}
		}
	})
}

// hasCaseDuplicates reports whether an object of the JSON value has two
// member names that are equal ignoring case.
func hasCaseDuplicates(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		names  []string
		key    bool // the next token of an object is a name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			return true // not for this test
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if name, ok := tok.(string); ok {
				for _, n := range top.names {
					if strings.EqualFold(n, name) {
						return true
					}
				}
				top.names = append(top.names, name)
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.object {
				top.key = true
			}
			stack = append(stack, &frame{object: true, key: true})
		case json.Delim('['):
			if top != nil && top.object {
				top.key = true
			}
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if top != nil && top.object {
				top.key = true
			}
		}
	}
}
