package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// commonWords seed the vocabulary, so that generated text shows real words
// among the made-up ones.
var commonWords = strings.Fields(`the of and to in is was that for it with as his on be at by had are but from or
have an they which one you were her all she there would their we him been has when who will more no if out so said
what up its about into than them can only other new some could time these two may then do first any my now such like
our over man me even most made after also did many before must through back years where much your way well down should
because each just those people how too little state good very make world still own see men work long get here between
both life being under never day same another know while last might us great old year off come since against go came
right used take three small large house story tree river light cat dog bird fish sun moon star sky sea rain wind fire
stone bread milk apple happy sad big tiny red blue green yellow bright dark warm cold soft loud quiet fast slow walk run
jump play sing read write open close find give tell ask think look want need love help learn begin end friend mother
father sister brother child girl boy king queen garden forest mountain road town village morning night water ball book
door window table chair bed box toy song game smile laugh cry sleep dream`)

// pseudoWord makes a pronounceable made-up word.
func pseudoWord(r *rand.Rand) string {
	const cons = "bcdfghjklmnprstvwz"
	const vows = "aeiou"
	n := 2 + r.IntN(2)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(cons[r.IntN(len(cons))])
		b.WriteByte(vows[r.IntN(len(vows))])
		if r.IntN(4) == 0 {
			b.WriteByte(cons[r.IntN(len(cons))])
		}
	}
	return b.String()
}

// Vocabulary builds a llama-style vocabulary of n pieces: <unk>, <s>, </s>,
// the 256 byte-fallback pieces, single characters, then words (each with
// the chain of its prefixes, so the merge tokenizer can build it). Scores
// fall with the index, as in SentencePiece vocabularies.
func Vocabulary(n int, seed uint64) (pieces []string, scores []float32, types []int32, err error) {
	const space = "\u2581"
	if n < 259+80 {
		return nil, nil, nil, fmt.Errorf("a vocabulary needs at least %d pieces", 259+80)
	}
	seen := map[string]bool{}
	add := func(p string, typ int32) bool {
		if seen[p] || len(pieces) >= n {
			return false
		}
		seen[p] = true
		pieces = append(pieces, p)
		types = append(types, typ)
		return true
	}
	add("<unk>", tokenizer.TypeUnknown)
	add("<s>", tokenizer.TypeControl)
	add("</s>", tokenizer.TypeControl)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), tokenizer.TypeByte)
	}
	for _, c := range space + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?'\";:-()" {
		add(string(c), tokenizer.TypeNormal)
	}
	word := func(w string) {
		full := space + w
		for i := len(space) + 1; i <= len(full); i++ {
			add(full[:i], tokenizer.TypeNormal)
		}
	}
	for _, w := range commonWords {
		word(w)
		word(strings.ToUpper(w[:1]) + w[1:])
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for tries := 0; len(pieces) < n && tries < 100*n; tries++ {
		word(pseudoWord(r))
	}
	if len(pieces) < n {
		return nil, nil, nil, fmt.Errorf("could not make %d distinct pieces", n)
	}
	scores = make([]float32, n)
	for i := range scores {
		if types[i] == tokenizer.TypeNormal {
			scores[i] = -float32(i)
		}
	}
	return pieces, scores, types, nil
}
