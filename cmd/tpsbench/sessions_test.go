package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestSessionsAsTheServerSawThem: --turns 3 --think-time 40ms by two
// users, held to the scripted server's log. Each session's turn k carries
// the 2k-1 messages of the conversation so far, the server's own answers
// among them word for word; each later turn reached the server no sooner
// than the think time after the server sent the last token of the turn
// before; and the records place every request in its session.
func TestSessionsAsTheServerSawThem(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 2 * time.Millisecond, Gap: time.Millisecond, Word: " hi", Usage: true})
	defer srv.Close()
	const think = 40 * time.Millisecond
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, stdout, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompt", "Tell me more", "--max-tokens", "4",
		"--turns", "3", "--think-time", think.String(), "--concurrency", "2", "--requests", "6", "--records", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "Sessions: 2, of 3 turns each") {
		t.Errorf("report:\n%s", stdout)
	}
	if _, md, _ := cli(t, "report", out, "--format", "markdown"); !strings.Contains(md, "## sessions") || !strings.Contains(md, "| sessions | session_turns |") {
		t.Errorf("markdown report has no sessions table:\n%s", md)
	}
	f, _ := os.Open(out)
	defer f.Close()
	rd := record.NewReader(f, out)
	byTurn := map[[2]int]record.Record{}
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		byTurn[[2]int{r.Session, r.Turn}] = r
	}
	if len(byTurn) != 6 {
		t.Fatalf("%d session turns recorded, want 6: %v", len(byTurn), byTurn)
	}
	for key, r := range byTurn {
		session, turn := key[0], key[1]
		if session < 1 || session > 2 || turn < 1 || turn > 3 {
			t.Fatalf("session %d turn %d", session, turn)
		}
		log, ok := srv.Log(r.ResponseID)
		if !ok {
			t.Fatalf("no server log of %s", r.ResponseID)
		}
		var body struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(log.Request, &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Messages) != 2*turn-1 {
			t.Errorf("session %d turn %d sent %d messages, want %d", session, turn, len(body.Messages), 2*turn-1)
			continue
		}
		for i, m := range body.Messages {
			want := "user"
			if i%2 == 1 {
				want = "assistant"
			}
			if m.Role != want || (want == "user" && m.Content != "Tell me more") {
				t.Errorf("session %d turn %d message %d: %s %q", session, turn, i, m.Role, m.Content)
			}
			if want == "assistant" && m.Content != strings.Repeat(" hi", 4) {
				t.Errorf("session %d turn %d: answer %q sent back, the server sent %q", session, turn, m.Content, strings.Repeat(" hi", 4))
			}
		}
		if turn > 1 {
			prev, _ := srv.Log(byTurn[[2]int{session, turn - 1}].ResponseID)
			lastToken := prev.Events[len(prev.Events)-1]
			if gap := log.Received.Sub(lastToken); gap < think {
				t.Errorf("session %d turn %d reached the server %v after the last token before it, under the think time %v", session, turn, gap, think)
			}
		}
	}
}

// TestUsersThinkAsTheServerSawThem: --think-time without --turns (one
// user here): each request reached the server no sooner than the think
// time after it sent the last token of the one before, and carried no
// history.
func TestUsersThinkAsTheServerSawThem(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 2 * time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer srv.Close()
	const think = 30 * time.Millisecond
	out := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--max-tokens", "3", "--think-time", think.String(),
		"--requests", "3", "--records", out, "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, _ := os.Open(out)
	defer f.Close()
	rd := record.NewReader(f, out)
	bySeq := map[int]record.Record{}
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		bySeq[r.Seq] = r
	}
	for seq := 1; seq < 3; seq++ {
		prev, _ := srv.Log(bySeq[seq-1].ResponseID)
		cur, _ := srv.Log(bySeq[seq].ResponseID)
		if gap := cur.Received.Sub(prev.Events[len(prev.Events)-1]); gap < think {
			t.Errorf("request %d reached the server %v after the last token before it, under %v", seq, gap, think)
		}
		if strings.Contains(string(cur.Request), "assistant") {
			t.Errorf("request %d carried history: %s", seq, cur.Request)
		}
	}
}

// TestReportSaysWhatWasSent: the report says what every request carried
// besides its prompt, in the body's own names, and it is what the server
// received.
func TestReportSaysWhatWasSent(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--max-tokens", "3", "--requests", "2",
		"--temperature", "0.5", "--top-p", "0.9", "--extra-body", `{"priority":1}`, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `Sent with every request: priority 1, stream true, stream_options {"include_usage":true}, temperature 0.5, top_p 0.9`
	if !strings.Contains(out, want) {
		t.Errorf("report lacks %q:\n%s", want, out)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.All()[0].Request, &body); err != nil {
		t.Fatal(err)
	}
	if body["priority"] != 1.0 || body["temperature"] != 0.5 || body["top_p"] != 0.9 {
		t.Errorf("the server received %v", body)
	}
}
