package client

import (
	"fmt"

	"github.com/tpsbench/tpsbench/record"
)

// finishOutputless settles a request that generates nothing: it
// completed when the answer held one answer (a vector, a score) for each
// input.
func (st *streamState) finishOutputless() {
	rec := st.rec
	rec.OutputTokens, rec.Chunks, rec.First, rec.Last = 0, nil, 0, 0
	// an answer of nothing completes nothing, whatever the record says was
	// asked (a record filled by hand may say 0)
	if rec.Error == nil && (st.answers != rec.Inputs || st.answers == 0) {
		rec.Fail(record.KindMalformed, fmt.Sprintf("asked for %d %s, the answer held %d", rec.Inputs, st.api.answers, st.answers))
	}
}
