package monitor

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"

	"github.com/tpsbench/tpsbench/record"
)

// fingerprintBlock is the bytes of text a prefix block covers: about 256
// tokens of English (Mooncake's blocks are 512 tokens, a server's prefix
// cache's 16), fine enough for the system prompts and histories that
// real traffic shares, small enough in a record (8 bytes a KiB).
const fingerprintBlock = 1024

// maxFingerprintBlocks bounds a fingerprint (a 16 MiB body has at most
// 16,384 blocks); a record holds no more.
const maxFingerprintBlocks = 16384

// fingerprinter hashes prompts with a key of its own, drawn when the proxy
// starts and never written: equal prefixes of its requests have equal
// hashes, yet no hash can be checked against a guessed text.
type fingerprinter struct{ key [16]byte }

func newFingerprinter() fingerprinter {
	var f fingerprinter
	_, _ = rand.Read(f.key[:])
	return f
}

// prefix fingerprints a prompt as sent (its messages' or prompt's JSON:
// the same text sent the same way gives the same bytes, and decoding a
// 16 MiB body's messages again cost three times its size): a hash of
// each whole block, each chained to the one before, as a server's prefix
// cache chains its own.
func (f fingerprinter) prefix(text []byte) *record.Prefix {
	p := &record.Prefix{BlockBytes: fingerprintBlock, Bytes: len(text)}
	var prev [8]byte
	for off := 0; off+fingerprintBlock <= len(text) && len(p.Blocks) < maxFingerprintBlocks; off += fingerprintBlock {
		h := sha256.New()
		h.Write(f.key[:])
		h.Write(prev[:])
		h.Write(text[off : off+fingerprintBlock])
		sum := h.Sum(nil)
		copy(prev[:], sum)
		p.Blocks = append(p.Blocks, binary.LittleEndian.Uint64(sum))
	}
	return p
}

// request is what the proxy reads of every generation request, whatever
// the API: the model, whether it streams, its budget, and whether it has
// TGI's inputs. Nothing of the prompt is copied here.
type request struct {
	Model     string `json:"model"`
	Stream    *bool  `json:"stream"`
	MaxTokens int    `json:"max_tokens"`
	// the budget's other names: Responses, llama.cpp, TGI, SGLang, Ollama
	MaxOutputTokens int `json:"max_output_tokens"`
	NPredict        int `json:"n_predict"`
	Parameters      struct {
		MaxNewTokens int `json:"max_new_tokens"`
	} `json:"parameters"`
	SamplingParams struct {
		MaxNewTokens int `json:"max_new_tokens"`
	} `json:"sampling_params"`
	Options struct {
		NumPredict int `json:"num_predict"`
	} `json:"options"`
	Inputs present `json:"inputs"` // TGI's /generate, not SGLang's
}

// present marks a field that is there, without keeping its value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// readRequest reads a request body; one the proxy cannot read still
// passes on, measured with what could be read.
func readRequest(body []byte) request {
	var r request
	_ = json.Unmarshal(body, &r)
	return r
}

// maxTokens is the request's output budget, by whichever name it has.
func (r request) maxTokens() int {
	return max(r.MaxTokens, r.MaxOutputTokens, r.NPredict, r.Parameters.MaxNewTokens, r.SamplingParams.MaxNewTokens, r.Options.NumPredict)
}

// promptOf is a request's messages or prompt as sent (its JSON), by
// whichever name its API gives it, or nil: read only when records are
// kept, as it copies the prompt.
func promptOf(body []byte) json.RawMessage {
	var r struct {
		// OpenAI's chat and Ollama's, completions and llama.cpp's, the
		// Responses API's, TGI's, SGLang's
		Messages json.RawMessage `json:"messages"`
		Prompt   json.RawMessage `json:"prompt"`
		Input    json.RawMessage `json:"input"`
		Inputs   json.RawMessage `json:"inputs"`
		Text     json.RawMessage `json:"text"`
	}
	_ = json.Unmarshal(body, &r)
	for _, p := range []json.RawMessage{r.Messages, r.Prompt, r.Input, r.Inputs, r.Text} {
		if len(p) > 0 && string(p) != "null" {
			return p
		}
	}
	return nil
}
