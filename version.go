package tpsbench

import (
	"encoding/json"
	"runtime"
	"runtime/debug"

	"github.com/tpsbench/tpsbench/record"
)

// Version is tpsbench's version, reported in outputs.
var Version = "0.1.0-dev"

// Build is what tpsbench was built from: its version, the commit of its
// source (with "+dirty" for uncommitted changes; "" when built without a
// checkout's version control, as go run -buildvcs=false does) and Go's
// version.
type Build struct {
	Version, Commit, Go string
}

// ThisBuild is this binary's Build.
func ThisBuild() Build {
	b := Build{Version: Version, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		dirty := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && b.Commit != "" {
			b.Commit += "+dirty"
		}
	}
	return b
}

// header is the records file's line for a run of plan: the build that
// measured, what the first step's client sends with every request, and
// the targets, so that a report of the records alone says what the run's
// report said.
func (plan *Plan) header(runID string) record.Header {
	b := ThisBuild()
	h := record.Header{Run: runID, Tpsbench: b.Version, Commit: b.Commit, Go: b.Go}
	if len(plan.Steps) > 0 {
		if s, ok := plan.Steps[0].Client.(interface{ Sent() map[string]any }); ok {
			h.Sent = s.Sent()
		}
	}
	if len(plan.Targets.List) > 0 {
		h.Targets, _ = json.Marshal(plan.Targets) // plain values: it cannot fail
	}
	return h
}
