package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// decodeDocument decodes a document from JSON into the openapi3.T that
// json.Unmarshal gives (kin-openapi's own decoding, the first step of its
// loader), in about half the time. References are not resolved.
//
// kin-openapi decodes each object of a document (an operation, a response, a
// schema, ...) twice, into its struct and into a generic map from which it
// picks the extensions, and does so again for every object inside it: an
// object nested n levels deep is decoded about 2n times, and an OpenAPI
// document nests deep. decodeDocument still lets kin-openapi decode every
// object, but without the object's large members, which it then decodes the
// same way on their own, into the fields kin-openapi would have put them in.
// Every object whose decoding it does not know how to split (a $ref and its
// siblings, additionalProperties, examples, extensions, ...) is left whole to
// kin-openapi.
//
// It gives the same document as json.Unmarshal whenever json.Unmarshal
// succeeds, for JSON in which no object has two member names equal but for
// case (FuzzDecodeDocument). The embedded documents are kin-openapi's own
// rendering, and the package's tests also prove, for each, that with its
// references resolved it is the document the loader gives from the YAML
// source.
func decodeDocument(data []byte) (*openapi3.T, error) {
	return splitDecoder{minSplit: 128}.document(data)
}

// splitDecoder decodes large JSON values in parts (see decodeDocument).
type splitDecoder struct {
	// minSplit is the size from which a member of an object, or an element
	// of an array, is decoded on its own; below it kin-openapi decodes the
	// value whole, which is cheaper for small values.
	minSplit int
}

func (d splitDecoder) document(data []byte) (*openapi3.T, error) {
	// The splitting below reads structure only; json.Valid makes it safe.
	if !json.Valid(data) {
		return nil, errors.New("not valid JSON")
	}
	doc := new(openapi3.T)
	if err := d.decode(data, reflect.ValueOf(doc).Elem()); err != nil {
		return nil, err
	}
	return doc, nil
}

var (
	pathsType     = reflect.TypeFor[openapi3.Paths]()
	responsesType = reflect.TypeFor[openapi3.Responses]()
	unmarshaler   = reflect.TypeFor[json.Unmarshaler]()

	// splitStructs are the types whose UnmarshalJSON decodes the object into
	// the struct's fields and keeps the members that are not fields as
	// extensions: decoding the object without some of its members and those
	// members into their fields gives the same struct.
	splitStructs = map[reflect.Type]bool{
		reflect.TypeFor[openapi3.T]():           true,
		reflect.TypeFor[openapi3.Components]():  true,
		reflect.TypeFor[openapi3.PathItem]():    true,
		reflect.TypeFor[openapi3.Operation]():   true,
		reflect.TypeFor[openapi3.Parameter]():   true,
		reflect.TypeFor[openapi3.RequestBody](): true,
		reflect.TypeFor[openapi3.Response]():    true,
		reflect.TypeFor[openapi3.Header]():      true,
		reflect.TypeFor[openapi3.MediaType]():   true,
		reflect.TypeFor[openapi3.Schema]():      true,
	}
)

// decode decodes data into v (settable) as json.Unmarshal does.
func (d splitDecoder) decode(data []byte, v reflect.Value) error {
	t := v.Type()
	if len(data) < d.minSplit || !splittable(t) || !isComposite(data) {
		return json.Unmarshal(data, v.Addr().Interface())
	}
	switch {
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := d.decode(data, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case t == pathsType || t == responsesType:
		return d.decodeMapLike(data, v)
	case refTypes[t]:
		members, err := objectMembers(data)
		if err != nil {
			return err
		}
		for _, m := range members {
			if strings.EqualFold(m.key, "$ref") { // a reference: kin-openapi's to decode
				return json.Unmarshal(data, v.Addr().Interface())
			}
		}
		// Anything else, a Ref type's UnmarshalJSON decodes into its Value.
		return d.decode(data, v.FieldByName("Value"))
	case t.Kind() == reflect.Map:
		members, err := objectMembers(data)
		if err != nil {
			return err
		}
		m := reflect.MakeMapWithSize(t, len(members))
		for _, mem := range members {
			e := reflect.New(t.Elem()).Elem()
			if err := d.decode(mem.raw, e); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(mem.key).Convert(t.Key()), e)
		}
		v.Set(m)
		return nil
	case t.Kind() == reflect.Slice:
		elems, err := arrayElements(data)
		if err != nil {
			return err
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, raw := range elems {
			if err := d.decode(raw, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	default: // one of splitStructs
		return d.decodeStruct(data, v)
	}
}

// isComposite reports whether the JSON value is an object or an array: a
// null (or a value of the wrong kind, an error) is json.Unmarshal's.
func isComposite(data []byte) bool {
	i := skipSpace(data, 0)
	return i < len(data) && (data[i] == '{' || data[i] == '[')
}

// splittable reports whether decode can decode a value of type t in parts.
func splittable(t reflect.Type) bool {
	switch {
	case t.Kind() == reflect.Pointer:
		return splittable(t.Elem())
	case t == pathsType || t == responsesType || splitStructs[t] || refTypes[t]:
		return true
	case t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler):
		return false
	case t.Kind() == reflect.Map:
		return t.Key().Kind() == reflect.String && splittable(t.Elem())
	case t.Kind() == reflect.Slice:
		return splittable(t.Elem())
	}
	return false
}

// refTypes are kin-openapi's reference types whose value decode can split.
// Their UnmarshalJSON decodes an object with a $ref member as a reference
// and any other object into Value.
var refTypes = map[reflect.Type]bool{
	reflect.TypeFor[openapi3.HeaderRef]():      true,
	reflect.TypeFor[openapi3.ParameterRef]():   true,
	reflect.TypeFor[openapi3.RequestBodyRef](): true,
	reflect.TypeFor[openapi3.ResponseRef]():    true,
	reflect.TypeFor[openapi3.SchemaRef]():      true,
}

// decodeStruct decodes an object into one of splitStructs: kin-openapi
// decodes the object without its large members that are fields, which are
// then decoded into their fields.
func (d splitDecoder) decodeStruct(data []byte, v reflect.Value) error {
	members, err := objectMembers(data)
	if err != nil {
		return err
	}
	fields := jsonFields(v.Type())
	type split struct {
		field int
		raw   []byte
	}
	var splits []split
	light := make([]byte, 0, 256)
	light = append(light, '{')
	for _, m := range members {
		if f, ok := fields[m.key]; ok && len(m.raw) >= d.minSplit {
			splits = append(splits, split{f, m.raw})
			continue
		}
		if len(light) > 1 {
			light = append(light, ',')
		}
		light = append(light, m.rawKey...)
		light = append(light, ':')
		light = append(light, m.raw...)
	}
	light = append(light, '}')
	if err := json.Unmarshal(light, v.Addr().Interface()); err != nil {
		return err
	}
	for _, s := range splits {
		if err := d.decode(s.raw, v.Field(s.field)); err != nil {
			return err
		}
	}
	return nil
}

var fieldCache sync.Map // reflect.Type → map[string]int

// jsonFields maps the JSON names of the struct's splittable fields to their
// indexes.
func jsonFields(t reflect.Type) map[string]int {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]int)
	}
	fields := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || !f.IsExported() || name == "" || name == "-" || !splittable(f.Type) {
			continue
		}
		fields[name] = i
	}
	fieldCache.Store(t, fields)
	return fields
}

// newMapLike makes an empty Paths or Responses, as their UnmarshalJSON does.
var newMapLike = map[reflect.Type]func(n int) reflect.Value{
	pathsType:     func(n int) reflect.Value { return reflect.ValueOf(openapi3.NewPathsWithCapacity(n)) },
	responsesType: func(n int) reflect.Value { return reflect.ValueOf(openapi3.NewResponsesWithCapacity(n)) },
}

// decodeMapLike decodes Paths or Responses as their UnmarshalJSON does: the
// x- members are extensions, every other member an item.
func (d splitDecoder) decodeMapLike(data []byte, v reflect.Value) error {
	members, err := objectMembers(data)
	if err != nil {
		return err
	}
	x := newMapLike[v.Type()](len(members))
	set := x.MethodByName("Set")
	item := set.Type().In(1) // *PathItem, *ResponseRef
	ext := map[string]any{}
	for _, m := range members {
		if strings.HasPrefix(m.key, "x-") {
			var e any
			if err := json.Unmarshal(m.raw, &e); err != nil {
				return err
			}
			ext[m.key] = e
			continue
		}
		p := reflect.New(item.Elem())
		if err := d.decode(m.raw, p.Elem()); err != nil {
			return err
		}
		set.Call([]reflect.Value{reflect.ValueOf(m.key), p})
	}
	x.Elem().FieldByName("Extensions").Set(reflect.ValueOf(ext))
	v.Set(x.Elem())
	return nil
}

// member is one member of a JSON object.
type member struct {
	key    string
	rawKey []byte // the name as written, quoted
	raw    []byte // the value as written
}

// objectMembers splits a JSON object (valid JSON) into its members.
func objectMembers(data []byte) ([]member, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var members []member
	for i = skipSpace(data, i+1); i < len(data) && data[i] == '"'; {
		end := skipString(data, i)
		m := member{rawKey: data[i:end]}
		if k := m.rawKey[1 : len(m.rawKey)-1]; bytes.IndexByte(k, '\\') < 0 && utf8.Valid(k) {
			m.key = string(k)
		} else if err := json.Unmarshal(m.rawKey, &m.key); err != nil {
			return nil, err
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		end = skipValue(data, i)
		m.raw = data[i:end]
		members = append(members, m)
		if i = skipSpace(data, end); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return members, nil
}

// arrayElements splits a JSON array (valid JSON) into its elements.
func arrayElements(data []byte) ([][]byte, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, errors.New("not a JSON array")
	}
	var elems [][]byte
	for i = skipSpace(data, i+1); i < len(data) && data[i] != ']'; {
		end := skipValue(data, i)
		elems = append(elems, data[i:end])
		if i = skipSpace(data, end); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return elems, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at i.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value that starts at i.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(data); i++ { // a number, true, false or null
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
