package report

import (
	"io"
	"strings"

	"github.com/tpsbench/tpsbench/internal/termsafe"
)

// Markdown writes the CSV's figures as tables grouped by kind (throughput,
// then one table per distribution), each with a row per step.
func Markdown(w io.Writer, r *Report) error {
	w = termsafe.Writer(w) // names and kinds come from servers and files
	ew := &errWriter{w: w}
	cols := columns(percentileKeys(r.Steps)...)
	var groups []string
	seen := map[string]bool{}
	// the reasoning and replay tables only when a step has their figures
	present := map[string]bool{}
	for _, s := range r.Steps {
		present[reasoningGroup] = present[reasoningGroup] || s.Reasoning != nil
		present[replayGroup] = present[replayGroup] || s.Replay != nil
		present[sessionsGroup] = present[sessionsGroup] || s.Sessions != nil
	}
	for _, c := range cols {
		if optional := c.group == reasoningGroup || c.group == replayGroup || c.group == sessionsGroup; optional && !present[c.group] {
			continue
		}
		if c.group != "steps" && !seen[c.group] {
			seen[c.group] = true
			groups = append(groups, c.group)
		}
	}
	ew.printf("# tpsbench %s\n", r.Version)
	if r.Note != "" {
		ew.printf("\n%s\n", r.Note)
	}
	if len(r.Sent) > 0 {
		ew.printf("\nSent with every request: %s\n", mdEscape(sentLine(r.Sent)))
	}
	for _, g := range groups {
		ew.printf("\n## %s\n\n", g)
		head := []string{"step"}
		for _, c := range cols {
			if c.group == g {
				name := c.name
				if g != reasoningGroup && g != replayGroup && g != sessionsGroup { // reasoning_tps would lose what it is
					name = strings.TrimPrefix(name, g+"_")
				}
				head = append(head, name)
			}
		}
		ew.printf("| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for si := range r.Steps {
			s := &r.Steps[si]
			cells := []string{mdEscape(s.Label)}
			for _, c := range cols {
				if c.group == g {
					cells = append(cells, mdCell(c.value(s)))
				}
			}
			ew.printf("| %s |\n", strings.Join(cells, " | "))
		}
	}
	if r.Compare && len(r.Steps) > 1 {
		ratioCols := ratioViewOf(r.Steps).resolve()
		ew.printf("\n## against %s\n\n| step |", mdEscape(r.Steps[0].Label))
		for _, c := range ratioCols {
			ew.printf(" %s |", c.heading)
		}
		ew.printf("\n|%s\n", strings.Repeat("---|", len(ratioCols)+1))
		for i := range r.Steps {
			ew.printf("| %s |", mdEscape(r.Steps[i].Label))
			for _, c := range ratioCols {
				ew.printf(" %s |", c.ratio(&r.Steps[i], &r.Steps[0]))
			}
			ew.printf("\n")
		}
	}
	if len(r.Steps) > 0 {
		ew.printf("\n## steps\n\n| step | model | url | api | concurrency | rate |\n|---|---|---|---|---|---|\n")
		for _, s := range r.Steps {
			ew.printf("| %s | %s | %s | %s | %d | %s |\n", mdEscape(s.Label), mdEscape(s.Model), mdEscape(s.URL), s.API, s.Concurrency, f64(s.Rate))
		}
	}
	failed := false
	for _, s := range r.Steps {
		failed = failed || len(s.Requests.Reasons) > 0
	}
	if failed {
		ew.printf("\n## why requests failed\n\n| step | kind | requests | first message |\n|---|---|---|---|\n")
		for _, s := range r.Steps {
			for _, f := range s.Requests.Reasons {
				ew.printf("| %s | %s | %d | %s |\n", mdEscape(s.Label), f.Kind, f.Count, mdEscape(strings.ReplaceAll(f.Example, "\n", " ")))
			}
			if s.Requests.OtherReasons > 0 {
				ew.printf("| %s | other reasons | %d | |\n", mdEscape(s.Label), s.Requests.OtherReasons)
			}
		}
	}
	return ew.err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdCell shows an absent figure (an empty value) as "-".
func mdCell(s string) string {
	if s == "" {
		return "-"
	}
	return mdEscape(s)
}
