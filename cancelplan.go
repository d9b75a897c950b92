package tpsbench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/record"
)

// errPlannedCancel is the cause of a planned cancellation's context.
var errPlannedCancel = errors.New("cancelled as planned")

// doPlanned sends req, and cancels it job.CancelAfter after its send when
// the job plans that (as a user who leaves mid-answer): a request still
// going then is recorded as cancelled by plan, not as failed; one that
// ended before is kept as it ended.
func doPlanned(ctx context.Context, job load.Job, c client.Client, req *client.Request, rec *record.Record) {
	if job.CancelAfter <= 0 {
		c.Do(ctx, req, rec)
		return
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(job.CancelAfter, func() { cancel(errPlannedCancel) })
	defer timer.Stop()
	c.Do(ctx, req, rec)
	if rec.Error != nil && errors.Is(context.Cause(ctx), errPlannedCancel) {
		rec.Error = &record.Error{Kind: record.KindClientCancel,
			Message: fmt.Sprintf("cancelled as planned %v after its send (%d tokens had come)", job.CancelAfter, rec.Streamed)}
	}
}
