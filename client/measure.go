package client

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// MeasureOptions are what Measure needs besides the body.
type MeasureOptions struct {
	Header    http.Header // the response's (Content-Type, Content-Encoding)
	Tokenizer TextCounter // counts responses without usage, when set
	// OnChunk, when set, sees each token-bearing chunk as it is read.
	OnChunk func(rec *record.Record, tokens int)
}

// Measure reads a response body the way the client reads its own, filling
// rec's chunks, counts and outcome: for a proxy watching responses pass
// through. stamp returns when the bytes of the last read arrived; rec.Sent
// must be set. api is one of APIs.
func Measure(body io.Reader, stamp func() time.Time, rec *record.Record, clock *record.Clock, api string, stream bool, opts MeasureOptions) {
	header := opts.Header
	if enc := unaskedEncoding(header); enc != "" {
		rec.Done = clock.Now()
		rec.Fail(record.KindMalformed, unaskedEncodingMessage(enc))
		return
	}
	st := streamState{rec: rec, clock: clock, stamp: stamp, tokenizer: opts.Tokenizer, onChunk: opts.OnChunk}
	st.useAPI(api)
	st.read(body, header.Get("Content-Type"), stream)
	if st.err != nil {
		rec.Fail(st.kind, describe(st.err))
	}
	st.finish()
}

// unaskedEncoding is the body's Content-Encoding when it is one the client
// did not ask for: tpsbench sends no Accept-Encoding (compression buffers
// a stream and blurs arrival times), so a gzip body read as text would
// look like a stream cut short.
func unaskedEncoding(h http.Header) string {
	enc := strings.TrimSpace(h.Get("Content-Encoding"))
	if enc == "" || strings.EqualFold(enc, "identity") {
		return ""
	}
	return enc
}

func unaskedEncodingMessage(enc string) string {
	if len(enc) > 64 {
		enc = enc[:64] + "..."
	}
	return fmt.Sprintf("the server sent a body in Content-Encoding %q, which was not asked for (no Accept-Encoding was sent)", strings.ToValidUTF8(enc, "?"))
}
