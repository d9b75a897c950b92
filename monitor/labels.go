package monitor

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// What becomes a label must be what Prometheus accepts (valid UTF-8: the
// client library panics otherwise) and what a scrape can carry. Behind
// the proxy, model names come from whoever sends requests, so their
// number is capped too; past the cap, further models count together.
const (
	maxLabelBytes = 128
	maxModels     = 100
	otherModels   = "(other models)"
)

// cleanLabel is s as valid UTF-8 of at most maxLabelBytes bytes.
func cleanLabel(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > maxLabelBytes {
		cut := maxLabelBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// modelLabels gives each model its label: the first maxModels models
// seen keep their (cleaned) names, later ones share otherModels. A model
// keeps its label for the exporter's life, so a request's in-flight
// increment and decrement always meet.
type modelLabels struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (m *modelLabels) of(model string) string {
	model = cleanLabel(model)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen[model] {
		return model
	}
	if len(m.seen) >= maxModels {
		return otherModels
	}
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	m.seen[model] = true
	return model
}
