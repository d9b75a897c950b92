package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestStartAtLate: a run that begins after its --start-at (a pod that
// started late; resolve refuses a time past by more than startAtStale)
// says that it does not start with the others; one on time says nothing.
func TestStartAtLate(t *testing.T) {
	f := &runFlags{quiet: true}
	var late, onTime bytes.Buffer
	f.waitForStart(context.Background(), time.Now().Add(-5*time.Second), &late)
	if !strings.Contains(late.String(), "after --start-at") {
		t.Errorf("late start: %q", late.String())
	}
	f.waitForStart(context.Background(), time.Now().Add(time.Millisecond), &onTime)
	if onTime.Len() != 0 {
		t.Errorf("a start on time: %q", onTime.String())
	}
}
