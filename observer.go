package tpsbench

import "github.com/tpsbench/tpsbench/record"

// Observer watches a run as it goes: the records file, the progress line,
// the dashboard and the Prometheus exporter are observers. Its methods
// run on the goroutines that measure (Chunk on a request's own, as each
// chunk is read), so they must be quick and must never block: count, and
// leave drawing and exporting to goroutines of their own.
type Observer interface {
	// StepBegan is called as each step of the plan begins; index is the
	// step's index in the records (the plan's FirstStep on), which a
	// Session continues across its strategies.
	StepBegan(index int, s *Step)
	// Sent sees a request's record as it is about to be sent (stamps not
	// filled in yet).
	Sent(r *record.Record)
	// Chunk sees each token-bearing chunk as it is read, with the tokens
	// it carries by then (one, or what cumulative usage says; the final
	// count, from usage or a tokenizer, may differ: r.Streamed holds what
	// the chunks said so far, and Done sees the final count).
	Chunk(r *record.Record, tokens int)
	// Done sees a request's final record, after the records file has it.
	Done(r *record.Record)
}

// An observer may have a lifecycle, as k6's outputs do, which a Session
// drives: Start before the session's first step (a live view begins
// drawing, an exporter serving), Flush when the measuring ends (a live
// view draws its last state and stops, before a report prints), Stop
// when the session closes (an exporter stops serving: after the report,
// as a scrape may still come). Each is optional.
type (
	Starter interface{ Start() error }
	Flusher interface{ Flush() }
	Stopper interface{ Stop() }
)

// each calls visit with o, or with each observer o fans out to, in order.
func each(o Observer, visit func(Observer)) {
	if os, ok := o.(Observers); ok {
		for _, inner := range os {
			each(inner, visit)
		}
		return
	}
	if o != nil {
		visit(o)
	}
}

// Observers fans events out to several observers, in order.
type Observers []Observer

func (os Observers) StepBegan(index int, s *Step) {
	for _, o := range os {
		o.StepBegan(index, s)
	}
}

func (os Observers) Sent(r *record.Record) {
	for _, o := range os {
		o.Sent(r)
	}
}

func (os Observers) Chunk(r *record.Record, tokens int) {
	for _, o := range os {
		o.Chunk(r, tokens)
	}
}

func (os Observers) Done(r *record.Record) {
	for _, o := range os {
		o.Done(r)
	}
}

// ObserverFuncs is an Observer made of functions, any of them nil.
type ObserverFuncs struct {
	OnStep  func(index int, s *Step)
	OnSend  func(r *record.Record)
	OnChunk func(r *record.Record, tokens int)
	OnDone  func(r *record.Record)
}

func (f ObserverFuncs) StepBegan(index int, s *Step) {
	if f.OnStep != nil {
		f.OnStep(index, s)
	}
}

func (f ObserverFuncs) Sent(r *record.Record) {
	if f.OnSend != nil {
		f.OnSend(r)
	}
}

func (f ObserverFuncs) Chunk(r *record.Record, tokens int) {
	if f.OnChunk != nil {
		f.OnChunk(r, tokens)
	}
}

func (f ObserverFuncs) Done(r *record.Record) {
	if f.OnDone != nil {
		f.OnDone(r)
	}
}
