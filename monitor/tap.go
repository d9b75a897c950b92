package monitor

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/record"
)

// tap passes a response body through untouched while feeding a copy,
// with the time each piece arrived, to the measuring parser. Pieces go to
// the parser only at a later Read, when the proxy has already written and
// flushed them to the client, and in batches: waking the parser for every
// chunk cost a thread wake-up each, on the cores the chunks need. Stamps
// travel with the pieces, so parsing late changes no figure.
type tap struct {
	body    io.ReadCloser
	m       *measure
	batches chan *batch
	cur     *batch // pieces read, not yet handed over
	closed  sync.Once
	parsed  chan struct{}
	// readErr is why the upstream body ended, when not at its end (a
	// reset, a bad chunk, a body shorter than its length): the measurer
	// records it as run would, instead of an end without [DONE].
	readErr error
}

// Hand a batch over once it holds this many pieces or bytes.
const (
	batchPieces = 64
	batchBytes  = 64 << 10
)

// batch is consecutive pieces of a body: their bytes end to end, where
// each ends, and when each arrived.
type batch struct {
	data []byte
	ends []int
	ats  []time.Time
}

var batchPool = sync.Pool{New: func() any { return new(batch) }}

func newTap(body io.ReadCloser, m *measure, header http.Header) *tap {
	t := &tap{body: body, m: m, batches: make(chan *batch, 16), parsed: make(chan struct{})}
	pr := &pieceReader{ch: t.batches, err: &t.readErr}
	go func() {
		defer close(t.parsed)
		client.Measure(pr, pr.arrival, m.rec, m.proxy.clock, m.api, m.stream, client.MeasureOptions{Header: header, Tokenizer: m.proxy.counter(m.stream), OnChunk: m.proxy.chunk})
		_, _ = io.Copy(io.Discard, pr) // drain, so the tap never blocks
		if e := m.rec.Error; e != nil && e.Kind == record.KindStreamCut && (errors.Is(t.readErr, errClientLeft) || m.ctx.Err() != nil) {
			e.Kind = record.KindCanceled // the client left
		}
		m.done()
	}()
	return t
}

func (t *tap) Read(p []byte) (int, error) {
	// what earlier Reads returned is with the client by now
	if b := t.cur; b != nil && (len(b.ends) >= batchPieces || len(b.data) >= batchBytes) {
		t.batches <- b
		t.cur = nil
	}
	n, err := t.body.Read(p)
	if n > 0 {
		at := time.Now()
		if f := t.m.arrival.Load(); f != nil {
			at = (*f)()
		}
		if t.cur == nil {
			t.cur = batchPool.Get().(*batch)
		}
		t.cur.data = append(t.cur.data, p[:n]...)
		t.cur.ends = append(t.cur.ends, len(t.cur.data))
		t.cur.ats = append(t.cur.ats, at)
	}
	if err != nil {
		t.finish(err)
	}
	return n, err
}

// finish hands over what is left and ends the pieces; err, unless io.EOF,
// is why the body ended.
func (t *tap) finish(err error) {
	t.closed.Do(func() {
		if !errors.Is(err, io.EOF) {
			t.readErr = err // read by the measurer after the close below
		}
		if t.cur != nil {
			t.batches <- t.cur
			t.cur = nil
		}
		close(t.batches)
	})
}

// errClientLeft ends the pieces of a body closed before its end: the
// proxy stops reading an answer only when its client has gone. (Ended as
// if at its end, the piece cut mid-event was parsed as a whole event and
// the request recorded as malformed.)
var errClientLeft = errors.New("the client left before the response ended")

func (t *tap) Close() error {
	err := t.body.Close()
	t.finish(errClientLeft) // a no-op when the body was read to its end
	<-t.parsed
	return err
}

// pieceReader reads the tapped pieces in order, never across two in one
// Read, and remembers when the piece last read from arrived.
type pieceReader struct {
	ch    chan *batch
	err   *error // the tap's readErr, set before ch is closed
	b     *batch
	piece int // index in b of the piece being read
	off   int // bytes of b read
	last  time.Time
}

func (r *pieceReader) Read(p []byte) (int, error) {
	for r.b == nil || r.piece == len(r.b.ends) {
		if r.b != nil {
			r.b.data, r.b.ends, r.b.ats = r.b.data[:0], r.b.ends[:0], r.b.ats[:0]
			batchPool.Put(r.b)
		}
		b, ok := <-r.ch
		if !ok {
			r.b = nil
			if *r.err != nil {
				return 0, *r.err
			}
			return 0, io.EOF
		}
		r.b, r.piece, r.off = b, 0, 0
	}
	end := r.b.ends[r.piece]
	n := copy(p, r.b.data[r.off:end])
	r.off += n
	r.last = r.b.ats[r.piece]
	if r.off == end {
		r.piece++
	}
	return n, nil
}

func (r *pieceReader) arrival() time.Time { return r.last }
