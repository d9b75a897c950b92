package metrics

import (
	"fmt"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// Failures are told apart by kind and message, numbers aside, and a step
// says why its requests failed with a count and the first message of
// each reason: "Failures: http_status 23" alone sent users to the records.
func TestFailureReasons(t *testing.T) {
	acc := NewAccumulator(Targets{})
	fail := func(kind, msg string) {
		acc.Add(&record.Record{V: 3, Sent: 1, Done: 2, Error: &record.Error{Kind: kind, Message: msg}})
	}
	for i := 0; i < 3; i++ {
		fail(record.KindHTTPStatus, fmt.Sprintf("HTTP 400 Bad Request: the prompt has %d tokens; the context holds 4096", 5000+i))
	}
	fail(record.KindHTTPStatus, "HTTP 404 Not Found: no model")
	fail(record.KindTimeout, "HTTP 400 Bad Request: the prompt has 1 tokens; the context holds 4096") // another kind
	for i := 0; i < 20; i++ {
		fail(record.KindServerError, fmt.Sprintf("error %c", 'a'+i))
	}
	s := acc.Summary()
	r := s.Requests.Reasons
	if len(r) != maxReasons || s.Requests.OtherReasons != 7 {
		t.Fatalf("%d reasons, %d other failures; want %d and 7", len(r), s.Requests.OtherReasons, maxReasons)
	}
	if r[0].Kind != record.KindHTTPStatus || r[0].Count != 3 || r[0].Example != "HTTP 400 Bad Request: the prompt has 5000 tokens; the context holds 4096" {
		t.Errorf("first reason %+v", r[0])
	}
	if r[1].Count != 1 || r[1].Example != "HTTP 404 Not Found: no model" || r[2].Kind != record.KindTimeout {
		t.Errorf("then %+v, %+v: want the rest in the order they came", r[1], r[2])
	}
	total := s.Requests.OtherReasons
	for _, x := range r {
		total += x.Count
	}
	if total != s.Requests.Failed {
		t.Errorf("reasons count %d failures of %d", total, s.Requests.Failed)
	}
}
