package record

import "time"

// Clock turns monotonic times into a run's nanosecond offsets. One Clock is
// shared by everything that stamps records of one run, so that offsets of
// different requests can be compared exactly.
type Clock struct {
	epoch time.Time
}

// NewClock starts a clock now.
func NewClock() *Clock { return &Clock{epoch: time.Now()} }

// T0 is the epoch as Unix nanoseconds, the value stored in Record.T0.
func (c *Clock) T0() int64 { return c.epoch.UnixNano() }

// Since returns t as ns since the epoch, from the monotonic clock.
func (c *Clock) Since(t time.Time) int64 { return int64(t.Sub(c.epoch)) }

// Now returns the current offset.
func (c *Clock) Now() int64 { return int64(time.Since(c.epoch)) }

// Time turns an offset back into a time.
func (c *Clock) Time(offset int64) time.Time { return c.epoch.Add(time.Duration(offset)) }
