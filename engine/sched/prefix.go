package sched

import (
	"container/list"
	"encoding/binary"
	"hash/maphash"
	"slices"

	"github.com/tpsbench/tpsbench/engine/llama"
)

// BlockSize is the number of tokens a prefix-cache block holds.
const BlockSize = 16

// prefixCache keeps the KV cache of full prompt blocks, keyed as vLLM keys
// them: a block's hash chains the previous block's hash with its own
// tokens, so equal hashes mean equal prefixes (the tokens are compared too,
// against collisions). Least recently used blocks go first when the memory
// budget is reached.
type prefixCache struct {
	budget int // bytes
	used   int
	seed   maphash.Seed
	blocks map[uint64]*list.Element
	lru    *list.List // front: most recently used

	queries, hits uint64 // tokens
}

type block struct {
	hash   uint64
	tokens []int
	kv     []byte // the positions' cache, as llama.Sequence.ExportKV gives it
}

func newPrefixCache(budget int) *prefixCache {
	return &prefixCache{budget: budget, seed: maphash.MakeSeed(), blocks: map[uint64]*list.Element{}, lru: list.New()}
}

func (c *prefixCache) chain(parent uint64, tokens []int) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], parent)
	h.Write(b[:])
	for _, t := range tokens {
		binary.LittleEndian.PutUint64(b[:], uint64(t))
		h.Write(b[:])
	}
	return h.Sum64()
}

// cacheable is how many of a prompt's tokens may come from the cache: whole
// blocks, leaving at least the last token to be fed (its logits start the
// generation).
func cacheable(prompt []int) int { return (len(prompt) - 1) / BlockSize * BlockSize }

// restore imports the longest cached prefix of prompt into seq and returns
// how many tokens it covers.
func (c *prefixCache) restore(seq *llama.Sequence, prompt []int) int {
	c.queries += uint64(len(prompt))
	var parent uint64
	n := 0
	for n+BlockSize <= cacheable(prompt) {
		toks := prompt[n : n+BlockSize]
		h := c.chain(parent, toks)
		el, ok := c.blocks[h]
		if !ok || !slices.Equal(el.Value.(*block).tokens, toks) {
			break
		}
		if seq.ImportKV(el.Value.(*block).kv, BlockSize) != nil {
			break
		}
		c.lru.MoveToFront(el)
		parent = h
		n += BlockSize
	}
	c.hits += uint64(n)
	return n
}

// store keeps the prompt's full blocks that seq has computed.
func (c *prefixCache) store(seq *llama.Sequence, prompt []int, kvBytes int) {
	var parent uint64
	size := BlockSize * kvBytes
	for n := 0; n+BlockSize <= cacheable(prompt) && n+BlockSize <= seq.Pos(); n += BlockSize {
		toks := prompt[n : n+BlockSize]
		h := c.chain(parent, toks)
		parent = h
		if el, ok := c.blocks[h]; ok {
			c.lru.MoveToFront(el)
			continue
		}
		if size > c.budget {
			return
		}
		for c.used+size > c.budget {
			c.evict()
		}
		b := &block{hash: h, tokens: slices.Clone(toks), kv: seq.ExportKV(make([]byte, 0, size), n, n+BlockSize)}
		c.blocks[h] = c.lru.PushFront(b)
		c.used += size
	}
}

func (c *prefixCache) evict() {
	el := c.lru.Back()
	b := el.Value.(*block)
	c.lru.Remove(el)
	delete(c.blocks, b.hash)
	c.used -= len(b.kv)
}
