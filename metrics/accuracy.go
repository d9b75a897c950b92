package metrics

import "github.com/tpsbench/tpsbench/record"

// Accuracy is how a step's graded answers fared (the requests of an
// accuracy set's questions, record.Record.Correct), asked under the
// step's load: a server that answers fast and wrong is not fast.
type Accuracy struct {
	Graded  int     `json:"graded"`  // completed requests whose answers were graded
	Correct int     `json:"correct"` // of them, right
	Share   float64 `json:"share"`   // Correct / Graded
	// Batch invariance: of this step's answers to the requests that the
	// first graded step also answered (by request number, so the same
	// questions in turn), Compared were compared and SameAsFirst were
	// that step's answer to the letter (record.Record.AnswerHash). At
	// temperature 0, a server whose batching changes no answer keeps
	// SameAsFirst at Compared. The first graded step (Base) has none.
	Base        string `json:"base,omitempty"`
	Compared    int    `json:"compared,omitempty"`
	SameAsFirst int    `json:"same_as_first,omitempty"`

	answers map[int]string // request number -> answer fingerprint
}

// accuracyAcc gathers a step's graded answers.
type accuracyAcc struct {
	graded, correct int
	answers         map[int]string
}

// add counts a completed request's verdict, if it was graded.
func (a *accuracyAcc) add(r *record.Record) {
	if r.Correct == nil {
		return
	}
	a.graded++
	if *r.Correct {
		a.correct++
	}
	if r.AnswerHash != "" {
		if a.answers == nil {
			a.answers = map[int]string{}
		}
		a.answers[r.Seq] = r.AnswerHash
	}
}

// summary is the step's accuracy, or nil when nothing was graded.
func (a *accuracyAcc) summary() *Accuracy {
	if a.graded == 0 {
		return nil
	}
	return &Accuracy{Graded: a.graded, Correct: a.correct, Share: float64(a.correct) / float64(a.graded), answers: a.answers}
}

// compareAnswers sets each graded step's answers against the first
// graded step's (Accuracy's batch invariance).
func compareAnswers(steps []Summary) {
	var base *Summary
	for i := range steps {
		acc := steps[i].Accuracy
		if acc == nil {
			continue
		}
		if base == nil {
			base = &steps[i]
			continue
		}
		acc.Base = base.Label
		for seq, h := range acc.answers {
			if first, ok := base.Accuracy.answers[seq]; ok {
				acc.Compared++
				if first == h {
					acc.SameAsFirst++
				}
			}
		}
	}
}
