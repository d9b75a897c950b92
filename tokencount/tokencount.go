// Package tokencount counts tokens on the client side, for servers that do
// not say how many they made and for sizing prompts: OpenAI's BPE
// encodings (cl100k_base, o200k_base), embedded so they work offline, and
// any model's Hugging Face tokenizer.json. It stays out of the core
// packages, which take a plain counting function.
package tokencount

import (
	"fmt"
	"os"
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/tpsbench/tpsbench/hftokenizer"
)

// Names lists the encodings available.
var Names = []string{"cl100k", "o200k"}

// Default is the encoding that counts whole (non-streamed) responses of a
// server that reports no usage, when no tokenizer is named: one chunk
// says nothing of a response's length, and cl100k is as close to a
// common tokenizer as there is.
const Default = "cl100k"

var setLoader sync.Once

// Counter counts the tokens of a text.
type Counter func(text string) int

// New returns a counter for an encoding name (cl100k, o200k, or their
// _base forms), or for a tokenizer.json (or a directory holding one).
func New(name string) (Counter, error) {
	enc := strings.TrimSuffix(strings.ToLower(name), "_base") + "_base"
	switch enc {
	case "cl100k_base", "o200k_base":
	default:
		if _, err := os.Stat(name); err != nil {
			return nil, fmt.Errorf("tokenizer %q: want cl100k, o200k or the path of a Hugging Face tokenizer.json", name)
		}
		t, err := hftokenizer.LoadHF(name)
		if err != nil {
			return nil, err
		}
		return t.Count, nil
	}
	setLoader.Do(func() { tiktoken.SetBpeLoader(loader.NewOfflineLoader()) })
	e, err := tiktoken.GetEncoding(enc)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", enc, err)
	}
	var mu sync.Mutex // the encoder's caches are not safe for concurrent use
	return func(text string) int {
		mu.Lock()
		defer mu.Unlock()
		return len(e.Encode(text, nil, nil))
	}, nil
}
