package client

import (
	"io"
	"mime"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Measure reads a response body the way the client reads its own, filling
// rec's chunks, counts and outcome: for a proxy watching responses pass
// through. stamp returns when the bytes of the last read arrived; rec.Sent
// must be set. api is APIChat, APICompletions or APIOllama.
func Measure(body io.Reader, stamp func() time.Time, rec *record.Record, clock *record.Clock, api string, stream bool, contentType string) {
	st := streamState{rec: rec, clock: clock, stamp: stamp}
	ct, _, _ := mime.ParseMediaType(contentType)
	switch {
	case api == APIOllama:
		st.readNDJSON(body)
	case stream && (ct == "" || ct == "text/event-stream"):
		st.readStream(body)
	default:
		st.readWhole(body, "")
	}
	if st.err != nil {
		rec.Fail(st.kind, describe(st.err))
	}
	st.finish()
}
