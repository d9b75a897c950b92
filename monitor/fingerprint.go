package monitor

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"

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
