package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skolkit/skolkit/model"
)

// The loader decodes a yaml.Node tree itself instead of calling
// yaml.Node.Decode: that way every problem keeps the line and column of its
// node, decoding goes on after a problem so that all of them are reported at
// once, and every decoded value's node is remembered by its path
// ("records.persons[2].civicNo") for the checks that run afterwards.
//
// Field names come from the yaml tag, else the json tag (so the model's wire
// types, which have json tags only, can be embedded in the format as they
// are). Strings accept any scalar, numbers and booleans only their own YAML
// types, dates and date-times are checked as they are decoded, and so are the
// values of the model's enumerated types.

// maxNodes bounds the values of one document, and maxAliasNodes those
// reached through YAML aliases (a guard against alias bombs).
const (
	maxNodes      = 1 << 22
	maxAliasNodes = 1 << 16
)

// nodeDecoder is implemented by types with their own YAML shape.
type nodeDecoder interface {
	decodeYAML(d *decoder, n *yaml.Node, path string)
}

type decoder struct {
	file     string
	problems []Problem
	// nodes maps the path of every decoded value to its node (aliases
	// resolved).
	nodes map[string]*yaml.Node
	// failed holds the paths whose values could not be decoded, so that the
	// checks do not report them again (as missing, for example).
	failed map[string]bool
	budget int
	// aliasDepth counts the aliases being expanded, aliasBudget the values
	// that may still be reached through them.
	aliasDepth, aliasBudget int
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, nodes: map[string]*yaml.Node{}, failed: map[string]bool{}, budget: maxNodes, aliasBudget: maxAliasNodes}
}

// errorf records a problem at node n (nil: no position).
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	p := Problem{File: d.file, Path: path, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		p.Line, p.Column = n.Line, n.Column
	}
	d.problems = append(d.problems, p)
}

// fail records a problem with the value at path, which is then left unset.
func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.failed[path] = true
	d.errorf(n, path, format, args...)
}

// at returns the node of path, or of its nearest decoded ancestor (the
// mapping that lacks a required key, for example).
func (d *decoder) at(path string) *yaml.Node {
	for {
		if n, ok := d.nodes[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return d.nodes[""]
		}
		path = path[:i]
	}
}

// present reports whether the document gave a non-null value at path.
func (d *decoder) present(path string) bool {
	n, ok := d.nodes[path]
	return ok && !isNull(n)
}

// problem records a problem at the node of path (or its nearest ancestor)
// unless the value at path already failed to decode.
func (d *decoder) problem(path, format string, args ...any) {
	if d.failed[path] {
		return
	}
	d.errorf(d.at(path), path, format, args...)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// decode decodes n into v (settable), recording n under path.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind == yaml.AliasNode {
		d.aliasDepth++
		defer func() { d.aliasDepth-- }()
		// Decode the anchored node, but report problems with it where the
		// alias uses it.
		use := *resolve(n)
		use.Line, use.Column = n.Line, n.Column
		n = &use
	}
	d.budget--
	if d.aliasDepth > 0 {
		d.aliasBudget--
	}
	if d.budget < 0 || d.aliasBudget < 0 {
		if d.budget == -1 || d.aliasBudget == -1 {
			d.fail(n, path, "document too large: it expands to more than %d values (%d through aliases)", maxNodes, maxAliasNodes)
		}
		return
	}
	d.nodes[path] = n
	if isNull(n) {
		return // an explicit null is the same as leaving the key out
	}
	if v.CanAddr() {
		if nd, ok := v.Addr().Interface().(nodeDecoder); ok {
			nd.decodeYAML(d, n, path)
			return
		}
	}
	t := v.Type()
	switch {
	case t == timeType:
		s, ok := d.scalar(n, path, "an RFC 3339 date-time")
		if !ok {
			return
		}
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			d.fail(n, path, "%q is not an RFC 3339 date-time (like 2026-03-14T08:15:00+01:00)", s)
			return
		}
		v.Set(reflect.ValueOf(tm))
		return
	case t == dateType:
		s, ok := d.scalar(n, path, "a date (YYYY-MM-DD)")
		if !ok {
			return
		}
		if _, err := model.ParseDate(s); err != nil {
			d.fail(n, path, "%q is not a date (YYYY-MM-DD)", s)
			return
		}
		v.SetString(s)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		e := reflect.New(t.Elem())
		d.decode(n, path, e.Elem())
		if !d.failed[path] {
			v.Set(e)
		}
	case reflect.Struct:
		d.decodeStruct(n, path, v)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "expected a list, got %s", describe(n))
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, fmt.Sprintf("%s[%d]", path, i), s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.fail(n, path, "expected a mapping, got %s", describe(n))
			return
		}
		m := reflect.MakeMapWithSize(t, len(n.Content)/2)
		d.eachKey(n, path, func(key string, kn, vn *yaml.Node) {
			e := reflect.New(t.Elem()).Elem()
			d.decode(vn, path+"."+key, e)
			m.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), e)
		})
		v.Set(m)
	case reflect.String:
		s, ok := d.scalar(n, path, "a string")
		if !ok {
			return
		}
		if e, ok := enums[t]; ok && !slices.Contains(e.values, s) {
			d.fail(n, path, "%q is not %s; one of %s", s, e.noun, strings.Join(e.values, ", "))
			return
		}
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			d.fail(n, path, "expected an integer, got %s", describe(n))
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.fail(n, path, "%s is out of range", n.Value)
		}
	case reflect.Float64:
		if tag := n.ShortTag(); n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") {
			d.fail(n, path, "expected a number, got %s", describe(n))
			return
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.fail(n, path, "%s is not a number", n.Value)
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			d.fail(n, path, "expected true or false, got %s", describe(n))
			return
		}
		v.SetBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	default:
		panic("scenarios: no decoding for " + t.String())
	}
}

// scalar returns the text of a scalar node, or records a problem.
func (d *decoder) scalar(n *yaml.Node, path, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "expected %s, got %s", want, describe(n))
		return "", false
	}
	return n.Value, true
}

// eachKey calls f for every key of a mapping, reporting keys that are not
// scalars and keys given twice.
func (d *decoder) eachKey(n *yaml.Node, path string, f func(key string, kn, vn *yaml.Node)) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			d.errorf(kn, path, "a key must be a plain string, got %s", describe(kn))
			continue
		}
		if first, dup := seen[kn.Value]; dup {
			d.errorf(kn, join(path, kn.Value), "duplicate key %q (first at line %d)", kn.Value, first.Line)
			continue
		}
		seen[kn.Value] = kn
		f(kn.Value, kn, vn)
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, path string, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	fields := fieldsOf(v.Type())
	d.eachKey(n, path, func(key string, kn, vn *yaml.Node) {
		i, ok := fields.index[key]
		if !ok {
			d.errorf(kn, join(path, key), "unknown key %q%s", key, suggest(key, fields.names))
			return
		}
		d.decode(vn, join(path, key), v.Field(i))
	})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

type structFields struct {
	index map[string]int
	names []string
}

var fieldCache sync.Map // reflect.Type -> *structFields

// fieldsOf returns the YAML keys of a struct type's fields.
func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{index: map[string]int{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, ok := sf.Tag.Lookup("yaml")
		if !ok {
			tag = sf.Tag.Get("json")
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.index[name] = i
		f.names = append(f.names, name)
	}
	fieldCache.Store(t, f)
	return f
}

// suggest names the closest known key, or lists them all.
func suggest(key string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return fmt.Sprintf("; did you mean %q?", k)
		}
		if dist := editDistance(strings.ToLower(key), strings.ToLower(k)); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return "; known keys: " + strings.Join(known, ", ")
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// describe names a node's kind and value for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		case "!!timestamp":
			return "the date " + n.Value
		default:
			return "the string " + strconv.Quote(n.Value)
		}
	}
	return "an unexpected YAML node"
}

var (
	timeType = reflect.TypeFor[time.Time]()
	dateType = reflect.TypeFor[model.Date]()
)

type enum struct {
	noun   string
	values []string
}

func enumOf[T ~string](noun string, values []T) enum {
	e := enum{noun: noun, values: make([]string, len(values))}
	for i, v := range values {
		e.values[i] = string(v)
	}
	return e
}

// enums are the string types whose values the decoder checks.
var enums = map[reflect.Type]enum{
	reflect.TypeFor[model.SchoolType]():              enumOf("a school type", model.SchoolTypes),
	reflect.TypeFor[model.SecurityMarking]():         enumOf("a security marking", model.SecurityMarkings),
	reflect.TypeFor[model.Sex]():                     enumOf("a sex", model.Sexes),
	reflect.TypeFor[model.PersonStatus]():            enumOf("a person status", model.PersonStatuses),
	reflect.TypeFor[model.PersonAddressType]():       enumOf("a person address type", model.PersonAddressTypes),
	reflect.TypeFor[model.OrganisationAddressType](): enumOf("an organisation address type", model.OrganisationAddressTypes),
	reflect.TypeFor[model.EmailType]():               enumOf("an e-mail type", model.EmailTypes),
	reflect.TypeFor[model.PhoneType]():               enumOf("a phone type", model.PhoneTypes),
	reflect.TypeFor[model.RelationType]():            enumOf("a relation type", model.RelationTypes),
	reflect.TypeFor[model.GroupType]():               enumOf("a group type", model.GroupTypes),
	reflect.TypeFor[model.PlacementReason]():         enumOf("a placement reason", model.PlacementReasons),
	reflect.TypeFor[model.Curriculum]():              enumOf("a curriculum", model.Curricula),
	reflect.TypeFor[model.AbsenceType]():             enumOf("an absence type", model.AbsenceTypes),
	reflect.TypeFor[ListShape]():                     enumOf("a list shape", []ListShape{ListShapeData, ListShapeResultArray}),
}
