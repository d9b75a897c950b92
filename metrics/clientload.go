package metrics

// ClientLoad is the CPU the measuring process spent over a step. A client
// that takes most of the machine's cores delays reading and sending, and
// then the figures show its limit rather than the server's.
type ClientLoad struct {
	CPUSeconds  float64 `json:"cpu_s"`
	WallSeconds float64 `json:"wall_s"`
	Cores       int     `json:"cores"`     // GOMAXPROCS: what the process could use
	Share       float64 `json:"cpu_share"` // CPU-s / (wall-s x cores)
	// PeakBytes is the most memory the process held resident over the
	// step (its own fixed memory included), for Streams at once; 0 where
	// the system does not say.
	PeakBytes int64 `json:"peak_bytes,omitempty"`
	Streams   int   `json:"streams,omitempty"`
}

// BusyShare is the share of the cores above which a client's figures are
// in doubt.
const BusyShare = 0.75

// NewClientLoad is the load of cpu seconds over wall seconds on cores.
func NewClientLoad(cpu, wall float64, cores int) *ClientLoad {
	c := &ClientLoad{CPUSeconds: cpu, WallSeconds: wall, Cores: cores}
	if wall > 0 && cores > 0 {
		c.Share = cpu / (wall * float64(cores))
	}
	return c
}

// BytesPerStream is the peak memory over the streams, or 0 when either is
// unknown: an upper bound of a stream's own, the process's fixed memory
// spread over them.
func (c *ClientLoad) BytesPerStream() int64 {
	if c.PeakBytes <= 0 || c.Streams <= 0 {
		return 0
	}
	return c.PeakBytes / int64(c.Streams)
}

// Busy reports whether the client used enough of the machine to doubt
// the step's figures.
func (c *ClientLoad) Busy() bool { return c.Share >= BusyShare }

// OpenedConnections is how many connections a client opened before a
// step, and how long that took (ms): dial time no request's figures hold.
type OpenedConnections struct {
	Count int
	MS    float64
}
