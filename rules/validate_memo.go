package rules

import (
	"hash/maphash"
	"slices"
	"sync"
)

// validationMemo remembers what validating an answer against its
// operation found, for answers met again: the same operation, status,
// content type, documented headers and body bytes validate the same. A
// client that reads the same records over and over (a tap in front of a
// polling integration, a runner's repeated reads) has each validated once.
// It is bounded, and safe for concurrent use.
type validationMemo struct {
	seed    maphash.Seed
	mu      sync.Mutex
	entries *Bounded[memoKey, []string]
}

type memoKey struct {
	op     *Operation
	status int
	sum    uint64
}

// memoEntries bounds the answers remembered.
const memoEntries = 4096

func newValidationMemo() *validationMemo {
	return &validationMemo{seed: maphash.MakeSeed(), entries: NewBounded[memoKey, []string](memoEntries)}
}

// validate is ValidateResponse, remembered.
func (m *validationMemo) validate(o *Observation) []string {
	if m == nil || o.Op == nil || o.Op.route == nil {
		return ValidateResponse(o)
	}
	key := memoKey{op: o.Op, status: o.Status, sum: m.sum(o)}
	m.mu.Lock()
	problems, ok := m.entries.Get(key)
	m.mu.Unlock()
	if ok {
		return problems
	}
	problems = ValidateResponse(o)
	m.mu.Lock()
	m.entries.Put(key, problems)
	m.mu.Unlock()
	return problems
}

// sum hashes what the validation reads besides the operation and status:
// the content type, the headers the operation documents for the status,
// and the body.
func (m *validationMemo) sum(o *Observation) uint64 {
	var h maphash.Hash
	h.SetSeed(m.seed)
	for _, v := range o.ResponseHeader["Content-Type"] {
		h.WriteString(v)
		h.WriteByte(0)
	}
	resp := o.Op.route.Operation.Responses.Status(o.Status)
	if resp == nil {
		resp = o.Op.route.Operation.Responses.Default()
	}
	if resp != nil && resp.Value != nil {
		names := make([]string, 0, len(resp.Value.Headers))
		for name := range resp.Value.Headers {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			h.WriteString(name)
			h.WriteByte(1)
			for _, v := range o.ResponseHeader.Values(name) {
				h.WriteString(v)
				h.WriteByte(0)
			}
		}
	}
	h.WriteByte(2)
	h.Write(o.ResponseBody)
	return h.Sum64()
}
