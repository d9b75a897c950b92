package workload

// Batched makes each request a batch of Size inputs of Source, for an API
// that takes several and generates nothing (embeddings): request seq
// carries the items Size*seq to Size*seq+Size-1, so a run's inputs are the
// source's in order, none repeated before the source cycles.
type Batched struct {
	Source
	Size int
}

// Item implements Source: the first input's item, with every input's text.
func (b Batched) Item(seq int, warmup bool) Item {
	first := b.Source.Item(seq*b.Size, warmup)
	first.Inputs = make([]string, b.Size)
	first.Inputs[0] = first.Text()
	for k := 1; k < b.Size; k++ {
		it := b.Source.Item(seq*b.Size+k, warmup)
		first.Inputs[k] = it.Text()
	}
	return first
}

// Text is the item as one text: its prompt, or its messages' contents one
// a line.
func (it Item) Text() string {
	if len(it.Messages) == 0 {
		return it.Prompt
	}
	text := ""
	for i, m := range it.Messages {
		if i > 0 {
			text += "\n"
		}
		text += m.Content
	}
	return text
}

// WithQuery puts a query before each item's inputs, for a rerank
// request whose inputs are all documents (a replayed record counted its
// documents alone): the first document, asked about itself and the rest.
type WithQuery struct{ Source }

// Item implements Source.
func (w WithQuery) Item(seq int, warmup bool) Item {
	it := w.Source.Item(seq, warmup)
	if len(it.Inputs) > 0 {
		it.Inputs = append([]string{it.Inputs[0]}, it.Inputs...)
	}
	return it
}
