package metrics

// Energy is the energy a step spent, as a meter (RAPL, DCGM) read it
// around the step, over its output tokens; or why there is no figure.
type Energy struct {
	Source         string  `json:"source"`
	Joules         float64 `json:"joules,omitempty"`
	JoulesPerToken float64 `json:"joules_per_token,omitempty"`
	TokensPerJoule float64 `json:"tokens_per_joule,omitempty"`
	Unavailable    string  `json:"unavailable,omitempty"`
}

// NewEnergy is the step's energy figures from the joules a meter read.
func NewEnergy(source string, joules float64, outputTokens int64, unavailable string) *Energy {
	e := &Energy{Source: source, Unavailable: unavailable}
	if unavailable != "" {
		return e
	}
	e.Joules = joules
	if outputTokens > 0 && joules > 0 {
		e.JoulesPerToken = joules / float64(outputTokens)
		e.TokensPerJoule = float64(outputTokens) / joules
	}
	return e
}
