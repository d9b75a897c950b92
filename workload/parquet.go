package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// parquetMagic opens and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// isParquet says whether data is a Parquet file, as Hugging Face stores
// every dataset.
func isParquet(data []byte) bool {
	return len(data) >= 8 && bytes.HasPrefix(data, parquetMagic) && bytes.HasSuffix(data, parquetMagic)
}

// parquetRows gives each row of a Parquet file as JSON values, nested
// lists and groups included (a "turns" list, a "messages" list of
// role/content groups), so that the column mapping reads it as it reads
// JSON lines.
func parquetRows(data []byte, add func(map[string]json.RawMessage)) (err error) {
	// the decoder is not ours: a file it cannot take must be an error
	// here, never a crash of the run
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("not a Parquet file this reads: %v", p)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("not a Parquet file: %w", err)
	}
	r := parquet.NewGenericReader[map[string]any](f, f.Schema())
	defer r.Close()
	batch := make([]map[string]any, 256)
	for {
		for i := range batch {
			batch[i] = map[string]any{}
		}
		n, err := r.Read(batch)
		for _, row := range batch[:n] {
			fields := make(map[string]json.RawMessage, len(row))
			for k, v := range row {
				if fields[k], err = json.Marshal(textOf(v)); err != nil {
					return fmt.Errorf("column %s: %w", k, err)
				}
			}
			add(fields)
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("reading rows: %w", err)
		}
	}
}

// textOf gives byte strings as text, so that a column of binary
// without the STRING annotation still reads as prompts, not as base64;
// bytes that are not text (an image's) stay bytes (textOrBinary).
func textOf(v any) any {
	switch v := v.(type) {
	case []byte:
		return textOrBinary(v)
	case string: // the reader gives a byte string without annotation as a string
		if utf8.ValidString(v) {
			return v
		}
		return textOrBinary([]byte(v))
	case []any:
		for i := range v {
			v[i] = textOf(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = textOf(v[k])
		}
	}
	return v
}
