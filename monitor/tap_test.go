package monitor

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/record"
)

// TestTapClosedMidEvent: the reverse proxy closes an answer's body when
// its write to the client fails, before the server has noticed the
// client leave (its context still live). The tap's last piece then ends
// mid-event; it was parsed as a whole event at a clean end and the
// request recorded as malformed (8 of 16 clients leaving a fast stream).
func TestTapClosedMidEvent(t *testing.T) {
	p, err := NewProxy("http://127.0.0.1:1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	events := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" + "data: {\"choices\":[{\"delta\":{\"cont"
	for _, c := range []struct {
		name string
		body string
		want string // the failure kind, or "" for a success
	}{
		{"cut mid-event", events, record.KindCanceled},
		{"cut between events", events[:strings.Index(events, "\n\n")+2], record.KindCanceled},
		{"whole, then closed", events[:strings.Index(events, "\n\n")+2] + "data: [DONE]\n\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &measure{ctx: context.Background(), rec: &record.Record{}, api: client.APIChat, stream: true, proxy: p}
			body := io.NopCloser(strings.NewReader(c.body))
			tp := newTap(body, m, nil)
			// the proxy reads what came, writes it on, the write fails:
			// it closes the body without reading to its end
			buf := make([]byte, len(c.body))
			if _, err := io.ReadFull(tp, buf); err != nil {
				t.Fatal(err)
			}
			tp.Close()
			kind := ""
			if m.rec.Error != nil {
				kind = m.rec.Error.Kind
			}
			if kind != c.want {
				t.Errorf("recorded %+v, want kind %q", m.rec.Error, c.want)
			}
		})
	}
}

// randomReads returns a body's bytes in reads of 1 to 97 bytes: pieces
// that end anywhere in an event.
type randomReads struct {
	b   []byte
	rnd *rand.Rand
}

func (r *randomReads) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+r.rnd.IntN(97))], r.b)
	r.b = r.b[n:]
	return n, nil
}

// TestTapsInParallel: many taps at once, their pieces of every size
// sharing the batch pool, each hand its parser exactly the bytes that
// passed (a NUL nobody sent was once seen in a record's message: a
// buffer reused while still read would show here, and to the race
// detector, which sees all of the tap's code).
func TestTapsInParallel(t *testing.T) {
	p, err := NewProxy("http://127.0.0.1:1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	const events = 300
	for i := 0; i < events; i++ {
		fmt.Fprintf(&body, "data: {\"choices\":[{\"delta\":{\"content\":\"token %d\"}}]}\n\n", i)
	}
	body.WriteString("data: [DONE]\n\n")
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := &measure{ctx: context.Background(), rec: &record.Record{}, api: client.APIChat, stream: true, proxy: p}
			tp := newTap(io.NopCloser(&randomReads{b: []byte(body.String()), rnd: rand.New(rand.NewPCG(uint64(g), 1))}), m, nil)
			passed, err := io.ReadAll(tp)
			tp.Close()
			if err != nil || string(passed) != body.String() {
				t.Errorf("tap %d passed %d bytes (%v)", g, len(passed), err)
			}
			if !m.rec.OK() || len(m.rec.Chunks) != events {
				t.Errorf("tap %d: %d chunks, error %+v", g, len(m.rec.Chunks), m.rec.Error)
			}
		}()
	}
	wg.Wait()
}
