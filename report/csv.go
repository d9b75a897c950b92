package report

import (
	"encoding/csv"
	"io"

	"github.com/tpsbench/tpsbench/internal/termsafe"
)

// CSV writes one header row and one row per step.
func CSV(w io.Writer, r *Report) error {
	cols := columns(percentileKeys(r.Steps)...)
	cw := csv.NewWriter(termsafe.Writer(w)) // names and kinds come from servers and files
	row := make([]string, len(cols))
	for i, c := range cols {
		row[i] = c.name
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	for si := range r.Steps {
		for i, c := range cols {
			row[i] = c.value(&r.Steps[si])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
