package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxJSONDepth bounds how deep the tree keeps JSON values. The filter walker
// never looks deeper than MaxDepth filters of three levels each, so anything
// below this is kept as its type alone (enough for "must be a string").
const maxJSONDepth = 4*MaxDepth + 8

// jsonType is the type of a JSON value.
type jsonType int

const (
	jNull jsonType = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (t jsonType) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[t]
}

// node is a decoded JSON value that keeps the order of object members and
// their duplicates, which map[string]any loses.
type node struct {
	typ     jsonType
	b       bool
	num     json.Number
	str     string
	members []member // jObject, in document order
	items   []*node  // jArray
}

type member struct {
	key string
	val *node
}

// decodeJSON decodes one JSON value that fills body. The error says where
// the body stops being JSON.
func decodeJSON(body []byte) (*node, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("search: the request body is empty; it must be a JSON object with a filter")
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		if err == nil { // cannot happen: Valid and Unmarshal share a scanner
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("search: the request body is not valid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	n, err := decodeValue(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("search: the request body is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("search: the request body has data after its JSON value")
	}
	return n, nil
}

func decodeValue(dec *json.Decoder, depth int) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{typ: jNull}, nil
	case bool:
		return &node{typ: jBool, b: t}, nil
	case json.Number:
		return &node{typ: jNumber, num: t}, nil
	case string:
		return &node{typ: jString, str: t}, nil
	case json.Delim:
		n := &node{typ: jObject}
		if t == '[' {
			n.typ = jArray
		}
		if depth >= maxJSONDepth {
			return n, skipRest(dec)
		}
		for dec.More() {
			if n.typ == jObject {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{key, v})
			} else {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// skipRest consumes the rest of the array or object whose opening delimiter
// was just read, without recursion.
func skipRest(dec *json.Decoder) error {
	for open := 1; open > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '[' || d == '{' {
				open++
			} else {
				open--
			}
		}
	}
	return nil
}

// pointer is an RFC 6901 JSON Pointer under construction.
type pointer string

func (p pointer) key(k string) pointer {
	k = strings.ReplaceAll(k, "~", "~0")
	return p + "/" + pointer(strings.ReplaceAll(k, "/", "~1"))
}

func (p pointer) index(i int) pointer { return p + pointer(fmt.Sprintf("/%d", i)) }
