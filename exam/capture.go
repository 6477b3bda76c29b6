package exam

import (
	"sync"

	"github.com/skolkit/skolkit/rules"
)

// SpecRef is the sentence a finding rests on and where it stands.
type SpecRef = rules.SpecRef

// Exchange is one request of the client and the mock's answer, as they
// went over the wire.
type Exchange = rules.Exchange

// maxCaptureBody is how much of a body the capture keeps: a list page of
// a thousand records fits.
const maxCaptureBody = 8 << 20

// exchangeLog holds the exchanges of one scene, in arrival order.
type exchangeLog struct {
	mu  sync.Mutex
	seq uint64
	all []*Exchange
}

func (l *exchangeLog) add(ex *Exchange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	ex.Seq = l.seq
	l.all = append(l.all, ex)
}

// since returns the exchanges from the nth on.
func (l *exchangeLog) since(n int) []*Exchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Exchange(nil), l.all[n:]...)
}

func (l *exchangeLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all)
}

// surfaceOf classifies a path: the surface and the path relative to it
// ("" for the control plane's and other paths).
func surfaceOf(path string) (rules.Surface, string) {
	s, rel, ok := rules.DefaultPrefixes().Classify(path)
	if !ok {
		return "", path
	}
	return s, rel
}
