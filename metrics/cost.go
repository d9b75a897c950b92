package metrics

// Cost is what a step's tokens cost at a machine's price per hour: the
// dollars a million output (and input) tokens take at the step's rates.
type Cost struct {
	PerHour          float64 `json:"usd_per_hour"`
	PerMillionOutput float64 `json:"usd_per_million_output_tokens,omitempty"`
	PerMillionInput  float64 `json:"usd_per_million_input_tokens,omitempty"`
}

// CostAt is the step's cost at perHour dollars an hour, or nil when the
// step made no tokens to price.
func CostAt(s *Summary, perHour float64) *Cost {
	if perHour <= 0 || s.DurationS <= 0 {
		return nil
	}
	c := &Cost{PerHour: perHour}
	if s.OutputTokens > 0 {
		c.PerMillionOutput = perHour / (float64(s.OutputTokens) / s.DurationS * 3600) * 1e6
	}
	if s.InputTokens > 0 {
		c.PerMillionInput = perHour / (float64(s.InputTokens) / s.DurationS * 3600) * 1e6
	}
	if c.PerMillionOutput == 0 && c.PerMillionInput == 0 {
		return nil
	}
	return c
}
