package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/skolkit/skolkit/fixtures"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/model"
)

// StateFormat is the value of "format" in a state document: the version of
// the layout GET /__admin/state writes and PUT /__admin/state reads.
const StateFormat = "skolkit-state/1"

// maxStateBytes is the largest state document PUT /__admin/state accepts.
const maxStateBytes = 256 << 20

// The state document is the store's records as JSON, one member per table
// of the store's schema, in its order, each record as interface B writes it
// plus every field interface B hides (json:"-"): the interface-A extensions,
// a group's assignment roles, an assignment role's duty name, and whatever
// hidden field the model gains later. A hidden field is written under its Go
// name with a lower-case first letter ("directory", "assignmentRoles",
// "dutyName").
//
// The layout is derived from the schema and, by reflection, from the record
// types rather than written out by hand, so that a field or table added to
// the model or the store is carried by the state without anyone remembering
// to: for each type that holds a hidden field somewhere inside, a "shadow"
// struct type is built with reflect.StructOf that has the same fields and
// names the hidden ones. Records are copied into shadow values to be encoded
// and out of them after decoding.

// stateCodec reads and writes the state documents of a schema: one member
// per table, in the schema's order, each record in its shadow type. It is
// built once per server (the reflection it takes would cost every start).
type stateCodec struct {
	schema *store.Schema
	tables []string
	// doc is the document's type: "format", one member per table, then the
	// legacy members a document may have and the server reads but never
	// writes (legacyGrade).
	doc reflect.Type
	// shadows holds the shadow type of each type met.
	shadows map[reflect.Type]reflect.Type
}

// newStateCodec builds the codec of a schema's documents.
func newStateCodec(schema *store.Schema) *stateCodec {
	c := &stateCodec{schema: schema, tables: schema.Tables(), shadows: map[reflect.Type]reflect.Type{}}
	fields := []reflect.StructField{{Name: "Format", Type: reflect.TypeFor[string](), Tag: `json:"format"`}}
	for i, name := range c.tables {
		fields = append(fields, reflect.StructField{
			Name: "Table" + strconv.Itoa(i),
			Type: c.shadowOf(reflect.SliceOf(schema.RecordType(name))),
			Tag:  reflect.StructTag(fmt.Sprintf(`json:%q`, name)),
		})
	}
	fields = append(fields,
		reflect.StructField{Name: "LegacyGradesElementary", Type: reflect.TypeFor[[]legacyGrade](), Tag: `json:"gradesElementary,omitempty"`},
		reflect.StructField{Name: "LegacyGradesUpperSecondary", Type: reflect.TypeFor[[]legacyGrade](), Tag: `json:"gradesUpperSecondary,omitempty"`})
	c.doc = reflect.StructOf(fields)
	return c
}

// jsonMarshaler is the interface a type implements to write its own JSON; a
// type that does is left as it is.
var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// shadowOf returns the type the state writes for t: t itself when no hidden
// field is reachable from it, else a struct (or pointer, slice, array, map)
// type whose hidden fields have JSON names.
func (c *stateCodec) shadowOf(t reflect.Type) reflect.Type {
	return c.shadowIn(t, map[reflect.Type]bool{})
}

func (c *stateCodec) shadowIn(t reflect.Type, visiting map[reflect.Type]bool) reflect.Type {
	if s, ok := c.shadows[t]; ok {
		return s
	}
	if visiting[t] {
		// A recursive type: its inner occurrence is kept as it is.
		return t
	}
	visiting[t] = true
	defer delete(visiting, t)
	out := t
	switch t.Kind() {
	case reflect.Pointer:
		if e := c.shadowIn(t.Elem(), visiting); e != t.Elem() {
			out = reflect.PointerTo(e)
		}
	case reflect.Slice:
		if e := c.shadowIn(t.Elem(), visiting); e != t.Elem() {
			out = reflect.SliceOf(e)
		}
	case reflect.Array:
		if e := c.shadowIn(t.Elem(), visiting); e != t.Elem() {
			out = reflect.ArrayOf(t.Len(), e)
		}
	case reflect.Map:
		if e := c.shadowIn(t.Elem(), visiting); e != t.Elem() {
			out = reflect.MapOf(t.Key(), e)
		}
	case reflect.Struct:
		out = c.shadowStruct(t, visiting)
	}
	c.shadows[t] = out
	return out
}

func (c *stateCodec) shadowStruct(t reflect.Type, visiting map[reflect.Type]bool) reflect.Type {
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return t
	}
	fields := make([]reflect.StructField, t.NumField())
	names := map[string]bool{}
	placeholders := map[int]bool{}
	changed := false
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			// What a record keeps unexported is derived by the store, not
			// state (model.Attendance's event day): StructOf cannot have
			// an unexported field, so the shadow has a placeholder that is
			// neither written nor copied (copyValue).
			fields[i] = reflect.StructField{Name: "Unexported" + strconv.Itoa(i), Type: f.Type, Tag: `json:"-"`}
			placeholders[i] = true
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		names[name] = true
		sf := reflect.StructField{Name: f.Name, Type: c.shadowIn(f.Type, visiting), Tag: f.Tag, Anonymous: f.Anonymous}
		if sf.Type != f.Type {
			changed = true
		}
		fields[i] = sf
	}
	for i := range fields {
		if fields[i].Tag.Get("json") != "-" || placeholders[i] {
			continue
		}
		r, n := utf8.DecodeRuneInString(fields[i].Name)
		name := string(unicode.ToLower(r)) + fields[i].Name[n:]
		if names[name] {
			panic(fmt.Sprintf("mockserver: state: %s.%s is hidden from JSON and its state name %q is taken by another field", t, fields[i].Name, name))
		}
		names[name] = true
		fields[i].Tag = reflect.StructTag(fmt.Sprintf(`json:"%s,omitempty"`, name))
		changed = true
	}
	if !changed {
		return t
	}
	return reflect.StructOf(fields)
}

// copyValue copies src into dst, where one's type is the other's shadow (or
// both are the same type). Values of the same type are shared, not copied
// deeply: state values are read, never changed.
func copyValue(dst, src reflect.Value) {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return
	}
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		copyValue(dst.Elem(), src.Elem())
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeMapWithSize(dst.Type(), src.Len()))
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(dst.Type().Elem()).Elem()
			copyValue(v, it.Value())
			dst.SetMapIndex(it.Key(), v)
		}
	case reflect.Struct:
		for i := range src.NumField() {
			if src.Type().Field(i).IsExported() && dst.Type().Field(i).IsExported() {
				copyValue(dst.Field(i), src.Field(i))
			}
		}
	default:
		panic(fmt.Sprintf("mockserver: state: cannot copy %s into %s", src.Type(), dst.Type()))
	}
}

// legacyGrade is a record of the interface-A grade tables that state
// documents may hold (docs/decisions.md#grades-in-both-views): either
// kind's members. decodeState turns each into a grade with its interface-A
// view; the load derives its SS 12000 members (package directory's
// prepareGrades).
type legacyGrade struct {
	ID        string     `json:"id"`
	Meta      model.Meta `json:"meta"`
	StudentID string     `json:"studentID"`
	SchoolID  string     `json:"schoolID"`
	// The other members are those of the interface-A view (External,
	// SubjectCode or CourseCode, the teachers, the grade, ...), read in place.
	model.GradeExtra
}

// grade is the legacy record as a grade of the kind with its interface-A
// view only.
func (l *legacyGrade) grade(kind string) model.Grade {
	school := model.ObjectReference{ID: l.SchoolID}
	view := l.GradeExtra
	view.Kind = kind
	return model.Grade{
		ID: l.ID, Meta: l.Meta, Student: model.PersonReference{ID: l.StudentID}, Organisation: &school,
		Directory: &view,
	}
}

// encode writes the dataset as a state document: compact JSON and a
// newline. The same dataset always gives the same bytes.
func (c *stateCodec) encode(w io.Writer, ds *store.Dataset) error {
	st := reflect.New(c.doc).Elem()
	st.Field(0).SetString(StateFormat)
	for i, name := range c.tables {
		copyValue(st.Field(i+1), reflect.ValueOf(c.schema.Records(ds, name)))
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(st.Addr().Interface())
}

// StateError is a state document that cannot be read.
type StateError struct {
	Line, Column int // of the problem in the document; 0 when unknown
	Message      string
}

func (e *StateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("state document, line %d, column %d: %s", e.Line, e.Column, e.Message)
	}
	return "state document: " + e.Message
}

// decode reads a state document strictly: unknown members, a second value
// after the document and a wrong or missing format are errors.
func (c *stateCodec) decode(data []byte) (*store.Dataset, error) {
	st := reflect.New(c.doc)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st.Interface()); err != nil {
		return nil, stateDecodeError(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, positioned(data, dec.InputOffset(), "unexpected data after the state document")
	}
	v := st.Elem()
	if f := v.Field(0).String(); f != StateFormat {
		if f == "" {
			return nil, &StateError{Message: fmt.Sprintf(`"format" is missing: this is not a skolkit state document (GET /__admin/state writes one; its format is %q)`, StateFormat)}
		}
		return nil, &StateError{Message: fmt.Sprintf(`"format" is %q; this server reads %q`, f, StateFormat)}
	}
	ds := &store.Dataset{}
	for i, name := range c.tables {
		recs := reflect.New(reflect.SliceOf(c.schema.RecordType(name))).Elem()
		copyValue(recs, v.Field(i+1))
		c.schema.SetRecords(ds, name, recs.Interface())
	}
	for i, kind := range []string{model.GradeKindElementary, model.GradeKindUpperSecondary} {
		for _, l := range v.Field(1 + len(c.tables) + i).Interface().([]legacyGrade) {
			ds.Grades = append(ds.Grades, l.grade(kind))
		}
	}
	return ds, nil
}

func stateDecodeError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return positioned(data, se.Offset-1, "JSON syntax: "+se.Error()) // Offset is past the bad byte
	case errors.As(err, &te):
		at := te.Field
		if at == "" {
			at = "the document"
		}
		return positioned(data, te.Offset, fmt.Sprintf("%s: a JSON %s cannot be a %s", at, te.Value, te.Type))
	case errors.Is(err, io.EOF):
		return &StateError{Message: "the body is empty"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return positioned(data, int64(len(data)), "the document ends too early")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	// An unknown member: encoding/json names it but not its place, so point
	// at its first occurrence as a member name.
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if at := memberOffset(data, name); at >= 0 {
			return positioned(data, int64(at), "unknown member "+name)
		}
	}
	return &StateError{Message: msg}
}

// memberOffset returns the offset of the first `"name":` in data, or -1.
func memberOffset(data []byte, quoted string) int {
	key := []byte(quoted)
	for off := 0; ; {
		i := bytes.Index(data[off:], key)
		if i < 0 {
			return -1
		}
		at := off + i
		rest := bytes.TrimLeft(data[at+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return at
		}
		off = at + len(key)
	}
}

// positioned returns a StateError at a byte offset of data.
func positioned(data []byte, offset int64, msg string) *StateError {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return &StateError{Line: line, Column: col, Message: msg}
}

// loadState replaces the store's records with the dataset. Records without
// their interface-A view (a hand-written state) get the one generated data
// gets.
func (s *Server) loadState(ds *store.Dataset) error {
	directory.Prepare(ds)
	return s.store.Load(ds)
}

// readStateFile loads the state file when it exists; it reports whether it did.
func (s *Server) readStateFile(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state file: %w", err)
	}
	ds, err := s.state().decode(data)
	if err != nil {
		return false, fmt.Errorf("state file %s: %w", path, err)
	}
	if err := s.loadState(ds); err != nil {
		return false, fmt.Errorf("state file %s: %w", path, err)
	}
	return true, nil
}

// SnapshotInfo describes a state file written by SaveState.
type SnapshotInfo struct {
	File    string         `json:"file"`
	Bytes   int64          `json:"bytes"`
	Records map[string]int `json:"records"`
}

// ErrNoStateFile is SaveState's error for a server without a state file.
var ErrNoStateFile = errors.New("the server has no state file (start it with --state-file, or set Options.StateFile)")

// SaveState writes the whole state to the server's state file
// (Options.StateFile) atomically: into a temporary file in the same
// directory, synced, then renamed over the old file. skolkit serve calls it
// on graceful shutdown; POST /__admin/snapshot calls it on demand.
func (s *Server) SaveState() (SnapshotInfo, error) {
	path := s.ctl.stateFile
	if path == "" {
		return SnapshotInfo{}, ErrNoStateFile
	}
	s.ctl.saveMu.Lock()
	defer s.ctl.saveMu.Unlock()
	ds := s.store.Export()
	n, err := writeFileAtomic(path, func(w io.Writer) error { return s.state().encode(w, ds) })
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("state file %s: %w", path, err)
	}
	return SnapshotInfo{File: path, Bytes: n, Records: s.state().count(ds)}, nil
}

// writeFileAtomic writes a file so that a reader (or a crash) sees the old
// content or the new, never a part: a temporary file in the same directory
// is written, synced and renamed over path, and the directory is synced.
func writeFileAtomic(path string, write func(io.Writer) error) (int64, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	cw := &countingWriter{w: f}
	bw := bufio.NewWriterSize(cw, 1<<16)
	if err := write(bw); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return 0, err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // makes the rename durable; not every platform can sync a directory
		_ = d.Close()
	}
	return cw.n, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// count returns the number of records per table.
func (c *stateCodec) count(ds *store.Dataset) map[string]int {
	out := map[string]int{}
	for _, name := range c.tables {
		out[name] = c.schema.Count(ds, name)
	}
	return out
}

// each calls fn with each table of the document, in the document's order:
// its member name and its records in the state's form.
func (c *stateCodec) each(ds *store.Dataset, fn func(name string, records []any) error) error {
	for i, name := range c.tables {
		v := reflect.New(c.doc.Field(i + 1).Type).Elem()
		copyValue(v, reflect.ValueOf(c.schema.Records(ds, name)))
		records := make([]any, v.Len())
		for j := range records {
			records[j] = v.Index(j).Addr().Interface()
		}
		if err := fn(name, records); err != nil {
			return err
		}
	}
	return nil
}

// builtinState is the codec of the built-in tables' documents.
func builtinState() *stateCodec {
	schema, err := store.NewSchema()
	if err != nil {
		panic(err) // the built-in schema is constant
	}
	return newStateCodec(schema)
}

// StateTables calls fn with each table of the state document, in the
// document's order: its member name ("organisations", "grades", ...) and its
// records in the state's form (the hidden fields named: "directory",
// "assignmentRoles", ...), each a value that encoding/json writes as GET
// /__admin/state does. Writing them as {"format": StateFormat, name: [records],
// ...} gives a document that PUT /__admin/state reads back. Every table of
// the store is one member.
func StateTables(ds *fixtures.Dataset, fn func(name string, records []any) error) error {
	return builtinState().each(ds, fn)
}

// StateTableNames are the members of the state document besides "format",
// one per table of the store, in the document's order.
func StateTableNames() []string {
	schema, err := store.NewSchema()
	if err != nil {
		panic(err)
	}
	return schema.Tables()
}
