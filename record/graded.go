package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// answerHashLen is how many hex digits of an answer's SHA-256 a record
// keeps: 64 bits, no collision among the answers of any question set.
const answerHashLen = 16

// Graded keeps the verdict on the request's answer and the answer's
// fingerprint.
func (r *Record) Graded(right bool, answer string) {
	r.Correct = &right
	sum := sha256.Sum256([]byte(answer))
	r.AnswerHash = hex.EncodeToString(sum[:])[:answerHashLen]
}

// answerHash holds a record's answer fingerprint to what Graded writes.
func (c *checker) answerHash(r *Record) {
	h := r.AnswerHash
	if h == "" {
		return
	}
	_, err := hex.DecodeString(h)
	if len(h) != answerHashLen || err != nil {
		if c.broke("answer hash", fmt.Errorf("record %d: answer hash %q: want %d hex digits", r.Seq, cut(h), answerHashLen)) {
			r.AnswerHash = ""
		}
	}
}
