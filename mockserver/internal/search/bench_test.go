package search

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchRecord is a placement as a store would hand it over: a struct whose
// Value switches on the field name.
type benchRecord struct {
	id, title, firstName, schoolType, schoolYear string
	hasChildcare                                 bool
	percent                                      *int64
	startDate, endDate, archivedAt               string // "" is null
	roles                                        []string
}

func (r *benchRecord) Value(field string) (any, bool) {
	str := func(s string) (any, bool) { return s, s != "" }
	switch field {
	case "id":
		return r.id, true
	case "title":
		return r.title, true
	case "firstName":
		return r.firstName, true
	case "schoolType":
		return r.schoolType, true
	case "schoolYear":
		return str(r.schoolYear)
	case "hasChildcare":
		return r.hasChildcare, true
	case "employmentPercent":
		if r.percent == nil {
			return nil, false
		}
		return *r.percent, true
	case "startDate":
		return r.startDate, true
	case "endDate":
		return str(r.endDate)
	case "archivedAt":
		return str(r.archivedAt)
	case "roles":
		return r.roles, true
	}
	return nil, false
}

func benchRecords(n int) []*benchRecord {
	rng := rand.New(rand.NewPCG(12000, 1))
	titles := []string{"Ekskolan", "Björkskolan", "Tallgymnasiet", "Aspskolan", "Lindens förskola", "Östra gymnasiet"}
	names := []string{"Åsa Öberg", "Anna Berg", "Erik Ström", "Östen Åkesson", "Kajsa Lind", "Ärla Ek"}
	types := testFields["schoolType"].Enum
	roles := testFields["roles"].Enum
	date := func(y0, years int) string {
		return fmt.Sprintf("%04d-%02d-%02d", y0+rng.IntN(years), 1+rng.IntN(12), 1+rng.IntN(28))
	}
	recs := make([]*benchRecord, n)
	for i := range recs {
		r := &benchRecord{
			id:           fmt.Sprintf("%08x-0000-4000-8000-%012x", i, rng.Uint64()&0xffffffffffff),
			title:        titles[rng.IntN(len(titles))],
			firstName:    names[rng.IntN(len(names))],
			schoolType:   types[rng.IntN(len(types))],
			schoolYear:   fmt.Sprint(rng.IntN(10)),
			hasChildcare: rng.IntN(2) == 0,
			startDate:    date(2015, 10),
		}
		if rng.IntN(10) > 0 {
			p := int64(rng.IntN(101))
			r.percent = &p
		}
		if rng.IntN(2) == 0 {
			r.endDate = date(2024, 3)
		}
		if rng.IntN(3) == 0 {
			r.archivedAt = fmt.Sprintf("%sT%02d:%02d:00+01:00", date(2022, 4), rng.IntN(24), rng.IntN(60))
		}
		for _, role := range roles {
			if rng.IntN(3) == 0 {
				r.roles = append(r.roles, role)
			}
		}
		recs[i] = r
	}
	return recs
}

// benchFilter nests three levels and has ten conditions on fields, plus two
// nested filters.
const benchFilter = `{"filter": {
	"orCondition": false,
	"notEquals": {"schoolType": "FS"},
	"notNull": {"startDate": true},
	"nestedFilters": [{
		"orCondition": true,
		"like": {"title": "%skola%"},
		"like": {"firstName": "%ÅSA%"},
		"nestedFilters": [{
			"orCondition": false,
			"greaterOrEqual": {"employmentPercent": 50, "startDate": "2018-01-01"},
			"smallerThan": {"archivedAt": "2025-01-01T00:00:00Z"},
			"contains": {"roles": ["Teacher"]},
			"null": {"endDate": true},
			"equals": {"hasChildcare": true}
		}]
	}]
}}`

// BenchmarkMatchNested evaluates benchFilter over 100,000 records per
// iteration and reports the cost per record.
func BenchmarkMatchNested(b *testing.B) {
	const n = 100_000
	f, vs, err := Parse([]byte(benchFilter), testFields)
	if err != nil || vs != nil {
		b.Fatal(err, vs)
	}
	recs := benchRecords(n)
	maps := make([]MapRecord, n)
	for i, r := range recs {
		m := MapRecord{}
		for name := range testFields {
			if v, ok := r.Value(name); ok {
				m[name] = v
			}
		}
		maps[i] = m
	}
	b.Run("struct", func(b *testing.B) {
		matches := 0
		for b.Loop() {
			matches = 0
			for _, r := range recs {
				if f.Match(r) {
					matches++
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		b.ReportMetric(float64(matches)/n, "matched")
	})
	b.Run("map", func(b *testing.B) {
		matches := 0
		for b.Loop() {
			matches = 0
			for _, r := range maps {
				if f.Match(r) {
					matches++
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		b.ReportMetric(float64(matches)/n, "matched")
	})
}
