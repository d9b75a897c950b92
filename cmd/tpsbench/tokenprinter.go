package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/tokencount"
)

// textCounter is the client tokenizer that counts responses without
// usage: the one named, or for whole responses tokencount.Default (a
// non-streamed response is one chunk: counting chunks made it one token,
// 40 times too few). Streams without one are counted by chunks, and the
// report says so.
func textCounter(name string, stream bool) (client.TextCounter, error) {
	if name == "" {
		if stream {
			return client.TextCounter{}, nil
		}
		name = tokencount.Default
	}
	count, err := tokencount.New(name)
	if err != nil {
		return client.TextCounter{}, err
	}
	return client.TextCounter{Name: name, Count: count}, nil
}

// tokenPrinter prints each token as it arrives (docs/design.md's
// streaming example).
type tokenPrinter struct {
	w      io.Writer
	clock  *record.Clock
	n      int   // arrivals printed
	first  int64 // when the first arrival came
	prev   int64 // when the arrival before the pending one came
	tokens int   // tokens printed
	// the arrival being gathered: chunks read at once come one after
	// another with one stamp, and are shown as one arrival
	pending struct {
		at           int64
		tokens, size int
		text         strings.Builder
	}
	warmup atomic.Bool // the request streaming now is a warm-up: not shown
}

// The printer watches the run to show the measured request only: a
// warm-up (the embedded engine's) streamed its tokens first, and they were
// shown and averaged with the measured ones.
func (p *tokenPrinter) StepBegan(int, *tpsbench.Step) {}

func (p *tokenPrinter) Sent(r *record.Record) { p.warmup.Store(r.Warmup) }

func (p *tokenPrinter) Chunk(*record.Record, int) {}

func (p *tokenPrinter) Done(*record.Record) {}

// token gathers a chunk; an arrival is printed once a chunk of a later
// read starts the next (or at the end).
func (p *tokenPrinter) token(at int64, tokens int, text string) {
	if p.warmup.Load() {
		return
	}
	if p.pending.size > 0 && at != p.pending.at {
		p.flush()
	}
	p.pending.at = at
	p.pending.tokens += max(tokens, 1)
	p.pending.size++
	p.pending.text.WriteString(text)
}

// flush prints the pending arrival: its tokens, its text, and its instant
// TPS (its tokens over the gap since the arrival before).
func (p *tokenPrinter) flush() {
	a := &p.pending
	if a.size == 0 {
		return
	}
	label := strconv.Itoa(p.tokens + 1)
	if a.tokens > 1 {
		label = fmt.Sprintf("%d-%d", p.tokens+1, p.tokens+a.tokens)
	}
	inst := "(first)"
	if p.n == 0 {
		p.first = a.at
		fmt.Fprintf(p.w, "%6s  %-24s %12s\n", "token", "text", "instant TPS")
	} else {
		inst = fmt.Sprintf("%.1f", float64(a.tokens)/(float64(a.at-p.prev)/1e9))
	}
	if a.size > 1 {
		inst += fmt.Sprintf("  (%d chunks in one read)", a.size)
	}
	fmt.Fprintf(p.w, "%6s  %-24q %12s\n", label, a.text.String(), inst)
	p.n++
	p.tokens += a.tokens
	p.prev = a.at
	a.tokens, a.size = 0, 0
	a.text.Reset()
}

func (p *tokenPrinter) summary() {
	p.flush()
	if p.n > 1 {
		fmt.Fprintf(p.w, "Streamed %d arrivals; average TPS after the first token: %.2f tokens/s\n\n",
			p.n, float64(p.tokens-1)/(float64(p.prev-p.first)/1e9))
	} else {
		fmt.Fprintln(p.w)
	}
}
