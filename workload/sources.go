package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/internal/fileread"
	"github.com/tpsbench/tpsbench/record"
)

// List cycles through prompts loaded from a file, in an order shuffled by
// a seed (the same seed gives the same order).
type List struct {
	Items []Item
	order []int
}

// NewList shuffles items with seed.
func NewList(items []Item, seed uint64) (*List, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("no prompts")
	}
	l := &List{Items: items, order: rand.New(rand.NewPCG(seed, 0x11)).Perm(len(items))}
	return l, nil
}

// NewListInOrder keeps the items' order (the turns of conversations).
func NewListInOrder(items []Item) (*List, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("no prompts")
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	return &List{Items: items, order: order}, nil
}

// Item implements Source.
func (l *List) Item(seq int, _ bool) Item { return l.Items[l.order[seq%len(l.order)]] }

// Conversations reads a ShareGPT file as multi-turn conversations: every
// human turn becomes a request carrying the conversation so far (earlier
// turns, with the reference replies as the assistant's), conversations in
// an order shuffled by seed and turns in order.
func Conversations(path string, maxTokens int, replyLength bool, seed uint64) ([]Item, error) {
	data, err := fileread.AtMost(path, maxFile)
	if err != nil {
		return nil, fmt.Errorf("opening prompts: %w", err)
	}
	var convs []shareGPTConversation
	if err := json.Unmarshal(data, &convs); err != nil {
		return nil, fmt.Errorf("%s: not a ShareGPT JSON array: %w", path, err)
	}
	var items []Item
	for _, ci := range rand.New(rand.NewPCG(seed, 0x22)).Perm(len(convs)) {
		turns := convs[ci].Conversations
		var history []content.Message
		for i, turn := range turns {
			role := "assistant"
			if turn.From == "human" || turn.From == "user" {
				role = "user"
			}
			history = append(history, content.Message{Role: role, Content: turn.Value})
			if role != "user" || strings.TrimSpace(turn.Value) == "" {
				continue
			}
			// Turns share history's array (it is only appended to, and
			// the capacity cut makes any append elsewhere copy): a copy a
			// turn grew with the square of a conversation's length.
			it := Item{Messages: history[:len(history):len(history)], MaxTokens: maxTokens}
			if replyLength && i+1 < len(turns) {
				it.MaxTokens = max(1, (len(turns[i+1].Value)+3)/4)
			}
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no conversations", path)
	}
	return items, nil
}

// maxFile bounds a prompts file read into memory.
const maxFile = 1 << 30

// LoadFile reads prompts: a ShareGPT JSON array (the first human turn of
// each conversation; with replyLength, the reference reply's length in
// tokens, estimated at 4 characters a token, as max tokens), JSON lines
// with "prompt" or "messages" (and optionally "max_tokens"), or plain
// lines, one prompt each. Items without their own budget get maxTokens.
func LoadFile(path string, maxTokens int, replyLength bool) ([]Item, error) {
	items, _, err := LoadFileStats(path, maxTokens, replyLength)
	return items, err
}

// LoadFileStats is LoadFile, saying what the file gave: a ShareGPT file's
// conversations, those kept and those dropped by reason.
func LoadFileStats(path string, maxTokens int, replyLength bool) ([]Item, DatasetStats, error) {
	data, err := fileread.AtMost(path, maxFile)
	if err != nil {
		return nil, DatasetStats{}, fmt.Errorf("opening prompts: %w", err)
	}
	items, stats, err := parsePrompts(data, maxTokens, replyLength)
	if err != nil {
		return nil, stats, fmt.Errorf("%s: %w", path, err)
	}
	return items, stats, nil
}

// parsePrompts reads the contents of a prompts file (see LoadFile).
func parsePrompts(data []byte, maxTokens int, replyLength bool) ([]Item, DatasetStats, error) {
	trimmed := bytes.TrimSpace(data)
	stats := DatasetStats{Dropped: map[string]int{}}
	var items []Item
	var err error
	switch {
	case isParquet(data):
		return nil, stats, errors.New("a Parquet dataset: name the column of its prompts (Columns)")
	case len(trimmed) > 0 && trimmed[0] == '[':
		items, err = shareGPT(trimmed, maxTokens, replyLength, &stats)
	default:
		items, err = lines(data, maxTokens)
		stats.Rows, stats.Kept = len(items), len(items)
	}
	if err != nil {
		return nil, stats, err
	}
	if len(items) == 0 {
		return nil, stats, errors.New("no prompts")
	}
	return items, stats, nil
}

// shareGPTConversation is one entry of a ShareGPT file.
type shareGPTConversation struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

func shareGPT(data []byte, maxTokens int, replyLength bool, stats *DatasetStats) ([]Item, error) {
	var convs []shareGPTConversation
	if err := json.Unmarshal(data, &convs); err != nil {
		return nil, fmt.Errorf("not a ShareGPT JSON array: %w", err)
	}
	var items []Item
	stats.Rows = len(convs)
	for _, c := range convs {
		before := len(items)
		for i, turn := range c.Conversations {
			if turn.From != "human" && turn.From != "user" {
				continue
			}
			it := Item{Prompt: turn.Value, MaxTokens: maxTokens}
			if replyLength && i+1 < len(c.Conversations) {
				it.MaxTokens = max(1, (len(c.Conversations[i+1].Value)+3)/4)
			}
			if strings.TrimSpace(it.Prompt) != "" {
				items = append(items, it)
			}
			break
		}
		if len(items) == before {
			stats.Dropped["without a human turn with text"]++
		}
	}
	stats.Kept = len(items)
	return items, nil
}

func lines(data []byte, maxTokens int) ([]Item, error) {
	var items []Item
	err := eachLine(data, func(n int, line []byte) error {
		if line[0] != '{' {
			items = append(items, Item{Prompt: string(line), MaxTokens: maxTokens})
			return nil
		}
		var obj struct {
			Prompt    string            `json:"prompt"`
			Messages  []content.Message `json:"messages"`
			MaxTokens int               `json:"max_tokens"`
		}
		if err := json.Unmarshal(line, &obj); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if obj.Prompt == "" && len(obj.Messages) == 0 {
			return fmt.Errorf("line %d: want a \"prompt\" or \"messages\" field", n)
		}
		it := Item{Prompt: obj.Prompt, Messages: obj.Messages, MaxTokens: maxTokens}
		if obj.MaxTokens > record.MaxTokens {
			return fmt.Errorf("line %d: max_tokens %d: want at most %d", n, obj.MaxTokens, record.MaxTokens)
		}
		if obj.MaxTokens > 0 {
			it.MaxTokens = obj.MaxTokens
		}
		items = append(items, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// words are common English words that most tokenizers (GPT's BPE,
// SentencePiece, the engine's) keep as one token each with their leading
// space, so a prompt of n of them is about n tokens (exactly n for the
// engine).
var words = strings.Fields(`the of and to in is was that for it with as his on be at by had are but from or have an they
which one you were her all she there would their we him been has when who will more no if out so said what up its about
into than them can only other new some could time these two may then do first any my now such like our over man me even
most made after also did many before must through back years where much your way well down should because each just
those people how too little state good very make world still own see men work long get here between both life being
under never day same another know while last might us great old year off come since against go came right used take
three small large house story tree river light`)

// Synthetic makes prompts and output budgets with lengths drawn from
// normal distributions (rounded, at least 1), optionally behind one of
// PrefixGroups shared prefixes of PrefixTokens words (for prefix-cache
// experiments). Everything follows from Seed and the request's index.
type Synthetic struct {
	InputTokens, InputStddev   float64
	OutputTokens, OutputStddev float64
	PrefixTokens, PrefixGroups int
	// Modes, when given, replace the lengths above: each request draws
	// its lengths from one mode, chosen by weight (ParseSeqDist).
	Modes []LengthMode
	// Corpus, when given, is the text prompts are made of in place of
	// common words: its lines (each as its words), drawn at random whole
	// and the last cut to the length, as vLLM's sonnet dataset makes its
	// prompts (LoadCorpus).
	Corpus [][]string
	Seed   uint64
	// Calibration, from the server's tokenizer (see Calibrate): tokens
	// the request adds around the prompt, and tokens a word. Zero values
	// mean a word a token and nothing added.
	Overhead      float64
	TokensPerWord float64
}

// Check says what is wrong with the lengths, if anything: each finite
// and not negative, a prompt short enough to make in memory, a budget a
// record can hold, and groups for a shared prefix to be shared in.
func (s Synthetic) Check() error {
	for _, v := range []float64{s.InputTokens, s.InputStddev, s.OutputTokens, s.OutputStddev, float64(s.PrefixTokens), float64(s.PrefixGroups)} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return errors.New("synthetic lengths must be finite and not negative")
		}
	}
	switch {
	case s.InputTokens > MaxPromptTokens || s.PrefixTokens > MaxPromptTokens:
		return fmt.Errorf("input and prefix tokens: at most %d (a prompt of words is made in memory)", MaxPromptTokens)
	case s.OutputTokens > record.MaxTokens:
		return fmt.Errorf("output tokens: at most %d", record.MaxTokens)
	case s.PrefixTokens > 0 && s.PrefixGroups < 1:
		return errors.New("a shared prefix needs at least 1 prefix group to be shared in")
	}
	return nil
}

// Calibrate measures how the server's tokenizer counts synthetic text:
// count returns the prompt tokens the server sees for a text sent as the
// run sends it (template included). Prompts then hit the asked length in
// tokens, not words.
func (s *Synthetic) Calibrate(count func(string) (int, error)) error {
	r := rand.New(rand.NewPCG(s.Seed, 1<<60))
	a, b := s.text(r, 50), s.text(r, 150)
	ca, err := count(a)
	if err != nil {
		return err
	}
	cb, err := count(b)
	if err != nil {
		return err
	}
	per := float64(cb-ca) / 100
	if per <= 0 {
		return fmt.Errorf("calibrating prompt lengths: the tokenizer counted %d and %d tokens for 50 and 150 words", ca, cb)
	}
	s.TokensPerWord, s.Overhead = per, float64(ca)-50*per
	return nil
}

// words returns how many words make tokens tokens.
func (s Synthetic) words(tokens float64) int {
	per := s.TokensPerWord
	if per <= 0 {
		per = 1
	}
	return max(1, int(math.Round(tokens/per)))
}

func (s Synthetic) text(r *rand.Rand, n int) string {
	if len(s.Corpus) > 0 {
		return corpusText(s.Corpus, r, n)
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// draw draws a length from 1 to hi.
func draw(r *rand.Rand, mean, sd float64, hi int) int {
	v := mean
	if sd > 0 {
		v += r.NormFloat64() * sd
	}
	if !(v >= 1) { // NaN included
		return 1
	}
	return int(min(math.Round(v), float64(hi)))
}

// PromptOf builds a prompt of tokens tokens (as the server counts them,
// with the calibration) whose leading blocks of blockTokens tokens are
// the same text wherever their ids are the same, and whose rest is its
// own, drawn from stream: a trace's shared prefixes, made of words.
func (s Synthetic) PromptOf(tokens int, blocks []uint64, blockTokens int, stream uint64) string {
	var b strings.Builder
	left := float64(min(tokens, MaxPromptTokens)) - s.Overhead
	for _, id := range blocks {
		n := min(float64(blockTokens), left)
		if n < 1 {
			break
		}
		b.WriteString(s.text(rand.New(rand.NewPCG(s.Seed^blockSeed, id)), s.words(n)))
		b.WriteByte(' ')
		left -= n
	}
	if left >= 1 || b.Len() == 0 {
		b.WriteString(s.text(rand.New(rand.NewPCG(s.Seed, stream|1<<59)), s.words(left)))
	}
	return strings.TrimSuffix(b.String(), " ")
}

// blockSeed keeps a block's words apart from the other streams drawn
// from one seed.
const blockSeed = 0xb10c5eed

// Item implements Source.
func (s Synthetic) Item(seq int, warmup bool) Item {
	stream := uint64(seq)
	if warmup {
		stream |= 1 << 62
	}
	r := rand.New(rand.NewPCG(s.Seed, stream))
	lengths := LengthMode{Input: s.InputTokens, InputStddev: s.InputStddev, Output: s.OutputTokens, OutputStddev: s.OutputStddev}
	if len(s.Modes) > 0 {
		lengths = pick(s.Modes, r.Float64())
	}
	// the drawn length is of the whole prompt as the server counts it
	n := float64(draw(r, lengths.Input, lengths.InputStddev, MaxPromptTokens)) - s.Overhead
	var prompt string
	if s.PrefixTokens > 0 && s.PrefixGroups > 0 {
		group := seq % s.PrefixGroups
		pr := rand.New(rand.NewPCG(s.Seed, uint64(group)|1<<61))
		prompt = s.text(pr, s.words(float64(min(s.PrefixTokens, MaxPromptTokens)))) + " "
	}
	prompt += s.text(r, s.words(n))
	return Item{Prompt: prompt, MaxTokens: draw(r, lengths.Output, lengths.OutputStddev, record.MaxTokens)}
}
