package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/termsafe"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
)

func newChatCmd() *cobra.Command {
	var model, api, system, apiKeyEnv string
	var maxTokens int
	cmd := &cobra.Command{
		Use:   "chat URL",
		Short: "Chat with a server, each reply printed as it streams, then its tokens, TPS, TTFT and TPOT (reads a pipe too)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxTokens < 1 || maxTokens > record.MaxTokens {
				return usagef("--max-tokens %d: want 1 to %d", maxTokens, record.MaxTokens)
			}
			out := cmd.OutOrStdout()
			text := termsafe.Writer(out) // a server's text draws nothing on the terminal
			key := os.Getenv(apiKeyEnv)
			if model == "" {
				ids, err := client.ListModels(cmd.Context(), args[0], api, key, nil)
				if err != nil || len(ids) == 0 {
					return fmt.Errorf("asking %s for its models (or give --model): %v", args[0], err)
				}
				model = ids[0]
			}
			cl, err := client.NewHTTP(client.HTTPConfig{URL: args[0], API: api, Stream: true, APIKey: key,
				OnToken: func(_ int64, _ int, s string) { io.WriteString(text, s) }})
			if err != nil {
				return usageError{err}
			}
			defer cl.Close()
			conv := &client.Conversation{Client: cl, Model: model, MaxTokens: maxTokens, System: system}
			in := cmd.InOrStdin()
			interactive := false
			if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				interactive = true
				fmt.Fprintf(cmd.ErrOrStderr(), "Chatting with %s at %s; an empty line or Ctrl-D ends it.\n", model, args[0])
			}
			lines := bufio.NewReader(in)
			for {
				if interactive {
					fmt.Fprint(out, "> ")
				}
				line, err := lines.ReadString('\n')
				line = strings.TrimSpace(line)
				if line == "" {
					if err == nil && !interactive {
						continue // blank lines of a piped script
					}
					return readEnd(err)
				}
				var rec record.Record
				conv.Say(cmd.Context(), line, &rec)
				fmt.Fprintln(out)
				fmt.Fprintln(out, turnFigures(&rec))
				if cmd.Context().Err() != nil {
					return nil
				}
				if err != nil {
					return readEnd(err)
				}
			}
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "the model to chat with (default: the first the server lists)")
	cmd.Flags().StringVar(&api, "api", client.APIChat, "the server's API: chat, responses, anthropic or ollama (any that takes chat messages)")
	cmd.Flags().StringVar(&system, "system", "", "a system message to open the conversation with")
	cmd.Flags().IntVar(&maxTokens, "max-tokens", 512, "at most this many tokens a reply")
	cmd.Flags().StringVar(&apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key, sent when set")
	return cmd
}

// readEnd is the end of the conversation's input: its end is no error.
func readEnd(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("reading the conversation: %w", err)
}

// turnFigures is one turn's figures in a line, as docs/metrics.md defines
// them for a single request, or why it failed.
func turnFigures(rec *record.Record) string {
	if !rec.OK() {
		return fmt.Sprintf("[failed (%s): %s]", rec.Error.Kind, rec.Error.Message)
	}
	acc := metrics.NewAccumulator(metrics.Targets{})
	acc.Add(rec)
	s := acc.Summary()
	line := fmt.Sprintf("[%d tokens in %.3f s: %.2f tokens/s, TTFT %.2f ms", s.OutputTokens, s.E2E.Mean/1e3, s.RequestTPS.Mean, s.TTFT.Mean)
	if s.TPOT.Count > 0 {
		line += fmt.Sprintf(", TPOT %.2f ms (%.2f tokens/s after the first)", s.TPOT.Mean, s.DecodeTPS.Mean)
	}
	return line + "]"
}
