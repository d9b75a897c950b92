package workload

import (
	"reflect"
	"testing"

	"github.com/tpsbench/tpsbench/content"
)

// TestBatched: request seq of a batch of 3 carries items 3*seq to
// 3*seq+2 of its source, in order; a chat item's text is its messages'.
func TestBatched(t *testing.T) {
	items := []Item{{Prompt: "a"}, {Prompt: "b"}, {Messages: []content.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "c"}}}, {Prompt: "d"}, {Prompt: "e"}}
	list, err := NewListInOrder(items)
	if err != nil {
		t.Fatal(err)
	}
	b := Batched{Source: list, Size: 3}
	if got := b.Item(0, false).Inputs; !reflect.DeepEqual(got, []string{"a", "b", "s\nc"}) {
		t.Errorf("request 0: %q", got)
	}
	if got := b.Item(1, false).Inputs; !reflect.DeepEqual(got, []string{"d", "e", "a"}) {
		t.Errorf("request 1: %q (the source cycles after e)", got)
	}
}
