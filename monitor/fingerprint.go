package monitor

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"

	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
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

// prefix fingerprints a prompt's text: a hash of each whole block, each
// chained to the one before, as a server's prefix cache chains its own.
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

// promptOf is a request's prompt as the server reads it in order: each
// chat message's role and text, or a completion's prompt (token ids stand
// as their JSON); raw is the messages or the prompt as sent, nil when the
// body has neither.
func promptOf(body []byte) (text []byte, raw json.RawMessage) {
	var req struct {
		Messages json.RawMessage `json:"messages"`
		Prompt   json.RawMessage `json:"prompt"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil, nil
	}
	raw = req.Messages
	if len(raw) == 0 {
		raw = req.Prompt
	}
	if len(raw) == 0 {
		return nil, nil
	}
	it, err := workload.ParsePrompt(raw)
	if err != nil {
		return raw, raw
	}
	if it.Messages == nil {
		return []byte(it.Prompt), raw
	}
	var b bytes.Buffer
	for _, m := range it.Messages {
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.Bytes(), raw
}
