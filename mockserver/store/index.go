package store

import (
	"fmt"
	"time"
)

// keySep ends every key part. Keys are built from fixed-width or
// \x00-terminated parts, so byte order of keys is the order of their parts.
const keySep = "\x00"

// RawKey is a complete index key (as found in a Cursor) passed to an index
// lookup in place of the values it was built from.
type RawKey []byte

// fieldIndex indexes a record by zero or more string values that fn extracts.
// go-memdb appends the record's primary key to every value of a non-unique
// index, so the stored key is value\x00id\x00 and records with equal values are
// ordered by id.
type fieldIndex struct {
	fn func(obj any) []string
}

// singleIndex is a fieldIndex that yields at most one value per record.
type singleIndex struct{ fieldIndex }

// multiIndex is a fieldIndex that may yield many values per record.
type multiIndex struct{ fieldIndex }

func (ix singleIndex) FromObject(obj any) (bool, []byte, error) {
	vals := ix.fn(obj)
	if len(vals) == 0 {
		return false, nil, nil
	}
	return true, []byte(vals[0] + keySep), nil
}

func (ix multiIndex) FromObject(obj any) (bool, [][]byte, error) {
	vals := ix.fn(obj)
	if len(vals) == 0 {
		return false, nil, nil
	}
	keys := make([][]byte, len(vals))
	for i, v := range vals {
		keys[i] = []byte(v + keySep)
	}
	return true, keys, nil
}

// FromArgs builds a key from one string value, or passes a RawKey through.
func (fieldIndex) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("index takes one argument, got %d", len(args))
	}
	switch a := args[0].(type) {
	case string:
		return []byte(a + keySep), nil
	case RawKey:
		return []byte(a), nil
	default:
		return nil, fmt.Errorf("index argument must be a string or RawKey, got %T", args[0])
	}
}

// PrefixFromArgs selects every record whose value equals the argument.
func (ix fieldIndex) PrefixFromArgs(args ...any) ([]byte, error) { return ix.FromArgs(args...) }

func one(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// timeKey renders t as a fixed-width UTC string whose byte order is time
// order: t.UTC().Format("2006-01-02T15:04:05.000000000Z") for years 0 to
// 9999, written digit by digit because a load formats one per record.
func timeKey(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format("2006-01-02T15:04:05.000000000Z")
	}
	hour, minute, sec := t.Clock()
	var b [30]byte
	digits := func(at, width, v int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	digits(0, 4, year)
	b[4] = '-'
	digits(5, 2, int(month))
	b[7] = '-'
	digits(8, 2, day)
	b[10] = 'T'
	digits(11, 2, hour)
	b[13] = ':'
	digits(14, 2, minute)
	b[16] = ':'
	digits(17, 2, sec)
	b[19] = '.'
	digits(20, 9, t.Nanosecond())
	b[29] = 'Z'
	return string(b[:])
}

// openEndKey stands for "no endDate" in the endDate index: it sorts after every
// real date, so open-ended placements come last in ascending end-date order and
// are inside every endDate.onOrAfter range.
const openEndKey = "9999-99-99"
