package server

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzEmbeddingsInput: any input field gives token lists within the
// model's vocabulary and context, or a badRequest; never a panic.
func FuzzEmbeddingsInput(f *testing.F) {
	s := tinyServer(f)
	f.Add([]byte(`"hello"`))
	f.Add([]byte(`["a", "b c"]`))
	f.Add([]byte(`[1, 2, 3]`))
	f.Add([]byte(`[[1], [2, 3]]`))
	f.Add([]byte(`[1, "a"]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the body's decoder refuses it before
		}
		prompts, err := s.embeddingInputs(raw)
		if err != nil {
			var br badRequest
			if !errors.As(err, &br) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(prompts) == 0 || len(prompts) > maxInputs {
			t.Fatalf("%d inputs accepted", len(prompts))
		}
		for _, p := range prompts {
			if len(p) == 0 || len(p) >= s.model.Context {
				t.Fatalf("an input of %d tokens accepted (context %d)", len(p), s.model.Context)
			}
			for _, tok := range p {
				if tok < 0 || tok >= s.model.Vocab {
					t.Fatalf("token %d accepted (vocabulary %d)", tok, s.model.Vocab)
				}
			}
		}
	})
}
