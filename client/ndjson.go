package client

import (
	"errors"
	"fmt"
	"io"

	"github.com/tpsbench/tpsbench/record"
)

// readNDJSON consumes a stream of one JSON object a line (Ollama's),
// each stamped when its bytes arrive.
func (st *streamState) readNDJSON(body io.Reader) {
	sse := newSSEReader(body) // for its timed line reader
	defer sse.release()
	sse.tr.stamp = st.stamp
	var ci chunkInfo
	for lines := 1; ; lines++ {
		line, err := sse.readLine()
		if err != nil {
			if !st.doneSeen {
				st.rec.Done = st.clock.Now()
			}
			switch {
			case errors.Is(err, io.EOF):
				if st.rec.FinishReason == "" {
					st.fail(record.KindStreamCut, errors.New("stream ended before done: true"))
				}
			case errors.Is(err, errEventTooLong):
				st.fail(record.KindMalformed, err)
			default:
				st.fail(record.KindStreamCut, fmt.Errorf("reading stream: %w", err))
			}
			break
		}
		if len(line) == 0 {
			continue
		}
		at := st.stampOf(sse.tr.last)
		if err := st.scan(line, &ci); err != nil {
			st.rec.Done = at
			st.fail(record.KindMalformed, fmt.Errorf("line %d: %w: %.80q", lines, err, line))
			break
		}
		if ci.hasError {
			st.rec.Done = at
			st.fail(record.KindServerError, errors.New("server error mid-stream: "+unquote(ci.errMsg)))
			break
		}
		st.take(&ci, at)
		if len(ci.finish) > 0 {
			st.rec.Done = at
			st.doneSeen = true
		}
	}
}
