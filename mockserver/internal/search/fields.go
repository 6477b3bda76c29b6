package search

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Kind is the type of a searchable field. It decides which operators apply to
// the field, what value a condition on it takes, and which Go values a
// [Record] may return for it (see the package documentation).
type Kind int

// The kinds of searchable fields. A Record returns, for a non-null field:
// string for String, Enum, UUID, Date (YYYY-MM-DD) and DateTime (RFC 3339);
// bool for Bool; an integer type for Int; []string for the lists.
const (
	String Kind = iota + 1
	Enum
	UUID
	Bool
	Int
	Date
	DateTime
	StringList
	UUIDList
)

var kindNames = map[Kind]string{
	String:     "string",
	Enum:       "enum",
	UUID:       "uuid",
	Bool:       "boolean",
	Int:        "integer",
	Date:       "date",
	DateTime:   "date-time",
	StringList: "string list",
	UUIDList:   "uuid list",
}

// String names the kind as messages show it ("date-time", "uuid list").
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

func (k Kind) valid() bool { return k >= String && k <= UUIDList }

// Field describes one searchable field of a resource.
type Field struct {
	// Name is the field's name on the wire; it must equal its key in Fields.
	Name string
	// Kind is the field's type.
	Kind Kind
	// Enum lists the allowed values of an Enum field, or of the elements of a
	// StringList field; empty means any string. Values of equals, notEquals,
	// the order operators and (on lists) contains must be members.
	Enum []string
	// Nullable documents that the field may be null. It is informational:
	// null and notNull are evaluated on the record.
	Nullable bool
	// Ops, when not zero, are the only operators the field takes (the
	// vendor document lists the fields of each operator separately, e.g. a
	// name in equals and like but not in the range operators). Zero means
	// every operator that [Applies] to the kind.
	Ops OpSet
}

// OpSet is a set of operators.
type OpSet uint16

// Ops returns the set of the given operators.
func Ops(ops ...Op) OpSet {
	var s OpSet
	for _, o := range ops {
		s |= 1 << uint(o)
	}
	return s
}

// Has reports whether o is in the set.
func (s OpSet) Has(o Op) bool { return o >= 0 && o < numOps && s&(1<<uint(o)) != 0 }

// allows reports whether the field takes operator o.
func (f Field) allows(o Op) bool {
	return Applies(o, f.Kind) && (f.Ops == 0 || f.Ops.Has(o))
}

// ops lists the operators the field takes, for messages.
func (f Field) ops() []string {
	var out []string
	for o := range numOps {
		if f.allows(o) {
			out = append(out, o.String())
		}
	}
	return out
}

// Fields are the searchable fields of one resource, by name.
type Fields map[string]Field

// Check reports the first inconsistency in a field table: a key that differs
// from its Field.Name, an invalid Kind, an Enum on a kind other than Enum or
// StringList, or a repeated enum value. Call it once where the table is
// built; Parse does not repeat it.
func (fs Fields) Check() error {
	for _, name := range fs.names() {
		f := fs[name]
		switch {
		case name == "":
			return fmt.Errorf("search: a field has an empty name")
		case f.Name != name:
			return fmt.Errorf("search: field %q has Name %q", name, f.Name)
		case !f.Kind.valid():
			return fmt.Errorf("search: field %q has invalid kind %d", name, int(f.Kind))
		case len(f.Enum) > 0 && f.Kind != Enum && f.Kind != StringList:
			return fmt.Errorf("search: field %q is a %s but has an enum", name, f.Kind)
		}
		seen := map[string]bool{}
		for _, v := range f.Enum {
			if seen[v] {
				return fmt.Errorf("search: field %q repeats enum value %q", name, v)
			}
			seen[v] = true
		}
	}
	return nil
}

// names returns the field names in byte order.
func (fs Fields) names() []string {
	names := make([]string, 0, len(fs))
	for n := range fs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Op is an operator of the filter language.
type Op int

// The operators, in canonical order (the order String prints them in).
const (
	OpEquals Op = iota
	OpNotEquals
	OpGreaterThan
	OpSmallerThan
	OpGreaterOrEqual
	OpSmallerOrEqual
	OpContains
	OpNotContains
	OpLike
	OpNotLike
	OpNull
	OpNotNull
	numOps
)

// The member names of a filter object on the wire.
const (
	KeyFilter        = "filter"
	KeyOrCondition   = "orCondition"
	KeyNestedFilters = "nestedFilters"
)

var opNames = [numOps]string{
	OpEquals:         "equals",
	OpNotEquals:      "notEquals",
	OpGreaterThan:    "greaterThan",
	OpSmallerThan:    "smallerThan",
	OpGreaterOrEqual: "greaterOrEqual",
	OpSmallerOrEqual: "smallerOrEqual",
	OpContains:       "contains",
	OpNotContains:    "notContains",
	OpLike:           "like",
	OpNotLike:        "notLike",
	OpNull:           "null",
	OpNotNull:        "notNull",
}

// String is the operator's member name on the wire ("greaterOrEqual").
func (o Op) String() string {
	if o >= 0 && o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// opByName finds an operator by its wire name.
func opByName(name string) (Op, bool) {
	for o, n := range opNames {
		if n == name {
			return Op(o), true
		}
	}
	return 0, false
}

// filterKeys lists every member a filter object may have, for messages.
func filterKeys() []string {
	keys := append([]string(nil), opNames[:]...)
	return append(keys, KeyOrCondition, KeyNestedFilters)
}

func (o Op) isOrder() bool { return o >= OpGreaterThan && o <= OpSmallerOrEqual }
func (o Op) isText() bool  { return o >= OpContains && o <= OpNotLike }
func (o Op) isFlag() bool  { return o == OpNull || o == OpNotNull }

// negated reports whether o is the complement of a positive operator, and
// which.
func (o Op) negated() (Op, bool) {
	switch o {
	case OpNotEquals:
		return OpEquals, true
	case OpNotContains:
		return OpContains, true
	case OpNotLike:
		return OpLike, true
	}
	return o, false
}

// Applies reports whether operator o may be used on a field of kind k (the
// table in the package documentation).
func Applies(o Op, k Kind) bool {
	if !k.valid() || o < 0 || o >= numOps {
		return false
	}
	if o.isFlag() || o == OpEquals || o == OpNotEquals || o == OpContains || o == OpNotContains {
		return true
	}
	switch k {
	case String, Enum, Date, DateTime:
		return true
	case Int:
		return o.isOrder()
	}
	return false
}

// Group reports whether name is the prefix of dotted field names in fs
// ("meta" for "meta.updatedAt"): an operator takes such a name with an object
// of the group's fields as its value.
func (fs Fields) Group(name string) bool {
	for n := range fs {
		if strings.HasPrefix(n, name+".") {
			return true
		}
	}
	return false
}

// suggest returns the candidate that name was probably meant to be: one that
// differs only in case, or else the nearest within a small edit distance
// (one edit for names of up to four characters, two for longer ones; a swap
// of neighbours is one edit). It returns "" when none is near.
func suggest(name string, candidates []string) string {
	if i := slices.IndexFunc(candidates, func(c string) bool { return strings.EqualFold(c, name) }); i >= 0 {
		return candidates[i]
	}
	if len(name) > 64 {
		return ""
	}
	limit := 2
	if utf8.RuneCountInString(name) <= 4 {
		limit = 1
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours, by rune.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
