package client

import (
	"fmt"
	"sort"

	"github.com/tpsbench/tpsbench/record"
)

// countKinds settles the record's reasoning and tool-call tokens:
// reasoning as known apart from the chunks (reasoning >= 0), else the
// tokens of the reasoning chunks; tool calls those of their chunks, within
// what the output count leaves.
func (st *streamState) countKinds(reasoning int) {
	rec := st.rec
	var inChunks [3]int
	for _, c := range rec.Chunks {
		inChunks[c.Kind] += c.Tokens
	}
	if reasoning < 0 {
		reasoning = inChunks[record.ChunkReasoning]
	}
	rec.ReasoningTokens = min(reasoning, rec.OutputTokens)
	rec.ToolCallTokens = min(inChunks[record.ChunkToolCall], rec.OutputTokens-rec.ReasoningTokens)
}

// Usage is implausible when it claims more output tokens than any server
// could have sent in what was streamed: each token decodes to at least a
// byte of text (4 a byte leaves room for tokens of partial characters
// and for empty special tokens), and no chunk carries more than 16, plus
// the reasoning tokens usage says were hidden, up to the request's budget;
// nor fewer tokens than the chunks that carried them. A claim of 2e9 tokens over
// 8 chunks made a record of 3.7e12 tokens/s.
func (st *streamState) implausibleUsage() string {
	if !st.usageSeen {
		return ""
	}
	if st.usageFell > 0 {
		return fmt.Sprintf("cumulative usage fell from %d to %d output tokens", st.usageFell-1, st.usageTokens)
	}
	text := 0
	for _, b := range st.bytesPer {
		text += b
	}
	// hidden reasoning is what was not streamed, so only the request's
	// budget bounds it (usage of 1e9 output tokens, all "reasoning", for
	// 8 chunks and a budget of 8 made a success at 5.5e11 tokens/s)
	hidden := min(st.reasoning, record.MaxTokens)
	if st.rec.MaxTokens > 0 {
		hidden = min(hidden, st.rec.MaxTokens)
	}
	chunks := len(st.rec.Chunks) + st.rec.ChunksFolded
	limit := 4*text + 16*chunks + 64 + hidden
	if st.usageTokens > limit || st.usageTokens > record.MaxTokens {
		return fmt.Sprintf("usage claims %d output tokens for %d chunks of %d bytes of text", st.usageTokens, chunks, text)
	}
	// each token-bearing chunk carried a token (TGI's usage of 1 for 8
	// events is not a count); cumulative usage on each chunk said itself
	// what each carried
	if !st.chunkUsage && st.usageTokens < chunks {
		return fmt.Sprintf("usage claims %d output tokens for %d chunks that each carried one", st.usageTokens, chunks)
	}
	return ""
}

// fitReasoning bounds a reasoning count known apart from the chunks (or
// -1) to what n tokens shared over them allow, each chunk carrying at
// least one: no fewer than the reasoning chunks, no more than leaves one
// for each other chunk (a whole answer with usage 9 and reasoning 20 gave
// chunks of 10 tokens for 9). It shares the tokens out only: the count
// the record keeps is the server's (a chunk where the reasoning ends and
// the answer begins is an answer chunk, though one of its tokens may be
// reasoning). n is at least the chunks.
func fitReasoning(chunks []record.Chunk, n, reasoning int) int {
	if reasoning < 0 {
		return reasoning
	}
	thinking := 0
	for _, c := range chunks {
		if c.Kind == record.ChunkReasoning {
			thinking++
		}
	}
	if thinking == len(chunks) {
		return reasoning // all reasoning chunks: they take all n
	}
	return min(max(reasoning, thinking), n-(len(chunks)-thinking))
}

// apportionKinds shares n output tokens out over the chunks: with the
// reasoning tokens known (reasoning >= 0), those over the reasoning chunks
// and the rest over the others; otherwise n over all of them. Reasoning
// that was not streamed (OpenAI's hidden reasoning) was done by the first
// chunk, which carries it, so that the chunks still add up to n without
// adding to any gap between tokens; with only reasoning chunks, they take
// all n.
func apportionKinds(chunks []record.Chunk, weights []int, n, reasoning int) {
	var thinking, other []int
	for i, c := range chunks {
		if reasoning >= 0 && c.Kind == record.ChunkReasoning {
			thinking = append(thinking, i)
		} else {
			other = append(other, i)
		}
	}
	switch {
	case len(other) == 0:
		apportion(chunks, weights, thinking, n)
	case reasoning <= 0:
		apportion(chunks, weights, other, n)
	case len(thinking) == 0:
		apportion(chunks, weights, other, n-reasoning)
		chunks[0].Tokens += reasoning
	default:
		apportion(chunks, weights, thinking, reasoning)
		apportion(chunks, weights, other, n-reasoning)
	}
}

// apportion spreads n tokens over the chunks at idx in proportion to their
// text bytes (largest remainder), giving every chunk at least one token
// when n allows. It is how multi-token chunks get their share when the
// server reports only a total.
func apportion(chunks []record.Chunk, weights []int, idx []int, n int) {
	if len(idx) == 0 {
		return
	}
	if n < len(idx) {
		// Fewer tokens than token-bearing chunks: the server's count is
		// below what was streamed; keep one a chunk for timing and let
		// the record's usage count stand.
		for _, i := range idx {
			chunks[i].Tokens = 1
		}
		return
	}
	total := 0
	for _, i := range idx {
		total += max(weights[i], 1)
	}
	spare := n - len(idx) // tokens beyond one a chunk
	given := 0
	type rem struct{ i, r int }
	rems := make([]rem, len(idx))
	for j, i := range idx {
		w := max(weights[i], 1)
		extra := spare * w / total
		rems[j] = rem{i, spare * w % total}
		chunks[i].Tokens = 1 + extra
		given += extra
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for j := 0; j < spare-given; j++ {
		chunks[rems[j].i].Tokens++
	}
}
