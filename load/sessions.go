package load

import (
	"errors"
	"math/rand/v2"
)

// Sessions makes every start of a shape a session of Turns requests
// (a user's conversation): each turn after the first is sent a Think
// after the answer to the one before, so a slow server delays it as it
// delays a person. A closed loop's users run one session after another;
// an open loop starts sessions where it starts requests. Profile.Requests
// and Warmup count turns.
type Sessions struct {
	Turns int // 0: every request alone
	Think Think
}

// Check says what is wrong with the sessions, if anything.
func (s Sessions) Check() error {
	switch {
	case s.Turns < 0:
		return errors.New("turns must not be negative")
	case s.Turns == 1:
		return errors.New("a session of 1 turn is one request, as every request is: give 2 turns or more")
	case s.Turns <= 1 && !s.Think.none():
		return errors.New("a think time between turns goes with sessions of 2 turns or more")
	}
	return s.Think.Check()
}

// turns is how many requests one start sends.
func (s Sessions) turns() int { return max(s.Turns, 1) }

// sessionRNG is the draws of session (or closed-loop user) s alone, so
// that its think times do not depend on how the sessions interleave.
func sessionRNG(seed uint64, s int) *rand.Rand {
	return rand.New(rand.NewPCG(seed+uint64(s)+1, seed^0x5851f42d4c957f2d))
}
