package store

import (
	"testing"
	"time"

	"github.com/skolkit/skolkit/model"
)

// BenchmarkGetByID looks a person up by id in a table of 100k persons (the
// page lookup every rendered reference makes).
func BenchmarkGetByID(b *testing.B) {
	ds := &Dataset{}
	for i := range 100_000 {
		ds.Persons = append(ds.Persons, model.Person{ID: id('p', i)})
	}
	s := New(func() time.Time { return epoch })
	if err := s.Load(ds); err != nil {
		b.Fatal(err)
	}
	sn := s.Read()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := sn.Person(ds.Persons[(i*7919)%len(ds.Persons)].ID); !ok {
			b.Fatal("missing")
		}
		i++
	}
}
