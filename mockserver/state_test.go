package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// fill sets every field reachable from v to a value that is not the zero
// value (one element per slice or map), so that a codec that drops or
// mangles any field, hidden or not, shows.
func fill(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 14, 10, 30, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

// hiddenFields lists every field reachable from t that encoding/json skips.
func hiddenFields(t reflect.Type, seen map[reflect.Type]bool, out *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" {
			*out = append(*out, t.Name()+"."+f.Name)
		}
		hiddenFields(f.Type, seen, out)
	}
}

func TestStateCarriesEveryFieldOfEveryTable(t *testing.T) {
	var ds store.Dataset
	fill(reflect.ValueOf(&ds).Elem(), 0)
	ds.Other = nil // tables the generator does not know: the built-in schema has none

	var hidden []string
	hiddenFields(reflect.TypeFor[store.Dataset](), map[reflect.Type]bool{}, &hidden)
	assert.Contains(t, hidden, "Organisation.Directory")
	assert.Contains(t, hidden, "Group.AssignmentRoles")
	assert.Contains(t, hidden, "AssignmentRole.DutyName")
	t.Logf("fields interface B hides, carried by the state: %s", strings.Join(hidden, ", "))

	codec := builtinState()
	var buf bytes.Buffer
	require.NoError(t, codec.encode(&buf, &ds))
	back, err := codec.decode(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, &ds, back, "every field survives encoding and decoding")

	var again bytes.Buffer
	require.NoError(t, codec.encode(&again, back))
	assert.Equal(t, buf.String(), again.String())

	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	assert.JSONEq(t, `"`+StateFormat+`"`, string(doc["format"]))
	for name, n := range codec.count(&ds) {
		assert.Contains(t, doc, name)
		assert.Equal(t, 1, n, name)
	}
	var groups []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc["groups"], &groups))
	assert.Contains(t, groups[0], "directory")
	assert.Contains(t, string(groups[0]["assignmentRoles"]), `"dutyName":`)
}

func TestStateWritesHiddenFieldsUnderLowerCaseNames(t *testing.T) {
	ds := store.Dataset{Groups: []model.Group{{ID: "g", AssignmentRoles: []model.AssignmentRole{{DutyName: "Mentor Blå"}},
		Directory: &model.GroupExtra{Category: "Undervisning"}}}}
	var buf bytes.Buffer
	require.NoError(t, builtinState().encode(&buf, &ds))
	assert.Contains(t, buf.String(), `"assignmentRoles":[{"duty":{"id":""},"assignmentRoleType":"","dutyName":"Mentor Blå"}]`)
	assert.Contains(t, buf.String(), `"directory":{"category":"Undervisning"`)
	assert.NotContains(t, buf.String(), `"persons":null,"directory"`, "a nil extension is left out")
}

func TestShadowOfATypeWithoutHiddenFieldsIsTheType(t *testing.T) {
	shadowOf := builtinState().shadowOf
	assert.Equal(t, reflect.TypeFor[model.ObjectReference](), shadowOf(reflect.TypeFor[model.ObjectReference]()))
	assert.NotEqual(t, reflect.TypeFor[model.Syllabus](), shadowOf(reflect.TypeFor[model.Syllabus]()),
		"meta's createdBy and updatedBy (interface A only) are hidden from interface B and kept by the state")
	assert.Equal(t, reflect.TypeFor[[]time.Time](), shadowOf(reflect.TypeFor[[]time.Time]()))
	assert.NotEqual(t, reflect.TypeFor[model.Group](), shadowOf(reflect.TypeFor[model.Group]()))
	type recursive struct {
		Next *recursive
		Note string `json:"-"`
	}
	assert.NotPanics(t, func() { shadowOf(reflect.TypeFor[recursive]()) })
}

// TestStateLeavesOutUnexportedFields: an unexported field (derived by the
// store: an attendance's event day) is neither written nor read back; the
// hidden fields beside it are.
func TestStateLeavesOutUnexportedFields(t *testing.T) {
	a := model.Attendance{ID: "a", Meta: model.Meta{CreatedBy: new("client")}}
	a.SetEventDay("2026-09-01")
	codec := builtinState()
	var buf bytes.Buffer
	require.NoError(t, codec.encode(&buf, &store.Dataset{Attendances: []model.Attendance{a}}))
	assert.NotContains(t, buf.String(), "2026-09-01")
	assert.NotContains(t, buf.String(), "nexported")
	back, err := codec.decode(buf.Bytes())
	require.NoError(t, err)
	require.Len(t, back.Attendances, 1)
	assert.Equal(t, "client", *back.Attendances[0].Meta.CreatedBy)
	assert.Empty(t, back.Attendances[0].EventDay())
}

func TestDecodeStatePositions(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"", "the body is empty"},
		{"{\"format\": \"skolkit-state/1\",\n \"groups\": [}", "line 2, column 13: JSON syntax"},
		{`{"format": "skolkit-state/1"} {}`, "unexpected data after the state document"},
		{`{"format": "skolkit-state/1", "groups": [{"id": 5}]}`, "groups.id: a JSON number cannot be a string"},
		{`{"format": "skolkit-state/1", "groups": [{"id": "g", "colour": "red"}]}`, `line 1, column 54: unknown member "colour"`},
		{`{"format": "skolkit-state/1", "groups": [`, "ends too early"},
	} {
		_, err := builtinState().decode([]byte(tc.body))
		require.Error(t, err, tc.body)
		assert.Contains(t, err.Error(), tc.want, tc.body)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))

	_, err := writeFileAtomic(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return errors.New("disk full")
	})
	require.Error(t, err)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "old", string(data), "a failed write leaves the old file")

	n, err := writeFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new content")
		return err
	})
	require.NoError(t, err)
	assert.EqualValues(t, len("new content"), n)
	data, _ = os.ReadFile(path)
	assert.Equal(t, "new content", string(data))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left")
}
