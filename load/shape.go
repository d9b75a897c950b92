package load

import (
	"iter"
	"math/rand/v2"
	"time"
)

// A Shape says when a step's requests start. It is one of two kinds: a
// Pacer, an open loop whose starts are fixed whatever the server does,
// or a Crowd, a closed loop of users who each wait for their answers.
// Each shape is a value of its own file, which checks itself (Check)
// and names itself in reports (String).
type Shape interface {
	// String is the shape's label in reports: "c=8", "r=2/s".
	String() string
	// Check says what is wrong with the shape's own values, if anything;
	// Profile.Validate calls it before anything is sent.
	Check() error
}

// A Pacer is an open loop: every start is fixed before it is due, so a
// slow server never delays the next one (no coordinated omission).
type Pacer interface {
	Shape
	// Arrivals gives a phase's starts in order, each no earlier than the
	// one before, its random draws made from seed; it ends where the
	// shape does (a trace's last entry), or never.
	Arrivals(seed uint64) iter.Seq[Arrival]
}

// An Arrival is one start of an open loop.
type Arrival struct {
	At time.Duration // after the phase's start
	// Rate is the request rate it was offered at, in requests/s, as the
	// records keep it: a rate's, or a ramp's at this request; 0 for none
	// (a trace's).
	Rate float64
}

// A Crowd is a closed loop: users who each send a request, wait for its
// answer (and a pause) and send the next.
type Crowd interface {
	Shape
	// Users is how many users there are at the peak.
	Users() int
	// Start is when user w (from 0) begins, after the phase's start.
	Start(w int) time.Duration
	// Pause is a user's wait between an answer and its next request,
	// drawn from rng (the user's own).
	Pause(rng *rand.Rand) time.Duration
}

// What a shape may also say of itself, by a method of its own:
type (
	// rampingUp: the load rises over the first rampUp of a step;
	// requests started then are marked PhaseRampUp and kept out of its
	// figures.
	rampingUp interface{ rampUp() time.Duration }
	// finite: the shape ends by itself (a trace), so a profile of it
	// needs neither a request count nor a duration.
	finite interface{ Finite() bool }
	// profileChecker: the shape has rules on the profile around it (a
	// ramp by request index takes no sessions).
	profileChecker interface{ CheckProfile(p Profile) error }
	// warmer: the shape's warm-up is another shape (a ramp warms up at
	// its steady rate); without it, the shape warms up as itself.
	warmer interface{ warmup(p Profile) Shape }
)

// rampUpOf is how long s ramps up, 0 for a shape that does not.
func rampUpOf(s Shape) time.Duration {
	if r, ok := s.(rampingUp); ok {
		return r.rampUp()
	}
	return 0
}

// isFinite says whether s ends by itself.
func isFinite(s Shape) bool {
	f, ok := s.(finite)
	return ok && f.Finite()
}

// warmupOf is the shape p's warm-up runs.
func warmupOf(p Profile) Shape {
	if w, ok := p.Shape.(warmer); ok {
		return w.warmup(p)
	}
	return p.Shape
}
