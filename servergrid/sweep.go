package servergrid

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
)

// Options are a sweep's settings.
type Options struct {
	ServeCmd string // the server's command, with {key} and {port} placeholders
	URL      string // the server's URL, with placeholders (default http://127.0.0.1:{port})
	API      string // for the ready check (client.APIAuto: OpenAI's model list)
	Grid     Grid
	Dir      string // a folder a point under it
	// ReadyTimeout bounds the wait for a started server; StopGrace the
	// wait after SIGTERM before SIGKILL.
	ReadyTimeout, StopGrace time.Duration
	Resume                  bool // skip points already measured in Dir
	// Force measures again over the points an earlier sweep measured in
	// Dir; without it or Resume, such a Dir is refused before anything
	// starts (they were replaced with no word)
	Force  bool
	DryRun bool      // say the commands, start nothing
	Log    io.Writer // progress and failures (nil: none)
}

// Measure measures the server of point p at url, its records and report
// in dir.
type Measure func(ctx context.Context, p Point, url, dir string) (Outcome, error)

// Outcome is what measuring a point gave: its steps' summaries, whether
// every target held, and, when the point was measured several times, its
// figures across the runs.
type Outcome struct {
	Steps   []metrics.Summary `json:"steps,omitempty"`
	Pass    bool              `json:"pass"`
	Repeats []metrics.Repeat  `json:"repeats,omitempty"`
	// BestConcurrency is the answer of a search for the highest load
	// meeting the targets, when the point was measured by one.
	BestConcurrency int `json:"best_concurrency,omitempty"`
}

// Result is a point's outcome.
type Result struct {
	Point   Point             `json:"-"`
	Params  map[string]string `json:"params"`
	Dir     string            `json:"dir"`
	Command string            `json:"command"`
	Outcome
	Err     string `json:"error,omitempty"` // why it has no figures
	Pareto  bool   `json:"pareto"`          // on the front of system TPS against per-request TPS
	Resumed bool   `json:"resumed,omitempty"`
}

// resultFile is a measured point's outcome in its folder: what --resume reads.
const resultFile = "point.json"

// Run measures every point of the grid in turn; a point whose server
// fails is kept with its reason and the sweep goes on. The error is about
// the sweep itself (its folder, its options, an interruption).
func Run(ctx context.Context, o Options, measure Measure) ([]Result, error) {
	if o.URL == "" {
		o.URL = "http://127.0.0.1:{port}"
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, args...)
		}
	}
	if err := o.CheckDir(); err != nil {
		return nil, err
	}
	var out []Result
	for i, p := range o.Grid.Points() {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		r, err := o.point(ctx, i, p, measure, logf)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	markPareto(out)
	return out, nil
}

// CheckDir refuses a folder that holds an earlier sweep's measured
// points, unless they are to be kept (Resume) or measured again (Force).
func (o Options) CheckDir() error {
	if o.Resume || o.Force || o.DryRun {
		return nil
	}
	held := 0
	for i, p := range o.Grid.Points() {
		if _, err := os.Stat(filepath.Join(o.Dir, p.Dir(i), resultFile)); err == nil {
			held++
		}
	}
	if held > 0 {
		return fmt.Errorf("%s holds %d points an earlier sweep measured: --resume keeps them and measures the rest, --force measures them again, or give another --dir", o.Dir, held)
	}
	return nil
}

// point measures one point, or reads it back with Resume.
func (o Options) point(ctx context.Context, i int, p Point, measure Measure, logf func(string, ...any)) (Result, error) {
	port, err := FreePort()
	if err != nil {
		return Result{}, err
	}
	command, err := p.ExpandCommand(o.ServeCmd, port)
	if err != nil {
		return Result{}, err
	}
	url, err := p.Expand(o.URL, port)
	if err != nil {
		return Result{}, err
	}
	r := Result{Point: p, Params: map[string]string{}, Dir: filepath.Join(o.Dir, p.Dir(i)), Command: command}
	for k, key := range p.Keys {
		r.Params[key] = p.Values[k]
	}
	if o.DryRun {
		logf("%s: %s\n", p, command)
		return r, nil
	}
	if o.Resume {
		if done, ok := readResult(r.Dir); ok {
			done.Point, done.Resumed = p, true
			logf("%s: measured before, kept\n", p)
			return done, nil
		}
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("the point's folder: %w", err)
	}
	logf("%s: starting %s\n", p, command)
	r.Outcome, err = o.serveAndMeasure(ctx, p, command, url, r.Dir, measure)
	if ctx.Err() != nil {
		// interrupted: the point is not kept as measured, and a resume
		// measures it again
		return Result{}, ctx.Err()
	}
	if err != nil {
		r.Err = err.Error()
		if tail := logTail(filepath.Join(r.Dir, "server.log"), 10); tail != "" {
			r.Err += "; the server's log ends:\n" + tail
		}
		logf("%s: %s\n", p, r.Err)
		return r, nil // kept, not written: a resume tries it again
	}
	return r, writeResult(r)
}

// serveAndMeasure starts the point's server, measures it, and stops it.
func (o Options) serveAndMeasure(ctx context.Context, p Point, command, url, dir string, measure Measure) (Outcome, error) {
	srv, err := Start(command, filepath.Join(dir, "server.log"))
	if err != nil {
		return Outcome{}, err
	}
	out, err := func() (Outcome, error) {
		if err := srv.WaitReady(ctx, url, o.API, o.ReadyTimeout); err != nil {
			return Outcome{}, err
		}
		return measure(ctx, p, url, dir)
	}()
	if stopErr := srv.Stop(o.StopGrace); err == nil && stopErr != nil && o.Log != nil {
		fmt.Fprintf(o.Log, "%s: %v\n", p, stopErr)
	}
	return out, err
}

func writeResult(r Result) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, resultFile), data, 0o644); err != nil {
		return fmt.Errorf("writing the point's outcome: %w", err)
	}
	return nil
}

func readResult(dir string) (Result, bool) {
	data, err := os.ReadFile(filepath.Join(dir, resultFile))
	if err != nil {
		return Result{}, false
	}
	var r Result
	if json.Unmarshal(data, &r) != nil || len(r.Steps) == 0 {
		return Result{}, false
	}
	return r, true
}

// ErrNoPoint is Best's answer when no point met every target.
var ErrNoPoint = errors.New("no point met every target")

// Best is the point of the highest system TPS among those that met every
// target.
func Best(results []Result) (Result, error) {
	var best Result
	found := false
	for _, r := range results {
		if len(r.Steps) == 0 || !r.Pass {
			continue
		}
		if !found || r.systemTPS() > best.systemTPS() {
			best, found = r, true
		}
	}
	if !found {
		return Result{}, ErrNoPoint
	}
	return best, nil
}

// markPareto marks the points no other beats on both system TPS and mean
// per-request TPS (the throughput a server gives against what a user
// feels), each from the point's first step.
func markPareto(results []Result) {
	var measured []int
	var sys, req []float64
	for i, r := range results {
		if len(r.Steps) > 0 {
			measured = append(measured, i)
			sys, req = append(sys, r.systemTPS()), append(req, r.requestTPS())
		}
	}
	for k, on := range metrics.ParetoFront(sys, req) {
		results[measured[k]].Pareto = on
	}
}

// figure is a point's figure: its mean across runs when it was repeated,
// else its first step's.
func (r Result) figure(name string, first func(s metrics.Summary) float64) float64 {
	if len(r.Repeats) > 0 {
		if iv, ok := r.Repeats[0].Figures[name]; ok {
			return iv.Mean
		}
	}
	return first(r.Steps[0])
}

func (r Result) systemTPS() float64 {
	return r.figure("system_tps", func(s metrics.Summary) float64 { return s.SystemTPS })
}

func (r Result) requestTPS() float64 {
	return r.figure("request_tps_mean", func(s metrics.Summary) float64 { return s.RequestTPS.Mean })
}
