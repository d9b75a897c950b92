package trace

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// burstGPTSample is BurstGPT's CSV as its release writes it, with a
// request that failed in the log (no response tokens).
const burstGPTSample = `Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
5,ChatGPT,472,18,490,Conversation log
45,ChatGPT,1087,0,1087,Conversation log
46.5,GPT-4,417,276,693,API log
`

// TestBurstGPT: BurstGPT's rows are requests arriving their Timestamp (s)
// after the log's start, of their request and response tokens; a row that
// failed in the log is skipped and counted; the format is told by its
// header.
func TestBurstGPT(t *testing.T) {
	rd, err := NewReader(strings.NewReader(burstGPTSample), "burst.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Offset: 0, InputTokens: 472, OutputTokens: 18, Line: 2}, {Index: 1, Offset: 41500 * time.Millisecond, InputTokens: 417, OutputTokens: 276, Line: 4}}
	for i, w := range want {
		var e Entry
		if err := rd.Next(&e); err != nil {
			t.Fatal(err)
		}
		if e.Offset != w.Offset || e.InputTokens != w.InputTokens || e.OutputTokens != w.OutputTokens || e.Line != w.Line || e.Index != i {
			t.Errorf("entry %d: %+v, want %+v", i, e, w)
		}
	}
	var e Entry
	if err := rd.Next(&e); !errors.Is(err, io.EOF) {
		t.Errorf("after the last: %v", err)
	}
	if st := rd.Stats(); st.Skipped != 1 || st.Entries != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestBurstGPTBadRows: a row that is not one names its line and what is
// wrong; a header without the columns read says which it lacks.
func TestBurstGPTBadRows(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"Timestamp,Request tokens\n1,2\n", `"response tokens" column`},
		{"Timestamp,Request tokens,Response tokens\nsoon,2,3\n", "burst.csv:2: timestamp"},
		{"Timestamp,Request tokens,Response tokens\n1,0,3\n", "burst.csv:2: request tokens"},
		{"Timestamp,Request tokens,Response tokens\n1,2,3.5\n", "burst.csv:2: response tokens"},
		{"Timestamp,Request tokens,Response tokens\n1,2\n", "burst.csv:2: 2 fields"},
	} {
		rd, err := NewReader(strings.NewReader(tc.csv), "burst.csv", Options{Format: FormatBurstGPT})
		if err == nil {
			var e Entry
			err = rd.Next(&e)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.csv, err, tc.want)
		}
	}
}
