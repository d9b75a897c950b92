package trace

// prefixCache counts what a server's prefix cache could reuse of a
// trace's prompts: the blocks earlier entries had.
type prefixCache struct {
	seen map[uint64]struct{}
	max  int // maxSeenBlocks, smaller in tests
}

// maxSeenBlocks bounds the blocks remembered to count prefix reuse; past
// it, reuse of blocks not yet seen goes uncounted.
const maxSeenBlocks = 1 << 22

func newPrefixCache() prefixCache {
	return prefixCache{seen: map[uint64]struct{}{}, max: maxSeenBlocks}
}

// reuse counts the prompt tokens of e's leading blocks that an earlier
// entry had (a prefix cache reuses only a prefix: counting stops at the
// first new block), and remembers e's blocks.
func (c prefixCache) reuse(e *Entry) int {
	tokens, prefix := 0, true
	for _, id := range e.Blocks {
		_, seen := c.seen[id]
		if prefix && seen {
			tokens += e.BlockTokens
		} else {
			prefix = false
		}
		if !seen && len(c.seen) < c.max {
			c.seen[id] = struct{}{}
		}
	}
	return min(tokens, e.InputTokens)
}
