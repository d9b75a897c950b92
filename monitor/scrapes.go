package monitor

import (
	"net/http"
	"sync"
	"time"
)

// scrapes keeps when the exporter's metrics were last served, so that a
// run can wait, once it has ended, for the scrape that sees its final
// counts: closed the moment the run ended, Prometheus saw 424 of 433
// requests at a 1 s scrape.
type scrapes struct {
	mu      sync.Mutex
	served  int
	last    time.Time // when the latest scrape served began
	waiters []scrapeWaiter
}

type scrapeWaiter struct {
	since time.Time
	done  chan struct{}
}

// wrap serves h, counting each request as it begins (a client can hold
// the answer before the handler returns) and freeing the waiters it
// answers once it is written; the server's shutdown lets it flush.
func (s *scrapes) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		s.mu.Lock()
		s.served++
		s.mu.Unlock()
		h.ServeHTTP(w, r)
		s.mu.Lock()
		defer s.mu.Unlock()
		if began.After(s.last) {
			s.last = began
		}
		kept := s.waiters[:0]
		for _, w := range s.waiters {
			if began.Before(w.since) {
				kept = append(kept, w)
				continue
			}
			close(w.done)
		}
		s.waiters = kept
	})
}

// since returns a channel closed once a scrape that began at or after t
// has been answered.
func (s *scrapes) since(t time.Time) <-chan struct{} {
	done := make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.last.IsZero() && !s.last.Before(t) {
		close(done)
		return done
	}
	s.waiters = append(s.waiters, scrapeWaiter{since: t, done: done})
	return done
}

// Scraped reports how many scrapes of the metrics have begun.
func (e *Exporter) Scraped() int {
	e.scrapes.mu.Lock()
	defer e.scrapes.mu.Unlock()
	return e.scrapes.served
}

// ScrapedSince returns a channel closed once a scrape that began at or
// after t has been answered: one that saw every count made before t.
func (e *Exporter) ScrapedSince(t time.Time) <-chan struct{} { return e.scrapes.since(t) }
