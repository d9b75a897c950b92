package engine_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/llama"
)

// TestEmbeddingsEndpoint: /v1/embeddings answers a vector for each input,
// in order: each the last token's final hidden state of the text's tokens
// (with BOS, as the engine's /tokenize counts them), computed here from
// the model directly, scaled to length 1; as floats or base64; usage
// counts the prompt tokens. Token ids are taken as inputs too.
func TestEmbeddingsEndpoint(t *testing.T) {
	e, url := start(t)
	texts := []string{"the quick brown fox", "hello", "a longer text of several words for the model"}
	resp, body := post(t, url+"/v1/embeddings", mustJSON(map[string]any{"model": e.Name, "input": texts}))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var got struct {
		Data []struct {
			Index     int
			Embedding []float32
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != len(texts) {
		t.Fatalf("%d vectors for %d inputs", len(got.Data), len(texts))
	}
	tokens := 0
	for i, text := range texts {
		ids := e.Tokenizer.Encode(text, true)
		tokens += len(ids)
		want := lastHidden(t, e.Model, ids)
		if got.Data[i].Index != i || maxDiff(got.Data[i].Embedding, want) > 1e-5 {
			t.Errorf("input %d: index %d, %.3g from the model's last hidden state normalized", i, got.Data[i].Index, maxDiff(got.Data[i].Embedding, want))
		}
	}
	if got.Usage.PromptTokens != tokens {
		t.Errorf("usage %d prompt tokens, want %d", got.Usage.PromptTokens, tokens)
	}

	ids := e.Tokenizer.Encode("hello", true)
	_, b64 := post(t, url+"/v1/embeddings", mustJSON(map[string]any{"input": ids, "encoding_format": "base64"}))
	var enc struct{ Data []struct{ Embedding string } }
	if err := json.Unmarshal([]byte(b64), &enc); err != nil || len(enc.Data) != 1 {
		t.Fatalf("token ids as base64: %s", b64)
	}
	raw, err := base64.StdEncoding.DecodeString(enc.Data[0].Embedding)
	if err != nil || len(raw) != 4*e.Model.Dim {
		t.Fatalf("base64 %q: %v", b64, err)
	}
	vec := make([]float32, e.Model.Dim)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	if d := maxDiff(vec, got.Data[1].Embedding); d != 0 {
		t.Errorf("token ids as base64: %.3g from the text's floats", d)
	}

	for _, bad := range []string{`{}`, `{"input": ""}`, `{"input": []}`, `{"input": [1, "a"]}`, `{"input": "x", "model": "other"}`,
		`{"input": "x", "encoding_format": "int8"}`, `{"input": "x", "dimensions": 3}`, `{"input": [[999999]]}`,
		`{"input": [` + strings.Repeat(`"a",`, 2048) + `"a"]}`} {
		if resp, body := post(t, url+"/v1/embeddings", bad); resp.StatusCode/100 != 4 || !strings.Contains(body, `"error"`) {
			t.Errorf("%.60s: %d %s", bad, resp.StatusCode, body)
		}
	}
}

// lastHidden is the last token's final hidden state of ids, scaled to
// length 1, from the model itself.
func lastHidden(t *testing.T, m *llama.Model, ids []int) []float32 {
	t.Helper()
	seq := m.NewSequence(len(ids))
	defer seq.Release()
	out := make([]float32, m.Dim)
	entries := make([]llama.Entry, len(ids))
	for i, id := range ids {
		entries[i] = llama.Entry{Seq: seq, Token: id}
	}
	entries[len(ids)-1].Hidden = out
	if _, err := m.Step(entries); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range out {
		sum += float64(v) * float64(v)
	}
	for i := range out {
		out[i] = float32(float64(out[i]) / math.Sqrt(sum))
	}
	return out
}

func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}
