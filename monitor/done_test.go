package monitor

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestProxyClientLeavingAfterDone: the OpenAI Node SDK closes its
// connection the moment it reads data: [DONE], and an upstream may end
// its body a little later; the proxy recorded 15 of 40 such complete
// streams as canceled. A response whose [DONE] has passed is complete.
func TestProxyClientLeavingAfterDone(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t%d\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":3}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
		w.(http.Flusher).Flush()
		select { // the body ends only after the client has left
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer up.Close()
	defer close(release)
	proxy, buf, _ := proxyTo(t, up.URL)
	const streams = 40
	var wg sync.WaitGroup
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{} // a connection each, closed as the SDK does
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Post(proxy.URL+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"model":"m","max_tokens":3,"stream":true}`))
			if err != nil {
				t.Error(err)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() && sc.Text() != "data: [DONE]" {
			}
			resp.Body.Close() // before the body's end: the connection closes
		}()
	}
	wg.Wait()
	recs := records(t, buf, streams)
	if len(recs) != streams {
		t.Fatalf("%d records of %d streams", len(recs), streams)
	}
	for _, r := range recs {
		if !r.OK() || r.OutputTokens != 3 {
			t.Errorf("request %d: %d tokens, error %+v", r.Seq, r.OutputTokens, r.Error)
		}
	}
}
