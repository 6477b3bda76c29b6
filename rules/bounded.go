package rules

import "container/list"

// Bounded is a map that keeps at most a number of entries: putting one
// more evicts the least recently put or touched, and counts the drop. It is
// not safe for concurrent use (the judge's lock guards the History).
type Bounded[K comparable, V any] struct {
	max     int
	order   *list.List // of K, most recent at the back
	entries map[K]*boundedEntry[V]
	dropped int
}

type boundedEntry[V any] struct {
	v   V
	pos *list.Element
}

// NewBounded makes a Bounded of at most n entries (at least 1).
func NewBounded[K comparable, V any](n int) *Bounded[K, V] {
	return &Bounded[K, V]{max: max(1, n), order: list.New(), entries: map[K]*boundedEntry[V]{}}
}

// Get returns the value of k and marks it recently used.
func (b *Bounded[K, V]) Get(k K) (V, bool) {
	e, ok := b.entries[k]
	if !ok {
		var zero V
		return zero, false
	}
	b.order.MoveToBack(e.pos)
	return e.v, true
}

// Peek returns the value of k without marking it used.
func (b *Bounded[K, V]) Peek(k K) (V, bool) {
	e, ok := b.entries[k]
	if !ok {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put sets the value of k, evicting the least recently used entry when
// full.
func (b *Bounded[K, V]) Put(k K, v V) {
	if e, ok := b.entries[k]; ok {
		e.v = v
		b.order.MoveToBack(e.pos)
		return
	}
	if len(b.entries) >= b.max {
		oldest := b.order.Front()
		delete(b.entries, oldest.Value.(K))
		b.order.Remove(oldest)
		b.dropped++
	}
	b.entries[k] = &boundedEntry[V]{v: v, pos: b.order.PushBack(k)}
}

// Delete removes k.
func (b *Bounded[K, V]) Delete(k K) {
	if e, ok := b.entries[k]; ok {
		b.order.Remove(e.pos)
		delete(b.entries, k)
	}
}

// Len is the number of entries.
func (b *Bounded[K, V]) Len() int { return len(b.entries) }

// Dropped is how many entries were evicted to make room.
func (b *Bounded[K, V]) Dropped() int { return b.dropped }

// Each calls f for every entry, least recently used first, until f returns
// false.
func (b *Bounded[K, V]) Each(f func(K, V) bool) {
	for e := b.order.Front(); e != nil; e = e.Next() {
		k := e.Value.(K)
		if !f(k, b.entries[k].v) {
			return
		}
	}
}
