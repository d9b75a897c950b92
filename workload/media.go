package workload

import "github.com/tpsbench/tpsbench/content"

// WithMedia sends each request of Source with PerRequest media of Pool,
// in turn by the request's index, after any the source's item carries:
// wrapping twice sends images and audio together.
type WithMedia struct {
	Source
	Pool       []content.Media
	PerRequest int
}

// Item implements Source.
func (w WithMedia) Item(seq int, warmup bool) Item {
	it := w.Source.Item(seq, warmup)
	media := make([]content.Media, len(it.Media), len(it.Media)+w.PerRequest)
	copy(media, it.Media)
	for i := range w.PerRequest {
		media = append(media, w.Pool[(seq*w.PerRequest+i)%len(w.Pool)])
	}
	it.Media = media
	return it
}
