// Command hostilefiles writes the crafted inputs bench/hostile.sh measures
// tpsbench's peak memory on: records far apart in time, a GGUF file whose
// metadata is one large array, a records file of one huge line, and a
// trace claiming a prompt of 2^30 tokens.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/record"
)

func main() {
	dir := flag.String("dir", "bench/out", "where to write the files")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "hostilefiles:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	day := int64(24 * time.Hour)
	for _, days := range []int64{7, 30, 365} {
		if err := records(filepath.Join(dir, fmt.Sprintf("apart-%dd.jsonl", days)), days*day); err != nil {
			return err
		}
	}
	if err := arrayModel(filepath.Join(dir, "array-64mb.gguf"), 64<<20); err != nil {
		return err
	}
	if err := hugeLine(filepath.Join(dir, "line-1gb.jsonl"), 1<<30); err != nil {
		return err
	}
	// a Mooncake trace whose second line claims a prompt of 2^30 tokens
	trace := `{"timestamp": 0, "input_length": 5, "output_length": 2}` + "\n" +
		fmt.Sprintf(`{"timestamp": 10, "input_length": %d, "output_length": 2}`, record.MaxTokens) + "\n"
	return os.WriteFile(filepath.Join(dir, "trace-2e30.jsonl"), []byte(trace), 0o644)
}

// records writes two proxy-like records apart ns apart.
func records(path string, apart int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := record.NewWriter(f)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i, sent := range []int64{0, apart} {
		r := &record.Record{Seq: i, Run: "proxy", Step: "proxy", Stream: true, T0: t0, Scheduled: sent, Sent: sent,
			First: sent + 1e8, Last: sent + 2e8, Done: sent + 2e8, OutputTokens: 2, TokenSource: record.SourceUsage, UsageTokens: 2,
			Chunks: []record.Chunk{{At: 1e8, Tokens: 1}, {At: 2e8, Tokens: 1}}}
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return w.Flush()
}

// arrayModel writes a GGUF file whose one metadata entry is a uint8 array
// of n elements.
func arrayModel(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	le := binary.LittleEndian
	b := le.AppendUint32(nil, gguf.Magic)
	b = le.AppendUint32(b, 3)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint64(b, 1)
	b = le.AppendUint64(b, 1)
	b = append(b, 'a')
	b = le.AppendUint32(b, uint32(gguf.TypeArray))
	b = le.AppendUint32(b, uint32(gguf.TypeUint8))
	b = le.AppendUint64(b, uint64(n))
	w.Write(b)
	w.Write(make([]byte, n))
	return w.Flush()
}

// hugeLine writes n bytes with no newline.
func hugeLine(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = 'x'
	}
	for written := 0; written < n; written += len(buf) {
		if _, err := f.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
