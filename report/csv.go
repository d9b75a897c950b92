package report

import (
	"encoding/csv"
	"io"
)

// CSV writes one header row and one row per step.
func CSV(w io.Writer, r *Report) error {
	cols := columns()
	cw := csv.NewWriter(w)
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
