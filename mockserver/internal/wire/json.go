package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a decoded JSON object that keeps its members in document order
// (a map[string]any loses it, and encoding/json writes a map's keys sorted).
// The values in a decoded tree are nil, bool, json.Number, string, []any and
// *Object.
type Object struct {
	Members []Member
}

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of the first member named key.
func (o *Object) Get(key string) (any, bool) {
	for _, m := range o.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// String returns the value of the member named key when it is a string.
func (o *Object) String(key string) (string, bool) {
	v, _ := o.Get(key)
	s, ok := v.(string)
	return s, ok
}

// Has reports whether the object has a member named key.
func (o *Object) Has(key string) bool {
	_, ok := o.Get(key)
	return ok
}

// Set replaces the value of the member named key, or appends the member.
func (o *Object) Set(key string, v any) {
	for i, m := range o.Members {
		if m.Key == key {
			o.Members[i].Value = v
			return
		}
	}
	o.Members = append(o.Members, Member{key, v})
}

// Delete removes every member named key.
func (o *Object) Delete(key string) {
	out := o.Members[:0]
	for _, m := range o.Members {
		if m.Key != key {
			out = append(out, m)
		}
	}
	o.Members = out
}

// Decode decodes one JSON value that fills body, numbers as json.Number.
func Decode(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("wire: data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // nil, bool, json.Number or string
	}
	switch d {
	case '{':
		o := &Object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.Members = append(o.Members, Member{kt.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case '[':
		items := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		_, err := dec.Token()
		return items, err
	}
	return nil, fmt.Errorf("wire: unexpected %v", d)
}

// Encode writes v as the mock's handlers write JSON: no HTML escaping and a
// final newline.
func Encode(v any) []byte {
	var buf bytes.Buffer
	encodeValue(&buf, v)
	buf.WriteByte('\n')
	return buf.Bytes()
}

func encodeValue(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case *Object:
		buf.WriteByte('{')
		for i, m := range x.Members {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeString(buf, m.Key)
			buf.WriteByte(':')
			encodeValue(buf, m.Value)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			encodeValue(buf, item)
		}
		buf.WriteByte(']')
	case string:
		encodeString(buf, x)
	default: // nil, bool, json.Number and the values a behaviour sets
		b, err := json.Marshal(x)
		if err != nil {
			b = []byte("null")
		}
		buf.Write(b)
	}
}

func encodeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// Map applies fn to every value of the tree, children before their parent,
// and returns the tree with each value replaced by what fn returned. key is
// the name of the member holding the value ("" for an array item or the
// root).
func Map(v any, fn func(key string, v any) any) any {
	return mapValue("", v, fn)
}

func mapValue(key string, v any, fn func(string, any) any) any {
	switch x := v.(type) {
	case *Object:
		for i, m := range x.Members {
			x.Members[i].Value = mapValue(m.Key, m.Value, fn)
		}
	case []any:
		for i, item := range x {
			x[i] = mapValue("", item, fn)
		}
	}
	return fn(key, v)
}
