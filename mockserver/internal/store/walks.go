package store

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

const (
	// defaultWalkCapacity bounds how many page-token walks keep a snapshot.
	defaultWalkCapacity = 256
	// defaultWalkIdle is how long an unused walk keeps its snapshot.
	defaultWalkIdle = 10 * time.Minute
)

// walkRegistry keeps the snapshots that page-token walks read from, so that a
// walk sees the data as it was at its first page: every record that matched
// then is returned exactly once, whatever is written meanwhile. It is bounded
// in count (least recently used goes first) and in idle time; a walk whose
// snapshot is gone continues on the live data.
type walkRegistry struct {
	mu    sync.Mutex
	cap   int
	idle  time.Duration
	walks map[string]*walk
}

type walk struct {
	sn       *Snapshot
	lastUsed time.Time
}

func newWalkRegistry(capacity int, idle time.Duration) *walkRegistry {
	return &walkRegistry{cap: capacity, idle: idle, walks: map[string]*walk{}}
}

// KeepWalk registers sn for a page-token walk and returns the walk's id.
func (s *Store) KeepWalk(sn *Snapshot) string {
	r := s.walks
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire(now)
	if len(r.walks) >= r.cap {
		var oldest string
		for k, w := range r.walks {
			if oldest == "" || w.lastUsed.Before(r.walks[oldest].lastUsed) {
				oldest = k
			}
		}
		delete(r.walks, oldest)
	}
	r.walks[id] = &walk{sn: sn, lastUsed: now}
	return id
}

// Walk returns the snapshot of a walk, or a fresh snapshot of the live data
// when the walk is unknown or expired. kept reports which.
func (s *Store) Walk(id string) (sn *Snapshot, kept bool) {
	r := s.walks
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire(now)
	if w, ok := r.walks[id]; ok {
		w.lastUsed = now
		return w.sn, true
	}
	return s.Read(), false
}

// EndWalk forgets a walk that reached its last page.
func (s *Store) EndWalk(id string) {
	s.walks.mu.Lock()
	delete(s.walks.walks, id)
	s.walks.mu.Unlock()
}

func (r *walkRegistry) expire(now time.Time) {
	for k, w := range r.walks {
		if now.Sub(w.lastUsed) > r.idle {
			delete(r.walks, k)
		}
	}
}
