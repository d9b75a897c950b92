package metrics

import (
	"sort"
	"strings"

	"github.com/tpsbench/tpsbench/record"
)

// FailureReason is one reason requests of a step failed for: their kind,
// the first such failure's message, and how many failed so. Messages that
// differ only in their numbers (a prompt's length, a request id) are one
// reason.
type FailureReason struct {
	Kind    string `json:"kind"`
	Example string `json:"example"`
	Count   int    `json:"count"`
}

// maxReasons bounds the distinct reasons a step keeps; failures for
// others are counted in Requests.OtherReasons.
const maxReasons = 16

// maxReasonBytes bounds the part of a message that tells reasons apart,
// and an example's length.
const maxReasonBytes = 300

// ReasonKey is what tells two failures' reasons apart: their kind and
// their message with every run of digits as one '#'.
func ReasonKey(kind, msg string) string {
	var b strings.Builder
	b.WriteString(kind)
	b.WriteByte(':')
	digits := false
	for i := 0; i < len(msg) && b.Len() < maxReasonBytes; i++ {
		c := msg[i]
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}

// reasons gathers a step's failure reasons in the order they came.
type reasons struct {
	index map[string]int
	list  []FailureReason
	other int
}

// Reason is a failure's reason as steps gather them: the key that tells
// it apart (ReasonKey) and its message as an example, shortened.
func Reason(e *record.Error) (key, example string) {
	return ReasonKey(e.Kind, e.Message), shorten(e.Message, maxReasonBytes)
}

func (a *reasons) add(e *record.Error) {
	key, example := Reason(e)
	if i, ok := a.index[key]; ok {
		a.list[i].Count++
		return
	}
	if len(a.list) == maxReasons {
		a.other++
		return
	}
	if a.index == nil {
		a.index = map[string]int{}
	}
	a.index[key] = len(a.list)
	a.list = append(a.list, FailureReason{Kind: e.Kind, Example: example, Count: 1})
}

// sorted is the reasons, most frequent first (first come first among
// equals), copied.
func (a *reasons) sorted() []FailureReason {
	out := append([]FailureReason(nil), a.list...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// shorten cuts s to at most n bytes of whole characters.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
