package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/tokencount"
)

func newProxyCmd() *cobra.Command {
	var upstream, listen, records, apiKeyEnv, tokenizer string
	var recordPrompts bool
	var tlsOpts client.TLSOptions
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL",
		Short: "Measure real traffic: a proxy in front of an OpenAI-compatible server (or Ollama) exporting TTFT, TPOT, ITL and TPS on /metrics, and recording a trace to replay",
		Example: `  tpsbench proxy --upstream http://127.0.0.1:8000 --listen 127.0.0.1:8080 --records traffic.jsonl
  tpsbench report traffic.jsonl
  tpsbench run --url http://127.0.0.1:8001 --trace traffic.jsonl --records replay.jsonl
  tpsbench compare traffic.jsonl replay.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			upstreamTLS, err := tlsOpts.Config()
			if err != nil {
				return usagef("TLS: %v", err)
			}
			client.UseTLS(upstreamTLS) // before the proxy's transport copies the default one
			var sink monitor.RecordSink
			if records != "" {
				w, cut, err := record.OpenFile(records)
				if err != nil {
					return err
				}
				defer w.Close()
				if cut > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "tpsbench: warning: %s ended in a partial line (%d bytes, a killed writer's); cut it\n", records, cut)
				}
				sink = w
			}
			p, err := monitor.NewProxy(upstream, monitor.NewExporter(), sink)
			if err != nil {
				return usageError{fmt.Errorf("--upstream: %w", monitor.ErrUpstream)}
			}
			p.Log = cmd.ErrOrStderr()
			if recordPrompts && records == "" {
				return usagef("--record-prompts keeps prompts in --records: give it a file")
			}
			p.RecordPrompts = recordPrompts
			if p.Tokenizer, err = textCounter(tokenizer, true); err != nil {
				return usageError{err}
			}
			if p.Fallback, err = textCounter("", false); err != nil {
				return err
			}
			p.APIKey = os.Getenv(apiKeyEnv)
			stop, url, err := p.Serve(listen)
			if err != nil {
				return err
			}
			defer stop()
			fmt.Fprintf(cmd.ErrOrStderr(), "proxying %s at %s (metrics at %s/metrics)\n", client.Redact(upstream), url, url)
			ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			<-ctx.Done()
			return nil
		},
	}
	addTLSFlags(cmd.Flags(), &tlsOpts)
	cmd.Flags().StringVar(&upstream, "upstream", "", "the server to forward to, e.g. http://127.0.0.1:8000")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "listen address (loopback unless told otherwise)")
	cmd.Flags().StringVar(&records, "records", "", "append a record of every measured request to this JSONL file")
	cmd.Flags().StringVar(&tokenizer, "tokenizer", "", "client-side tokenizer (cl100k, o200k, or a tokenizer.json) that counts responses without usage; whole responses without usage are counted with "+tokencount.Default+" when none is given")
	cmd.Flags().BoolVar(&recordPrompts, "record-prompts", false, "keep each request's prompt in its record, so that a replay (run --trace) sends it again; without it records hold a keyed fingerprint of the prompt's blocks, never its text")
	cmd.Flags().StringVar(&apiKeyEnv, "api-key-env", "TPSBENCH_PROXY_API_KEY", "environment variable whose value, when set, clients must send as a bearer token (or as x-api-key, as Anthropic's clients do)")
	return cmd
}
