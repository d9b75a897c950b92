package load

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Cancel plans cancellations, as users who leave mid-answer: Share of the
// measured requests (0 to 1, drawn from the profile's Seed) are to be
// cancelled After their send (Job.CancelAfter).
type Cancel struct {
	Share float64
	After time.Duration
}

// Check says what is wrong with the plan, if anything.
func (c Cancel) Check() error {
	switch {
	case !(c.Share >= 0 && c.Share <= 1):
		return errors.New("the share of requests to cancel is from 0 to 1 (0% to 100%)")
	case c.After < 0:
		return errors.New("the delay before a planned cancellation must not be negative")
	case c.Share > 0 && c.After == 0:
		return errors.New("a planned cancellation needs a delay after the send")
	case c.Share == 0 && c.After != 0:
		return errors.New("a delay before a planned cancellation goes with a share of requests to cancel")
	}
	return nil
}

// withCancels marks the jobs do is given with their planned cancellation.
func (p Profile) withCancels(do Func) Func {
	if p.Cancel.Share <= 0 {
		return do
	}
	return func(ctx context.Context, job Job) *record.Record {
		job.CancelAfter = p.cancelAfter(job.Seq, job.Warmup)
		return do(ctx, job)
	}
}

// cancelAfter is when the request seq is to be cancelled, or 0: each
// measured request is drawn from Seed and its seq alone, so the same
// requests are cancelled whatever order they run in; warm-up ones never.
func (p Profile) cancelAfter(seq int, warm bool) time.Duration {
	if warm {
		return 0
	}
	rng := rand.New(rand.NewPCG(p.Seed^0xc2b2ae3d27d4eb4f, uint64(seq)))
	if rng.Float64() < p.Cancel.Share {
		return p.Cancel.After
	}
	return 0
}
