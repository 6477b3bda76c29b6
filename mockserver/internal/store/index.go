package store

import "time"

// keySep ends every key part. Keys are built from fixed-width or
// \x00-terminated parts, so byte order of keys is the order of their parts.
const keySep = "\x00"

// RawKey is a complete key (as found in a Cursor) passed to a go-memdb
// lookup of the pages tables.
type RawKey []byte

// timeKeyLen is the length of a timeKey of a year from 0 to 9999.
const timeKeyLen = 30

// timeKey renders t as a fixed-width UTC string whose byte order is time
// order: t.UTC().Format("2006-01-02T15:04:05.000000000Z") for years 0 to
// 9999, written digit by digit because a load formats one per record.
func timeKey(t time.Time) string {
	var b [timeKeyLen]byte
	return string(appendTimeKey(b[:0], t))
}

// appendTimeKey appends timeKey(t) to dst.
func appendTimeKey(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05.000000000Z")
	}
	hour, minute, sec := t.Clock()
	at := len(dst)
	dst = append(dst, make([]byte, timeKeyLen)...)
	b := dst[at:]
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
	return dst
}

// openEndKey stands for "no endDate" in the endDate index: it sorts after every
// real date, so open-ended placements come last in ascending end-date order and
// are inside every endDate.onOrAfter range.
const openEndKey = "9999-99-99"
