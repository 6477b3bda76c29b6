package search

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// fold maps a rune to the smallest rune of its simple case-folding orbit, so
// that fold(a) == fold(b) exactly when strings.EqualFold would call the one-rune
// strings a and b equal (and when regexp's (?i) would).
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	if r < foldTableSize {
		return foldTable[r]
	}
	return foldOrbit(r)
}

// foldTable caches fold for Latin, Greek and Cyrillic (å, ä, ö and friends).
const foldTableSize = 0x500

var foldTable = func() (t [foldTableSize]rune) {
	for r := range t {
		t[r] = foldOrbit(rune(r))
	}
	return t
}()

func foldOrbit(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// pattern is a compiled, case-insensitive LIKE pattern. The text is matched by
// simulating the pattern's NFA with one bit per state (bit i: "the first i
// tokens are matched"), all states at once: one pass over the text, a few word
// operations per rune, no backtracking, so `%a%a%a%b` against a million `a`s
// costs what any other pattern of its length does. Memory is linear in the
// pattern's length.
type pattern struct {
	n      int                  // number of tokens; bit n is the accepting state
	words  int                  // uint64 words per state set
	start  []uint64             // the initial state set (state 0 and its ε-closure)
	anyRun []uint64             // bit i: token i is %
	anyOne []uint64             // bit i: token i is _
	ascii  [utf8.RuneSelf]int32 // folded ASCII rune → literal number, 0 for none
	other  []runeLit            // the other literals, by rune
	mask   []uint64             // mask[k*words:(k+1)*words]: the tokens that are literal k (k=0: none)
	pos    [][]int32            // instead of mask when it would be large: pos[k] lists the tokens that are literal k
}

// maxMaskWords bounds the memory of a pattern's literal masks.
const maxMaskWords = 4096

type runeLit struct {
	r rune
	k int32
}

type tokenKind uint8

const (
	tLit tokenKind = iota
	tOne
	tRun
)

type token struct {
	kind tokenKind
	r    rune // folded, for tLit
}

// compileLike compiles a LIKE pattern: % any run, _ one character, every
// other character itself (case folded).
func compileLike(p string) *pattern {
	var toks []token
	for _, r := range p {
		switch r {
		case '%':
			if len(toks) > 0 && toks[len(toks)-1].kind == tRun {
				continue // %% is %
			}
			toks = append(toks, token{kind: tRun})
		case '_':
			toks = append(toks, token{kind: tOne})
		default:
			toks = append(toks, token{kind: tLit, r: fold(r)})
		}
	}
	return compileTokens(toks)
}

// compileContains compiles "text occurs in the value": %text% with every
// character of text literal, % and _ included.
func compileContains(s string) *pattern {
	toks := []token{{kind: tRun}}
	for _, r := range s {
		toks = append(toks, token{kind: tLit, r: fold(r)})
	}
	if len(toks) > 1 {
		toks = append(toks, token{kind: tRun})
	}
	return compileTokens(toks)
}

func compileTokens(toks []token) *pattern {
	n := len(toks)
	p := &pattern{n: n, words: n/64 + 1}
	w := p.words
	p.start = make([]uint64, w)
	p.anyRun = make([]uint64, w)
	p.anyOne = make([]uint64, w)
	index := map[rune]int32{} // folded rune → literal number (1-based)
	for _, t := range toks {
		if _, ok := index[t.r]; t.kind == tLit && !ok {
			index[t.r] = int32(len(index) + 1)
		}
	}
	// Masks cost (literals × words) words: at most 32 KiB, else positions.
	useMask := (len(index)+1)*w <= maxMaskWords
	if useMask {
		p.mask = make([]uint64, (len(index)+1)*w)
	} else {
		p.pos = make([][]int32, len(index)+1)
	}
	for i, t := range toks {
		bit, word := uint64(1)<<(i%64), i/64
		switch t.kind {
		case tRun:
			p.anyRun[word] |= bit
		case tOne:
			p.anyOne[word] |= bit
		case tLit:
			k := index[t.r]
			if useMask {
				p.mask[int(k)*w+word] |= bit
			} else {
				p.pos[k] = append(p.pos[k], int32(i))
			}
		}
	}
	for r, k := range index {
		if r < utf8.RuneSelf {
			p.ascii[r] = k
		} else {
			p.other = append(p.other, runeLit{r, k})
		}
	}
	sort.Slice(p.other, func(i, j int) bool { return p.other[i].r < p.other[j].r })
	p.start[0] = 1
	p.closeRuns(p.start)
	return p
}

// literal returns the number of the literal that the folded rune r is, or 0.
func (p *pattern) literal(r rune) int32 {
	if r < utf8.RuneSelf {
		return p.ascii[r]
	}
	lo, hi := 0, len(p.other)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.other[m].r < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(p.other) && p.other[lo].r == r {
		return p.other[lo].k
	}
	return 0
}

// closeRuns adds the ε-moves: a state before a % may skip it. Runs of % are
// collapsed at compile time, so one step reaches the closure.
func (p *pattern) closeRuns(s []uint64) {
	var carry uint64
	for i := range s {
		m := s[i] & p.anyRun[i]
		s[i] |= m<<1 | carry
		carry = m >> 63
	}
}

// match reports whether the whole of text matches the pattern.
func (p *pattern) match(text string) bool {
	if p.words == 1 {
		return p.match1(text)
	}
	var buf [24]uint64
	var s, next, lit []uint64
	if w := p.words; 3*w <= len(buf) {
		s, next, lit = buf[:w], buf[w:2*w], buf[2*w:3*w]
	} else {
		s, next, lit = make([]uint64, w), make([]uint64, w), make([]uint64, w)
	}
	copy(s, p.start)
	for _, r := range text {
		k := p.literal(fold(r))
		var pos []int32
		if p.mask != nil {
			lit = p.mask[int(k)*p.words : (int(k)+1)*p.words]
		} else {
			pos = p.pos[k]
			for _, i := range pos {
				lit[i/64] |= 1 << (i % 64)
			}
		}
		var carry, live uint64
		for i := range s {
			adv := s[i] & (lit[i] | p.anyOne[i])
			next[i] = adv<<1 | carry | s[i]&p.anyRun[i]
			carry = adv >> 63
			live |= next[i]
		}
		for _, i := range pos {
			lit[i/64] = 0
		}
		if live == 0 {
			return false
		}
		p.closeRuns(next)
		s, next = next, s
	}
	return s[p.n/64]&(1<<(p.n%64)) != 0
}

// match1 is match for patterns of fewer than 64 tokens: the state set is one
// word and nothing is allocated.
func (p *pattern) match1(text string) bool {
	s, run, one := p.start[0], p.anyRun[0], p.anyOne[0]
	accept := uint64(1) << p.n
	// A pattern that ends in % accepts as soon as it reaches that %.
	tailRun := p.n > 0 && run&(1<<(p.n-1)) != 0
	for i := 0; i < len(text); {
		if tailRun && s&accept != 0 {
			return true
		}
		r := rune(text[i])
		if r < utf8.RuneSelf {
			i++
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(text[i:])
			i += size
			r = fold(r)
		}
		s = (s&(p.mask[p.literal(r)]|one))<<1 | s&run
		if s == 0 {
			return false
		}
		s |= (s & run) << 1
	}
	return s&accept != 0
}
