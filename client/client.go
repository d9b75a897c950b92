// Package client speaks LLM servers' HTTP protocols and fills one
// record.Record per request, stamping every chunk when its bytes arrive,
// before any JSON decoding.
package client

import (
	"context"
	"strings"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/record"
)

// Message is one chat message: the workload's own type, so items go to
// the server unconverted.
type Message = content.Message

// Media is an image sent with a prompt, as the workload made it.
type Media = content.Media

// Request is what to ask the server for.
type Request struct {
	Model     string
	Prompt    string    // the prompt (completions), or the user message when Messages is empty (chat)
	Messages  []Message // chat history, when given
	MaxTokens int
	// OnChunk, when set, sees each token-bearing chunk as it is read,
	// with the tokens it carries by then (rec.Streamed adds them up). It
	// runs on the reading goroutine: it must be quick.
	OnChunk func(rec *record.Record, tokens int)
	// Media (images, audio, video) go with the last user message, as
	// parts of its content (an API whose protocol has media: OpenAI's
	// chat), or are the audio a transcription request sends.
	Media []Media
	// Answer, when set, receives the answer's text (not its reasoning) as
	// it is read: a session sends it back as the next turn's history.
	Answer *strings.Builder
	// Inputs are a batch of texts for an API that takes several and
	// generates nothing (embeddings); Prompt alone is the one input
	// when it is empty.
	Inputs []string
	// Hold, when set, makes the request's send someone else's to time:
	// once the request is ready to go (its body built, a connection in
	// hand), Do calls it with the write that sends it, and goes on once
	// it returns; false says the write was not made (the request is
	// abandoned). A request whose send may wait on the server (an
	// upload, a connection to dial) calls it with nil and goes by
	// itself. It is called at most once; a client that cannot hold its
	// sends never calls it.
	Hold func(write func()) (written bool)
}

// Client sends one request and fills rec with its timeline, counts and
// outcome. A Client never retries: a retry would falsify the figures. Do
// never returns an error; failures are recorded in rec.Error.
//
// Clock is the clock Do stamps records with (nil: the caller's own). A
// record's stamps are offsets on one clock, so a run schedules requests
// on it too, and measures the client's lag in starting them truly.
type Client interface {
	Do(ctx context.Context, req *Request, rec *record.Record)
	Clock() *record.Clock
}

// TokenFunc, when set, is called as each token-bearing chunk arrives, with
// its position and decoded text; it runs on the request's goroutine and
// should be quick.
type TokenFunc func(at int64, tokens int, text string)
