package tpsbench

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
)

// Validate says what is wrong with the plan before anything is sent: its
// settings (CheckSettings), then each step's load, client and workload.
// Run calls it; so does the command, with the same words.
func (p Plan) Validate() error {
	if err := p.CheckSettings(); err != nil {
		return err
	}
	if len(p.Steps) == 0 {
		return errors.New("the plan has no steps")
	}
	for i, s := range p.Steps {
		if err := s.Profile.Validate(); err != nil {
			return fmt.Errorf("step %d (%s): %w", i, s.Label, err)
		}
		if s.Client == nil || s.Workload == nil {
			return fmt.Errorf("step %d (%s): needs a client and a workload", i, s.Label)
		}
	}
	return nil
}

// minSlice is the shortest slice a step is reported in: shorter ones
// hold a request's chunks apart from its start, and a run of a minute
// would make tens of thousands.
const minSlice = time.Millisecond

// CheckSettings says what is wrong with what the plan's steps share, if
// anything: targets, conventions, percentiles, slices and the limits on
// failures; a plan whose steps are still to be built can be checked.
func (p Plan) CheckSettings() error {
	if err := p.Targets.Check(); err != nil {
		return err
	}
	if p.Convention != "" { // tpsbench's own
		if err := metrics.CheckConvention(p.Convention); err != nil {
			return err
		}
	}
	if err := metrics.CheckPercentiles(p.Percentiles); err != nil {
		return err
	}
	switch {
	case p.SliceDuration < 0 || (p.SliceDuration > 0 && p.SliceDuration < minSlice):
		return fmt.Errorf("slice duration %v: want %v or more (0: no slices)", p.SliceDuration, minSlice)
	case p.MaxErrors < 0:
		return errors.New("max errors must not be negative (0: no limit)")
	case !(p.MaxErrorRate >= 0 && p.MaxErrorRate <= 1) || math.IsNaN(p.MaxErrorRate):
		return fmt.Errorf("max error rate %v: want a share from 0 to 1 (0 or 1: no limit)", p.MaxErrorRate)
	case p.ErrorWindow < 0:
		return errors.New("the window of finished requests the error rate looks at must not be negative (0: 30)")
	case p.FirstStep < 0:
		return errors.New("the first step's index must not be negative")
	}
	return nil
}
